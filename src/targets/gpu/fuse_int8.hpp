#ifndef MIGRAPHX_GPU_FUSE_INT8_HPP
#define MIGRAPHX_GPU_FUSE_INT8_HPP

#include <migraphx/module.hpp>
#include <string>

namespace migraphx {
namespace gpu {

/// quantize_int8's ops on the gpu. First, each 2-d int8 convolution with constant weights whose
/// result is dequantized per channel, then maybe converted (float/half), biased, added to a
/// residual and relu'd, becomes one `int8_convolution` (ops/int8_convolution.cpp), which
/// lowering runs as one cuDNN int8 graph (NHWC): the dequantize's scales, its zero point and
/// the bias fold into the epilogue; where the chain's one user quantizes it again (per tensor,
/// zero point 0) for int8 convolutions only, that quantize folds in too and the result is int8.
/// A quant_dot of signed int8 operands that gpu_int8_gemm_fits takes stays (lowering runs it
/// as cuBLASLt's int8 product, gpu::gemm). Then every quantize op left (quantizelinear,
/// dequantizelinear, quant_convolution, other quant_dots: other shapes, depthwise, uint8)
/// becomes the same arithmetic in float
/// (convert, div, round, clip; a float convolution or dot of the integer values, exact while
/// the sums stay below 2^24), which fuse_pointwise and lowering then run on the device instead
/// of the host. Runs first (before simplify_passes). MIGRAPHX_DISABLE_INT8_FUSION=1 keeps only
/// the float rewrite (no int8 kernels at all).
struct fuse_int8
{
    std::string name() const { return "gpu::fuse_int8"; }
    void apply(module& m) const;
};

} // namespace gpu
} // namespace migraphx

#endif
