#ifndef MIGRAPHX_CPU_LOWER_POINTWISE_HPP
#define MIGRAPHX_CPU_LOWER_POINTWISE_HPP

#include <migraphx/module.hpp>
#include <string>

namespace migraphx {
namespace cpu {

/// Float elementwise work becomes cpu::pointwise kernels: each fused `pointwise` instruction
/// (fuse_pointwise) whose sub-module the kernel can run, and each remaining single elementwise op.
/// Scalar constants move into the kernel.
struct lower_pointwise
{
    std::string name() const { return "cpu::lower_pointwise"; }
    void apply(module& m) const;
};

} // namespace cpu
} // namespace migraphx

#endif
