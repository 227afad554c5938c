#ifndef MIGRAPHX_GPU_DEVICE_SIZED_HPP
#define MIGRAPHX_GPU_DEVICE_SIZED_HPP

// The device form of a host-fallback op (gpu::ref::<op>) that runs at the sizes a run gives it:
// what follows a detector's NMS (RoIAlign on the kept boxes, MultiScaleRoIAlign's per-level
// scatter, Expand / Reshape to sizes computed from a data-dependent shape, Shape of such a result
// (its sizes written by a launch: no copy from the host, no wait), gathers and concats of such
// results) and an SSD head's per-class steps (nonzero, gathernd, topk with a run-time k). Its kernels take their sizes at launch (sized_kernels.hpp), so one compiled
// kernel serves every run. Where it cannot take what a run gives it (a layout or size it does not
// know, sizes past the declared ones), the host computes the op as before, and throws where ref
// throws.
//
// Differences from ref, where ref would throw on bad data: a gather's or gathernd's index out of
// range is clamped, a scatter's writes nothing, a RoIAlign box with a batch index out of range gives
// zeros. Duplicate scatter indices: one of the writes wins (ref: the last).

#include <migraphx/argument.hpp>
#include <migraphx/context.hpp>
#include <migraphx/operation.hpp>
#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace migraphx {
namespace gpu {

/// Input i of a run on the host (its noted value, or a copy back: ref_fallback::host_input).
using host_reader = std::function<argument(std::size_t)>;

struct sized_device_op
{
    virtual ~sized_device_op() = default;
    /// The op on args (the inputs at their actual shapes, then the output buffer at its declared
    /// one): the result at the front of the output buffer with its actual shape, or nothing where
    /// this form cannot take these shapes (the caller then runs the host path). A form that needs
    /// an input's values on the host (sizes) reads them through `host`.
    virtual std::optional<argument> run(context& ctx, const std::vector<argument>& args, const host_reader& host) const = 0;
};

struct loaded_kernel;

/// Writes up to int64_values::max_count (8) int64 values the host knows into device memory by a
/// launch: no copy from host memory, so no wait.
struct int64_writer
{
    explicit int64_writer(context& ctx);
    /// False (nothing written) for more than 8 values.
    bool write(context& ctx, const std::vector<std::int64_t>& v, void* y) const;
    std::shared_ptr<loaded_kernel> kernel;
};

/// nonzero's kernel for inputs of x's type: one block counts x's nonzero elements and writes their
/// indices ({rank, count} standard) to the front of y and the count to *count (device memory).
/// Used by nonzero's device form (one wait for the count) and by gpu::nonzero_start (none).
struct nonzero_kernel
{
    nonzero_kernel(context& ctx, const shape& x);
    /// Whether x (at its shape) is one this kernel takes with y of shape `out`: rank at most 8,
    /// rank x elements within out, out standard.
    static bool takes(const shape& x, const shape& out);
    /// The launch on ctx's stream (x must be taken: takes()).
    void launch(context& ctx, const argument& x, void* y, void* count) const;
    /// The result's rank: x's, or 1 for a scalar.
    static std::size_t rank_of(const shape& x) { return std::max<std::size_t>(x.ndim(), 1); }
    std::shared_ptr<loaded_kernel> kernel;
};

/// Whether op on inputs of these declared shapes (out: its result's) has a device form.
bool has_sized_device_op(const operation& op, const std::vector<shape>& inputs, const shape& out);

/// The device form, its kernels compiled for ctx's device; nullptr where has_sized_device_op is
/// false.
std::shared_ptr<const sized_device_op>
make_sized_device_op(context& ctx, const operation& op, const std::vector<shape>& inputs, const shape& out);

} // namespace gpu
} // namespace migraphx

#endif
