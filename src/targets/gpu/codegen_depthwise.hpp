#ifndef MIGRAPHX_GPU_CODEGEN_DEPTHWISE_HPP
#define MIGRAPHX_GPU_CODEGEN_DEPTHWISE_HPP

// The generated depthwise convolution (one filter a channel, 2-d) with the per-channel affine and
// clamp of the tensor it reads (its producer's bias and activation) and of its own result folded
// in: MobileNet's "bias, relu6, depthwise 3x3, bias, relu6" is one pass over memory instead of
// three (cuDNN's depthwise kernels take neither side).

#include <migraphx/shape.hpp>
#include <migraphx/value.hpp>
#include "targets/gpu/codegen.hpp"
#include <optional>
#include <vector>

namespace migraphx {
namespace gpu {

/// v -> clamp(v + bias[c], lo, hi), each part optional.
struct channel_activation
{
    bool bias = false;
    std::optional<float> lo, hi;
    bool any() const { return bias or lo or hi; }
};

struct depthwise_spec
{
    shape x;   // {N, C, H, W}, any strides
    shape out; // {N, C, OH, OW}, any strides
    std::size_t kh = 0, kw = 0;
    std::vector<std::size_t> stride{1, 1}, dilation{1, 1}, pad_begin{0, 0};
    channel_activation pre;  // applied to x as read (the zero padding stays zero)
    channel_activation post; // applied to the sums
};

/// Kernel parameters: x, weights (half, {kh, kw, C} packed: a tap's channels together), then the
/// pre bias and the post bias ({C} half) where the spec has them, then the output. Half only, C a
/// multiple of 8 (8 channels a thread, 16-byte loads where aligned). Nothing otherwise.
std::optional<kernel_source> generate_depthwise(const depthwise_spec& d);

/// The spec of a depthwise_activated op (its attributes, as `value`) reading x with taps of shape
/// {kh, kw, C} into out. One reading of the attributes for the fusion pass and the lowering.
depthwise_spec depthwise_spec_of(const value& op, const shape& x, const shape& taps, const shape& out);

} // namespace gpu
} // namespace migraphx

#endif
