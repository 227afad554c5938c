#include "targets/gpu/fuse_depthwise.hpp"
#include "targets/gpu/codegen_depthwise.hpp"
#include "ir/env.hpp"
#include "passes/pass_utils.hpp"
#include <migraphx/instruction.hpp>
#include <migraphx/literal.hpp>
#include <migraphx/make_op.hpp>
#include <algorithm>
#include <limits>

namespace migraphx {
namespace gpu {
namespace {

/// What a fused pointwise op does to one tensor, when it is "v + bias[c], then clip or relu".
struct channel_chain
{
    std::optional<instruction_ref> bias; // the {C} literal
    std::vector<float> clip;             // {lo, hi} or empty
};

/// The {C} per-channel constant behind `x` (a {N, C, H, W} broadcast of a literal of C values).
std::optional<instruction_ref> channel_literal(instruction_ref x, instruction_ref end)
{
    const auto& s = x->get_shape();
    if(s.lens().size() != 4)
        return std::nullopt;
    for(std::size_t d = 0; d < 4; d++)
        if(d != 1 and s.lens()[d] != 1 and s.strides()[d] != 0)
            return std::nullopt;
    auto l = pass_utils::broadcast_literal(x, end);
    if(l == end or l->get_shape().elements() != s.lens()[1] or (s.lens()[1] > 1 and s.strides()[1] != 1))
        return std::nullopt;
    return l;
}

/// pw's body as a channel_chain of its input `main` (its one other input, if any, the bias).
std::optional<channel_chain> chain_of(instruction_ref pw, instruction_ref main, instruction_ref end)
{
    if(pw->name() != "pointwise" or pw->module_inputs().size() != 1 or pw->inputs().size() > 2 or
       std::count(pw->inputs().begin(), pw->inputs().end(), main) != 1)
        return std::nullopt;
    channel_chain r;
    std::size_t mi = std::find(pw->inputs().begin(), pw->inputs().end(), main) - pw->inputs().begin();
    std::optional<std::size_t> bi;
    if(pw->inputs().size() == 2)
    {
        bi = 1 - mi;
        r.bias = channel_literal(pw->inputs()[*bi], end);
        if(not r.bias)
            return std::nullopt;
    }
    const module& sub = *pw->module_inputs().front();
    std::optional<instruction_ref> cur;
    bool added = false;
    for(auto it = sub.begin(); it != sub.end(); ++it)
    {
        const auto& n = it->name();
        if(n == "@param")
        {
            if(pass_utils::is_pointwise_param(it, mi))
                cur = it;
            continue;
        }
        if(n == "@literal" or ((n == "multibroadcast" or n == "broadcast") and pass_utils::scalar_value(it)))
            continue;
        if(not cur)
            return std::nullopt;
        const auto& in = it->inputs();
        if(n == "@return")
        {
            if(in.size() != 1 or in.front() != *cur or (bi and not added))
                return std::nullopt;
            return r;
        }
        auto bias_of = [&](instruction_ref a, instruction_ref b) {
            return a == *cur and pass_utils::is_pointwise_param(b, *bi);
        };
        if(n == "add" and bi and not added and r.clip.empty() and in.size() == 2 and
           (bias_of(in[0], in[1]) or bias_of(in[1], in[0])))
            added = true;
        else if(n == "clip" and r.clip.empty() and in.size() == 3 and in[0] == *cur)
        {
            auto lo = pass_utils::scalar_value(in[1]), hi = pass_utils::scalar_value(in[2]);
            if(not lo or not hi)
                return std::nullopt;
            r.clip = {*lo, *hi};
        }
        else if(n == "relu" and r.clip.empty() and in.size() == 1 and in[0] == *cur)
            r.clip = {0.0f, std::numeric_limits<float>::infinity()};
        else
            return std::nullopt;
        cur = it;
    }
    return std::nullopt;
}

/// The {kh, kw, C} weights of a depthwise filter literal {C, 1, kh, kw}.
literal tap_major(const literal& w)
{
    const auto& l = w.get_shape().lens();
    std::size_t C = l[0], KH = l[2], KW = l[3];
    auto v        = w.to_vector<float>(); // logical order
    std::vector<float> t(v.size());
    for(std::size_t c = 0; c < C; c++)
        for(std::size_t k = 0; k < KH * KW; k++)
            t[k * C + c] = v[c * KH * KW + k];
    return literal{shape{w.get_shape().type(), {KH, KW, C}}, t};
}

} // namespace

void fuse_depthwise::apply(module& m) const
{
    if(env_enabled("MIGRAPHX_DISABLE_DEPTHWISE_FUSION"))
        return;
    for(auto conv = m.begin(); conv != m.end(); ++conv)
    {
        if(conv->name() != "convolution" or conv->inputs().size() != 2)
            continue;
        auto x = conv->inputs()[0], w = conv->inputs()[1];
        const auto& xs = x->get_shape();
        const auto& ws = w->get_shape();
        auto v         = conv->get_operator().to_value();
        if(xs.type() != shape::half_type or xs.lens().size() != 4 or ws.lens().size() != 4 or
           w->name() != "@literal" or ws.lens()[1] != 1 or ws.lens()[0] != xs.lens()[1] or
           v.at("group").get_int64() != static_cast<std::int64_t>(xs.lens()[1]) or
           v.at("padding_mode").get_int64() != 0)
            continue;
        auto pad = v.at("padding").to_vector<std::size_t>();
        if(pad.size() == 2)
            pad.insert(pad.end(), pad.begin(), pad.end());
        if(pad.size() != 4)
            continue;
        // The activation of the input, when this convolution is its one user.
        std::optional<channel_chain> pre, post;
        instruction_ref read = x; // the tensor the kernel reads
        if(x->outputs().size() == 1 and x->name() == "pointwise")
            for(auto src : x->inputs())
                if(src->get_shape().lens() == xs.lens() and (pre = chain_of(x, src, m.end())))
                {
                    read = src;
                    break;
                }
        instruction_ref last = conv;
        if(conv->outputs().size() == 1)
        {
            auto u = conv->outputs().front();
            if((post = chain_of(u, conv, m.end())))
                last = u;
        }
        value attrs = {{"stride", v.at("stride")},
                       {"dilation", v.at("dilation")},
                       {"padding", pad},
                       {"pre_bias", pre and pre->bias},
                       {"post_bias", post and post->bias},
                       {"pre_clip", pre ? pre->clip : std::vector<float>{}},
                       {"post_clip", post ? post->clip : std::vector<float>{}}};
        shape taps{ws.type(), {ws.lens()[2], ws.lens()[3], ws.lens()[0]}};
        if(not generate_depthwise(depthwise_spec_of(attrs, read->get_shape(), taps, conv->get_shape())))
            continue;
        std::vector<instruction_ref> args{read, m.add_literal(tap_major(w->get_literal()))};
        // The biases as {C} literals (a folded constant may be {1, C, 1, 1}, even with broadcast strides).
        auto channel_vector = [&](instruction_ref l) {
            return m.add_literal(literal{shape{l->get_shape().type(), {xs.lens()[1]}}, l->get_literal().to_vector<float>()});
        };
        if(pre and pre->bias)
            args.push_back(channel_vector(*pre->bias));
        if(post and post->bias)
            args.push_back(channel_vector(*post->bias));
        m.replace_instruction(last, make_op("depthwise_activated", attrs), args, {});
    }
}

} // namespace gpu
} // namespace migraphx
