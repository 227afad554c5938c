// The lowering's fused attention: dot(softmax(steps(dot(Q, K^T))), V), as a transformer's
// self-attention reaches the gpu target after fuse_pointwise, becomes one generated kernel
// (codegen_attention.cpp). Matched on the unlowered main module, before the rest is lowered, so
// the two products, the score's pointwise steps and the softmax are still there to be seen.
#include "targets/gpu/lowering.hpp"
#include "targets/gpu/codegen.hpp"
#include "targets/gpu/fp8_output.hpp"
#include "targets/gpu/kernel_compiler.hpp"
#include "ir/env.hpp"
#include "passes/pass_utils.hpp"
#include <migraphx/instruction.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/literal.hpp>

namespace migraphx {
namespace gpu {
namespace {

/// The value of a one-element constant in a pointwise body (a literal, or a broadcast of one).
std::optional<float> scalar_of(instruction_ref x)
{
    auto t = x->get_shape().type();
    if(t != shape::half_type and t != shape::float_type)
        return std::nullopt;
    return pass_utils::scalar_value(x);
}

/// A convert the kernel may skip: to float or half (it computes the scores in float anyway).
/// A pointwise body as a chain from input `from`: every op takes the running value once and
/// at most one other operand (a scalar constant or input `other`), converts pass it on.
/// Nothing when the body is anything else (a branch, an op outside + - * /, a second use).
std::optional<std::vector<attention_step>> chain_of(const module& sub, std::size_t from, std::optional<std::size_t> other)
{
    std::vector<attention_step> steps;
    std::optional<instruction_ref> cur;
    for(auto it = sub.begin(); it != sub.end(); ++it)
    {
        const auto& n = it->name();
        if(n == "@param")
        {
            if(pass_utils::is_pointwise_param(it, from))
                cur = it;
            continue;
        }
        if(n == "@literal" or ((n == "multibroadcast" or n == "broadcast") and scalar_of(it)))
            continue;
        if(not cur)
            return std::nullopt;
        if(n == "@return")
        {
            if(it->inputs().size() != 1 or it->inputs().front() != *cur)
                return std::nullopt;
            return steps;
        }
        const auto& in = it->inputs();
        if(n == "convert" and in.size() == 1 and in.front() == *cur and float_or_half(it->get_shape()))
        {
            cur = it;
            continue;
        }
        if((n != "add" and n != "sub" and n != "mul" and n != "div") or in.size() != 2 or (in[0] == *cur) == (in[1] == *cur))
            return std::nullopt;
        attention_step st;
        st.op            = n;
        st.operand_first = in[1] == *cur;
        auto operand     = st.operand_first ? in[0] : in[1];
        if(auto c = scalar_of(operand))
            st.value = *c;
        else if(other and pass_utils::is_pointwise_param(operand, *other))
            st.mask = true;
        else
            return std::nullopt;
        steps.push_back(st);
        cur = it;
    }
    return std::nullopt;
}

/// A pointwise after the softmax that only converts (true), or also replaces NaN by 0 as torch's
/// scaled_dot_product_attention export does (where(isnan(p), 0, p): fully masked rows): sets
/// nan_to_zero. Nothing for any other body.
bool post_softmax(const module& sub, bool& nan_to_zero)
{
    std::optional<instruction_ref> cur, nan;
    for(auto it = sub.begin(); it != sub.end(); ++it)
    {
        const auto& n  = it->name();
        const auto& in = it->inputs();
        if(n == "@param")
        {
            if(not pass_utils::is_pointwise_param(it, 0))
                return false;
            cur = it;
        }
        else if(n == "@literal" or ((n == "multibroadcast" or n == "broadcast") and scalar_of(it)))
            continue;
        else if(not cur)
            return false;
        else if(n == "convert" and in.size() == 1 and in.front() == *cur and float_or_half(it->get_shape()))
            cur = it;
        else if(n == "isnan" and in.size() == 1 and in.front() == *cur and not nan)
            nan = it;
        else if(n == "where" and nan and in.size() == 3 and in[0] == *nan and in[2] == *cur and scalar_of(in[1]) == 0.0f)
        {
            cur         = it;
            nan_to_zero = true;
        }
        else if(n == "@return")
            return in.size() == 1 and in.front() == *cur and (not nan or nan_to_zero);
        else
            return false;
    }
    return false;
}

/// x, or the input of a pointwise that only scales it by constants (folded into `scale`).
instruction_ref unscaled(instruction_ref x, float& scale)
{
    if(x->name() != "pointwise" or x->inputs().size() != 1 or x->module_inputs().size() != 1)
        return x;
    auto steps = chain_of(*x->module_inputs().front(), 0, std::nullopt);
    if(not steps)
        return x;
    float f = 1;
    for(const auto& st : *steps)
    {
        if(st.op == "mul")
            f *= st.value;
        else if(st.op == "div" and not st.operand_first)
            f /= st.value;
        else
            return x;
    }
    scale *= f;
    return x->inputs().front();
}

bool single_user(instruction_ref x, instruction_ref user)
{
    return x->outputs().size() == 1 and x->outputs().front() == user;
}

struct attention_match
{
    attention_spec spec;
    std::vector<instruction_ref> inputs; // q, kt, v[, mask]
    instruction_ref last;                // replaced by the kernel
    std::vector<instruction_ref> chain;  // what the kernel makes dead, users first
};

std::optional<attention_match> match(instruction_ref dot2)
{
    if(dot2->name() != "dot" or dot2->inputs().size() != 2 or dot2->get_shape().dynamic())
        return std::nullopt;
    attention_match r;
    auto p = dot2->inputs()[0], v = dot2->inputs()[1];
    if(p == v)
        return std::nullopt;
    // A convert between the softmax and the product (softmax kept in float), or NaN made 0.
    if(p->name() == "pointwise" and p->inputs().size() == 1 and single_user(p, dot2))
    {
        if(not post_softmax(*p->module_inputs().front(), r.spec.nan_to_zero))
            return std::nullopt;
        r.chain.push_back(p);
        auto sm = p->inputs().front();
        if(not single_user(sm, p))
            return std::nullopt;
        p = sm;
    }
    else if(not single_user(p, dot2))
        return std::nullopt;
    auto rank = dot2->get_shape().lens().size();
    if(p->name() != "softmax" or rank < 3)
        return std::nullopt;
    auto axis = p->get_operator().to_value().at("axis").get_int64();
    if(axis != static_cast<std::int64_t>(rank) - 1 and axis != -1)
        return std::nullopt;
    r.chain.push_back(p);
    auto s = p->inputs().front();
    instruction_ref dot1 = s;
    std::optional<instruction_ref> mask;
    if(s->name() == "pointwise" and single_user(s, p) and s->inputs().size() <= 2)
    {
        std::size_t k = s->inputs()[0]->name() == "dot" ? 0 : 1;
        if(k >= s->inputs().size() or s->inputs()[k]->name() != "dot")
            return std::nullopt;
        dot1 = s->inputs()[k];
        std::optional<std::size_t> other;
        if(s->inputs().size() == 2)
        {
            other = 1 - k;
            mask  = s->inputs()[1 - k];
            if(*mask == dot1)
                return std::nullopt;
        }
        auto steps = chain_of(*s->module_inputs().front(), k, other);
        if(not steps)
            return std::nullopt;
        r.spec.steps = *steps;
        r.chain.push_back(s);
    }
    if(dot1->name() != "dot" or not single_user(dot1, r.chain.back()) or dot1->inputs().size() != 2)
        return std::nullopt;
    r.chain.push_back(dot1);
    float scale = 1;
    auto qx = dot1->inputs()[0], kx = dot1->inputs()[1];
    auto q = unscaled(qx, scale), k = unscaled(kx, scale);
    for(auto x : {qx, kx})
        if(x->name() == "pointwise" and (x == qx ? q : k) != x and single_user(x, dot1) and qx != kx)
            r.chain.push_back(x);
    r.spec.scale = scale;
    r.spec.q     = q->get_shape();
    r.spec.kt    = k->get_shape();
    r.spec.v     = v->get_shape();
    r.inputs     = {q, k, v};
    if(mask)
    {
        r.spec.mask = (*mask)->get_shape();
        r.inputs.push_back(*mask);
    }
    // The product written straight into the transposed layout a following contiguous wants.
    r.last     = dot2;
    r.spec.out = dot2->get_shape();
    if(dot2->outputs().size() == 1)
    {
        auto t = dot2->outputs().front();
        if(t->name() == "transpose" and t->outputs().size() == 1 and t->outputs().front()->name() == "contiguous")
        {
            auto c    = t->outputs().front();
            auto perm = t->get_operator().to_value().at("permutation").to_vector<std::size_t>();
            shape packed{c->get_shape().type(), c->get_shape().lens()};
            std::vector<std::size_t> strides(rank);
            for(std::size_t j = 0; j < perm.size(); j++)
                strides[perm[j]] = packed.strides()[j];
            r.spec.out = shape{dot2->get_shape().type(), dot2->get_shape().lens(), strides};
            r.chain.insert(r.chain.begin(), {t, dot2});
            r.last = c;
        }
    }
    if(r.last == dot2)
        r.chain.insert(r.chain.begin(), dot2);
    return r;
}

/// The one user of an attention's result that casts it to e4m3 for the next product
/// (quantize_fp8's cast: a pointwise op of the result alone, maybe through reshapes): the kernel
/// writes e4m3 itself then. MIGRAPHX_DISABLE_FP8_OUTPUT=1: never.
struct e4m3_cast
{
    instruction_ref cast;
    std::vector<instruction_ref> views; // from the result to the cast's input
    float scale = 1;
};
std::optional<e4m3_cast> e4m3_cast_of(instruction_ref last)
{
    if(env_enabled("MIGRAPHX_DISABLE_FP8_OUTPUT"))
        return std::nullopt;
    e4m3_cast r;
    auto x = last;
    while(x->outputs().size() == 1 and x->outputs().front()->name() == "reshape")
    {
        x = x->outputs().front();
        r.views.push_back(x);
    }
    if(x->outputs().size() != 1)
        return std::nullopt;
    r.cast   = x->outputs().front();
    auto s   = e4m3_cast_scale(r.cast);
    if(not s)
        return std::nullopt;
    r.scale = *s;
    return r;
}

} // namespace

std::size_t lower_attention(module& m, const std::function<bool(instruction_ref)>& skip, int sm)
{
    if(env_enabled("MIGRAPHX_DISABLE_ATTENTION_FUSION"))
        return 0;
    std::vector<instruction_ref> dots;
    for(auto it = m.begin(); it != m.end(); ++it)
        if(it->name() == "dot")
            dots.push_back(it);
    std::size_t done = 0;
    for(auto d : dots)
    {
        auto found = match(d);
        if(not found)
            continue;
        bool data_dependent = std::any_of(found->chain.begin(), found->chain.end(), skip) or
                              std::any_of(found->inputs.begin(), found->inputs.end(), skip);
        if(data_dependent)
            continue;
        found->spec.sm = sm;
        std::optional<kernel_source> k;
        auto cast = e4m3_cast_of(found->last);
        if(cast and not skip(cast->cast))
        {
            auto spec      = found->spec;
            spec.out       = shape{shape::fp8e4m3fn_type, spec.out.lens(), spec.out.strides()};
            spec.out_scale = cast->scale;
            k              = generate_attention(spec);
            if(k)
                found->spec = spec;
        }
        if(not k)
        {
            cast.reset();
            k = generate_attention(found->spec);
        }
        if(not k)
            continue;
        auto args   = found->inputs;
        auto result = found->last->get_shape();
        if(cast)
            result = shape{shape::fp8e4m3fn_type, result.lens()};
        args.push_back(
            m.insert_instruction(found->last, make_op("hip::hip_allocate_memory", {{"shape", shape_to_value(result)}}), {}));
        // A Hopper kernel keeps the kernel every device runs, for a saved program loaded elsewhere.
        std::optional<kernel_source> other;
        if(needs_sm90a(k->source))
        {
            auto any_device = found->spec;
            any_device.sm   = 0;
            other           = generate_attention(any_device);
        }
        auto kernel = other ? make_kernel(*k, *other) : make_kernel(*k);
        if(cast)
        {
            // The e4m3 result, through the same reshapes, replaces the cast; the half result's
            // views and the cast go.
            auto y = m.insert_instruction(found->last, kernel, args, {});
            for(auto v : cast->views)
                y = m.insert_instruction(found->last, v->get_operator(), {y});
            m.replace_instruction(cast->cast, y);
            m.remove_instruction(cast->cast);
            for(auto v = cast->views.rbegin(); v != cast->views.rend(); ++v)
                m.remove_instruction(*v);
            m.remove_instruction(found->last);
        }
        else
            m.replace_instruction(found->last, kernel, args, {});
        // The products, softmax and steps the kernel replaced (users before what they use).
        for(auto x : found->chain)
            if(x != found->last and x->outputs().empty())
                m.remove_instruction(x);
        done++;
    }
    return done;
}

} // namespace gpu
} // namespace migraphx
