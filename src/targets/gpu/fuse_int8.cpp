#include "targets/gpu/fuse_int8.hpp"
#include "targets/gpu/layout_nhwc.hpp"
#include "ir/env.hpp"
#include "passes/constant_values.hpp"
#include "passes/dead_code_elimination.hpp"
#include "passes/pass_utils.hpp"
#include "quantize/int8_support.hpp"
#include <migraphx/instruction.hpp>
#include <migraphx/literal.hpp>
#include <migraphx/make_op.hpp>
#include <algorithm>
#include <limits>
#include <optional>

namespace migraphx {
namespace gpu {

namespace {

using pass_utils::along_axis;
using pass_utils::only_user;

/// What follows a quant_convolution and folds into an int8_convolution.
struct int8_chain
{
    std::vector<float> scales, bias; // per output channel (bias: empty if none)
    std::optional<instruction_ref> z;
    float z_scale = 1; // z's scale (an int8 z), over the requantize's
    bool z_int8   = false;
    bool relu     = false;
    instruction_ref last; // the instruction the fused op replaces
    shape::type_t out_type = shape::float_type;
};

bool is_float_convert(instruction_ref u)
{
    if(u->name() != "convert")
        return false;
    auto t = u->get_shape().type();
    return t == shape::float_type or t == shape::half_type;
}

/// An int8 residual (quantize_int8's int8_residuals): v = [convert](dequantizelinear(q, s)) with
/// q int8 and one scale: q and s.
std::optional<std::pair<instruction_ref, float>> int8_residual(instruction_ref v)
{
    if(is_float_convert(v))
        v = v->inputs().front();
    if(v->name() != "dequantizelinear" or v->inputs()[0]->get_shape().type() != shape::int8_type)
        return std::nullopt;
    auto s = pass_utils::uniform_constant(v->inputs()[1]);
    if(not s)
        return std::nullopt;
    if(v->inputs().size() == 3)
    {
        auto zp = pass_utils::uniform_constant(v->inputs()[2]);
        if(not zp or *zp != 0)
            return std::nullopt;
    }
    return std::make_pair(v->inputs()[0], *s);
}

/// dequantizelinear(q, per-channel scales[, zero points]) [-> convert] [-> + bias] [-> + z]
/// [-> relu], the longest such chain of one-user links after q. An int8 residual (z =
/// dequantizelinear(int8 value, scale)) is read as the int8 value times its scale.
std::optional<int8_chain> grow(instruction_ref q, std::size_t k)
{
    auto d = only_user(q);
    if(d == instruction_ref{} or d->name() != "dequantizelinear" or d->inputs()[0] != q or
       d->get_shape().type() != shape::float_type)
        return std::nullopt;
    auto scales = along_axis(d->inputs()[1], 1, k);
    if(not scales)
        return std::nullopt;
    int8_chain c;
    c.scales = *scales;
    c.bias.assign(k, 0.0f);
    bool has_bias = false;
    if(d->inputs().size() == 3)
    {
        auto zp = along_axis(d->inputs()[2], 1, k);
        if(not zp)
            return std::nullopt;
        for(std::size_t i = 0; i < k; i++)
            c.bias[i] -= (*zp)[i] * c.scales[i];
        has_bias = std::any_of(zp->begin(), zp->end(), [](float v) { return v != 0; });
    }
    c.last     = d;
    bool added = false;
    while(true)
    {
        auto u = only_user(c.last);
        if(u == instruction_ref{})
            break;
        if(is_float_convert(u) and not c.z and not c.relu)
        {
            c.last = u;
            continue;
        }
        if(u->name() == "add" and not c.relu)
        {
            auto other = u->inputs()[0] == c.last ? u->inputs()[1] : u->inputs()[0];
            if(other == c.last)
                break;
            if(not added and not c.z)
                if(auto b = along_axis(other, 1, k))
                {
                    for(std::size_t i = 0; i < k; i++)
                        c.bias[i] += (*b)[i];
                    added = has_bias = true;
                    c.last = u;
                    continue;
                }
            if(not c.z and other->get_shape().lens() == u->get_shape().lens() and
               other->get_shape().type() == u->get_shape().type() and not other->get_shape().broadcasted())
            {
                if(auto q = int8_residual(other))
                {
                    c.z       = q->first;
                    c.z_scale = q->second;
                    c.z_int8  = true;
                }
                else
                    c.z = other;
                c.last = u;
                continue;
            }
            break;
        }
        if(u->name() == "relu" and not c.relu)
        {
            c.relu = true;
            c.last = u;
            continue;
        }
        break;
    }
    if(not has_bias)
        c.bias.clear();
    c.out_type = c.last->get_shape().type();
    return c;
}

/// The quantizelinear (per tensor, zero point 0, int8) that is the one user of `last` (maybe
/// behind a convert to float) and feeds only int8 convolutions as their data (and int8
/// residuals): its scale.
std::optional<std::pair<instruction_ref, float>> requantize_after(instruction_ref last)
{
    auto u = only_user(last);
    if(u != instruction_ref{} and is_float_convert(u) and u->get_shape().type() == shape::float_type)
        u = only_user(u);
    if(u == instruction_ref{} or u->name() != "quantizelinear" or u->inputs().size() != 3 or
       u->get_shape().type() != shape::int8_type)
        return std::nullopt;
    auto s  = pass_utils::uniform_constant(u->inputs()[1]);
    auto zp = pass_utils::uniform_constant(u->inputs()[2]);
    if(not s or not zp or *zp != 0 or not(*s > 0))
        return std::nullopt;
    // int8 convolutions read it as data; quantize_int8's int8_residuals also dequantizes it
    bool only_convs = std::all_of(u->outputs().begin(), u->outputs().end(), [&](instruction_ref c) {
        return (c->name() == "quant_convolution" and c->inputs()[0] == u and c->inputs()[1] != u) or
               (c->name() == "dequantizelinear" and c->inputs()[0] == u);
    });
    if(not only_convs or u->outputs().empty())
        return std::nullopt;
    return std::make_pair(u, *s);
}

void fuse_convolution(module& m, instruction_ref q)
{
    auto x = q->inputs()[0], w = q->inputs()[1];
    auto v = q->get_operator().to_value();
    if(x->get_shape().type() != shape::int8_type or w->name() != "@literal" or
       w->get_shape().type() != shape::int8_type or not w->get_shape().standard() or
       v.at("padding_mode").get_int64() != 0 or v.at("use_dynamic_same_auto_pad").get_bool() or
       not gpu_int8_convolution_fits(x->get_shape(), w->get_shape(), v.at("group").get_int64()))
        return;
    auto padding = v.at("padding").to_vector<std::size_t>();
    if(padding.size() == 2)
        padding.insert(padding.end(), padding.begin(), padding.end());
    if(padding.size() != 4)
        return;
    std::size_t k = w->get_shape().lens()[0];
    auto c        = grow(q, k);
    if(not c)
        return;
    auto target = c->last;
    // requantized: without a residual, or with an int8 one (a float residual stays unscaled: the
    // graphs measured so far)
    auto rq = not c->z or c->z_int8 ? requantize_after(c->last) : std::nullopt;
    if(rq)
    {
        target = rq->first;
        for(auto& s : c->scales)
            s /= rq->second;
        for(auto& b : c->bias)
            b /= rq->second;
        c->z_scale /= rq->second;
        c->out_type = shape::int8_type;
    }
    std::vector<float> scales = c->scales;
    if(std::all_of(scales.begin(), scales.end(), [&](float s) { return s == scales[0]; }))
        scales.resize(1);
    std::vector<instruction_ref> args{x, m.add_literal(to_nhwc(w->get_literal()))}; // KRSC, as cuDNN reads it
    if(not c->bias.empty())
        args.push_back(m.add_literal(literal{shape{shape::float_type, {k}}, c->bias}));
    if(c->z)
        args.push_back(*c->z);
    m.replace_instruction(target,
                          make_op("int8_convolution",
                                  {{"padding", padding},
                                   {"stride", v.at("stride")},
                                   {"dilation", v.at("dilation")},
                                   {"scales", scales},
                                   {"bias", not c->bias.empty()},
                                   {"residual", c->z.has_value()},
                                   {"relu", c->relu},
                                   {"z_scale", c->z_scale},
                                   {"out_type", c->out_type}}),
                          args);
}

// ---- the rest as float arithmetic ---------------------------------------------------------------

instruction_ref to_type(module& m, instruction_ref pos, instruction_ref x, shape::type_t t)
{
    if(x->get_shape().type() == t)
        return x;
    return m.insert_instruction(pos, make_op("convert", {{"target_type", t}}), {x});
}

instruction_ref filled(module& m, instruction_ref pos, float v, const std::vector<std::size_t>& lens)
{
    auto l = m.add_literal(literal{shape{shape::float_type, {1}}, {v}});
    return m.insert_instruction(pos, make_op("multibroadcast", {{"out_lens", lens}}), {l});
}

/// y = saturate(round_half_even(x / s) + zp), as quantizelinear computes it (x / s in float); for an
/// fp8 y, convert(x / s + zp).
void quantize_in_float(module& m, instruction_ref ins)
{
    const auto& out  = ins->get_shape();
    const auto& lens = out.lens();
    auto x           = to_type(m, ins, ins->inputs()[0], shape::float_type);
    auto s           = to_type(m, ins, ins->inputs()[1], shape::float_type);
    auto q           = m.insert_instruction(ins, make_op("div"), {x, s});
    if(out.type() == shape::fp8e4m3fn_type)
    {
        // e4m3 is not an integer grid: convert rounds to nearest even and saturates at +-448
        if(ins->inputs().size() == 3)
            q = m.insert_instruction(ins, make_op("add"), {q, to_type(m, ins, ins->inputs()[2], shape::float_type)});
        m.replace_instruction(ins, make_op("convert", {{"target_type", out.type()}}), {q});
        return;
    }
    auto r = m.insert_instruction(ins, make_op("round"), {q});
    if(ins->inputs().size() == 3)
        r = m.insert_instruction(ins, make_op("add"), {r, to_type(m, ins, ins->inputs()[2], shape::float_type)});
    double lo = 0, hi = 0;
    out.visit_type([&](auto as) {
        using T = typename decltype(as)::type;
        lo      = static_cast<double>(std::numeric_limits<T>::lowest());
        hi      = static_cast<double>(std::numeric_limits<T>::max());
    });
    auto c = m.insert_instruction(ins, make_op("clip"),
                                  {r, filled(m, ins, static_cast<float>(lo), lens), filled(m, ins, static_cast<float>(hi), lens)});
    m.replace_instruction(ins, make_op("convert", {{"target_type", out.type()}}), {c});
}

/// y = (x - zp) * s in float, then in s's type.
void dequantize_in_float(module& m, instruction_ref ins)
{
    auto x = to_type(m, ins, ins->inputs()[0], shape::float_type);
    if(ins->inputs().size() == 3)
        x = m.insert_instruction(ins, make_op("sub"), {x, to_type(m, ins, ins->inputs()[2], shape::float_type)});
    auto y = m.insert_instruction(ins, make_op("mul"), {x, to_type(m, ins, ins->inputs()[1], shape::float_type)});
    m.replace_instruction(ins, make_op("convert", {{"target_type", ins->get_shape().type()}}), {y});
}

/// The integer product as a float convolution / dot of the integer values, converted to int32.
void product_in_float(module& m, instruction_ref ins, const operation& float_op)
{
    auto a = to_type(m, ins, ins->inputs()[0], shape::float_type);
    auto b = to_type(m, ins, ins->inputs()[1], shape::float_type);
    auto p = m.insert_instruction(ins, float_op, {a, b});
    m.replace_instruction(ins, make_op("convert", {{"target_type", shape::int32_type}}), {p});
}

bool static_shapes(instruction_ref ins)
{
    return not ins->get_shape().dynamic() and
           std::none_of(ins->inputs().begin(), ins->inputs().end(), [](instruction_ref x) { return x->get_shape().dynamic(); });
}

} // namespace

void fuse_int8::apply(module& m) const
{
    bool fuse = not env_enabled("MIGRAPHX_DISABLE_INT8_FUSION");
    if(fuse)
    {
        auto dd = pass_utils::data_dependent(m); // these run on the host as they are
        for(auto ins = m.begin(); ins != m.end(); ++ins)
            if(ins->name() == "quant_convolution" and dd.count(&*ins) == 0 and static_shapes(ins))
                fuse_convolution(m, ins);
        dead_code_elimination{}.apply(m);
    }
    auto dd = pass_utils::data_dependent(m);
    for(auto ins = m.begin(); ins != m.end(); ++ins)
    {
        if(dd.count(&*ins) > 0 or not static_shapes(ins))
            continue;
        const auto& n = ins->name();
        if(n == "quantizelinear")
            quantize_in_float(m, ins);
        else if(n == "dequantizelinear")
            dequantize_in_float(m, ins);
        else if(n == "quant_convolution")
        {
            auto v = ins->get_operator().to_value();
            product_in_float(m, ins, make_op("convolution", v));
        }
        else if(n == "quant_dot" and
                not(fuse and gpu_int8_gemm_runs(ins->inputs()[0]->get_shape(), ins->inputs()[1]->get_shape())))
            product_in_float(m, ins, make_op("dot"));
    }
}

} // namespace gpu
} // namespace migraphx
