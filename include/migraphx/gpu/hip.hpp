#ifndef MIGRAPHX_GPU_HIP_HPP
#define MIGRAPHX_GPU_HIP_HPP

// Device buffers for programs compiled with offload_copy=false (spec chapter 6). The name is
// MIGraphX's; on migx the device is a CUDA device. No CUDA header is needed to use these.

#include <migraphx/argument.hpp>
#include <migraphx/shape.hpp>
#include <cstddef>

namespace migraphx {
namespace gpu {

/// Device memory for s (uninitialised), freed when the last copy of the argument goes.
/// host=true gives pinned host memory instead.
argument allocate_gpu(const shape& s, bool host = false);
/// A device copy of a host (or device) argument, same shape and strides.
argument to_gpu(const argument& arg, bool host = false);
/// A host copy of a device (or host) argument, same shape and strides. Waits for the copy.
argument from_gpu(const argument& arg);
/// CUDA devices visible to this process (0 without a driver or a device).
std::size_t get_device_count();
/// Waits until the device has finished all work (cudaDeviceSynchronize).
void gpu_sync();

} // namespace gpu
} // namespace migraphx

#endif
