// Reductions (ReduceSum/Mean/Max/Min/Prod and the composed L1/L2/LogSum/LogSumExp/SumSquare)
// and ArgMax/ArgMin.

#include "onnx/onnx_utils.hpp"

namespace migraphx {
namespace onnx {

namespace {

instruction_ref squeeze_axes(const node_info& info, instruction_ref x, const std::vector<std::int64_t>& axes)
{
    if(axes.empty())
        return x;
    return info.add("squeeze", {{"axes", axes}}, {x});
}

std::vector<instruction_ref> parse_reduce(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.empty())
        info.fail("expects an input");
    auto x    = args[0];
    auto rank = rank_of(x);
    std::vector<std::int64_t> axes;
    if(info.has("axes"))
        axes = info.get_ints("axes");
    else if(args.size() > 1 and not info.is_undefined(args[1]))
        axes = to_int64s(info.require_constant(args[1], "axes"));
    bool keepdims = info.get_int("keepdims", 1) != 0;
    if(axes.empty())
    {
        if(info.get_int("noop_with_empty_axes", 0) != 0)
            return {x};
        for(std::size_t i = 0; i < rank; i++)
            axes.push_back(static_cast<std::int64_t>(i));
    }
    axes = normalize_axes(info, axes, rank);
    axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
    const auto& op = info.op_type;
    auto t         = type_of(x);
    value a{{"axes", axes}};
    instruction_ref r;
    if(op == "ReduceSum" or op == "ReduceMean" or op == "ReduceMax" or op == "ReduceMin" or op == "ReduceProd")
    {
        static const std::map<std::string, std::string> names = {{"ReduceSum", "reduce_sum"},
                                                                 {"ReduceMean", "reduce_mean"},
                                                                 {"ReduceMax", "reduce_max"},
                                                                 {"ReduceMin", "reduce_min"},
                                                                 {"ReduceProd", "reduce_prod"}};
        r = info.add(names.at(op), a, {x});
    }
    else if(op == "ReduceL1")
        r = info.add("reduce_sum", a, {info.add("abs", {x})});
    else if(op == "ReduceL2")
    {
        auto s = info.add("reduce_sum", a, {info.add("mul", {x, x})});
        // An integer L2 norm is computed in double and truncated back, as numpy's astype would.
        r = info.convert(info.add("sqrt", {info.convert(s, shape::is_floating(t) ? t : shape::double_type)}), t);
    }
    else if(op == "ReduceSumSquare")
        r = info.add("reduce_sum", a, {info.add("mul", {x, x})});
    else if(op == "ReduceLogSum")
        r = info.add("log", {info.add("reduce_sum", a, {x})});
    else // ReduceLogSumExp: m + log(sum(exp(x - m))) keeps exp in range
    {
        auto m = info.add("reduce_max", a, {x});
        auto d = info.add_broadcastable_binary_op("sub", x, m);
        auto s = info.add("reduce_sum", a, {info.add("exp", {d})});
        r      = info.add("add", {info.add("log", {s}), m});
    }
    return {keepdims ? r : squeeze_axes(info, r, axes)};
}
MIGRAPHX_ONNX_PARSER(parse_reduce,
                     "ReduceSum",
                     "ReduceMean",
                     "ReduceMax",
                     "ReduceMin",
                     "ReduceProd",
                     "ReduceL1",
                     "ReduceL2",
                     "ReduceSumSquare",
                     "ReduceLogSum",
                     "ReduceLogSumExp")

std::vector<instruction_ref> parse_argminmax(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() != 1)
        info.fail("expects 1 input");
    auto x    = args[0];
    auto axis = normalize_onnx_axis(info.get_int("axis", 0), rank_of(x), info);
    auto r    = info.add(info.op_type == "ArgMax" ? "argmax" : "argmin",
                      {{"axis", axis}, {"select_last_index", info.get_int("select_last_index", 0) != 0}},
                      {x});
    r = info.convert(r, shape::int64_type);
    if(info.get_int("keepdims", 1) == 0)
        r = squeeze_axes(info, r, {axis});
    return {r};
}
MIGRAPHX_ONNX_PARSER(parse_argminmax, "ArgMax", "ArgMin")

} // namespace
} // namespace onnx
} // namespace migraphx
