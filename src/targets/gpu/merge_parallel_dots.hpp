#ifndef MIGRAPHX_GPU_MERGE_PARALLEL_DOTS_HPP
#define MIGRAPHX_GPU_MERGE_PARALLEL_DOTS_HPP

#include <migraphx/module.hpp>
#include <string>

namespace migraphx {
namespace gpu {

/// Parallel linear layers that share their input (a transformer's Q, K and V projections):
/// n >= 2 `dot`s of the main module with the same first operand A ([..., M, K], packed) and
/// constant weights of one shape ([K, N], a literal maybe broadcast over A's batches), each
/// maybe followed by the add of a constant per-column bias, become ONE strided-batched product
/// over A seen n times (a broadcast, stride 0) and the weights stacked at compile time:
///   Y = dot(multibroadcast(reshape(A, [rows, K]), [n, rows, K]), literal [n, K, N])
///       [+ multibroadcast(literal [n, 1, N])]
/// and each result i becomes reshape(slice(Y, axis 0, i..i+1)): a packed view, no copy.
/// Lowering runs Y as one cuBLASLt call with the per-batch bias as its epilogue (gemm.cpp).
/// Merged only where it cannot be slower than the separate products: float or half, every
/// result used and none by an elementwise op (which lowering could fold into a product's own
/// epilogue: relu, a residual add), either all or none of a group with a bias (those with and
/// those without are two groups), each product under 2^25 results (fewer tiles than that
/// underfill the GPU; more fill it already), results 256-byte aligned within Y (and with a
/// bias, rows of 16-byte multiples and more than one row: what gpu::gemm's epilogue takes).
/// Runs before fuse_pointwise (the bias adds are still plain adds).
/// MIGRAPHX_DISABLE_DOT_MERGE=1 (or MIGRAPHX_DISABLE_PASSES=gpu::merge_parallel_dots) turns it
/// off.
struct merge_parallel_dots
{
    std::string name() const { return "gpu::merge_parallel_dots"; }
    void apply(module& m) const;
};

} // namespace gpu
} // namespace migraphx

#endif
