#include <migraphx/gpu/target.hpp>
#include <migraphx/gpu/hip.hpp>
#include <migraphx/target.hpp>
#include "passes/dead_code_elimination.hpp"
#include "passes/fuse_pointwise.hpp"
#include "passes/memory_coloring.hpp"
#include "passes/simplify_pipeline.hpp"
#include "targets/gpu/context.hpp"
#include "targets/gpu/lowering.hpp"
#include <sys/stat.h>

namespace migraphx {
namespace gpu {

std::vector<pass> target::get_passes(migraphx::context& ctx, const compile_options& options) const
{
    auto& g = get_gpu_context(ctx);
    g.set_device(options.device_id);
    g.get(); // fails here, clearly, when the device is absent
    auto passes = simplify_passes();
    passes.insert(passes.end(),
                  {fuse_pointwise{},
                   dead_code_elimination{},
                   lowering{options.offload_copy},
                   dead_code_elimination{},
                   memory_coloring{"hip::hip_allocate_memory", 256},
                   dead_code_elimination{}});
    return passes;
}

migraphx::context target::get_context() const { return gpu_context{}; }

argument target::copy_to(const argument& a) const { return to_gpu(a); }
argument target::copy_from(const argument& a) const { return from_gpu(a); }
argument target::allocate(const shape& s) const { return allocate_gpu(s); }

namespace {
// `gpu` is a registered target only where a CUDA device is present: the check costs nothing
// without the NVIDIA driver (no /dev/nvidiactl), and one cudaGetDeviceCount otherwise.
const bool registered = [] {
    struct stat st{};
    if(stat("/dev/nvidiactl", &st) != 0)
        return false;
    if(get_device_count() == 0)
        return false;
    register_target(target{});
    return true;
}();
} // namespace

} // namespace gpu
} // namespace migraphx
