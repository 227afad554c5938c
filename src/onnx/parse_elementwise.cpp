// Elementwise ONNX ops: unary math, binary arithmetic/comparison/logic with numpy broadcasting,
// variadic Max/Min/Sum/Mean, Where, Clip, Cast, IsInf, BitShift, Shrink.

#include "onnx/onnx_utils.hpp"
#include <limits>
#include <map>

namespace migraphx {
namespace onnx {

namespace {

const std::map<std::string, std::string>& unary_ops()
{
    static const std::map<std::string, std::string> m = {
        {"Abs", "abs"},       {"Acos", "acos"},       {"Acosh", "acosh"},   {"Asin", "asin"},
        {"Asinh", "asinh"},   {"Atan", "atan"},       {"Atanh", "atanh"},   {"Ceil", "ceil"},
        {"Cos", "cos"},       {"Cosh", "cosh"},       {"Erf", "erf"},       {"Exp", "exp"},
        {"Floor", "floor"},   {"IsNaN", "isnan"},     {"Log", "log"},       {"Neg", "neg"},
        {"Not", "not"},       {"Reciprocal", "recip"}, {"Relu", "relu"},    {"Round", "round"},
        {"Sigmoid", "sigmoid"}, {"Sign", "sign"},     {"Sin", "sin"},       {"Sinh", "sinh"},
        {"Sqrt", "sqrt"},     {"Tan", "tan"},         {"Tanh", "tanh"},     {"Softplus", "softplus"},
        {"Softsign", "softsign"}, {"HardSwish", "hardswish"}};
    return m;
}

const std::map<std::string, std::string>& binary_ops()
{
    static const std::map<std::string, std::string> m = {
        {"Add", "add"},          {"Sub", "sub"},      {"Mul", "mul"},         {"Div", "div"},
        {"And", "logical_and"},  {"Or", "logical_or"}, {"Xor", "logical_xor"}, {"Equal", "equal"},
        {"Greater", "greater"},  {"Less", "less"},    {"BitwiseAnd", "bitwise_and"}};
    return m;
}

std::vector<instruction_ref> parse_unary(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() != 1)
        info.fail("expects 1 input, got " + std::to_string(args.size()));
    return {info.add(unary_ops().at(info.op_type), {args[0]})};
}
MIGRAPHX_ONNX_PARSER(parse_unary, "Abs", "Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh", "Ceil", "Cos", "Cosh",
                     "Erf", "Exp", "Floor", "IsNaN", "Log", "Neg", "Not", "Reciprocal", "Relu", "Round", "Sigmoid",
                     "Sign", "Sin", "Sinh", "Sqrt", "Tan", "Tanh", "Softplus", "Softsign", "HardSwish")

std::vector<instruction_ref> parse_identity(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.empty())
        info.fail("expects 1 input");
    return {args[0]};
}
MIGRAPHX_ONNX_PARSER(parse_identity, "Identity")

/// Opset < 7 broadcasting: with broadcast=1, b's dims line up with a's starting at axis.
instruction_ref legacy_broadcast(const node_info& info, instruction_ref a, instruction_ref b)
{
    if(info.opset >= 7 or info.get_int("broadcast", 0) == 0 or not info.has("axis"))
        return b;
    auto ra   = rank_of(a);
    auto axis = normalize_onnx_axis(info.get_int("axis", 0), ra, info);
    std::vector<std::size_t> lens(ra, 1);
    const auto& bl = lens_of(b);
    if(axis + bl.size() > ra)
        info.fail("legacy broadcast: B does not fit A at axis " + std::to_string(axis));
    std::copy(bl.begin(), bl.end(), lens.begin() + axis);
    return reshape_to(info, b, lens);
}

std::vector<instruction_ref> parse_binary(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() != 2)
        info.fail("expects 2 inputs, got " + std::to_string(args.size()));
    auto b = legacy_broadcast(info, args[0], args[1]);
    return {info.add_broadcastable_binary_op(binary_ops().at(info.op_type), args[0], b)};
}
MIGRAPHX_ONNX_PARSER(parse_binary, "Add", "Sub", "Mul", "Div", "And", "Or", "Xor", "Equal", "Greater", "Less",
                     "BitwiseAnd")

std::vector<instruction_ref> parse_compare_or_equal(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() != 2)
        info.fail("expects 2 inputs");
    // a >= b is not (a < b); a <= b is not (a > b).
    auto op = info.op_type == "GreaterOrEqual" ? "less" : "greater";
    return {info.add("not", {info.add_broadcastable_binary_op(op, args[0], args[1])})};
}
MIGRAPHX_ONNX_PARSER(parse_compare_or_equal, "GreaterOrEqual", "LessOrEqual")

std::vector<instruction_ref> parse_mod(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() != 2)
        info.fail("expects 2 inputs");
    auto fmod = info.get_int("fmod", 0) != 0;
    if(not fmod and shape::is_floating(type_of(args[0])))
        info.fail("fmod=0 is only defined for integer inputs");
    return {info.add_broadcastable_binary_op(fmod ? "fmod" : "mod", args[0], args[1])};
}
MIGRAPHX_ONNX_PARSER(parse_mod, "Mod")

std::vector<instruction_ref> parse_pow(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() != 2)
        info.fail("expects 2 inputs");
    auto t = type_of(args[0]);
    auto e = legacy_broadcast(info, args[0], args[1]);
    if(type_of(e) == t)
        return {info.add_broadcastable_binary_op("pow", args[0], e)};
    // Mixed types: compute in double, give the base's type.
    auto r = info.add_broadcastable_binary_op(
        "pow", info.convert(args[0], shape::double_type), info.convert(e, shape::double_type));
    return {info.convert(r, t)};
}
MIGRAPHX_ONNX_PARSER(parse_pow, "Pow")

std::vector<instruction_ref> parse_prelu(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() != 2)
        info.fail("expects 2 inputs");
    auto slope = args[1];
    // Old exporters give a per-channel slope of shape {C} for an {N, C, ...} input.
    if(rank_of(slope) == 1 and rank_of(args[0]) > 2 and lens_of(slope)[0] == lens_of(args[0])[1] and
       lens_of(slope)[0] != lens_of(args[0]).back())
    {
        std::vector<std::size_t> l(rank_of(args[0]) - 1, 1);
        l[0]  = lens_of(slope)[0];
        slope = reshape_to(info, slope, l);
    }
    return {info.add_broadcastable_binary_op("prelu", args[0], slope)};
}
MIGRAPHX_ONNX_PARSER(parse_prelu, "PRelu")

std::vector<instruction_ref> parse_variadic(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.empty())
        info.fail("expects at least 1 input");
    static const std::map<std::string, std::string> ops = {
        {"Max", "max"}, {"Min", "min"}, {"Sum", "add"}, {"Mean", "add"}};
    auto r = args[0];
    for(std::size_t i = 1; i < args.size(); i++)
        r = info.add_broadcastable_binary_op(ops.at(info.op_type), r, args[i]);
    if(info.op_type == "Mean" and args.size() > 1)
        r = info.add_broadcastable_binary_op(
            "div", r, info.add_scalar(static_cast<double>(args.size()), type_of(r)));
    return {r};
}
MIGRAPHX_ONNX_PARSER(parse_variadic, "Max", "Min", "Sum", "Mean")

std::vector<instruction_ref> parse_where(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() != 3)
        info.fail("expects 3 inputs");
    return {info.add_common_op("where", args)};
}
MIGRAPHX_ONNX_PARSER(parse_where, "Where")

std::vector<instruction_ref> parse_clip(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.empty())
        info.fail("expects an input");
    auto x = args[0];
    auto t = type_of(x);
    double lo = 0, hi = 0;
    shape::visit(t, [&](auto as) {
        using T = typename decltype(as)::type;
        lo      = static_cast<double>(std::numeric_limits<T>::lowest());
        hi      = static_cast<double>(std::numeric_limits<T>::max());
        if constexpr(std::is_floating_point<T>{})
        {
            lo = -std::numeric_limits<double>::infinity();
            hi = std::numeric_limits<double>::infinity();
        }
    });
    instruction_ref mn, mx;
    if(info.opset < 11)
    {
        mn = info.add_scalar(info.get_float("min", -std::numeric_limits<float>::infinity()), t);
        mx = info.add_scalar(info.get_float("max", std::numeric_limits<float>::infinity()), t);
    }
    else
    {
        mn = args.size() > 1 and not info.is_undefined(args[1]) ? args[1] : info.add_scalar(lo, t);
        mx = args.size() > 2 and not info.is_undefined(args[2]) ? args[2] : info.add_scalar(hi, t);
    }
    return {info.add_common_op("clip", {x, mn, mx})};
}
MIGRAPHX_ONNX_PARSER(parse_clip, "Clip")

std::vector<instruction_ref> parse_cast(const node_info& info, std::vector<instruction_ref> args)
{
    if(info.op_type == "CastLike")
    {
        if(args.size() != 2)
            info.fail("expects 2 inputs");
        return {info.convert(args[0], type_of(args[1]))};
    }
    if(args.size() != 1)
        info.fail("expects 1 input");
    if(not info.has("to"))
        info.fail("missing attribute 'to'");
    auto to = get_onnx_type(static_cast<int>(info.get_int("to", 0)));
    if(to == shape::fp8e4m3fn_type and info.get_int("saturate", 1) == 0)
        info.fail("saturate=0 (out-of-range values to NaN) is not supported; migx casts to FLOAT8E4M3FN "
                  "saturating at +-448");
    return {info.convert(args[0], to)};
}
MIGRAPHX_ONNX_PARSER(parse_cast, "Cast", "CastLike")

std::vector<instruction_ref> parse_isinf(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() != 1)
        info.fail("expects 1 input");
    auto x   = args[0];
    auto pos = info.get_int("detect_positive", 1) != 0;
    auto neg = info.get_int("detect_negative", 1) != 0;
    auto inf = info.add("isinf", {x});
    if(pos and neg)
        return {inf};
    if(not pos and not neg)
        return {info.broadcast_to(info.add_scalar(0, shape::bool_type), lens_of(x))};
    auto zero = info.add_scalar(0, type_of(x));
    auto side = info.add_broadcastable_binary_op(pos ? "greater" : "less", x, zero);
    return {info.add("logical_and", {inf, side})};
}
MIGRAPHX_ONNX_PARSER(parse_isinf, "IsInf")

std::vector<instruction_ref> parse_bitshift(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() != 2)
        info.fail("expects 2 inputs");
    auto dir = info.get_string("direction", "");
    if(dir != "LEFT" and dir != "RIGHT")
        info.fail("direction must be LEFT or RIGHT, got '" + dir + "'");
    auto t = type_of(args[0]);
    // x << s is x * 2^s and x >> s is x / 2^s in unsigned arithmetic (2^s wraps to 0 past the width,
    // and the division by 0 then gives 0, which is the shifted-out value).
    auto two = info.add_scalar(2, t);
    auto p   = info.add_broadcastable_binary_op("pow", two, args[1]);
    return {info.add_broadcastable_binary_op(dir == "LEFT" ? "mul" : "div", args[0], p)};
}
MIGRAPHX_ONNX_PARSER(parse_bitshift, "BitShift")

std::vector<instruction_ref> parse_shrink(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() != 1)
        info.fail("expects 1 input");
    auto x     = args[0];
    auto t     = type_of(x);
    auto lambd = info.get_float("lambd", 0.5f);
    auto bias  = info.get_float("bias", 0.0f);
    // Compare in double so that an integer input is tested against the exact threshold.
    auto xd    = info.convert(x, shape::double_type);
    auto lo    = info.add_broadcastable_binary_op("less", xd, info.add_scalar(-lambd, shape::double_type));
    auto hi    = info.add_broadcastable_binary_op("greater", xd, info.add_scalar(lambd, shape::double_type));
    auto plus  = info.add_broadcastable_binary_op("add", x, info.add_scalar(bias, t));
    auto minus = info.add_broadcastable_binary_op("sub", x, info.add_scalar(bias, t));
    auto zero  = info.broadcast_to(info.add_scalar(0, t), lens_of(x));
    auto inner = info.add("where", {hi, minus, zero});
    return {info.add("where", {lo, plus, inner})};
}
MIGRAPHX_ONNX_PARSER(parse_shrink, "Shrink")

} // namespace
} // namespace onnx
} // namespace migraphx
