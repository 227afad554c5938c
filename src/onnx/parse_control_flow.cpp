// If, Loop and Scan. With static shapes their sub-graphs are inlined: If picks its branch when
// the condition is a constant (else computes both and selects with where, or with select_branch
// where the branches' sizes differ or depend on the data), Loop and Scan are
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
        // Branches of different sizes (one rank), or of data-dependent ones: the one taken, whole.
        if(type_of(t[i]) == type_of(e[i]) and rank_of(t[i]) == rank_of(e[i]) and
           (lens_of(t[i]) != lens_of(e[i]) or from_dynamic_output(t[i]) or from_dynamic_output(e[i])))
        {
            r.push_back(info.add("select_branch", {args[0], t[i], e[i]}));
            continue;
        }
        if(t[i]->get_shape().lens() != e[i]->get_shape().lens() or type_of(t[i]) != type_of(e[i]))
            info.fail("a run-time condition with branch outputs of different types or ranks is not supported");
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
        if(not c and nscan > 0) // the number of scan outputs must be known
            c = info.require_constant(cond, "cond");
        if(c and not c->at<bool>())
            break;
        if(not c)
        {
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

/// Unrolls a Scan body over the scan inputs; returns the final states then the scan outputs.
std::vector<instruction_ref> scan_core(const node_info& info,
                                       std::vector<instruction_ref> state,
                                       const std::vector<instruction_ref>& xs,
                                       std::vector<std::int64_t> in_axes,
                                       const std::vector<std::int64_t>& in_dirs,
                                       const std::vector<std::int64_t>& out_axes,
                                       const std::vector<std::int64_t>& out_dirs)
{
    const auto& body = info.get_graph("body");
    auto n = state.size();
    auto m = xs.size();
    if(in_axes.size() != m or in_dirs.size() != m)
        info.fail("scan input axes/directions must have one value per scan input");
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
    if(static_cast<std::size_t>(body.output_size()) < n)
        info.fail("the body gives too few outputs");
    auto k = static_cast<std::size_t>(body.output_size()) - n;
    if(out_axes.size() != k or out_dirs.size() != k)
        info.fail("scan output axes/directions must have one value per scan output");
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

std::vector<instruction_ref> parse_scan(const node_info& info, std::vector<instruction_ref> args)
{
    const auto& body = info.get_graph("body");
    auto m           = static_cast<std::size_t>(info.get_int("num_scan_inputs", 0));
    if(info.opset >= 9)
    {
        if(m == 0 or m > args.size())
            info.fail("num_scan_inputs must be between 1 and the number of inputs");
        auto n = args.size() - m;
        auto k = static_cast<std::size_t>(std::max(body.output_size() - static_cast<int>(n), 0));
        return scan_core(info,
                         {args.begin(), args.begin() + n},
                         {args.begin() + n, args.end()},
                         info.get_ints("scan_input_axes", std::vector<std::int64_t>(m, 0)),
                         info.get_ints("scan_input_directions", std::vector<std::int64_t>(m, 0)),
                         info.get_ints("scan_output_axes", std::vector<std::int64_t>(k, 0)),
                         info.get_ints("scan_output_directions", std::vector<std::int64_t>(k, 0)));
    }
    // Opset 8: inputs (sequence_lens, states..., scans...) with a leading batch dim; the body
    // runs per batch entry.
    if(args.empty() or m == 0 or m + 1 > args.size())
        info.fail("num_scan_inputs must be between 1 and the number of inputs - 1");
    if(not info.is_undefined(args[0]))
        info.fail("sequence_lens is not supported");
    auto n     = args.size() - 1 - m;
    auto k     = static_cast<std::size_t>(std::max(body.output_size() - static_cast<int>(n), 0));
    auto dirs  = info.get_ints("directions", std::vector<std::int64_t>(m, 0));
    auto batch = lens_of(args[1])[0];
    std::vector<std::vector<instruction_ref>> per_batch;
    for(std::size_t b = 0; b < batch; b++)
    {
        auto pick = [&](instruction_ref x) {
            auto s = info.add("slice",
                              {{"axes", std::vector<std::int64_t>{0}},
                               {"starts", std::vector<std::int64_t>{static_cast<std::int64_t>(b)}},
                               {"ends", std::vector<std::int64_t>{static_cast<std::int64_t>(b + 1)}}},
                              {x});
            return info.add("squeeze", {{"axes", std::vector<std::int64_t>{0}}}, {s});
        };
        std::vector<instruction_ref> state, xs;
        for(std::size_t i = 0; i < n; i++)
            state.push_back(pick(args[1 + i]));
        for(std::size_t i = 0; i < m; i++)
            xs.push_back(pick(args[1 + n + i]));
        per_batch.push_back(scan_core(info, state, xs, std::vector<std::int64_t>(m, 0), dirs,
                                      std::vector<std::int64_t>(k, 0), std::vector<std::int64_t>(k, 0)));
    }
    std::vector<instruction_ref> r;
    for(std::size_t j = 0; j < n + k; j++)
    {
        std::vector<instruction_ref> xs;
        for(const auto& pb : per_batch)
            xs.push_back(pb[j]);
        r.push_back(stack(info, xs, 0));
    }
    return r;
}
MIGRAPHX_ONNX_PARSER(parse_scan, "Scan")

} // namespace
} // namespace onnx
} // namespace migraphx
