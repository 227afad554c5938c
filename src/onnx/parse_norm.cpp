// Normalizations: BatchNormalization, InstanceNormalization, LayerNormalization,
// GroupNormalization, LpNormalization, MeanVarianceNormalization, LRN.

#include "onnx/onnx_utils.hpp"

namespace migraphx {
namespace onnx {

namespace {

std::vector<std::int64_t> range_axes(std::size_t first, std::size_t last)
{
    std::vector<std::int64_t> r;
    for(auto i = first; i < last; i++)
        r.push_back(static_cast<std::int64_t>(i));
    return r;
}

/// (x - mean(x)) / sqrt(var(x) + eps) over axes, with the mean and 1/sqrt(var + eps) (dims kept).
struct normalized
{
    instruction_ref y, mean, inv_std;
};
normalized normalize(const node_info& info, instruction_ref x, const std::vector<std::int64_t>& axes, double eps)
{
    auto t     = type_of(x);
    value a{{"axes", axes}};
    auto mean  = info.add("reduce_mean", a, {x});
    auto d     = info.add_broadcastable_binary_op("sub", x, mean);
    auto var   = info.add("reduce_mean", a, {info.add("mul", {d, d})});
    auto ve    = info.add_broadcastable_binary_op("add", var, info.add_scalar(eps, t));
    auto inv   = info.add("rsqrt", {ve});
    return {info.add_broadcastable_binary_op("mul", d, inv), mean, inv};
}

/// p laid along axis 1 of x (one value per channel).
instruction_ref per_channel(const node_info& info, instruction_ref p, instruction_ref x)
{
    std::vector<std::size_t> l(rank_of(x) - 1, 1);
    l[0] = p->get_shape().elements();
    return info.broadcast_to(reshape_to(info, p, l), std::vector<std::size_t>(lens_of(x).begin() + 1, lens_of(x).end()));
}

std::vector<instruction_ref> parse_batchnorm(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() != 5)
        info.fail("expects 5 inputs (X, scale, B, mean, var)");
    auto x = args[0];
    if(rank_of(x) < 2)
        info.fail("X must have rank >= 2");
    std::int64_t mode = info.opset < 7 and info.get_int("spatial", 1) == 0 ? 0 : 1;
    auto eps          = info.get_float("epsilon", 1e-5f);
    auto momentum     = info.get_float("momentum", 0.9f);
    value attrs{{"epsilon", eps}, {"momentum", momentum}, {"bn_mode", mode}};
    if(info.get_int("training_mode", 0) == 0)
        return {info.add("batch_norm_inference", attrs, args)};
    // Training mode: normalize with the batch's statistics and give the updated running ones.
    std::vector<std::int64_t> axes{0};
    for(std::size_t i = 2; i < rank_of(x); i++)
        axes.push_back(static_cast<std::int64_t>(i));
    auto n    = normalize(info, x, axes, eps);
    auto mean = info.add("squeeze", {{"axes", axes}}, {n.mean});
    auto d    = info.add_broadcastable_binary_op("sub", x, n.mean);
    auto var  = info.add("squeeze", {{"axes", axes}}, {info.add("reduce_mean", {{"axes", axes}}, {info.add("mul", {d, d})})});
    auto y    = info.add("batch_norm_inference", attrs, {x, args[1], args[2], mean, var});
    auto t    = type_of(args[3]);
    auto run  = [&](instruction_ref old, instruction_ref batch) {
        auto a = info.add_broadcastable_binary_op("mul", old, info.add_scalar(momentum, t));
        auto b = info.add_broadcastable_binary_op("mul", info.convert(batch, t), info.add_scalar(1 - momentum, t));
        return info.add("add", {a, b});
    };
    return {y, run(args[3], mean), run(args[4], var)};
}
MIGRAPHX_ONNX_PARSER(parse_batchnorm, "BatchNormalization")

std::vector<instruction_ref> parse_instancenorm(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() != 3 or rank_of(args[0]) < 3)
        info.fail("expects 3 inputs (input of rank >= 3, scale, B)");
    auto x = args[0];
    auto n = normalize(info, x, range_axes(2, rank_of(x)), info.get_float("epsilon", 1e-5f));
    auto y = info.add_broadcastable_binary_op("mul", n.y, per_channel(info, args[1], x));
    return {info.add_broadcastable_binary_op("add", y, per_channel(info, args[2], x))};
}
MIGRAPHX_ONNX_PARSER(parse_instancenorm, "InstanceNormalization")

std::vector<instruction_ref> parse_layernorm(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() < 2)
        info.fail("expects at least 2 inputs (X, Scale)");
    auto x    = args[0];
    auto rank = rank_of(x);
    auto axis = static_cast<std::size_t>(normalize_onnx_axis(info.get_int("axis", -1), rank, info));
    auto t    = type_of(x);
    // stash_type=1 (the default) computes the statistics in float.
    auto xc = info.get_int("stash_type", 1) == 1 and t != shape::double_type ? info.convert(x, shape::float_type) : x;
    auto n  = normalize(info, xc, range_axes(axis, rank), info.get_float("epsilon", 1e-5f));
    auto y  = info.convert(n.y, t);
    y       = info.add_broadcastable_binary_op("mul", y, args[1]);
    if(args.size() > 2 and not info.is_undefined(args[2]))
        y = info.add_broadcastable_binary_op("add", y, args[2]);
    return {y, n.mean, n.inv_std};
}
MIGRAPHX_ONNX_PARSER(parse_layernorm, "LayerNormalization")

std::vector<instruction_ref> parse_groupnorm(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() != 3 or rank_of(args[0]) < 3)
        info.fail("expects 3 inputs (X of rank >= 3, scale, bias)");
    auto x = args[0];
    auto g = info.get_int("num_groups", 0);
    const auto& l = lens_of(x);
    if(g <= 0 or l[1] % static_cast<std::size_t>(g) != 0)
        info.fail("num_groups must divide the channels");
    auto groups = static_cast<std::size_t>(g);
    auto xg     = reshape_to(info, x, {l[0], groups, x->get_shape().elements() / (l[0] * groups)});
    auto n      = normalize(info, xg, {2}, info.get_float("epsilon", 1e-5f));
    auto y      = reshape_to(info, n.y, l);
    // Opset 18 has one scale and bias per group; later opsets one per channel.
    auto expand = [&](instruction_ref p) {
        if(p->get_shape().elements() == groups and groups != l[1])
        {
            auto pg = info.broadcast_to(reshape_to(info, p, {groups, 1}), {groups, l[1] / groups});
            p       = reshape_to(info, pg, {l[1]});
        }
        return per_channel(info, p, x);
    };
    y = info.add_broadcastable_binary_op("mul", y, expand(args[1]));
    return {info.add_broadcastable_binary_op("add", y, expand(args[2]))};
}
MIGRAPHX_ONNX_PARSER(parse_groupnorm, "GroupNormalization")

std::vector<instruction_ref> parse_lpnorm(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() != 1)
        info.fail("expects 1 input");
    auto x    = args[0];
    auto axis = normalize_onnx_axis(info.get_int("axis", -1), rank_of(x), info);
    auto p    = info.get_int("p", 2);
    if(p != 1 and p != 2)
        info.fail("p must be 1 or 2");
    value a{{"axes", std::vector<std::int64_t>{axis}}};
    auto norm = p == 1 ? info.add("reduce_sum", a, {info.add("abs", {x})})
                       : info.add("sqrt", {info.add("reduce_sum", a, {info.add("mul", {x, x})})});
    // A zero norm leaves the values as they are (0 / 1 = 0), as the ONNX reference does.
    auto zero = info.add_broadcastable_binary_op("equal", norm, info.add_scalar(0, type_of(x)));
    auto one  = info.broadcast_to(info.add_scalar(1, type_of(x)), lens_of(norm));
    norm      = info.add("where", {zero, one, norm});
    return {info.add_broadcastable_binary_op("div", x, norm)};
}
MIGRAPHX_ONNX_PARSER(parse_lpnorm, "LpNormalization")

std::vector<instruction_ref> parse_mvn(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() != 1)
        info.fail("expects 1 input");
    auto x    = args[0];
    auto axes = normalize_axes(info, info.get_ints("axes", {0, 2, 3}), rank_of(x));
    value a{{"axes", axes}};
    auto mean = info.add("reduce_mean", a, {x});
    auto sq   = info.add("reduce_mean", a, {info.add("mul", {x, x})});
    auto var  = info.add("sub", {sq, info.add("mul", {mean, mean})});
    auto sd   = info.add_broadcastable_binary_op("add", info.add("sqrt", {var}), info.add_scalar(1e-9, type_of(x)));
    return {info.add_broadcastable_binary_op("div", info.add_broadcastable_binary_op("sub", x, mean), sd)};
}
MIGRAPHX_ONNX_PARSER(parse_mvn, "MeanVarianceNormalization")

std::vector<instruction_ref> parse_lrn(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() != 1)
        info.fail("expects 1 input");
    if(not info.has("size"))
        info.fail("missing attribute 'size'");
    return {info.add("lrn",
                     {{"alpha", info.get_float("alpha", 1e-4f)},
                      {"beta", info.get_float("beta", 0.75f)},
                      {"bias", info.get_float("bias", 1.0f)},
                      {"size", info.get_int("size", 1)}},
                     args)};
}
MIGRAPHX_ONNX_PARSER(parse_lrn, "LRN")

} // namespace
} // namespace onnx
} // namespace migraphx
