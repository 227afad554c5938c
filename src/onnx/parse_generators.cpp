// Ops whose value is known at parse time with static shapes: Constant, ConstantOfShape, Shape,
// Size, EyeLike, Range, the window functions; and Trilu (a mask literal). The Shape (and Size) of
// a value computed from a data-dependent result is read at run time (dimensions_of), and a
// ConstantOfShape or Range of sizes computed from it are sized at run time (broadcast_with_dims,
// range).

#include "onnx/onnx_utils.hpp"
#include <cmath>

namespace migraphx {
namespace onnx {

namespace {

std::vector<instruction_ref> parse_constant(const node_info& info, std::vector<instruction_ref>)
{
    if(info.has("value"))
        return {info.add_literal(info.get_tensor("value"))};
    if(info.has("value_float"))
        return {info.add_literal(literal{info.get_float("value_float", 0)})};
    if(info.has("value_int"))
        return {info.add_literal(literal{info.get_int("value_int", 0)})};
    if(info.has("value_floats"))
    {
        auto v = info.get_floats("value_floats");
        return {info.add_literal(literal{shape{shape::float_type, {v.size()}}, v})};
    }
    if(info.has("value_ints"))
        return {info.add_literal(int64_literal(info.get_ints("value_ints")))};
    if(info.has("sparse_value"))
        info.fail("sparse constants are not supported");
    if(info.has("value_string") or info.has("value_strings"))
        info.fail("string constants are not supported");
    info.fail("no value attribute");
}
MIGRAPHX_ONNX_PARSER(parse_constant, "Constant")

std::vector<std::size_t> shape_input(const node_info& info, instruction_ref x, const std::string& what)
{
    std::vector<std::size_t> lens;
    for(auto d : to_int64s(info.require_constant(x, what)))
    {
        if(d < 0)
            info.fail(what + " has a negative dim " + std::to_string(d));
        lens.push_back(static_cast<std::size_t>(d));
    }
    return lens;
}

std::vector<instruction_ref> parse_constant_of_shape(const node_info& info, std::vector<instruction_ref> args)
{
    literal value{0.0f};
    if(info.has("value"))
    {
        value = info.get_tensor("value");
        if(value.get_shape().elements() != 1)
            info.fail("value must have exactly 1 element");
    }
    auto t = value.get_shape().type();
    auto s = info.add_literal(make_literal(t, {}, value.to_vector<double>()));
    if(auto declared = args.empty() ? std::nullopt : declared_sizes(info, args[0], "shape"))
        return {info.add("broadcast_with_dims", {{"out_lens", *declared}}, {s, args[0]})};
    std::vector<std::size_t> lens;
    if(not args.empty())
        lens = shape_input(info, args[0], "shape");
    if(lens.empty())
        return {s};
    return {info.broadcast_to(s, lens)};
}
MIGRAPHX_ONNX_PARSER(parse_constant_of_shape, "ConstantOfShape")

std::vector<instruction_ref> parse_shape(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() != 1)
        info.fail("expects 1 input");
    const auto& l = lens_of(args[0]);
    auto rank     = static_cast<std::int64_t>(l.size());
    auto clampi   = [&](std::int64_t x) { return std::clamp<std::int64_t>(x < 0 ? x + rank : x, 0, rank); };
    auto start    = clampi(info.get_int("start", 0));
    auto end      = clampi(info.get_int("end", rank));
    if(end > start and from_dynamic_output(args[0]))
    {
        auto dynamic = dynamic_dims(args[0]);
        if(std::any_of(dynamic.begin() + start, dynamic.begin() + end, [](bool b) { return b; }))
            return {info.add("dimensions_of", {{"start", start}, {"end", end}}, {args[0]})};
    }
    std::vector<std::int64_t> v;
    for(auto i = start; i < end; i++)
        v.push_back(static_cast<std::int64_t>(l[i]));
    return {info.add_literal(int64_literal(v))};
}
MIGRAPHX_ONNX_PARSER(parse_shape, "Shape")

std::vector<instruction_ref> parse_size(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() != 1)
        info.fail("expects 1 input");
    if(rank_of(args[0]) > 0 and from_dynamic_output(args[0]))
    {
        auto dims = info.add("dimensions_of", {{"start", 0}, {"end", rank_of(args[0])}}, {args[0]});
        auto n    = info.add("reduce_prod", {{"axes", std::vector<std::int64_t>{0}}}, {dims});
        return {reshape_to(info, n, {})};
    }
    return {info.add_literal(literal{static_cast<std::int64_t>(args[0]->get_shape().elements())})};
}
MIGRAPHX_ONNX_PARSER(parse_size, "Size")

std::vector<instruction_ref> parse_eyelike(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() != 1 or rank_of(args[0]) != 2)
        info.fail("expects 1 input of rank 2");
    auto t = info.has("dtype") ? get_onnx_type(static_cast<int>(info.get_int("dtype", 1))) : type_of(args[0]);
    auto k = info.get_int("k", 0);
    auto l = lens_of(args[0]);
    info.check_size(l[0] * l[1], "the output");
    std::vector<double> v(l[0] * l[1], 0);
    for(std::size_t i = 0; i < l[0]; i++)
    {
        auto j = static_cast<std::int64_t>(i) + k;
        if(j >= 0 and j < static_cast<std::int64_t>(l[1]))
            v[i * l[1] + j] = 1;
    }
    return {info.add_literal(make_literal(t, l, v))};
}
MIGRAPHX_ONNX_PARSER(parse_eyelike, "EyeLike")

std::vector<instruction_ref> parse_range(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() != 3)
        info.fail("expects 3 inputs (start, limit, delta)");
    // Inputs computed from the Shape of a data-dependent result: the range op, its length at run
    // time, at most the length at the declared shapes.
    if(std::any_of(args.begin(), args.end(), [&](auto a) { return declared_values(info, a).has_value(); }))
    {
        auto d = [&](instruction_ref a, const std::string& what) {
            auto v = info.eval(a);
            return v ? v->at<double>() : info.require_constant(a, what).at<double>(); // the declared value
        };
        double s = d(args[0], "start"), l = d(args[1], "limit"), step = d(args[2], "delta");
        if(step == 0)
            info.fail("delta must not be 0");
        auto n = static_cast<std::size_t>(std::max(std::ceil((l - s) / step), 0.0));
        if(n > (std::size_t{1} << 28))
            info.fail("range is too long");
        return {info.add("range", {{"max_length", n}}, args)};
    }
    auto start = info.require_constant(args[0], "start");
    auto limit = info.require_constant(args[1], "limit").at<double>();
    auto delta = info.require_constant(args[2], "delta").at<double>();
    auto t     = start.get_shape().type();
    if(delta == 0)
        info.fail("delta must not be 0");
    auto s = start.at<double>();
    auto n = static_cast<std::size_t>(std::max(std::ceil((limit - s) / delta), 0.0));
    if(n > (std::size_t{1} << 28))
        info.fail("range is too long");
    std::vector<double> v(n);
    // Integer ranges step in the integer type, as the ONNX reference does.
    for(std::size_t i = 0; i < n; i++)
        v[i] = s + static_cast<double>(i) * delta;
    return {info.add_literal(make_literal(t, {n}, v))};
}
MIGRAPHX_ONNX_PARSER(parse_range, "Range")

std::vector<instruction_ref> parse_window(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() != 1)
        info.fail("expects 1 input (size)");
    auto size_v = info.require_constant(args[0], "size").at<std::int64_t>();
    if(size_v < 0)
        info.fail("size must be non-negative");
    auto n        = static_cast<std::size_t>(size_v);
    info.check_size(n, "size");
    bool periodic = info.get_int("periodic", 1) != 0;
    auto t        = get_onnx_type(static_cast<int>(info.get_int("output_datatype", 1)));
    double denom  = periodic ? static_cast<double>(n) : static_cast<double>(n) - 1;
    std::vector<double> v(n);
    for(std::size_t i = 0; i < n; i++)
    {
        double x = denom > 0 ? 2 * M_PI * static_cast<double>(i) / denom : 0;
        if(info.op_type == "HannWindow")
            v[i] = 0.5 - 0.5 * std::cos(x);
        else if(info.op_type == "HammingWindow")
            v[i] = 25.0 / 46.0 - (21.0 / 46.0) * std::cos(x);
        else
            v[i] = 0.42 - 0.5 * std::cos(x) + 0.08 * std::cos(2 * x);
    }
    return {info.add_literal(make_literal(t, {n}, v))};
}
MIGRAPHX_ONNX_PARSER(parse_window, "HannWindow", "HammingWindow", "BlackmanWindow")

std::vector<instruction_ref> parse_trilu(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.empty() or rank_of(args[0]) < 2)
        info.fail("expects an input of rank >= 2");
    auto x = args[0];
    std::int64_t k = 0;
    if(args.size() > 1 and not info.is_undefined(args[1]))
        k = info.require_constant(args[1], "k").at<std::int64_t>();
    bool upper    = info.get_int("upper", 1) != 0;
    const auto& l = lens_of(x);
    auto rows = l[l.size() - 2];
    auto cols = l.back();
    info.check_size(rows * cols, "the mask");
    std::vector<int> mask(rows * cols);
    for(std::size_t i = 0; i < rows; i++)
        for(std::size_t j = 0; j < cols; j++)
        {
            auto d              = static_cast<std::int64_t>(j) - static_cast<std::int64_t>(i);
            mask[i * cols + j] = (upper ? d >= k : d <= k) ? 1 : 0;
        }
    auto m    = info.add_literal(make_literal(shape::bool_type, {rows, cols}, mask));
    auto zero = info.add_scalar(0, type_of(x));
    return {info.add_common_op("where", {m, x, zero})};
}
MIGRAPHX_ONNX_PARSER(parse_trilu, "Trilu")

} // namespace
} // namespace onnx
} // namespace migraphx
