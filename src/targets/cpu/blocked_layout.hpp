#ifndef MIGRAPHX_CPU_BLOCKED_LAYOUT_HPP
#define MIGRAPHX_CPU_BLOCKED_LAYOUT_HPP

#include <migraphx/context.hpp>
#include <migraphx/module.hpp>
#include <string>

namespace migraphx {
namespace cpu {

/// Runs chains of oneDNN convolutions and poolings (and the elementwise ops between them) in
/// channels-last nhwc (AVX-512 machines: oneDNN's brgemm convolutions) or the blocked nChw8c
/// (others; MIGRAPHX_CPU_LAYOUT picks), where oneDNN has a fast kernel for it: each value is
/// reordered into the layout once, where the chain starts, and back once, where a consumer needs
/// the plain layout.
struct blocked_layout
{
    context* ctx = nullptr;
    std::string name() const { return "cpu::blocked_layout"; }
    void apply(module& m) const;
};

} // namespace cpu
} // namespace migraphx

#endif
