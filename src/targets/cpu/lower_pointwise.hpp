#ifndef MIGRAPHX_CPU_LOWER_POINTWISE_HPP
#define MIGRAPHX_CPU_LOWER_POINTWISE_HPP

#include <migraphx/module.hpp>
#include "targets/cpu/pointwise_kernel.hpp"
#include <optional>
#include <string>
#include <utility>
#include <vector>

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

/// The kernel (and its tensor inputs) for a fused `pointwise` instruction or a single float
/// elementwise op, where the kernel can run it; lower_actual_sizes uses it for the
/// data-dependent ones, which this pass leaves alone.
std::optional<std::pair<pointwise_kernel, std::vector<instruction_ref>>> pointwise_kernel_for(instruction_ref ins);

} // namespace cpu
} // namespace migraphx

#endif
