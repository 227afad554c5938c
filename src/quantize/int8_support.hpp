#ifndef MIGRAPHX_QUANTIZE_INT8_SUPPORT_HPP
#define MIGRAPHX_QUANTIZE_INT8_SUPPORT_HPP

#include <migraphx/shape.hpp>
#include <cstdint>

namespace migraphx {

/// Whether the gpu's int8 convolution (cuDNN, NHWC; gpu::fuse_int8) takes a convolution of x
/// {N, C, H, W} by w {K, C, R, S} with this group: 2-d, not grouped, C and K multiples of 16.
/// quantize_int8 for the gpu leaves the others in float. Defined in quantize_int8.cpp.
bool gpu_int8_convolution_fits(const shape& x, const shape& w, std::int64_t group);

/// Whether the gpu's int8 product (cuBLASLt, int8 x int8 -> int32) takes a dot of a {..., M, K}
/// by b {..., K, N}: K and N multiples of 4 (cuBLASLt's int8 kernels read and write rows of
/// 4-byte multiples). The others stay in float on the gpu, as do products of two activations
/// (quantize_int8's rule, kept for the fused attention). Defined in quantize_int8.cpp.
bool gpu_int8_gemm_fits(const shape& a, const shape& b);

/// Whether a quant_dot of a by b runs as that int8 product: signed int8 operands that
/// gpu_int8_gemm_fits takes (gpu::fuse_int8 keeps such quant_dots, lowering makes them gemms).
bool gpu_int8_gemm_runs(const shape& a, const shape& b);

} // namespace migraphx

#endif
