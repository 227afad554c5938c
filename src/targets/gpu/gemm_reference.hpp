#ifndef MIGRAPHX_GPU_GEMM_REFERENCE_HPP
#define MIGRAPHX_GPU_GEMM_REFERENCE_HPP

// The exact result of a cuBLASLt product at sampled outputs, for the gemm search's accuracy check
// (half_accuracy.hpp): no cuBLASLt, no device. A half product accumulated in float comes within
// about one rounding of it; a split-K algorithm whose partial sums are added in half (cuBLASLt's
// in-place and output-type reductions) comes further from it.

#include "targets/gpu/half_accuracy.hpp"
#include <cstddef>
#include <cstdint>

namespace migraphx {
namespace gpu {
namespace dnn {

/// One operand as cuBLASLt reads it: column-major, rows x cols with leading dimension ld,
/// batches batch_stride elements apart (0: one matrix for every batch); transposed: the product
/// uses its transpose.
struct gemm_operand
{
    bool transposed          = false;
    std::int64_t rows        = 0;
    std::int64_t cols        = 0;
    std::int64_t ld          = 0;
    std::int64_t batch_stride = 0;
};

/// D = act(alpha op(A) op(B) + beta C + bias) as cuBLASLt computes it: op(A) is m x k, op(B)
/// k x n; C and D are m x n column-major (leading dimension m), batches m * n apart; the bias
/// adds its element i to D's row i, batches bias_stride apart; act is relu, GELU (cuBLASLt's
/// tanh form) or nothing.
struct gemm_problem
{
    gemm_operand a, b;
    std::int64_t m = 0, n = 0, k = 0, batches = 1;
    double alpha = 1, beta = 0;
    bool bias    = false;
    std::int64_t bias_stride = 0;
    enum class activation
    {
        none,
        relu,
        gelu
    } act = activation::none;
    /// Whether a and b are shaped for the product (op(A) m x k, op(B) k x n).
    bool consistent() const;
};

/// The exact values of D (double arithmetic) at up to `samples` element offsets below `limit`,
/// for A, B, C and the bias filled with the patterns a, b, c and bias (c and bias ignored
/// where beta is 0 or there is no bias); D rounded to half where half_result. Empty where the
/// problem is not consistent.
exact_samples make_gemm_reference(const gemm_problem& p,
                                  const fill_pattern& a,
                                  const fill_pattern& b,
                                  const fill_pattern& c,
                                  const fill_pattern& bias,
                                  std::size_t limit,
                                  bool half_result,
                                  std::size_t samples = 512);

} // namespace dnn
} // namespace gpu
} // namespace migraphx

#endif
