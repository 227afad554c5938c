// Layout ops: Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Expand, Tile, DepthToSpace,
// SpaceToDepth. Reshape and Expand whose shape is computed from the Shape of a data-dependent
// result take it at run time (reshape_with_dims, broadcast_with_dims), as do a Reshape of a
// data-dependent value with a -1 (or a copied 0) in its shape and a Flatten of one.

#include "onnx/onnx_utils.hpp"
#include "ops/broadcast_lens.hpp"
#include "ops/reshape_sizes.hpp"

namespace migraphx {
namespace onnx {

namespace {

std::vector<instruction_ref> parse_reshape(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.empty())
        info.fail("expects an input");
    auto x = args[0];
    std::vector<std::int64_t> dims;
    std::optional<std::vector<std::int64_t>> run_time; // the declared values of a run-time shape
    if(info.opset < 5)
        dims = info.get_ints("shape");
    else
    {
        if(args.size() != 2)
            info.fail("expects 2 inputs (data, shape)");
        run_time = declared_values(info, args[1]);
        dims     = run_time ? *run_time : to_int64s(info.require_constant(args[1], "shape"));
    }
    bool allowzero = info.get_int("allowzero", 0) != 0;
    auto lens = reshape_sizes(dims, lens_of(x), allowzero, [&](const std::string& why) { info.fail(why); });
    // A -1 (or copied 0) over a data-dependent x is a size known only at run time too.
    bool inferred = std::any_of(dims.begin(), dims.end(), [&](auto d) { return d == -1 or (d == 0 and not allowzero); });
    if(run_time or (args.size() == 2 and inferred and from_dynamic_output(x)))
        return {info.add("reshape_with_dims", {{"dims", lens}, {"allowzero", allowzero}}, {x, args[1]})};
    return {reshape_to(info, x, lens)};
}
MIGRAPHX_ONNX_PARSER(parse_reshape, "Reshape")

std::vector<instruction_ref> parse_flatten(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() != 1)
        info.fail("expects 1 input");
    auto x    = args[0];
    auto rank = rank_of(x);
    auto axis = info.get_int("axis", 1);
    if(axis < 0)
        axis += static_cast<std::int64_t>(rank);
    if(axis < 0 or axis > static_cast<std::int64_t>(rank))
        info.fail("axis " + std::to_string(info.get_int("axis", 1)) + " is out of range for rank " +
                  std::to_string(rank));
    const auto& l = lens_of(x);
    std::vector<std::size_t> lens{product(l, 0, axis), product(l, axis)};
    if(from_dynamic_output(x))
    {
        // [the product of x's leading dims as they are at run time, -1]
        instruction_ref outer = info.add_literal(int64_literal({1}));
        if(axis > 0)
            outer = info.add("reduce_prod", {{"axes", std::vector<std::int64_t>{0}}},
                             {info.add("dimensions_of", {{"start", 0}, {"end", axis}}, {x})});
        auto sizes = info.add("concat", {{"axis", 0}}, {outer, info.add_literal(int64_literal({-1}))});
        return {info.add("reshape_with_dims", {{"dims", lens}, {"allowzero", false}}, {x, sizes})};
    }
    return {reshape_to(info, x, lens)};
}
MIGRAPHX_ONNX_PARSER(parse_flatten, "Flatten")

std::vector<std::int64_t> axes_of(const node_info& info, const std::vector<instruction_ref>& args)
{
    if(info.opset < 13)
        return info.get_ints("axes");
    if(args.size() < 2 or info.is_undefined(args[1]))
        return {};
    return to_int64s(info.require_constant(args[1], "axes"));
}

std::vector<instruction_ref> parse_squeeze(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.empty())
        info.fail("expects an input");
    auto x    = args[0];
    auto axes = normalize_axes(info, axes_of(info, args), rank_of(x));
    const auto& l = lens_of(x);
    std::vector<std::int64_t> drop;
    for(std::size_t i = 0; i < l.size(); i++)
    {
        bool listed = std::find(axes.begin(), axes.end(), static_cast<std::int64_t>(i)) != axes.end();
        if(listed and l[i] != 1)
            info.fail("cannot squeeze axis " + std::to_string(i) + " of length " + std::to_string(l[i]));
        if(axes.empty() ? l[i] == 1 : listed)
            drop.push_back(static_cast<std::int64_t>(i));
    }
    if(drop.empty())
        return {x};
    return {info.add("squeeze", {{"axes", drop}}, {x})};
}
MIGRAPHX_ONNX_PARSER(parse_squeeze, "Squeeze")

std::vector<instruction_ref> parse_unsqueeze(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.empty())
        info.fail("expects an input");
    auto x    = args[0];
    auto raw  = axes_of(info, args);
    auto rank = rank_of(x) + raw.size();
    auto axes = normalize_axes(info, raw, rank);
    if(std::adjacent_find(axes.begin(), axes.end()) != axes.end())
        info.fail("axes repeat");
    if(axes.empty())
        return {x};
    return {info.add("unsqueeze", {{"axes", axes}}, {x})};
}
MIGRAPHX_ONNX_PARSER(parse_unsqueeze, "Unsqueeze")

std::vector<instruction_ref> parse_transpose(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() != 1)
        info.fail("expects 1 input");
    auto rank = rank_of(args[0]);
    std::vector<std::int64_t> perm(rank);
    for(std::size_t i = 0; i < rank; i++)
        perm[i] = static_cast<std::int64_t>(rank - 1 - i);
    perm = info.get_ints("perm", perm);
    if(perm.size() != rank)
        info.fail("perm has " + std::to_string(perm.size()) + " entries for rank " + std::to_string(rank));
    for(auto& p : perm)
        p = normalize_onnx_axis(p, rank, info);
    return {info.add("transpose", {{"permutation", perm}}, {args[0]})};
}
MIGRAPHX_ONNX_PARSER(parse_transpose, "Transpose")

std::vector<instruction_ref> parse_expand(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() != 2)
        info.fail("expects 2 inputs (input, shape)");
    if(auto declared = declared_sizes(info, args[1], "shape"))
    {
        auto out = compute_broadcasted_lens(lens_of(args[0]), *declared);
        return {info.add("broadcast_with_dims", {{"out_lens", out}}, {args[0], args[1]})};
    }
    auto dims = to_int64s(info.require_constant(args[1], "shape"));
    std::vector<std::size_t> want;
    for(auto d : dims)
    {
        if(d < 0)
            info.fail("shape has a negative dim");
        want.push_back(static_cast<std::size_t>(d));
    }
    return {info.broadcast_to(args[0], compute_broadcasted_lens(lens_of(args[0]), want))};
}
MIGRAPHX_ONNX_PARSER(parse_expand, "Expand")

std::vector<instruction_ref> parse_tile(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() < 2)
        info.fail("expects 2 inputs (input, repeats)");
    auto x       = args[0];
    auto repeats = to_int64s(info.require_constant(args[1], "repeats"));
    const auto& l = lens_of(x);
    if(repeats.size() != l.size())
        info.fail("repeats has " + std::to_string(repeats.size()) + " values for rank " + std::to_string(l.size()));
    // {d0, d1} -> {1, d0, 1, d1} -> broadcast {r0, d0, r1, d1} -> {r0*d0, r1*d1}
    std::vector<std::size_t> inter, bcast, out;
    for(std::size_t i = 0; i < l.size(); i++)
    {
        if(repeats[i] < 0)
            info.fail("repeats must be non-negative");
        auto r = static_cast<std::size_t>(repeats[i]);
        inter.insert(inter.end(), {1, l[i]});
        bcast.insert(bcast.end(), {r, l[i]});
        out.push_back(r * l[i]);
    }
    auto b = info.broadcast_to(reshape_to(info, x, inter), bcast);
    return {reshape_to(info, b, out)};
}
MIGRAPHX_ONNX_PARSER(parse_tile, "Tile")

std::vector<instruction_ref> parse_depth_space(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() != 1 or rank_of(args[0]) != 4)
        info.fail("expects 1 input of rank 4");
    auto x  = args[0];
    auto bs = info.get_int("blocksize", 0);
    if(bs <= 0)
        info.fail("blocksize must be positive");
    auto b          = static_cast<std::size_t>(bs);
    const auto& l   = lens_of(x);
    std::size_t n = l[0], c = l[1], h = l[2], w = l[3];
    std::vector<std::int64_t> perm;
    std::vector<std::size_t> inter, out;
    if(info.op_type == "DepthToSpace")
    {
        if(c % (b * b) != 0)
            info.fail("channels " + std::to_string(c) + " are not divisible by blocksize^2");
        auto oc = c / (b * b);
        if(info.get_string("mode", "DCR") == "DCR")
        {
            inter = {n, b, b, oc, h, w};
            perm  = {0, 3, 4, 1, 5, 2};
        }
        else
        {
            inter = {n, oc, b, b, h, w};
            perm  = {0, 1, 4, 2, 5, 3};
        }
        out = {n, oc, h * b, w * b};
    }
    else
    {
        if(h % b != 0 or w % b != 0)
            info.fail("spatial dims are not divisible by blocksize");
        inter = {n, c, h / b, b, w / b, b};
        perm  = {0, 3, 5, 1, 2, 4};
        out   = {n, c * b * b, h / b, w / b};
    }
    auto t = info.add("transpose", {{"permutation", perm}}, {reshape_to(info, x, inter)});
    return {reshape_to(info, t, out)};
}
MIGRAPHX_ONNX_PARSER(parse_depth_space, "DepthToSpace", "SpaceToDepth")

} // namespace
} // namespace onnx
} // namespace migraphx
