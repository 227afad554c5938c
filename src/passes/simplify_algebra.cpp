#include <algorithm>
#include "passes/simplify_algebra.hpp"
#include "passes/pass_utils.hpp"
#include <migraphx/make_op.hpp>
#include <cmath>
#include <iterator>
#include <optional>

namespace migraphx {

namespace {

using pass_utils::broadcast_literal;

bool is_literal(instruction_ref x) { return x->name() == "@literal"; }

// A constant expression: literals and side-effect-free ops of constants. Shallow on purpose
// (shared inputs make a deep search exponential): propagate_constant folds deeper ones into
// literals between rounds.
bool is_constant(instruction_ref x, int depth = 0)
{
    if(is_literal(x))
        return true;
    if(pass_utils::is_builtin(x) or x->inputs().empty() or not x->module_inputs().empty() or depth > 8 or
       pass_utils::has_side_effects(x->get_operator()))
        return false;
    for(auto in : x->inputs())
        if(not is_constant(in, depth + 1))
            return false;
    return true;
}

bool floating(instruction_ref x) { return shape::is_floating(x->get_shape().type()); }

// The literal weights of a convolution used only by `user`, or end.
instruction_ref foldable_conv_weights(instruction_ref conv, instruction_ref user, instruction_ref end)
{
    if(conv->name() != "convolution" or conv->inputs().size() != 2 or conv->outputs().size() != 1 or
       conv->outputs().front() != user or not floating(conv))
        return end;
    auto w = conv->inputs()[1];
    if(not is_literal(w) or w->get_shape().ndim() < 1 or w->get_shape().elements() == 0 or
       w->get_shape().type() != conv->get_shape().type())
        return end;
    return w;
}

// w[k, ...] * factor[k] as a new standard literal of w's type.
literal scale_weights(instruction_ref w, const std::vector<double>& factor)
{
    const auto& s     = w->get_shape();
    auto values       = w->get_literal().to_vector<double>();
    std::size_t per_k = s.elements() / s.lens()[0];
    for(std::size_t i = 0; i < values.size(); i++)
        values[i] *= factor[i / per_k];
    return literal{shape{s.type(), s.lens()}, values};
}

// Values of c along dim 1 when c varies along no other dim (a per-channel constant), or {}.
std::vector<double> per_channel_values(instruction_ref c, instruction_ref end)
{
    auto l        = broadcast_literal(c, end);
    const auto& s = c->get_shape();
    if(l == end or s.ndim() < 2 or s.elements() == 0)
        return {};
    for(std::size_t d = 0; d < s.ndim(); d++)
        if(d != 1 and s.lens()[d] != 1 and s.strides()[d] != 0)
            return {};
    auto view = c == l ? l->get_literal().get_argument()
                       : c->get_operator().compute(s, {l->get_literal().get_argument()});
    std::size_t inner = s.elements() / (s.lens()[0] * s.lens()[1]);
    std::vector<double> r(s.lens()[1]);
    for(std::size_t k = 0; k < r.size(); k++)
        r[k] = view.at<double>(k * inner);
    return r;
}

/// A spatial batch_norm_inference with literal parameters of k channels as y = x * factor + shift
/// per channel: factor = scale / sqrt(var + eps), shift = bias - mean * factor. Nothing otherwise.
struct bn_affine
{
    std::vector<double> factor, shift;
};
std::optional<bn_affine> batch_norm_affine(instruction_ref bn, std::size_t k)
{
    const auto& inputs = bn->inputs();
    auto attrs         = bn->get_operator().to_value();
    if(inputs.size() != 5 or attrs.at("bn_mode").to<std::int64_t>() != 1)
        return std::nullopt;
    for(std::size_t i = 1; i < 5; i++)
        if(not is_literal(inputs[i]) or inputs[i]->get_shape().elements() != k)
            return std::nullopt;
    auto eps   = attrs.at("epsilon").to<double>();
    auto scale = inputs[1]->get_literal().to_vector<double>();
    auto bias  = inputs[2]->get_literal().to_vector<double>();
    auto mean  = inputs[3]->get_literal().to_vector<double>();
    auto var   = inputs[4]->get_literal().to_vector<double>();
    bn_affine r{std::vector<double>(k), std::vector<double>(k)};
    for(std::size_t c = 0; c < k; c++)
    {
        r.factor[c] = scale[c] / std::sqrt(var[c] + eps);
        r.shift[c]  = bias[c] - mean[c] * r.factor[c];
    }
    return r;
}

bool fold_batch_norm(module& m, instruction_ref bn)
{
    // The convolution, or add(convolution, per-channel bias) as ONNX Conv with a bias parses.
    auto conv = bn->inputs()[0];
    auto user = bn;
    std::vector<double> pre_bias;
    if(conv->name() == "add" and conv->outputs().size() == 1)
    {
        for(std::size_t i = 0; i < 2 and pre_bias.empty(); i++)
        {
            auto c = conv->inputs()[1 - i];
            if(conv->inputs()[i]->name() != "convolution")
                continue;
            pre_bias = per_channel_values(c, m.end());
            if(not pre_bias.empty())
            {
                user = conv;
                conv = conv->inputs()[i];
            }
        }
        if(pre_bias.empty())
            return false;
    }
    auto w = foldable_conv_weights(conv, user, m.end());
    if(w == m.end())
        return false;
    auto k = conv->get_shape().lens()[1];
    if(w->get_shape().lens()[0] != k)
        return false;
    auto bn_ax = batch_norm_affine(bn, k);
    if(pre_bias.empty())
        pre_bias.assign(k, 0.0);
    if(not bn_ax or pre_bias.size() != k)
        return false;
    // The convolution's own bias goes through the batch norm's factor too.
    for(std::size_t c = 0; c < k; c++)
        bn_ax->shift[c] += pre_bias[c] * bn_ax->factor[c];
    auto type     = conv->get_shape().type();
    auto new_w    = m.add_literal(scale_weights(w, bn_ax->factor));
    auto b        = m.add_literal(literal{shape{type, {k}}, bn_ax->shift});
    auto new_conv = m.insert_instruction(bn, conv->get_operator(), {conv->inputs()[0], new_w});
    auto bcast    = m.insert_instruction(
        bn, make_op("broadcast", {{"axis", 1}, {"out_lens", conv->get_shape().lens()}}), {b});
    m.replace_instruction(bn, make_op("add"), {new_conv, bcast});
    return true;
}

// batch_norm_inference with literal parameters that no convolution takes (DenseNet's BN -> ReLU
// -> conv, a BN after a concat or a pool) -> add(mul(x, f), shift) with per-channel broadcast
// literals, f = scale / sqrt(var + eps), shift = bias - mean * f: pointwise ops, which fuse with
// the activation after them into one kernel on every target (the reference op was ~0.7 ms a call
// in DenseNet-121 on cpu).
bool batch_norm_to_scale_shift(module& m, instruction_ref bn)
{
    const auto& x  = bn->inputs()[0];
    const auto& xs = x->get_shape();
    if(not floating(x) or xs.dynamic() or xs.ndim() < 2)
        return false;
    auto k     = xs.lens()[1];
    auto bn_ax = batch_norm_affine(bn, k);
    if(not bn_ax)
        return false;
    auto per_channel = [&](const std::vector<double>& v) {
        auto l = m.add_literal(literal{shape{xs.type(), {k}}, v});
        return m.insert_instruction(bn, make_op("broadcast", {{"axis", 1}, {"out_lens", xs.lens()}}), {l});
    };
    auto scaled = m.insert_instruction(bn, make_op("mul"), {x, per_channel(bn_ax->factor)});
    m.replace_instruction(bn, make_op("add"), {scaled, per_channel(bn_ax->shift)});
    return true;
}

bool fold_mul_conv(module& m, instruction_ref mul)
{
    for(std::size_t i = 0; i < 2; i++)
    {
        auto conv = mul->inputs()[i];
        auto c    = mul->inputs()[1 - i];
        auto w    = foldable_conv_weights(conv, mul, m.end());
        if(w == m.end())
            continue;
        auto factor = per_channel_values(c, m.end());
        if(factor.empty() or factor.size() != w->get_shape().lens()[0])
            continue;
        auto new_w = m.add_literal(scale_weights(w, factor));
        m.replace_instruction(mul, conv->get_operator(), {conv->inputs()[0], new_w});
        return true;
    }
    return false;
}

// An instruction before pos computing op(c1, c2) (op add or mul) for constants of equal lens,
// kept small where the constants are broadcasts of small data.
instruction_ref combine_constants(module& m,
                                  instruction_ref pos,
                                  const operation& op,
                                  instruction_ref c1,
                                  instruction_ref c2)
{
    auto is_bcast = [](instruction_ref c) { return c->name() == "broadcast" or c->name() == "multibroadcast"; };
    if(is_bcast(c1) and c1->get_operator() == c2->get_operator() and
       c1->inputs().front()->get_shape().lens() == c2->inputs().front()->get_shape().lens())
    {
        // Combine the small constants, then broadcast once.
        auto small = m.insert_instruction(pos, op, {c1->inputs().front(), c2->inputs().front()});
        return m.insert_instruction(pos, c1->get_operator(), {small});
    }
    auto v1 = per_channel_values(c1, m.end());
    auto v2 = per_channel_values(c2, m.end());
    if(floating(c1) and not v1.empty() and v1.size() == v2.size())
    {
        // Two per-channel constants broadcast differently: one per-channel literal.
        for(std::size_t k = 0; k < v1.size(); k++)
            v1[k] = op.name() == "mul" ? v1[k] * v2[k] : v1[k] + v2[k];
        auto l = m.add_literal(literal{shape{c1->get_shape().type(), {v1.size()}}, v1});
        return m.insert_instruction(
            pos, make_op("broadcast", {{"axis", 1}, {"out_lens", c1->get_shape().lens()}}), {l});
    }
    return m.insert_instruction(pos, op, {c1, c2});
}

// Finds inner = inner_name(x, c1) used only by ins = op(inner, c2), x not constant, c1 and c2
// constant; calls f(inner, x, c1, c2).
template <class F>
bool match_inner_constant(instruction_ref ins, const std::string& inner_name, F f)
{
    for(std::size_t i = 0; i < 2; i++)
    {
        auto inner = ins->inputs()[i];
        auto c2    = ins->inputs()[1 - i];
        if(inner->name() != inner_name or inner->inputs().size() != 2 or inner->outputs().size() != 1 or
           not is_constant(c2))
            continue;
        for(std::size_t j = 0; j < 2; j++)
        {
            auto x  = inner->inputs()[j];
            auto c1 = inner->inputs()[1 - j];
            if(is_constant(c1) and not is_constant(x))
            {
                f(inner, x, c1, c2);
                return true;
            }
        }
    }
    return false;
}

// op(op(x, c1), c2) -> op(x, op(c1, c2)) for an associative, commutative op.
bool fold_double_constant(module& m, instruction_ref ins)
{
    return match_inner_constant(ins, ins->name(), [&](auto, auto x, auto c1, auto c2) {
        auto sum = combine_constants(m, ins, ins->get_operator(), c1, c2);
        m.replace_instruction(ins, ins->get_operator(), {x, sum});
    });
}

// mul(add(x, c1), c2) -> add(mul(x, c2), c1 * c2): moves constants towards the output, so a
// convolution's bias no longer stands between it and a per-channel scale.
bool fold_mul_add(module& m, instruction_ref ins)
{
    return match_inner_constant(ins, "add", [&](auto inner, auto x, auto c1, auto c2) {
        auto scaled = m.insert_instruction(ins, ins->get_operator(), {x, c2});
        auto prod   = combine_constants(m, ins, ins->get_operator(), c1, c2);
        m.replace_instruction(ins, make_op("add"), {scaled, prod});
        // The old add is dead now; drop it so x (say a convolution) has scaled as its only user.
        m.remove_instruction(inner);
        fold_mul_conv(m, scaled);
    });
}

// add(x, 0), sub(x, 0), mul(x, 1), div(x, 1), logical_and(x, true), logical_or(x, false) -> x.
// The logical ones also where x is a view of the same lens (a broadcast: an exporter's
// "and every query row" with an all-true row mask), unless the result is returned.
bool remove_identity_constant(module& m, instruction_ref ins)
{
    const auto& n = ins->name();
    bool logical  = n == "logical_and" or n == "logical_or";
    double unit   = (n == "add" or n == "sub" or n == "logical_or") ? 0.0 : 1.0;
    bool commutes = n == "add" or n == "mul" or logical;
    bool returned = pass_utils::is_returned(ins);
    for(std::size_t i = 0; i < (commutes ? 2 : 1); i++)
    {
        auto x    = ins->inputs()[i];
        auto c    = ins->inputs()[1 - i];
        bool same = x->get_shape() == ins->get_shape() or
                    (logical and not returned and x->get_shape().lens() == ins->get_shape().lens() and
                     x->get_shape().type() == ins->get_shape().type());
        if(same and pass_utils::all_equal_to(c, m.end(), unit))
        {
            m.replace_instruction(ins, x);
            return true;
        }
    }
    return false;
}

} // namespace

void simplify_algebra::apply(module& m) const
{
    for(auto ins = m.begin(); ins != m.end(); ++ins)
    {
        const auto& n = ins->name();
        if(n == "batch_norm_inference")
        {
            if(not fold_batch_norm(m, ins))
                batch_norm_to_scale_shift(m, ins);
        }
        else if((n == "logical_and" or n == "logical_or") and ins->inputs().size() == 2)
            remove_identity_constant(m, ins);
        else if((n == "add" or n == "sub" or n == "mul" or n == "div") and ins->inputs().size() == 2)
        {
            if(remove_identity_constant(m, ins))
                continue;
            if(n == "mul" and (fold_mul_conv(m, ins) or fold_mul_add(m, ins)))
                continue;
            if(n == "add" or n == "mul")
                fold_double_constant(m, ins);
        }
    }
}

} // namespace migraphx
