#ifndef MIGRAPHX_GPU_KERNEL_COMPILER_HPP
#define MIGRAPHX_GPU_KERNEL_COMPILER_HPP

// Run-time compilation of generated CUDA C++ with NVRTC into a cubin for the device's
// architecture, cached on disk by a hash of source, options and NVRTC version:
//   MIGRAPHX_GPU_CACHE_DIR  cache folder (default $XDG_CACHE_HOME/migx/kernels, else
//                           $HOME/.cache/migx/kernels, else /tmp/migx-kernels); "off" disables it
//   MIGRAPHX_GPU_DUMP_SRC   1: write each kernel's source beside the cache (or into the folder the
//                           variable names) and say where on stderr

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace migraphx {
namespace gpu {

/// A cubin for sm_<major><minor>; throws with NVRTC's log when the source does not compile.
std::string compile_cuda(const std::string& source, const std::string& kernel_name, int major, int minor);

/// `source` with its kernel `kernel_name` made to wait, first thing, until the kernel before it on
/// the stream has finished and its writes are visible (griddepcontrol.wait), then to let the next
/// kernel's launch begin (griddepcontrol.launch_dependents). Only such a kernel may be launched
/// programmatically (see loaded_kernel::launch): its blocks may then start while the previous
/// kernel's last blocks still run, which hides the launch gap between the two. sm_90 and later;
/// on older architectures the inserted lines compile to nothing. Throws when the kernel's body is
/// not found.
std::string with_grid_dependency(const std::string& source, const std::string& kernel_name);

/// Whether generated kernels wait for their predecessor and are launched programmatically (on by
/// default on sm_90 and later; MIGRAPHX_GPU_PDL=0 turns it off).
bool programmatic_launch_enabled(int sm_major);

/// A loaded cubin and one of its kernels, launchable on a stream.
struct loaded_kernel
{
    loaded_kernel(const std::string& cubin, const std::string& kernel_name);
    /// From a cubin of size bytes at data (e.g. a saved program's, in its mapped file); keep, if
    /// given, owns those bytes and lives as long as the kernel. Throws migraphx::exception when
    /// the driver refuses the image (another architecture, a newer toolkit) or lacks the kernel.
    loaded_kernel(const char* data,
                  std::size_t size,
                  const std::string& kernel_name,
                  std::shared_ptr<const void> keep = nullptr);
    ~loaded_kernel();
    loaded_kernel(const loaded_kernel&)            = delete;
    loaded_kernel& operator=(const loaded_kernel&) = delete;
    /// Launches grid x block threads with these kernel parameters (pointers to each argument);
    /// `programmatic`: with programmatic dependent launch, for a kernel made by with_grid_dependency.
    void launch(void* stream, std::size_t grid, std::size_t block, void** params, bool programmatic = false) const;

    private:
    void load(const void* image, const std::string& kernel_name);
    void* lib    = nullptr;
    void* kernel = nullptr;
    std::shared_ptr<const void> image_owner;
};

/// The kernel cache's folder (MIGRAPHX_GPU_CACHE_DIR as given, "off" included; else
/// $XDG_CACHE_HOME/migx/kernels, $HOME/.cache/migx/kernels or /tmp/migx-kernels-<uid>). The tuning
/// cache (tuning_cache.hpp) lives in its subfolder tuning/.
std::string gpu_cache_dir();

/// 64-bit FNV-1a, stable across runs and machines (the cache key).
std::uint64_t stable_hash(const std::string& s);

} // namespace gpu
} // namespace migraphx

#endif
