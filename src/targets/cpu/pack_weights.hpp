#ifndef MIGRAPHX_CPU_PACK_WEIGHTS_HPP
#define MIGRAPHX_CPU_PACK_WEIGHTS_HPP

#include <migraphx/context.hpp>
#include <migraphx/module.hpp>
#include <string>

namespace migraphx {
namespace cpu {

/// Constant weights of oneDNN convolutions and matmuls are reordered once, at compile time, into
/// the format the chosen kernel reads, so no run pays for it.
struct pack_weights
{
    context* ctx = nullptr;
    std::string name() const { return "cpu::pack_weights"; }
    void apply(module& m) const;
};

} // namespace cpu
} // namespace migraphx

#endif
