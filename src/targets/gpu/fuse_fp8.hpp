#ifndef MIGRAPHX_GPU_FUSE_FP8_HPP
#define MIGRAPHX_GPU_FUSE_FP8_HPP

#include <migraphx/module.hpp>
#include <string>

namespace migraphx {
namespace gpu {

/// quantize_fp8's products on the gpu: dot(dequantizelinear(a, sa[, 0]), dequantizelinear(b,
/// sb[, 0])) with a and b fp8e4m3fn and sa, sb one value each becomes fp8_dot[alpha = sa * sb]
/// (a, b) (ops/dot.cpp), which lowering runs as one cuBLASLt fp8 product (gpu::gemm, with its
/// bias, GELU and residual epilogues). Only on devices with fp8 tensor cores (sm_89 and later)
/// and where cuBLASLt's fp8 kernels take the shapes (K and N multiples of 16); elsewhere the
/// dequantizes stay and fuse_int8 runs them as arithmetic in float. Runs first: the weights'
/// dequantize is a constant expression that propagate_constant would fold into half.
/// MIGRAPHX_DISABLE_FP8_GEMM=1 turns it off.
struct fuse_fp8
{
    int sm = 0; ///< the device's compute capability, major * 10 + minor
    std::string name() const { return "gpu::fuse_fp8"; }
    void apply(module& m) const;
};

} // namespace gpu
} // namespace migraphx

#endif
