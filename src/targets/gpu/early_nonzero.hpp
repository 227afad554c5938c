#ifndef MIGRAPHX_GPU_EARLY_NONZERO_HPP
#define MIGRAPHX_GPU_EARLY_NONZERO_HPP

// After lowering: a nonzero on the device whose input has a static shape is split into
// gpu::nonzero_start (kernel, count copied to pinned memory, event; no wait), moved as early as
// its input allows together with the kernels and views that compute that input, and
// gpu::nonzero_finish where the nonzero was (waits for the event, reads the count).
// Why: an SSD head runs nonzero once a class (SSDlite: 90), each waiting for the stream to drain
// before the host can go on (~28 us a class on an H100). All 90 inputs are slices of the class
// scores, so all 90 starts run right after the scores and the first finish waits once for them.
// Off: MIGRAPHX_DISABLE_PASSES=gpu::early_nonzero.

#include <migraphx/module.hpp>
#include <string>

namespace migraphx {
namespace gpu {

struct early_nonzero
{
    std::string name() const { return "gpu::early_nonzero"; }
    void apply(module& m) const;
};

} // namespace gpu
} // namespace migraphx

#endif
