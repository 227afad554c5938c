#include <migraphx/gpu/target.hpp>
#include <migraphx/gpu/hip.hpp>
#include <migraphx/target.hpp>
#include "ir/target_availability.hpp"
#include "passes/dead_code_elimination.hpp"
#include "passes/memory_coloring.hpp"
#include "targets/gpu/context.hpp"
#include "targets/gpu/lowering.hpp"
#include <cctype>
#include <cstring>
#include <dirent.h>
#include <sys/stat.h>

namespace migraphx {
namespace gpu {

std::vector<pass> target::get_passes(migraphx::context& ctx, const compile_options& options) const
{
    auto& g = get_gpu_context(ctx);
    g.set_device(options.device_id);
    g.tf32            = options.tf32;
    g.exhaustive_tune = options.exhaustive_tune;
    auto& st = g.get(); // fails here, clearly, when the device is absent
    // The same passes as the host tools see (tools/gpu/lowering_check), then the memory plan.
    auto passes = passes_before_device(options.offload_copy, options.fast_math, st.sm_major * 10 + st.sm_minor);
    passes.insert(passes.end(), {memory_coloring{"hip::hip_allocate_memory", 256}, dead_code_elimination{}});
    return passes;
}

migraphx::context target::get_context() const { return gpu_context{}; }

argument target::copy_to(const argument& a) const { return to_gpu(a); }
argument target::copy_from(const argument& a) const { return from_gpu(a); }
argument target::allocate(const shape& s) const { return allocate_gpu(s); }

namespace {
/// Whether the NVIDIA driver exposes a device node (/dev/nvidia0, ...). Deliberately not a CUDA
/// call: initialising CUDA while the library loads would cost time in every process and break
/// programs that fork afterwards (a forked child cannot use its parent's CUDA state).
bool device_node_present()
{
    DIR* dir = opendir("/dev");
    if(dir == nullptr)
        return false;
    bool found = false;
    while(auto* e = readdir(dir))
    {
        const char* n = e->d_name;
        if(std::strncmp(n, "nvidia", 6) == 0 and std::isdigit(static_cast<unsigned char>(n[6])) != 0)
        {
            found = true;
            break;
        }
    }
    closedir(dir);
    return found;
}

// `gpu` is a registered target where a CUDA device node exists; the device itself is opened when a
// program is compiled for it (a clear exception there if CUDA cannot use it).
const bool registered = [] {
    if(not device_node_present())
    {
        register_unavailable_target("gpu", "this library has the gpu target, but no CUDA device was found (no "
                                           "/dev/nvidia0 or other NVIDIA device node)");
        return false;
    }
    register_target(target{});
    return true;
}();
} // namespace

} // namespace gpu
} // namespace migraphx
