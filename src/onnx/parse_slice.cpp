// Slice (any steps, negative ones through gather), Split, Concat and Pad.

#include "onnx/onnx_utils.hpp"

namespace migraphx {
namespace onnx {

namespace {

std::vector<std::int64_t> optional_ints(const node_info& info,
                                        const std::vector<instruction_ref>& args,
                                        std::size_t i,
                                        const std::string& what)
{
    if(args.size() <= i or info.is_undefined(args[i]))
        return {};
    return to_int64s(info.require_constant(args[i], what));
}

std::vector<instruction_ref> parse_slice(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.empty())
        info.fail("expects an input");
    auto x = args[0];
    std::vector<std::int64_t> starts, ends, axes, steps;
    if(info.opset < 10)
    {
        starts = info.get_ints("starts");
        ends   = info.get_ints("ends");
        axes   = info.get_ints("axes");
    }
    else
    {
        if(args.size() < 3)
            info.fail("expects at least 3 inputs (data, starts, ends)");
        starts = to_int64s(info.require_constant(args[1], "starts"));
        ends   = to_int64s(info.require_constant(args[2], "ends"));
        axes   = optional_ints(info, args, 3, "axes");
        steps  = optional_ints(info, args, 4, "steps");
    }
    auto rank = rank_of(x);
    if(axes.empty())
        for(std::size_t i = 0; i < starts.size(); i++)
            axes.push_back(static_cast<std::int64_t>(i));
    if(steps.empty())
        steps.assign(starts.size(), 1);
    if(starts.size() != ends.size() or starts.size() != axes.size() or starts.size() != steps.size())
        info.fail("starts, ends, axes and steps must have the same length");

    std::vector<std::int64_t> s_axes, s_starts, s_ends, st_axes, st_steps;
    std::vector<std::pair<std::size_t, std::vector<std::int64_t>>> reversed; // axis -> gather indices
    std::vector<bool> seen(rank, false);
    for(std::size_t i = 0; i < axes.size(); i++)
    {
        auto a = static_cast<std::size_t>(normalize_onnx_axis(axes[i], rank, info));
        if(seen[a])
            info.fail("axis " + std::to_string(axes[i]) + " repeats");
        seen[a]  = true;
        auto len = static_cast<std::int64_t>(lens_of(x)[a]);
        auto st  = steps[i];
        if(st == 0)
            info.fail("steps must not be 0");
        auto b = starts[i] < 0 ? starts[i] + len : starts[i];
        auto e = ends[i] < 0 ? ends[i] + len : ends[i];
        if(st > 0)
        {
            b = std::clamp<std::int64_t>(b, 0, len);
            e = std::clamp<std::int64_t>(e, 0, len);
            s_axes.push_back(static_cast<std::int64_t>(a));
            s_starts.push_back(b);
            s_ends.push_back(std::max(b, e));
            if(st > 1)
            {
                st_axes.push_back(static_cast<std::int64_t>(a));
                st_steps.push_back(st);
            }
            continue;
        }
        b = std::clamp<std::int64_t>(b, 0, len - 1);
        e = std::clamp<std::int64_t>(e, -1, len - 1);
        std::vector<std::int64_t> idx;
        info.check_size(static_cast<std::size_t>((b - e) / -st), "the reversed slice");
        for(auto j = b; j > e; j += st)
            idx.push_back(j);
        if(idx.empty())
        {
            s_axes.push_back(static_cast<std::int64_t>(a));
            s_starts.push_back(0);
            s_ends.push_back(0);
            continue;
        }
        reversed.emplace_back(a, idx);
    }
    auto r = x;
    if(not s_axes.empty())
        r = info.add("slice", {{"axes", s_axes}, {"starts", s_starts}, {"ends", s_ends}}, {r});
    if(not st_axes.empty())
        r = info.add("step", {{"axes", st_axes}, {"steps", st_steps}}, {r});
    for(const auto& [a, idx] : reversed)
        r = info.add("gather", {{"axis", static_cast<std::int64_t>(a)}}, {r, info.add_literal(int64_literal(idx))});
    return {r};
}
MIGRAPHX_ONNX_PARSER(parse_slice, "Slice")

std::vector<instruction_ref> parse_split(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.empty())
        info.fail("expects an input");
    auto x    = args[0];
    auto axis = normalize_onnx_axis(info.get_int("axis", 0), rank_of(x), info);
    auto len  = static_cast<std::int64_t>(lens_of(x)[axis]);
    std::vector<std::int64_t> split;
    if(info.opset < 13 and info.has("split"))
        split = info.get_ints("split");
    else if(args.size() > 1 and not info.is_undefined(args[1]))
        split = to_int64s(info.require_constant(args[1], "split"));
    if(split.empty())
    {
        auto n = static_cast<std::int64_t>(info.get_int("num_outputs", static_cast<std::int64_t>(info.num_outputs)));
        if(n <= 0 or n > 65536)
            info.fail("the number of outputs must be between 1 and 65536");
        auto chunk = (len + n - 1) / n;
        if(info.opset < 18 and len % n != 0)
            info.fail("dim " + std::to_string(len) + " does not split evenly into " + std::to_string(n) + " parts");
        for(std::int64_t start = 0, i = 0; i < n; i++, start += chunk)
            split.push_back(std::max<std::int64_t>(0, std::min(chunk, len - start)));
    }
    std::int64_t total = 0;
    for(auto s : split)
    {
        if(s < 0)
            info.fail("split sizes must be non-negative");
        total += s;
    }
    if(total != len)
        info.fail("split sizes add up to " + std::to_string(total) + ", not the dim " + std::to_string(len));
    std::vector<instruction_ref> r;
    std::int64_t start = 0;
    for(auto s : split)
    {
        r.push_back(info.add("slice", {{"axes", std::vector<std::int64_t>{axis}}, {"starts", std::vector<std::int64_t>{start}}, {"ends", std::vector<std::int64_t>{start + s}}}, {x}));
        start += s;
    }
    return r;
}
MIGRAPHX_ONNX_PARSER(parse_split, "Split")

std::vector<instruction_ref> parse_concat(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.empty())
        info.fail("expects at least 1 input");
    auto rank = rank_of(args[0]);
    auto axis = normalize_onnx_axis(info.get_int("axis", info.opset < 4 ? 1 : 0), rank, info);
    if(args.size() == 1)
        return {args[0]};
    return {info.add("concat", {{"axis", axis}}, args)};
}
MIGRAPHX_ONNX_PARSER(parse_concat, "Concat")

std::vector<instruction_ref> parse_pad(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.empty())
        info.fail("expects an input");
    auto x    = args[0];
    auto rank = rank_of(x);
    std::vector<std::int64_t> pads;
    double value = 0;
    if(info.opset < 11)
    {
        pads  = info.get_ints(info.has("paddings") ? "paddings" : "pads");
        value = info.get_float("value", 0.0f);
    }
    else
    {
        if(args.size() < 2)
            info.fail("expects at least 2 inputs (data, pads)");
        pads = to_int64s(info.require_constant(args[1], "pads"));
        if(args.size() > 2 and not info.is_undefined(args[2]))
            value = info.require_constant(args[2], "constant_value").at<double>();
        if(args.size() > 3 and not info.is_undefined(args[3]))
        {
            // pads given for some axes only: spread them over all dims.
            auto axes = to_int64s(info.require_constant(args[3], "axes"));
            if(pads.size() != 2 * axes.size())
                info.fail("pads must have 2 values per axis");
            std::vector<std::int64_t> full(2 * rank, 0);
            for(std::size_t i = 0; i < axes.size(); i++)
            {
                auto a              = static_cast<std::size_t>(normalize_onnx_axis(axes[i], rank, info));
                full[a]             = pads[i];
                full[a + rank]      = pads[i + axes.size()];
            }
            pads = full;
        }
    }
    if(pads.size() != 2 * rank)
        info.fail("pads has " + std::to_string(pads.size()) + " values for rank " + std::to_string(rank));
    auto mode = info.get_string("mode", "constant");
    std::int64_t m = mode == "constant" ? 0 : mode == "reflect" ? 1 : mode == "edge" ? 2 : -1;
    if(m < 0)
        info.fail("unknown mode '" + mode + "'");
    if(std::all_of(pads.begin(), pads.end(), [](auto p) { return p == 0; }))
        return {x};
    return {info.add("pad", {{"pads", pads}, {"value", value}, {"mode", m}}, {x})};
}
MIGRAPHX_ONNX_PARSER(parse_pad, "Pad")

} // namespace
} // namespace onnx
} // namespace migraphx
