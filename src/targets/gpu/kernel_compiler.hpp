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

/// Whether the source uses Hopper-only instructions (warpgroup MMA: generate_attention_wgmma), so
/// that it compiles for sm_90a and runs on sm_90 devices only.
bool needs_sm90a(const std::string& source);

/// A cubin for sm_<major><minor>; throws with NVRTC's log when the source does not compile.
std::string compile_cuda(const std::string& source, const std::string& kernel_name, int major, int minor);

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
    /// Launches grid x block threads with these kernel parameters (pointers to each argument)
    /// and `shared` bytes of dynamic shared memory a block (past 48 KiB: allow_shared first).
    void launch(void* stream, std::size_t grid, std::size_t block, void** params, std::size_t shared = 0) const;
    /// Lets launches on the current device ask for up to `bytes` of dynamic shared memory a block
    /// (the driver's default limit is 48 KiB); throws naming the kernel when the device has less.
    void allow_shared(std::size_t bytes) const;

    private:
    void load(const void* image, const std::string& kernel_name);
    void* lib    = nullptr;
    void* kernel = nullptr;
    std::string name;
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
