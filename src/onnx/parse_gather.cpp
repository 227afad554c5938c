// Gather, GatherElements, GatherND (the last two composed as a gather on the flattened data with
// computed flat indices; the gathernd op for data-dependent indices), Compress, OneHot.

#include "onnx/onnx_utils.hpp"

namespace migraphx {
namespace onnx {

namespace {

/// Indices as int64 with negatives wrapped by the dim length (dims: broadcastable to idx).
instruction_ref wrap_indices(const node_info& info, instruction_ref idx, instruction_ref dims)
{
    idx       = info.convert(idx, shape::int64_type);
    auto zero = info.add_scalar(0, shape::int64_type);
    auto neg  = info.add_broadcastable_binary_op("less", idx, zero);
    auto plus = info.add_broadcastable_binary_op("add", idx, dims);
    return info.add("where", {neg, plus, idx});
}

instruction_ref flatten_all(const node_info& info, instruction_ref x)
{
    return reshape_to(info, x, {x->get_shape().elements()});
}

} // namespace

instruction_ref add_gather_elements(const node_info& info, instruction_ref data, instruction_ref idx, std::int64_t axis_)
{
    auto rank = rank_of(data);
    auto axis = static_cast<std::size_t>(normalize_onnx_axis(axis_, rank, info));
    const auto& dl = lens_of(data);
    const auto& il = lens_of(idx);
    auto strides   = shape::standard_strides(dl);
    // flat = idx * stride[axis] + sum over the other dims of their position * stride
    shape is{shape::int64_type, il};
    info.check_size(is.elements(), "the indices");
    std::vector<std::int64_t> offsets(is.elements());
    for(std::size_t i = 0; i < offsets.size(); i++)
    {
        auto m = is.multi(i);
        std::int64_t o = 0;
        for(std::size_t d = 0; d < rank; d++)
            if(d != axis)
                o += static_cast<std::int64_t>(m[d] * strides[d]);
        offsets[i] = o;
    }
    auto wrapped = wrap_indices(info, idx, info.add_scalar(static_cast<double>(dl[axis]), shape::int64_type));
    auto scaled  = info.add_broadcastable_binary_op(
        "mul", wrapped, info.add_scalar(static_cast<double>(strides[axis]), shape::int64_type));
    auto flat = info.add("add", {scaled, info.add_literal(literal{is, offsets})});
    return info.add("gather", {{"axis", 0}}, {flatten_all(info, data), flat});
}

namespace {

/// Gather(dimensions_of(x), idx) as a literal when idx is constant and picks only dims of x whose
/// length does not depend on the data.
std::optional<instruction_ref> known_dimensions(const node_info& info, instruction_ref dims, instruction_ref idx)
{
    auto picked = info.eval(idx);
    if(not picked)
        return std::nullopt;
    auto x       = dims->inputs().front();
    auto start   = dims->get_operator().to_value().at("start").to<std::int64_t>();
    auto n       = static_cast<std::int64_t>(lens_of(dims).front());
    auto dynamic = dynamic_dims(x);
    std::vector<std::int64_t> lens;
    for(auto i : picked->to_vector<std::int64_t>())
    {
        auto j = i < 0 ? i + n : i;
        if(j < 0 or j >= n or dynamic.at(start + j))
            return std::nullopt;
        lens.push_back(static_cast<std::int64_t>(lens_of(x)[start + j]));
    }
    return info.add_literal(literal{shape{shape::int64_type, lens_of(idx)}, lens});
}

std::vector<instruction_ref> parse_gather(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() != 2)
        info.fail("expects 2 inputs (data, indices)");
    auto axis = normalize_onnx_axis(info.get_int("axis", 0), rank_of(args[0]), info);
    auto idx  = args[1];
    if(type_of(idx) != shape::int32_type and type_of(idx) != shape::int64_type)
        idx = info.convert(idx, shape::int64_type);
    // x.size(d) of a data-dependent x (Gather of its Shape at constant indices): the declared
    // length where dim d does not depend on the data, so conditions on it are known at parse time
    if(args[0]->name() == "dimensions_of" and axis == 0)
        if(auto known = known_dimensions(info, args[0], idx))
            return {*known};
    return {info.add("gather", {{"axis", axis}}, {args[0], idx})};
}
MIGRAPHX_ONNX_PARSER(parse_gather, "Gather")

std::vector<instruction_ref> parse_gather_elements(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() != 2)
        info.fail("expects 2 inputs (data, indices)");
    if(rank_of(args[1]) != rank_of(args[0]))
        info.fail("data and indices must have the same rank");
    return {add_gather_elements(info, args[0], args[1], info.get_int("axis", 0))};
}
MIGRAPHX_ONNX_PARSER(parse_gather_elements, "GatherElements")

std::vector<instruction_ref> parse_gather_nd(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() != 2)
        info.fail("expects 2 inputs (data, indices)");
    auto data = args[0];
    auto idx  = args[1];
    const auto& dl = lens_of(data);
    const auto& il = lens_of(idx);
    auto b = static_cast<std::size_t>(info.get_int("batch_dims", 0));
    if(il.empty() or b >= il.size() or b >= dl.size())
        info.fail("batch_dims " + std::to_string(b) + " does not fit the ranks");
    auto k = il.back();
    if(k < 1 or b + k > dl.size())
        info.fail("indices' last dim " + std::to_string(k) + " does not fit the data rank");
    for(std::size_t i = 0; i < b; i++)
        if(dl[i] != il[i])
            info.fail("batch dims of data and indices differ");
    // Indices of data-dependent size (x[mask] exports as NonZero -> Transpose -> GatherND): the
    // composition below broadcasts constants to their declared (largest) shape, which a smaller
    // actual result does not fit; the gathernd op reads the indices' actual shape.
    if(has_op("gathernd") and from_dynamic_output(idx))
        return {info.add("gathernd", {{"batch_dims", static_cast<std::int64_t>(b)}}, {data, idx})};
    std::size_t m = product(dl, b, b + k);
    std::vector<std::size_t> rest(dl.begin() + b + k, dl.end());
    // data -> {prod(batch) * m, rest...}
    std::vector<std::size_t> dlens{product(dl, 0, b) * m};
    dlens.insert(dlens.end(), rest.begin(), rest.end());
    auto d2 = reshape_to(info, data, dlens);
    std::vector<std::int64_t> dims(k), strides(k);
    std::int64_t s = 1;
    for(std::size_t j = k; j-- > 0;)
    {
        dims[j]    = static_cast<std::int64_t>(dl[b + j]);
        strides[j] = s;
        s *= dims[j];
    }
    auto wrapped = wrap_indices(info, idx, info.add_literal(int64_literal(dims)));
    auto scaled  = info.add_broadcastable_binary_op("mul", wrapped, info.add_literal(int64_literal(strides)));
    auto summed  = info.add("reduce_sum", {{"axes", std::vector<std::int64_t>{static_cast<std::int64_t>(il.size() - 1)}}},
                           {scaled});
    auto flat    = info.add("squeeze", {{"axes", std::vector<std::int64_t>{static_cast<std::int64_t>(il.size() - 1)}}},
                         {summed});
    std::vector<std::size_t> ol(il.begin(), il.end() - 1);
    if(b > 0)
    {
        shape os{shape::int64_type, ol};
        info.check_size(os.elements(), "the indices");
        std::vector<std::int64_t> offs(os.elements());
        auto per_batch = product(ol, b);
        for(std::size_t i = 0; i < offs.size(); i++)
            offs[i] = static_cast<std::int64_t>((i / per_batch) * m);
        flat = info.add("add", {flat, info.add_literal(literal{os, offs})});
    }
    return {info.add("gather", {{"axis", 0}}, {d2, flat})};
}
MIGRAPHX_ONNX_PARSER(parse_gather_nd, "GatherND")

std::vector<instruction_ref> parse_compress(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() != 2)
        info.fail("expects 2 inputs (input, condition)");
    auto x = args[0];
    auto c = info.eval(args[1]);
    if(not c and has_op("compress"))
    {
        // A condition known only at run time: the compress op (output sized for the worst case).
        std::vector<std::int64_t> ax;
        if(info.has("axis"))
            ax.push_back(info.get_int("axis", 0));
        return {info.add("compress", {{"axis", ax}}, {x, args[1]})};
    }
    auto cond = info.require_constant(args[1], "condition").to_vector<bool>();
    std::int64_t axis = 0;
    if(info.has("axis"))
        axis = normalize_onnx_axis(info.get_int("axis", 0), rank_of(x), info);
    else
        x = flatten_all(info, x);
    auto len = lens_of(x)[axis];
    std::vector<std::int64_t> idx;
    for(std::size_t i = 0; i < cond.size() and i < len; i++)
        if(cond[i])
            idx.push_back(static_cast<std::int64_t>(i));
    if(idx.empty())
        return {info.add("slice",
                         {{"axes", std::vector<std::int64_t>{axis}},
                          {"starts", std::vector<std::int64_t>{0}},
                          {"ends", std::vector<std::int64_t>{0}}},
                         {x})};
    return {info.add("gather", {{"axis", axis}}, {x, info.add_literal(int64_literal(idx))})};
}
MIGRAPHX_ONNX_PARSER(parse_compress, "Compress")

std::vector<instruction_ref> parse_onehot(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() != 3)
        info.fail("expects 3 inputs (indices, depth, values)");
    auto depth_v = info.require_constant(args[1], "depth").to_vector<double>();
    if(depth_v.size() != 1 or depth_v[0] < 1)
        info.fail("depth must be a positive scalar");
    info.check_size(static_cast<std::size_t>(std::min(depth_v[0], 1e12)), "depth");
    auto depth  = static_cast<std::size_t>(depth_v[0]);
    auto idx    = args[0];
    auto values = args[2];
    if(values->get_shape().elements() != 2)
        info.fail("values must have 2 elements (off, on)");
    auto rank = rank_of(idx) + 1;
    auto axis = static_cast<std::size_t>(normalize_onnx_axis(info.get_int("axis", -1), rank, info));
    auto wrapped = wrap_indices(info, idx, info.add_scalar(static_cast<double>(depth), shape::int64_type));
    auto u       = info.add("unsqueeze", {{"axes", std::vector<std::int64_t>{static_cast<std::int64_t>(axis)}}},
                      {wrapped});
    std::vector<std::size_t> out = lens_of(u);
    out[axis] = depth;
    auto eq   = info.add_broadcastable_binary_op("equal", u, iota_along(info, out, axis));
    auto flat = reshape_to(info, values, {2});
    auto off  = info.add("slice", {{"axes", std::vector<std::int64_t>{0}}, {"starts", std::vector<std::int64_t>{0}}, {"ends", std::vector<std::int64_t>{1}}}, {flat});
    auto on   = info.add("slice", {{"axes", std::vector<std::int64_t>{0}}, {"starts", std::vector<std::int64_t>{1}}, {"ends", std::vector<std::int64_t>{2}}}, {flat});
    return {info.add_common_op("where", {eq, on, off})};
}
MIGRAPHX_ONNX_PARSER(parse_onehot, "OneHot")

} // namespace
} // namespace onnx
} // namespace migraphx
