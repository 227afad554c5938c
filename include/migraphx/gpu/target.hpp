#ifndef MIGRAPHX_GPU_TARGET_HPP
#define MIGRAPHX_GPU_TARGET_HPP

#include <migraphx/argument.hpp>
#include <migraphx/compile_options.hpp>
#include <migraphx/context.hpp>
#include <migraphx/pass.hpp>
#include <migraphx/shape.hpp>
#include <string>
#include <vector>

namespace migraphx {
namespace gpu {

/// The GPU target on NVIDIA devices through CUDA: cuBLASLt for dot, cuDNN for convolution,
/// NVRTC-compiled kernels for fused elementwise chains and copies, and every other op through
/// its reference compute on the host (correct, not fast). compile_options.device_id picks the
/// device; offload_copy=true takes host parameters and returns host results, false takes
/// device buffers (see <migraphx/gpu/hip.hpp>) for parameters and outputs.
/// `get_target("gpu")` exists only where the library was built with CUDA and a device is present.
struct target
{
    std::string name() const { return "gpu"; }
    std::vector<pass> get_passes(migraphx::context& ctx, const compile_options& options) const;
    migraphx::context get_context() const;
    /// Host -> device copy (a device argument is copied device to device).
    argument copy_to(const argument& a) const;
    /// Device -> host copy (a host argument is copied as is).
    argument copy_from(const argument& a) const;
    /// Uninitialised device memory of shape s.
    argument allocate(const shape& s) const;
};

} // namespace gpu
} // namespace migraphx

#endif
