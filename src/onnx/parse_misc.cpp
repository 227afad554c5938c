// Ops lowered to single special-purpose operators: TopK (K at run time where it is computed from the
// Shape of a data-dependent result), NonZero, Unique, Det, CumSum, Scatter*,
// RoiAlign, MaxRoiPool, NonMaxSuppression, the random generators; and ReverseSequence and
// Bernoulli (composed).

#include "onnx/onnx_utils.hpp"

namespace migraphx {
namespace onnx {

namespace {

/// Folds op(args) to a literal when every input is constant (for ops whose output size
/// depends on the values), else adds it.
instruction_ref add_or_fold(const node_info& info, const std::string& name, const value& attrs,
                            std::vector<instruction_ref> args)
{
    auto r = info.add(name, attrs, args);
    if(r->get_shape().type() == shape::tuple_type)
        return r;
    auto v = info.eval(r);
    if(not v)
        return r;
    return info.add_literal(literal{*v});
}

std::vector<instruction_ref> parse_topk(const node_info& info, std::vector<instruction_ref> args)
{
    require_op(info, "topk");
    if(args.empty())
        info.fail("expects an input");
    // K computed from the Shape of a data-dependent result (torchvision's min(topk_candidates,
    // len(scores))): read at run time, its declared value (for the largest shapes) as the largest.
    auto run_time = info.opset < 10 ? std::nullopt : declared_values(info, args.at(1));
    if(run_time and run_time->size() != 1)
        info.fail("K must have one element");
    std::int64_t k = info.opset < 10 ? info.get_int("k", 1)
                     : run_time      ? run_time->front()
                                     : info.require_constant(args.at(1), "K").at<std::int64_t>();
    auto axis = normalize_onnx_axis(info.get_int("axis", -1), rank_of(args[0]), info);
    std::vector<instruction_ref> ins{args[0]};
    if(run_time)
        ins.push_back(args[1]);
    auto t = info.add("topk", {{"k", k}, {"axis", axis}, {"largest", info.get_int("largest", 1) != 0}}, ins);
    return {info.add("get_tuple_elem", {{"index", 0}}, {t}), info.add("get_tuple_elem", {{"index", 1}}, {t})};
}
MIGRAPHX_ONNX_PARSER(parse_topk, "TopK")

std::vector<instruction_ref> parse_nonzero(const node_info& info, std::vector<instruction_ref> args)
{
    require_op(info, "nonzero");
    if(args.size() != 1)
        info.fail("expects 1 input");
    return {add_or_fold(info, "nonzero", value::make_object(), args)};
}
MIGRAPHX_ONNX_PARSER(parse_nonzero, "NonZero")

std::vector<instruction_ref> parse_unique(const node_info& info, std::vector<instruction_ref> args)
{
    require_op(info, "unique");
    if(args.size() != 1)
        info.fail("expects 1 input");
    std::vector<std::int64_t> axis;
    if(info.has("axis"))
        axis.push_back(info.get_int("axis", 0));
    auto u = info.add("unique", {{"sorted", info.get_int("sorted", 1) != 0}, {"axis", axis}}, args);
    auto v = info.eval(u);
    std::vector<instruction_ref> r;
    for(std::int64_t i = 0; i < 4; i++)
    {
        if(v)
            r.push_back(info.add_literal(literal{v->get_sub_objects().at(i)}));
        else
            r.push_back(info.add("get_tuple_elem", {{"index", i}}, {u}));
    }
    return r;
}
MIGRAPHX_ONNX_PARSER(parse_unique, "Unique")

std::vector<instruction_ref> parse_det(const node_info& info, std::vector<instruction_ref> args)
{
    require_op(info, "det");
    if(args.size() != 1)
        info.fail("expects 1 input");
    return {info.add("det", args)};
}
MIGRAPHX_ONNX_PARSER(parse_det, "Det")

std::vector<instruction_ref> parse_cumsum(const node_info& info, std::vector<instruction_ref> args)
{
    require_op(info, "prefix_scan_sum");
    if(args.size() != 2)
        info.fail("expects 2 inputs (x, axis)");
    auto axis = info.require_constant(args[1], "axis").at<std::int64_t>();
    axis      = normalize_onnx_axis(axis, rank_of(args[0]), info);
    return {info.add("prefix_scan_sum",
                     {{"axis", axis},
                      {"exclusive", info.get_int("exclusive", 0) != 0},
                      {"reverse", info.get_int("reverse", 0) != 0}},
                     {args[0]})};
}
MIGRAPHX_ONNX_PARSER(parse_cumsum, "CumSum")

std::vector<instruction_ref> parse_scatter(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() != 3)
        info.fail("expects 3 inputs (data, indices, updates)");
    auto reduction = info.get_string("reduction", "none");
    if(reduction != "none" and reduction != "add" and reduction != "mul")
        info.fail("reduction '" + reduction + "' is not supported");
    if(info.op_type == "ScatterND")
    {
        require_op(info, "scatternd_" + reduction);
        return {info.add("scatternd_" + reduction, args)};
    }
    require_op(info, "scatter_" + reduction);
    auto axis = normalize_onnx_axis(info.get_int("axis", 0), rank_of(args[0]), info);
    return {info.add("scatter_" + reduction, {{"axis", axis}}, args)};
}
MIGRAPHX_ONNX_PARSER(parse_scatter, "Scatter", "ScatterElements", "ScatterND")

std::vector<instruction_ref> parse_roialign(const node_info& info, std::vector<instruction_ref> args)
{
    require_op(info, "roialign");
    if(args.size() != 3)
        info.fail("expects 3 inputs (X, rois, batch_indices)");
    auto mode = info.opset < 16 ? "output_half_pixel" : "half_pixel";
    return {info.add("roialign",
                     {{"coordinate_transformation_mode", info.get_string("coordinate_transformation_mode", mode)},
                      {"mode", info.get_string("mode", "avg")},
                      {"output_height", info.get_int("output_height", 1)},
                      {"output_width", info.get_int("output_width", 1)},
                      {"sampling_ratio", info.get_int("sampling_ratio", 0)},
                      {"spatial_scale", info.get_float("spatial_scale", 1.0f)}},
                     {args[0], args[1], info.convert(args[2], shape::int64_type)})};
}
MIGRAPHX_ONNX_PARSER(parse_roialign, "RoiAlign")

std::vector<instruction_ref> parse_maxroipool(const node_info& info, std::vector<instruction_ref> args)
{
    require_op(info, "maxroipool");
    if(args.size() != 2)
        info.fail("expects 2 inputs (X, rois)");
    auto ps = info.get_ints("pooled_shape");
    if(ps.size() != 2 or ps[0] <= 0 or ps[1] <= 0)
        info.fail("pooled_shape must be two positive sizes");
    return {info.add("maxroipool",
                     {{"pooled_shape", std::vector<std::size_t>{std::size_t(ps[0]), std::size_t(ps[1])}},
                      {"spatial_scale", info.get_float("spatial_scale", 1.0f)}},
                     args)};
}
MIGRAPHX_ONNX_PARSER(parse_maxroipool, "MaxRoiPool")

std::vector<instruction_ref> parse_nms(const node_info& info, std::vector<instruction_ref> args)
{
    require_op(info, "nonmaxsuppression");
    if(args.size() < 2)
        info.fail("expects at least 2 inputs (boxes, scores)");
    // Omitted optional inputs in the middle get their defaults (0 boxes, IoU 0, no score threshold).
    std::vector<double> defaults{0, 0, -std::numeric_limits<double>::infinity()};
    std::vector<shape::type_t> types{shape::int64_type, shape::float_type, shape::float_type};
    for(std::size_t i = 2; i < args.size(); i++)
        if(info.is_undefined(args[i]))
            args[i] = info.add_scalar(defaults[i - 2], types[i - 2]);
    return {add_or_fold(info, "nonmaxsuppression", {{"center_point_box", info.get_int("center_point_box", 0) != 0}},
                        args)};
}
MIGRAPHX_ONNX_PARSER(parse_nms, "NonMaxSuppression")

std::vector<instruction_ref> parse_random(const node_info& info, std::vector<instruction_ref> args)
{
    const auto& op = info.op_type;
    bool uniform   = op.rfind("RandomUniform", 0) == 0;
    auto name      = uniform ? "random_uniform" : "random_normal";
    require_op(info, name);
    bool like = op.size() > 4 and op.substr(op.size() - 4) == "Like";
    std::vector<std::size_t> lens;
    shape::type_t t = shape::float_type;
    if(like)
    {
        if(args.size() != 1)
            info.fail("expects 1 input");
        lens = lens_of(args[0]);
        t    = type_of(args[0]);
    }
    else
        for(auto d : info.get_ints("shape"))
            lens.push_back(static_cast<std::size_t>(std::max<std::int64_t>(d, 0)));
    if(info.has("dtype"))
        t = get_onnx_type(static_cast<int>(info.get_int("dtype", 1)));
    value v{{"dtype", static_cast<std::int64_t>(t)}, {"shape", lens}};
    if(info.has("seed"))
        v["seed"] = info.get_float("seed", 0);
    if(uniform)
    {
        v["low"]  = info.get_float("low", 0);
        v["high"] = info.get_float("high", 1);
    }
    else
    {
        v["mean"]  = info.get_float("mean", 0);
        v["scale"] = info.get_float("scale", 1);
    }
    return {info.add_instruction(make_op(name, v), {})};
}
MIGRAPHX_ONNX_PARSER(parse_random, "RandomUniform", "RandomNormal", "RandomUniformLike", "RandomNormalLike")

std::vector<instruction_ref> parse_multinomial(const node_info& info, std::vector<instruction_ref> args)
{
    require_op(info, "multinomial");
    if(args.size() != 1)
        info.fail("expects 1 input");
    value v{{"dtype", static_cast<std::int64_t>(get_onnx_type(static_cast<int>(info.get_int("dtype", 6))))},
            {"sample_size", info.get_int("sample_size", 1)}};
    if(info.has("seed"))
        v["seed"] = info.get_float("seed", 0);
    return {info.add("multinomial", v, args)};
}
MIGRAPHX_ONNX_PARSER(parse_multinomial, "Multinomial")

// Bernoulli(p) = cast(uniform_like(p) < p), as the op's ONNX function body defines it.
std::vector<instruction_ref> parse_bernoulli(const node_info& info, std::vector<instruction_ref> args)
{
    require_op(info, "random_uniform");
    if(args.size() != 1 or not shape::is_floating(type_of(args[0])))
        info.fail("expects 1 floating input (the probabilities)");
    auto t = type_of(args[0]);
    value v{{"dtype", static_cast<std::int64_t>(t)}, {"shape", std::vector<std::size_t>{}}};
    if(info.has("seed"))
        v["seed"] = info.get_float("seed", 0);
    auto u    = info.add("random_uniform", v, {args[0]});
    auto draw = info.add("less", {u, args[0]});
    auto out  = info.has("dtype") ? get_onnx_type(static_cast<int>(info.get_int("dtype", 1))) : t;
    return {info.convert(draw, out)};
}
MIGRAPHX_ONNX_PARSER(parse_bernoulli, "Bernoulli")

std::vector<instruction_ref> parse_reverse_sequence(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() != 2 or rank_of(args[0]) < 2)
        info.fail("expects 2 inputs (input of rank >= 2, sequence_lens)");
    auto x     = args[0];
    auto rank  = rank_of(x);
    auto baxis = static_cast<std::size_t>(normalize_onnx_axis(info.get_int("batch_axis", 1), rank, info));
    auto taxis = static_cast<std::size_t>(normalize_onnx_axis(info.get_int("time_axis", 0), rank, info));
    if(baxis == taxis)
        info.fail("batch_axis and time_axis must differ");
    // Position t of sequence b reads t' = len[b] - 1 - t when t < len[b], else t itself.
    std::vector<std::size_t> ll(rank, 1);
    ll[baxis] = lens_of(x)[baxis];
    auto len  = reshape_to(info, info.convert(args[1], shape::int64_type), ll);
    auto t    = iota_along(info, lens_of(x), taxis);
    auto rev  = info.add_broadcastable_binary_op(
        "sub", info.add_broadcastable_binary_op("sub", len, info.add_scalar(1, shape::int64_type)), t);
    auto in   = info.add_broadcastable_binary_op("less", t, len);
    auto idx  = info.add_common_op("where", {in, rev, t});
    return {add_gather_elements(info, x, info.broadcast_to(idx, lens_of(x)), static_cast<std::int64_t>(taxis))};
}
MIGRAPHX_ONNX_PARSER(parse_reverse_sequence, "ReverseSequence")

} // namespace
} // namespace onnx
} // namespace migraphx
