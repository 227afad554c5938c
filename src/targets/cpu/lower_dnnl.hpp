#ifndef MIGRAPHX_CPU_LOWER_DNNL_HPP
#define MIGRAPHX_CPU_LOWER_DNNL_HPP

#include "targets/cpu/dnnl_ops.hpp"
#include <migraphx/module.hpp>
#include <optional>
#include <string>

namespace migraphx {
namespace cpu {

/// convolution, dot, pooling and convolution_backwards (float) become oneDNN ops, taking in the per-channel bias add,
/// a residual add and activations that follow them as oneDNN post-ops.
struct lower_dnnl
{
    std::string name() const { return "cpu::lower_dnnl"; }
    void apply(module& m) const;
};

/// A float convolution as a oneDNN op with no post-ops, plain layouts and weights as given, or
/// nothing (a dynamic auto pad, another type).
std::optional<dnnl_convolution> plain_dnnl_convolution(instruction_ref ins);
/// A float convolution_backwards (ONNX ConvTranspose) of 1-3 spatial dims with explicit padding.
std::optional<dnnl_deconvolution> plain_dnnl_deconvolution(instruction_ref ins);
/// The same for a float dot of rank 2 or more with no empty operand.
std::optional<dnnl_matmul> plain_dnnl_matmul(instruction_ref ins);

} // namespace cpu
} // namespace migraphx

#endif
