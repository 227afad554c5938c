// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss, composed from gathers and reductions.

#include "onnx/onnx_utils.hpp"

namespace migraphx {
namespace onnx {

namespace {

/// loss[n, d...] = -input[n, target[n, d...], d...] * weight[target], reduced as asked.
instruction_ref nll_loss(const node_info& info, instruction_ref input, instruction_ref target,
                         std::optional<instruction_ref> weight)
{
    if(rank_of(input) < 2 or rank_of(target) + 1 != rank_of(input))
        info.fail("input must be {N, C, d...} and target {N, d...}");
    auto t    = type_of(input);
    auto tgt  = info.convert(target, shape::int64_type);
    auto tl   = lens_of(tgt);
    std::optional<instruction_ref> ignored;
    if(info.has("ignore_index"))
    {
        auto ii = info.add_scalar(static_cast<double>(info.get_int("ignore_index", 0)), shape::int64_type);
        ignored = info.add_broadcastable_binary_op("equal", tgt, ii);
        // Ignored targets may be out of range: read class 0 instead (its weight is zeroed below).
        tgt = info.add_common_op("where", {*ignored, info.add_scalar(0, shape::int64_type), tgt});
    }
    auto u      = info.add("unsqueeze", {{"axes", std::vector<std::int64_t>{1}}}, {tgt});
    auto picked = add_gather_elements(info, input, u, 1);
    picked      = info.add("squeeze", {{"axes", std::vector<std::int64_t>{1}}}, {picked});
    instruction_ref w = weight ? info.add("gather", {{"axis", 0}}, {*weight, tgt})
                               : info.broadcast_to(info.add_scalar(1, t), tl);
    if(ignored)
        w = info.add_common_op("where", {*ignored, info.add_scalar(0, t), w});
    auto loss = info.add("mul", {info.add("neg", {picked}), w});
    auto reduction = info.get_string("reduction", "mean");
    if(reduction == "none")
        return loss;
    std::vector<std::int64_t> all;
    for(std::size_t i = 0; i < tl.size(); i++)
        all.push_back(static_cast<std::int64_t>(i));
    auto sum = reshape_to(info, info.add("reduce_sum", {{"axes", all}}, {loss}), {});
    if(reduction == "sum")
        return sum;
    if(reduction != "mean")
        info.fail("unknown reduction '" + reduction + "'");
    auto wsum = reshape_to(info, info.add("reduce_sum", {{"axes", all}}, {w}), {});
    return info.add("div", {sum, wsum});
}

std::optional<instruction_ref> optional_arg(const node_info& info, const std::vector<instruction_ref>& args,
                                            std::size_t i)
{
    if(args.size() <= i or info.is_undefined(args[i]))
        return std::nullopt;
    return args[i];
}

std::vector<instruction_ref> parse_nll(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() < 2)
        info.fail("expects at least 2 inputs (input, target)");
    return {nll_loss(info, args[0], args[1], optional_arg(info, args, 2))};
}
MIGRAPHX_ONNX_PARSER(parse_nll, "NegativeLogLikelihoodLoss")

std::vector<instruction_ref> parse_sce(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() < 2)
        info.fail("expects at least 2 inputs (scores, labels)");
    auto log_prob = info.add("logsoftmax", {{"axis", 1}}, {args[0]});
    return {nll_loss(info, log_prob, args[1], optional_arg(info, args, 2)), log_prob};
}
MIGRAPHX_ONNX_PARSER(parse_sce, "SoftmaxCrossEntropyLoss")

} // namespace
} // namespace onnx
} // namespace migraphx
