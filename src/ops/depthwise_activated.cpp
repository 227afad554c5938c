#include <migraphx/register_op.hpp>
#include "ops/check_shapes.hpp"
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace migraphx {
namespace op {

/// A 2-d depthwise convolution (one kh x kw filter a channel) with a per-channel activation of
/// its input as read and of its result: y = post(conv(pre(x))), pre/post: v -> clamp(v + bias[c],
/// lo, hi) (the zero padding is of pre(x)). Not made by the parser: the gpu target's
/// fuse_depthwise pass folds MobileNet's "bias + relu6 -> depthwise conv -> bias + relu6" into it
/// so the three run as one kernel. Inputs: x {N, C, H, W}; weights {kh, kw, C} (a tap's channels
/// together); the pre bias {C} if pre_bias; the post bias {C} if post_bias. Float or half, all one
/// type; computed in float.
struct depthwise_activated
{
    std::vector<std::size_t> stride{1, 1}, dilation{1, 1};
    std::vector<std::size_t> padding{0, 0, 0, 0}; // begin h, w, end h, w
    bool pre_bias = false, post_bias = false;
    std::vector<float> pre_clip, post_clip; // {lo, hi} or empty

    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.stride, "stride");
        f(self.dilation, "dilation");
        f(self.padding, "padding");
        f(self.pre_bias, "pre_bias");
        f(self.post_bias, "post_bias");
        f(self.pre_clip, "pre_clip");
        f(self.post_clip, "post_clip");
    }

    std::string name() const { return "depthwise_activated"; }

    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes cs{inputs, *this};
        cs.has(2 + (pre_bias ? 1 : 0) + (post_bias ? 1 : 0)).not_tuple().static_only().same_type();
        const auto& x = inputs[0];
        const auto& w = inputs[1];
        if(x.type() != shape::float_type and x.type() != shape::half_type)
            cs.fail("expects float or half");
        if(x.lens().size() != 4 or w.lens().size() != 3 or w.lens()[2] != x.lens()[1])
            cs.fail("expects x {N, C, H, W} and weights {kh, kw, C}");
        for(std::size_t i = 2; i < inputs.size(); i++)
            if(inputs[i].lens() != std::vector<std::size_t>{x.lens()[1]})
                cs.fail("expects biases of {C}");
        if(stride.size() != 2 or dilation.size() != 2 or padding.size() != 4 or stride[0] == 0 or stride[1] == 0 or
           dilation[0] == 0 or dilation[1] == 0)
            cs.fail("expects 2 strides, 2 dilations (non-zero) and 4 paddings");
        if((not pre_clip.empty() and pre_clip.size() != 2) or (not post_clip.empty() and post_clip.size() != 2))
            cs.fail("expects clip bounds as {lo, hi}");
        auto lens = x.lens();
        for(std::size_t d = 0; d < 2; d++)
        {
            auto span = static_cast<std::int64_t>(dilation[d] * (w.lens()[d] - 1) + 1);
            auto in   = static_cast<std::int64_t>(x.lens()[d + 2] + padding[d] + padding[d + 2]);
            if(in < span)
                cs.fail("expects the padded input at least as large as the filter");
            lens[d + 2] = static_cast<std::size_t>((in - span) / static_cast<std::int64_t>(stride[d]) + 1);
        }
        return {x.type(), lens};
    }

    static float activate(float v, const float* bias, std::size_t c, const std::vector<float>& clip)
    {
        if(bias != nullptr)
            v += bias[c];
        if(not clip.empty())
        {
            v = v < clip[0] ? clip[0] : v;
            v = clip[1] < v ? clip[1] : v;
        }
        return v;
    }

    argument compute(const shape& out, const std::vector<argument>& args) const
    {
        const auto& xl = args[0].get_shape().lens();
        const auto& wl = args[1].get_shape().lens();
        std::size_t N = xl[0], C = xl[1], H = xl[2], W = xl[3], KH = wl[0], KW = wl[1];
        std::size_t OH = out.lens()[2], OW = out.lens()[3];
        auto x = args[0].to_vector<float>(); // standard order
        auto w = args[1].to_vector<float>();
        std::vector<float> bpre, bpost;
        std::size_t next = 2;
        if(pre_bias)
            bpre = args[next++].to_vector<float>();
        if(post_bias)
            bpost = args[next++].to_vector<float>();
        std::vector<float> y(out.elements());
        for(std::size_t n = 0; n < N; n++)
            for(std::size_t c = 0; c < C; c++)
                for(std::size_t oh = 0; oh < OH; oh++)
                    for(std::size_t ow = 0; ow < OW; ow++)
                    {
                        float acc = 0;
                        for(std::size_t ky = 0; ky < KH; ky++)
                            for(std::size_t kx = 0; kx < KW; kx++)
                            {
                                auto iy = static_cast<std::int64_t>(oh * stride[0] + ky * dilation[0]) -
                                          static_cast<std::int64_t>(padding[0]);
                                auto ix = static_cast<std::int64_t>(ow * stride[1] + kx * dilation[1]) -
                                          static_cast<std::int64_t>(padding[1]);
                                if(iy < 0 or ix < 0 or iy >= static_cast<std::int64_t>(H) or
                                   ix >= static_cast<std::int64_t>(W))
                                    continue;
                                float v = x[((n * C + c) * H + iy) * W + ix];
                                v       = activate(v, pre_bias ? bpre.data() : nullptr, c, pre_clip);
                                acc += v * w[(ky * KW + kx) * C + c];
                            }
                        y[((n * C + c) * OH + oh) * OW + ow] =
                            activate(acc, post_bias ? bpost.data() : nullptr, c, post_clip);
                    }
        argument result{out};
        result.visit([&](auto o) {
            using T = typename decltype(o)::value_type;
            for(std::size_t i = 0; i < y.size(); i++)
                o[i] = type_cast<T>(y[i]);
        });
        return result;
    }
};
MIGRAPHX_REGISTER_OP(depthwise_activated)

} // namespace op
} // namespace migraphx
