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
};

/// The fused elementwise kernel for a `pointwise` sub-module (params x0, x1, ... in input order),
/// computed in float with half values rounded as the reference rounds them. Nothing when an op,
/// type or constant is outside what the generator knows (the op then runs on the host).
std::optional<kernel_source> generate_pointwise(const module& sub, const std::vector<shape>& inputs, const shape& out);

/// Copies `in` (any strides, any element type) into the standard layout `out` of equal lens.
kernel_source generate_copy(const shape& in, const shape& out);

} // namespace gpu
} // namespace migraphx

#endif
