#ifndef MIGRAPHX_CPU_BLOCKED_LAYOUT_HPP
#define MIGRAPHX_CPU_BLOCKED_LAYOUT_HPP

#include <migraphx/context.hpp>
#include <migraphx/module.hpp>
#include <cstddef>
#include <string>

namespace migraphx {
namespace cpu {

/// Runs chains of oneDNN convolutions and poolings (and the elementwise ops between them) in the
/// layout `module_layout` picks, where oneDNN has a fast kernel for it: each value is reordered
/// into the layout once, where the chain starts, and back once, where a consumer needs the plain
/// layout.
struct blocked_layout
{
    context* ctx = nullptr;
    std::string name() const { return "cpu::blocked_layout"; }
    void apply(module& m) const;
};

/// What a rewrite did: convolutions left in the plain layout (channels that do not fit the
/// blocks, or no fast kernel for them) and convolutions made Winograd ones.
struct layout_stats
{
    std::size_t left_plain = 0;
    std::size_t winograd   = 0;
    std::size_t shuffles   = 0; // channel shuffles run as cpu::channel_shuffle
};

/// The rewrite itself, for one layout ("nhwc", "blocked8", "blocked16").
layout_stats rewrite_layout(module& m, context& ctx, const std::string& layout);

/// The layout for m: MIGRAPHX_CPU_LAYOUT's where set; without AVX-512 nChw8c (oneDNN's AVX2
/// kernels); with it nChw16c where every convolution of m fits 16-channel blocks and some run
/// oneDNN's F(2x2,3x3) Winograd kernels (ResNet-50's 3x3 layers), else channels-last nhwc
/// (oneDNN's brgemm kernels, any channel count).
std::string module_layout(const module& m, context& ctx);

} // namespace cpu
} // namespace migraphx

#endif
