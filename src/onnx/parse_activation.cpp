// Activations with attributes, Softmax/LogSoftmax/Hardmax, Dropout, and the old experimental
// activations (ScaledTanh, ParametricSoftplus, ImageScaler) plus Gelu and Mish.

#include "onnx/onnx_utils.hpp"
#include <cmath>

namespace migraphx {
namespace onnx {

namespace {

std::vector<instruction_ref> parse_alpha_activation(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() != 1)
        info.fail("expects 1 input");
    const auto& t = info.op_type;
    if(t == "LeakyRelu")
        return {info.add("leaky_relu", {{"alpha", info.get_float("alpha", 0.01f)}}, args)};
    if(t == "Elu")
        return {info.add("elu", {{"alpha", info.get_float("alpha", 1.0f)}}, args)};
    if(t == "Celu")
        return {info.add("celu", {{"alpha", info.get_float("alpha", 1.0f)}}, args)};
    if(t == "ThresholdedRelu")
        return {info.add("thresholdedrelu", {{"alpha", info.get_float("alpha", 1.0f)}}, args)};
    if(t == "HardSigmoid")
        return {info.add("hardsigmoid",
                         {{"alpha", info.get_float("alpha", 0.2f)}, {"beta", info.get_float("beta", 0.5f)}},
                         args)};
    // Selu
    return {info.add("selu",
                     {{"alpha", info.get_float("alpha", 1.67326319217681884765625f)},
                      {"gamma", info.get_float("gamma", 1.05070102214813232421875f)}},
                     args)};
}
MIGRAPHX_ONNX_PARSER(parse_alpha_activation, "LeakyRelu", "Elu", "Celu", "ThresholdedRelu", "HardSigmoid", "Selu")

/// Before opset 13 the Softmax family worked on the input flattened to 2-D at axis.
std::vector<instruction_ref> parse_softmax(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() != 1)
        info.fail("expects 1 input");
    auto x    = args[0];
    auto rank = rank_of(x);
    if(rank == 0)
        info.fail("input must have rank >= 1");
    auto axis = normalize_onnx_axis(info.get_int("axis", info.opset < 13 ? 1 : -1), rank, info);
    const auto& lens = lens_of(x);
    bool flat2d      = info.opset < 13 and static_cast<std::size_t>(axis) != rank - 1;
    auto in          = flat2d ? reshape_to(info, x, {product(lens, 0, axis), product(lens, axis)}) : x;
    auto a           = flat2d ? 1 : axis;
    instruction_ref r;
    if(info.op_type == "Hardmax")
    {
        auto am  = info.add("argmax", {{"axis", a}}, {in});
        auto ids = iota_along(info, lens_of(in), a);
        auto eq  = info.add_broadcastable_binary_op("equal", info.convert(am, shape::int64_type), ids);
        r        = info.convert(eq, type_of(x));
    }
    else
        r = info.add(info.op_type == "Softmax" ? "softmax" : "logsoftmax", {{"axis", a}}, {in});
    return {flat2d ? reshape_to(info, r, lens) : r};
}
MIGRAPHX_ONNX_PARSER(parse_softmax, "Softmax", "LogSoftmax", "Hardmax")

std::vector<instruction_ref> parse_dropout(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.empty())
        info.fail("expects an input");
    if(args.size() > 2 and not info.is_undefined(args[2]) and
       info.require_constant(args[2], "training_mode").at<bool>())
    {
        // Training-mode dropout is random unless its ratio is 0.
        double ratio = 0.5;
        if(args.size() > 1 and not info.is_undefined(args[1]))
            ratio = info.require_constant(args[1], "ratio").at<double>();
        if(ratio != 0)
            info.fail("training_mode=true with a nonzero ratio (random dropout) is not supported");
    }
    std::vector<instruction_ref> r{args[0]};
    if(info.used_outputs > 1)
        r.push_back(info.broadcast_to(info.add_scalar(1, shape::bool_type), lens_of(args[0])));
    return r;
}
MIGRAPHX_ONNX_PARSER(parse_dropout, "Dropout")

std::vector<instruction_ref> parse_scaled(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() != 1)
        info.fail("expects 1 input");
    auto x     = args[0];
    auto t     = type_of(x);
    auto alpha = info.add_scalar(info.get_float("alpha", 1.0f), t);
    auto beta  = info.add_scalar(info.get_float("beta", 1.0f), t);
    auto bx    = info.add_broadcastable_binary_op("mul", x, beta);
    auto f     = info.add(info.op_type == "ScaledTanh" ? "tanh" : "softplus", {bx});
    return {info.add_broadcastable_binary_op("mul", f, alpha)};
}
MIGRAPHX_ONNX_PARSER(parse_scaled, "ScaledTanh", "ParametricSoftplus")

std::vector<instruction_ref> parse_image_scaler(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() != 1 or rank_of(args[0]) != 4)
        info.fail("expects 1 input of rank 4");
    auto x     = args[0];
    auto t     = type_of(x);
    auto bias  = info.get_floats("bias");
    auto c     = lens_of(x)[1];
    if(bias.size() != c)
        info.fail("bias has " + std::to_string(bias.size()) + " values for " + std::to_string(c) + " channels");
    auto scaled = info.add_broadcastable_binary_op("mul", x, info.add_scalar(info.get_float("scale", 1.0f), t));
    auto b      = info.add_literal(make_literal(t, {c, 1, 1}, bias));
    return {info.add_broadcastable_binary_op("add", scaled, b)};
}
MIGRAPHX_ONNX_PARSER(parse_image_scaler, "ImageScaler")

std::vector<instruction_ref> parse_gelu(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() != 1)
        info.fail("expects 1 input");
    auto x    = args[0];
    auto t    = type_of(x);
    auto half_x = info.add_broadcastable_binary_op("mul", x, info.add_scalar(0.5, t));
    instruction_ref inner;
    if(info.get_string("approximate", "none") == "tanh")
    {
        // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
        auto x3 = info.add("mul", {x, info.add("mul", {x, x})});
        auto s  = info.add_broadcastable_binary_op(
            "add", x, info.add_broadcastable_binary_op("mul", x3, info.add_scalar(0.044715, t)));
        inner = info.add("tanh", {info.add_broadcastable_binary_op(
                                     "mul", s, info.add_scalar(std::sqrt(2.0 / M_PI), t))});
    }
    else
        inner = info.add("erf", {info.add_broadcastable_binary_op("mul", x, info.add_scalar(M_SQRT1_2, t))});
    auto one = info.add_broadcastable_binary_op("add", inner, info.add_scalar(1, t));
    return {info.add("mul", {half_x, one})};
}
MIGRAPHX_ONNX_PARSER(parse_gelu, "Gelu")

std::vector<instruction_ref> parse_mish(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() != 1)
        info.fail("expects 1 input");
    return {info.add("mul", {args[0], info.add("tanh", {info.add("softplus", {args[0]})})})};
}
MIGRAPHX_ONNX_PARSER(parse_mish, "Mish")

} // namespace
} // namespace onnx
} // namespace migraphx
