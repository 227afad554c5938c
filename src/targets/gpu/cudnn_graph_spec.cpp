// cudnn_graph_spec.hpp: a convolution problem as a graph, engine choices by name (no cuDNN).
#include "targets/gpu/cudnn_graph_spec.hpp"
#include <migraphx/half.hpp>
#include <algorithm>
#include <cmath>
#include <iterator>
#include <sstream>
#include <stdexcept>

namespace migraphx {
namespace gpu {
namespace dnn {

// ---- the graph's description (no cuDNN calls) --------------------------------------------------

std::vector<std::int64_t> conv_graph_spec::uids() const
{
    std::vector<std::int64_t> r{uid_x, uid_w, uid_y};
    if(has_bias)
        r.push_back(uid_bias);
    if(has_z)
        r.push_back(uid_z);
    if(has_scale)
        r.push_back(uid_scale);
    if(has_zscale)
        r.push_back(uid_zscale);
    return r;
}

namespace {

shape::type_t data_type(shape::type_t t, bool int8)
{
    if(t == shape::half_type or t == shape::float_type or (int8 and t == shape::int8_type))
        return t;
    throw std::invalid_argument(int8 ? "cudnn graph: element type is not int8, float or half"
                                     : "cudnn graph: element type is not float or half");
}

tensor_spec tensor_of(std::int64_t uid, const shape& s, std::size_t rank, bool int8 = false)
{
    tensor_spec t;
    t.uid  = uid;
    t.type = data_type(s.type(), int8);
    for(std::size_t i = 0; i < s.lens().size(); i++)
    {
        t.dims.push_back(static_cast<std::int64_t>(s.lens()[i]));
        t.strides.push_back(static_cast<std::int64_t>(s.strides()[i]));
    }
    while(t.dims.size() < rank)
    {
        t.dims.push_back(1);
        t.strides.push_back(1);
    }
    return t;
}

std::vector<std::int64_t> to_i64(const std::vector<std::size_t>& v, std::size_t n, std::int64_t fill)
{
    std::vector<std::int64_t> r;
    for(std::size_t i = 0; i < n; i++)
        r.push_back(i < v.size() ? static_cast<std::int64_t>(v[i]) : fill);
    return r;
}

} // namespace

conv_graph_spec make_conv_spec(const shape& x,
                               const shape& w,
                               const shape& y,
                               const std::vector<std::size_t>& padding,
                               const std::vector<std::size_t>& stride,
                               const std::vector<std::size_t>& dilation,
                               bool bias,
                               bool z,
                               bool relu)
{
    auto rank = x.lens().size();
    if(rank < 3 or rank > 5 or w.lens().size() != rank or y.lens().size() != rank)
        throw std::invalid_argument("cudnn graph: 1 to 3 spatial dims");
    auto kd = rank - 2;
    if(padding.size() != 2 * kd or stride.size() != kd or dilation.size() != kd)
        throw std::invalid_argument("cudnn graph: padding, stride or dilation of another rank");
    std::vector<std::size_t> pad_begin(padding.begin(), padding.begin() + kd),
        pad_end(padding.begin() + kd, padding.end());
    auto n = std::max<std::size_t>(rank, 4);
    conv_graph_spec s;
    s.x        = tensor_of(uid_x, x, n);
    s.w        = tensor_of(uid_w, w, n);
    s.y        = tensor_of(uid_y, y, n);
    s.pre_pad  = to_i64(pad_begin, n - 2, 0);
    s.post_pad = to_i64(pad_end, n - 2, 0);
    s.stride   = to_i64(stride, n - 2, 1);
    s.dilation = to_i64(dilation, n - 2, 1);
    if(s.x.type != s.w.type or s.x.type != s.y.type)
        throw std::invalid_argument("cudnn graph: x, w and y of different types");
    s.has_bias = bias;
    s.has_z    = z;
    s.relu     = relu;
    auto k     = s.y.dims[1];
    if(bias)
    {
        s.bias.uid  = uid_bias;
        s.bias.type = s.y.type;
        s.bias.dims.assign(n, 1);
        s.bias.dims[1] = k;
        s.bias.strides.assign(n, k);
        s.bias.strides[1] = 1;
    }
    if(z)
    {
        s.z     = s.y;
        s.z.uid = uid_z;
    }
    // conv -> [add bias] -> [add z] -> [relu] -> y; each result but the last a float virtual
    // tensor of y's dims (and strides).
    std::int64_t next = uid_virtual;
    auto make_virtual = [&] {
        tensor_spec v = s.y;
        v.uid         = next++;
        v.type        = shape::float_type;
        v.is_virtual  = true;
        s.virtuals.push_back(v);
        return v.uid;
    };
    int steps = int{bias} + int{z} + int{relu};
    if(steps == 0)
    {
        s.conv_out = s.y;
        return s;
    }
    make_virtual();
    s.conv_out       = s.virtuals.back();
    std::int64_t cur = s.conv_out.uid;
    auto add_node    = [&](pointwise mode, std::int64_t b) {
        --steps;
        auto out = steps == 0 ? std::int64_t{uid_y} : make_virtual();
        s.nodes.push_back({mode, cur, b, out});
        cur = out;
    };
    if(bias)
        add_node(pointwise::add, uid_bias);
    if(z)
        add_node(pointwise::add, uid_z);
    if(relu)
        add_node(pointwise::relu, -1);
    return s;
}

conv_graph_spec make_int8_conv_spec(const shape& x,
                                    const shape& w,
                                    const shape& y,
                                    const std::vector<std::size_t>& padding,
                                    const std::vector<std::size_t>& stride,
                                    const std::vector<std::size_t>& dilation,
                                    bool bias,
                                    bool z,
                                    bool relu,
                                    const shape* z_shape,
                                    bool z_scaled)
{
    if(x.lens().size() != 4 or w.lens().size() != 4 or y.lens().size() != 4)
        throw std::invalid_argument("cudnn graph: int8 convolutions are 2-d");
    if(x.type() != shape::int8_type or w.type() != shape::int8_type)
        throw std::invalid_argument("cudnn graph: int8 convolution of other types");
    if(padding.size() != 4 or stride.size() != 2 or dilation.size() != 2)
        throw std::invalid_argument("cudnn graph: padding, stride or dilation of another rank");
    conv_graph_spec s;
    s.x        = tensor_of(uid_x, x, 4, true);
    s.w        = tensor_of(uid_w, w, 4, true);
    s.y        = tensor_of(uid_y, y, 4, true);
    s.pre_pad  = to_i64({padding[0], padding[1]}, 2, 0);
    s.post_pad = to_i64({padding[2], padding[3]}, 2, 0);
    s.stride   = to_i64(stride, 2, 1);
    s.dilation = to_i64(dilation, 2, 1);
    auto k     = s.y.dims[1];
    auto channel_vector = [&](std::int64_t uid) {
        tensor_spec t;
        t.uid  = uid;
        t.type = shape::float_type;
        t.dims = {1, k, 1, 1};
        t.strides = {k, 1, k, k};
        return t;
    };
    s.has_scale = true;
    s.scale     = channel_vector(uid_scale);
    s.has_bias  = bias;
    if(bias)
        s.bias = channel_vector(uid_bias);
    s.has_z = z;
    if(z)
    {
        s.z = z_shape != nullptr ? tensor_of(uid_z, *z_shape, 4, true) : s.y;
        s.z.uid = uid_z;
        if(s.z.dims != s.y.dims)
            throw std::invalid_argument("cudnn graph: a residual of other dims than the result");
    }
    s.has_zscale = z and z_scaled;
    if(s.has_zscale)
        s.zscale = channel_vector(uid_zscale);
    s.relu = relu;
    std::int64_t next = uid_virtual;
    auto make_virtual = [&](shape::type_t t) {
        tensor_spec v = s.y;
        v.uid         = next++;
        v.type        = t;
        v.is_virtual  = true;
        s.virtuals.push_back(v);
        return v.uid;
    };
    make_virtual(shape::int32_type);
    s.conv_out       = s.virtuals.back();
    std::int64_t cur = s.conv_out.uid;
    int steps        = 1 + int{bias} + int{z} + int{relu};
    auto add_node    = [&](pointwise mode, std::int64_t b) {
        --steps;
        auto out = steps == 0 ? std::int64_t{uid_y} : make_virtual(shape::float_type);
        s.nodes.push_back({mode, cur, b, out});
        cur = out;
    };
    add_node(pointwise::mul, uid_scale);
    if(bias)
        add_node(pointwise::add, uid_bias);
    if(z)
    {
        auto zv = std::int64_t{uid_z};
        if(s.has_zscale) // z * zscale, then added: its own node, off the main chain
        {
            zv = make_virtual(shape::float_type);
            s.nodes.push_back({pointwise::mul, uid_z, uid_zscale, zv});
        }
        add_node(pointwise::add, zv);
    }
    if(relu)
        add_node(pointwise::relu, -1);
    return s;
}

std::string engine_choice::str() const
{
    std::ostringstream ss;
    ss << index;
    for(std::size_t i = 0; i < knobs.size(); i++)
        ss << "|" << knobs[i].first << ":" << knobs[i].second;
    return ss.str();
}

std::optional<engine_choice> engine_choice::parse(const std::string& s)
{
    engine_choice c;
    std::size_t pos = 0;
    auto number     = [&](std::int64_t& v) {
        std::size_t end = pos;
        if(end < s.size() and s[end] == '-')
            end++;
        auto digits = end;
        while(end < s.size() and s[end] >= '0' and s[end] <= '9')
            end++;
        if(end == digits or end - digits > 18)
            return false;
        v   = std::stoll(s.substr(pos, end - pos));
        pos = end;
        return true;
    };
    if(not number(c.index) or c.index < 0)
        return std::nullopt;
    while(pos < s.size())
    {
        std::pair<std::int64_t, std::int64_t> k;
        if(s[pos] != '|')
            return std::nullopt;
        pos++;
        if(not number(k.first) or pos >= s.size() or s[pos] != ':')
            return std::nullopt;
        pos++;
        if(not number(k.second))
            return std::nullopt;
        c.knobs.push_back(k);
    }
    std::sort(c.knobs.begin(), c.knobs.end());
    return c;
}

int fastest(const std::vector<std::optional<double>>& ms)
{
    int best = -1;
    for(std::size_t i = 0; i < ms.size(); i++)
        if(ms[i] and (best < 0 or *ms[i] < *ms[best]))
            best = static_cast<int>(i);
    return best;
}

std::string numerical_notes_text(const std::vector<int>& notes)
{
    static const char* const names[] = {"tensor core",
                                        "down-converts inputs",
                                        "reduced precision reduction",
                                        "fft",
                                        "nondeterministic",
                                        "winograd",
                                        "winograd 4x4",
                                        "winograd 6x6",
                                        "winograd 13x13",
                                        "strict nan propagation"};
    std::string r;
    for(int n : notes)
    {
        if(not r.empty())
            r += ", ";
        r += n >= 0 and n < static_cast<int>(std::size(names)) ? std::string(names[n]) : "note " + std::to_string(n);
    }
    return r;
}

bool half_close(const std::uint16_t* got, const std::uint16_t* want, std::size_t n)
{
    double scale = 0;
    for(std::size_t i = 0; i < n; i++)
    {
        double w = half::from_bits(want[i]);
        if(std::isfinite(w))
            scale = std::max(scale, std::fabs(w));
    }
    double tol = 0.02 * scale + 1e-3;
    for(std::size_t i = 0; i < n; i++)
    {
        double g = half::from_bits(got[i]), w = half::from_bits(want[i]);
        if(std::isnan(w) or std::isnan(g))
        {
            if(std::isnan(w) != std::isnan(g))
                return false;
            continue;
        }
        if(std::isinf(w) or std::isinf(g))
        {
            if(g != w)
                return false;
            continue;
        }
        if(std::fabs(g - w) > tol)
            return false;
    }
    return true;
}

} // namespace dnn
} // namespace gpu
} // namespace migraphx
