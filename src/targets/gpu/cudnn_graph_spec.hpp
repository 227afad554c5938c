#ifndef MIGRAPHX_GPU_CUDNN_GRAPH_SPEC_HPP
#define MIGRAPHX_GPU_CUDNN_GRAPH_SPEC_HPP

// What cudnn_graph.hpp builds, described without cuDNN (testable without CUDA headers): a
// convolution problem as a graph of tensors and nodes, an engine configuration by name, and the
// small decisions of the measurement.

#include <migraphx/shape.hpp>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace migraphx {
namespace gpu {
namespace dnn {

/// Unique ids of the graph's tensors (the variant pack's order: x, w, y, bias, z).
enum : std::int64_t
{
    uid_x       = 1,
    uid_w       = 2,
    uid_y       = 3,
    uid_bias    = 4,
    uid_z       = 5,
    uid_scale   = 6, // int8: the per-channel float scales of the int32 sums
    uid_zscale  = 7, // int8: the residual's scale (an int8 residual stream)
    uid_virtual = 100 // intermediate results: 100, 101, ...
};

struct tensor_spec
{
    std::int64_t uid = 0;
    std::vector<std::int64_t> dims, strides; // logical N, C, spatial... order; strides in elements
    shape::type_t type = shape::half_type;
    bool is_virtual      = false;
    bool operator==(const tensor_spec& o) const
    {
        return uid == o.uid and dims == o.dims and strides == o.strides and type == o.type and
               is_virtual == o.is_virtual;
    }
};

/// y = [relu](conv(x, w) [* scale] [+ bias] [+ z]): a pointwise node of the graph (b < 0: unary).
enum class pointwise
{
    add,
    relu,
    mul
};

struct pointwise_node
{
    pointwise mode = pointwise::add;
    std::int64_t a = 0, b = -1, out = 0;
};

/// One convolution problem as a graph: the tensors, the convolution's geometry (2 or 3 spatial
/// dims; a 1-d convolution is 2-d with a trailing 1), the convolution's result tensor (y itself,
/// or a virtual float tensor when pointwise nodes follow) and the pointwise nodes in order.
struct conv_graph_spec
{
    tensor_spec x, w, y, bias, z, scale, zscale;
    bool has_bias = false, has_z = false, relu = false, has_scale = false, has_zscale = false;
    std::vector<std::int64_t> pre_pad, post_pad, stride, dilation;
    tensor_spec conv_out;
    std::vector<tensor_spec> virtuals; // every virtual tensor (conv_out first where virtual)
    std::vector<pointwise_node> nodes;
    /// The uids the variant pack gives pointers for, in order.
    std::vector<std::int64_t> uids() const;
};

/// The graph for the op's shapes (x, w, y as migraphx shapes: lens N, C, spatial..., any
/// strides; weights K, C/group, kernel...), padding begin..., end..., stride, dilation, and the
/// epilogue: + bias (a per-channel vector, K contiguous values), + z (y's shape and layout),
/// then relu. Throws (std::invalid_argument) for what the graph cannot describe (element types
/// other than float/half, asymmetric padding, more than 3 spatial dims).
conv_graph_spec make_conv_spec(const shape& x,
                               const shape& w,
                               const shape& y,
                               const std::vector<std::size_t>& padding,
                               const std::vector<std::size_t>& stride,
                               const std::vector<std::size_t>& dilation,
                               bool bias,
                               bool z,
                               bool relu);

/// The int8 graph: x, w int8 (NHWC and KRSC strides, as given), int32 sums (virtual), times
/// a per-channel float scale, [+ float bias], [+ z (y's layout; y's type or int8) [* zscale, a
/// per-channel float vector, where z_scaled]], [relu], y int8 (cuDNN rounds and saturates), half
/// or float. 2-d only. Throws (std::invalid_argument) otherwise.
conv_graph_spec make_int8_conv_spec(const shape& x,
                                    const shape& w,
                                    const shape& y,
                                    const std::vector<std::size_t>& padding,
                                    const std::vector<std::size_t>& stride,
                                    const std::vector<std::size_t>& dilation,
                                    bool bias,
                                    bool z,
                                    bool relu,
                                    const shape* z_shape = nullptr,
                                    bool z_scaled        = false);

/// An engine configuration by name: the engine's global index and its knob choices
/// (type, value), as "12" or "12|3:1|7:0" (knobs sorted by type; no ',' or '=', which separate
/// attributes in a printed program).
struct engine_choice
{
    std::int64_t index = -1;
    std::vector<std::pair<std::int64_t, std::int64_t>> knobs;
    std::string str() const;
    static std::optional<engine_choice> parse(const std::string& s);
    bool operator==(const engine_choice& o) const { return index == o.index and knobs == o.knobs; }
};

/// The fastest of measured times (nullopt: failed); -1 if none.
int fastest(const std::vector<std::optional<double>>& ms);

/// An engine's numerical notes (cuDNN's CUDNN_NUMERICAL_NOTE_* values, in its order) as trace text,
/// e.g. "tensor core, winograd 4x4"; a value past the list as "note N". The search's trace names
/// them so that an engine whose arithmetic differs (Winograd, FFT) can be told apart.
std::string numerical_notes_text(const std::vector<int>& notes);

/// Whether the values of got agree with want (both half, n elements): |got - want| <=
/// 0.02 * max|want| + 1e-3 everywhere, and a NaN only where want has one.
bool half_close(const std::uint16_t* got, const std::uint16_t* want, std::size_t n);

} // namespace dnn
} // namespace gpu
} // namespace migraphx

#endif
