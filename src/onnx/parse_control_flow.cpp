// If, Loop and Scan. With static shapes their sub-graphs are inlined: If picks its branch when
// the condition is a constant (else computes both and selects with where), Loop and Scan are
// unrolled over their (constant) trip count.

#include "onnx/onnx_utils.hpp"

namespace migraphx {
namespace onnx {

namespace {

constexpr std::int64_t max_unroll = 4096;

std::vector<instruction_ref> parse_if(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() != 1)
        info.fail("expects 1 input (cond)");
    const auto& then_g = info.get_graph("then_branch");
    const auto& else_g = info.get_graph("else_branch");
    auto c             = info.eval(args[0]);
    if(c)
        return info.parser->inline_subgraph(info.mod, c->at<bool>() ? then_g : else_g, *info.scope, {});
    auto t = info.parser->inline_subgraph(info.mod, then_g, *info.scope, {});
    auto e = info.parser->inline_subgraph(info.mod, else_g, *info.scope, {});
    if(t.size() != e.size())
        info.fail("the branches give different numbers of outputs");
    std::vector<instruction_ref> r;
    for(std::size_t i = 0; i < t.size(); i++)
    {
        if(t[i]->get_shape().lens() != e[i]->get_shape().lens() or type_of(t[i]) != type_of(e[i]))
            info.fail("a run-time condition with branch outputs of different shapes is not supported");
        auto cond = info.broadcast_to(reshape_to(info, args[0], {}), lens_of(t[i]));
        r.push_back(info.add("where", {cond, t[i], e[i]}));
    }
    return r;
}
MIGRAPHX_ONNX_PARSER(parse_if, "If")

/// Stacks per-iteration values along a new axis.
instruction_ref stack(const node_info& info, const std::vector<instruction_ref>& xs, std::int64_t axis)
{
    std::vector<instruction_ref> us;
    for(auto x : xs)
        us.push_back(info.add("unsqueeze", {{"axes", std::vector<std::int64_t>{axis}}}, {x}));
    return us.size() == 1 ? us.front() : info.add("concat", {{"axis", axis}}, us);
}

std::vector<instruction_ref> parse_loop(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() < 2)
        info.fail("expects at least 2 inputs (M, cond)");
    const auto& body = info.get_graph("body");
    std::int64_t trip = info.parser->options.max_loop_iterations;
    bool trip_given   = not info.is_undefined(args[0]);
    if(trip_given)
        trip = info.require_constant(args[0], "M (trip count)").at<std::int64_t>();
    if(trip > max_unroll)
        info.fail("trip count " + std::to_string(trip) + " is too large to unroll");
    std::vector<instruction_ref> v(args.begin() + 2, args.end());
    auto nv    = v.size();
    auto nscan = static_cast<std::size_t>(body.output_size()) - 1 - nv;
    if(static_cast<std::size_t>(body.output_size()) < 1 + nv)
        info.fail("the body gives too few outputs");
    instruction_ref cond = info.is_undefined(args[1]) ? info.add_scalar(1, shape::bool_type) : args[1];
    std::optional<instruction_ref> active; // a run-time condition: where-masked updates
    std::vector<std::vector<instruction_ref>> scans(nscan);
    for(std::int64_t i = 0; i < trip; i++)
    {
        auto c = info.eval(cond);
        if(c and not c->at<bool>())
            break;
        if(not c)
        {
            if(nscan > 0)
                info.fail("scan outputs with a run-time loop condition are not supported");
            auto cs = reshape_to(info, info.convert(cond, shape::bool_type), {});
            active  = active ? info.add("logical_and", {*active, cs}) : cs;
        }
        std::vector<instruction_ref> in{info.add_literal(literal{i}), cond};
        in.insert(in.end(), v.begin(), v.end());
        auto out = info.parser->inline_subgraph(info.mod, body, *info.scope, in);
        for(std::size_t j = 0; j < nv; j++)
        {
            if(lens_of(out[1 + j]) != lens_of(v[j]))
                info.fail("a loop-carried value changes shape");
            v[j] = active ? info.add("where", {info.broadcast_to(*active, lens_of(v[j])), out[1 + j], v[j]})
                          : out[1 + j];
        }
        for(std::size_t j = 0; j < nscan; j++)
            scans[j].push_back(out[1 + nv + j]);
        cond = out[0];
    }
    std::vector<instruction_ref> r = v;
    for(auto& s : scans)
    {
        if(s.empty())
            info.fail("a scan output of a loop that runs no iteration has no shape");
        r.push_back(stack(info, s, 0));
    }
    return r;
}
MIGRAPHX_ONNX_PARSER(parse_loop, "Loop")

std::vector<instruction_ref> parse_scan(const node_info& info, std::vector<instruction_ref> args)
{
    if(info.opset < 9)
        info.fail("Scan before opset 9 (with sequence_lens) is not supported");
    const auto& body = info.get_graph("body");
    auto m           = static_cast<std::size_t>(info.get_int("num_scan_inputs", 0));
    if(m == 0 or m > args.size())
        info.fail("num_scan_inputs must be between 1 and the number of inputs");
    auto n = args.size() - m;
    std::vector<instruction_ref> state(args.begin(), args.begin() + n);
    std::vector<instruction_ref> xs(args.begin() + n, args.end());
    auto in_axes = info.get_ints("scan_input_axes", std::vector<std::int64_t>(m, 0));
    auto in_dirs = info.get_ints("scan_input_directions", std::vector<std::int64_t>(m, 0));
    if(in_axes.size() != m or in_dirs.size() != m)
        info.fail("scan_input_axes/directions must have one value per scan input");
    std::size_t len = 0;
    for(std::size_t j = 0; j < m; j++)
    {
        in_axes[j] = normalize_onnx_axis(in_axes[j], rank_of(xs[j]), info);
        auto l     = lens_of(xs[j])[in_axes[j]];
        if(j > 0 and l != len)
            info.fail("scan inputs have different sequence lengths");
        len = l;
    }
    if(static_cast<std::int64_t>(len) > max_unroll)
        info.fail("sequence too long to unroll");
    auto k = static_cast<std::size_t>(body.output_size()) - n;
    std::vector<std::vector<instruction_ref>> outs(k);
    for(std::size_t t = 0; t < len; t++)
    {
        std::vector<instruction_ref> in = state;
        for(std::size_t j = 0; j < m; j++)
        {
            auto pos = static_cast<std::int64_t>(in_dirs[j] != 0 ? len - 1 - t : t);
            auto s   = info.add("slice",
                              {{"axes", std::vector<std::int64_t>{in_axes[j]}},
                               {"starts", std::vector<std::int64_t>{pos}},
                               {"ends", std::vector<std::int64_t>{pos + 1}}},
                              {xs[j]});
            in.push_back(info.add("squeeze", {{"axes", std::vector<std::int64_t>{in_axes[j]}}}, {s}));
        }
        auto out = info.parser->inline_subgraph(info.mod, body, *info.scope, in);
        std::copy(out.begin(), out.begin() + n, state.begin());
        for(std::size_t j = 0; j < k; j++)
            outs[j].push_back(out[n + j]);
    }
    auto out_axes = info.get_ints("scan_output_axes", std::vector<std::int64_t>(k, 0));
    auto out_dirs = info.get_ints("scan_output_directions", std::vector<std::int64_t>(k, 0));
    if(out_axes.size() != k or out_dirs.size() != k)
        info.fail("scan_output_axes/directions must have one value per scan output");
    std::vector<instruction_ref> r = state;
    for(std::size_t j = 0; j < k; j++)
    {
        if(outs[j].empty())
            info.fail("a scan over an empty sequence has no output shape");
        if(out_dirs[j] != 0)
            std::reverse(outs[j].begin(), outs[j].end());
        auto axis = normalize_onnx_axis(out_axes[j], rank_of(outs[j][0]) + 1, info);
        r.push_back(stack(info, outs[j], axis));
    }
    return r;
}
MIGRAPHX_ONNX_PARSER(parse_scan, "Scan")

} // namespace
} // namespace onnx
} // namespace migraphx
