#ifndef MIGRAPHX_GPU_CODEGEN_HPP
#define MIGRAPHX_GPU_CODEGEN_HPP

// CUDA C++ source for the gpu target's generated kernels. Every kernel takes its inputs'
// pointers, then the output's, and walks the output's elements in a grid-stride loop; input
// strides (broadcast, transposed, sliced views) are baked into the source as constants.

#include <migraphx/module.hpp>
#include <migraphx/shape.hpp>
#include <optional>
#include <string>
#include <vector>

namespace migraphx {
namespace gpu {

struct kernel_source
{
    std::string name;   // the kernel's symbol, e.g. add_relu_kernel
    std::string source;
    std::size_t elements = 0; // threads the work is split over (the output's elements)
    std::size_t local    = 256; // threads a block
};

/// The fused elementwise kernel for a `pointwise` sub-module (params x0, x1, ... in input order),
/// computed in float with half values rounded as the reference rounds them. Nothing when an op,
/// type or constant is outside what the generator knows (the op then runs on the host).
std::optional<kernel_source> generate_pointwise(const module& sub, const std::vector<shape>& inputs, const shape& out);

/// Copies `in` (any strides, any element type) into the standard layout `out` of equal lens.
kernel_source generate_copy(const shape& in, const shape& out);

/// Reduction of the axes of `in` that are 1 in `out` (out keeps them as 1): kind is
/// sum, mean, max, min or prod. Float or half, accumulated in float.
std::optional<kernel_source> generate_reduce(const std::string& kind, const shape& in, const shape& out);

/// softmax / logsoftmax of `in` along `axis` (normalised) into the standard `out`.
std::optional<kernel_source> generate_softmax(bool log, std::size_t axis, const shape& in, const shape& out);

/// pooling of {N, C, spatial...}: mode average (padding never counts), max or lpnorm.
struct pooling_window
{
    std::string mode;
    std::vector<std::size_t> len, stride, pad_begin;
    std::int64_t lp_order = 2;
};
std::optional<kernel_source> generate_pooling(const pooling_window& w, const shape& in, const shape& out);

/// concat of `inputs` (any strides, one element type) along `axis` into the standard `out`.
kernel_source generate_concat(std::size_t axis, const std::vector<shape>& inputs, const shape& out);

/// gather of `data` along `axis` by `indices` (int32 or int64; negative wrap, out of range clamps).
std::optional<kernel_source> generate_gather(std::size_t axis, const shape& data, const shape& indices, const shape& out);

/// pad (mode 0 constant `value_bits`, the pad value's element bits; 1 reflect; 2 edge).
kernel_source generate_pad(const std::vector<std::int64_t>& pads, std::int64_t mode, std::uint64_t value_bits,
                           const shape& in, const shape& out);

namespace detail {
/// The helpers every generated kernel starts with (half conversions, NaN-aware max/min).
std::string prelude();
/// An unsigned integer type of `bytes` bytes (for kernels that only move elements).
std::string raw_type(std::size_t bytes);
/// "unsigned int", or "unsigned long long" where an offset can pass 2^31.
std::string index_type(const std::vector<shape>& shapes);
/// Code that splits `var` into digits `prefix`0.. of lens (row-major; the first digit is unbounded).
std::string digits(const std::string& var, const std::vector<std::size_t>& lens, const std::string& prefix);
} // namespace detail

} // namespace gpu
} // namespace migraphx

#endif
