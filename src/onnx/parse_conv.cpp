// Conv, ConvInteger, QLinearConv, ConvTranspose.

#include "onnx/onnx_utils.hpp"
#include "onnx/onnx_padding.hpp"

namespace migraphx {
namespace onnx {

namespace {

instruction_ref add_bias(const node_info& info, instruction_ref y, const std::vector<instruction_ref>& args)
{
    if(args.size() < 3 or info.is_undefined(args[2]))
        return y;
    auto b = info.add("broadcast", {{"axis", 1}, {"out_lens", lens_of(y)}}, {args[2]});
    return info.add("add", {y, b});
}

/// The convolution of x and w with the node's window attributes.
instruction_ref conv(const node_info& info, instruction_ref x, instruction_ref w)
{
    if(rank_of(x) < 3 or rank_of(w) != rank_of(x))
        info.fail("X and W must have the same rank >= 3");
    auto kd = rank_of(x) - 2;
    std::vector<std::size_t> in(lens_of(x).begin() + 2, lens_of(x).end());
    std::vector<std::size_t> k(lens_of(w).begin() + 2, lens_of(w).end());
    auto strides   = size_attr(info, "strides", kd, 1);
    auto dilations = size_attr(info, "dilations", kd, 1);
    auto pads      = pads_attr(info, in, k, strides, dilations, false);
    return info.add("convolution",
                    {{"padding", pads}, {"stride", strides}, {"dilation", dilations}, {"group", info.get_int("group", 1)}},
                    {x, w});
}

/// Integer convolution with zero points: subtracted in int32, convolved in int32.
instruction_ref int_conv(const node_info& info,
                         instruction_ref x,
                         instruction_ref w,
                         std::optional<instruction_ref> xzp,
                         std::optional<instruction_ref> wzp)
{
    x = info.convert(x, shape::int32_type);
    w = info.convert(w, shape::int32_type);
    if(xzp)
        x = info.add_broadcastable_binary_op("sub", x, info.convert(reshape_to(info, *xzp, {}), shape::int32_type));
    if(wzp)
    {
        auto zp = info.convert(*wzp, shape::int32_type);
        if(zp->get_shape().elements() > 1) // one per output channel
            zp = info.add("broadcast", {{"axis", 0}, {"out_lens", lens_of(w)}},
                          {reshape_to(info, zp, {zp->get_shape().elements()})});
        else
            zp = reshape_to(info, zp, {});
        w = info.add_broadcastable_binary_op("sub", w, zp);
    }
    return conv(info, x, w);
}

std::optional<instruction_ref> opt_arg(const node_info& info, const std::vector<instruction_ref>& args, std::size_t i)
{
    if(args.size() <= i or info.is_undefined(args[i]))
        return std::nullopt;
    return args[i];
}

std::vector<instruction_ref> parse_conv(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() < 2)
        info.fail("expects at least 2 inputs (X, W)");
    if(info.op_type == "ConvInteger")
        return {int_conv(info, args[0], args[1], opt_arg(info, args, 2), opt_arg(info, args, 3))};
    return {add_bias(info, conv(info, args[0], args[1]), args)};
}
MIGRAPHX_ONNX_PARSER(parse_conv, "Conv", "ConvInteger")

std::vector<instruction_ref> parse_qlinear_conv(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() < 8)
        info.fail("expects at least 8 inputs");
    auto acc = int_conv(info, args[0], args[3], opt_arg(info, args, 2), opt_arg(info, args, 5));
    if(auto b = opt_arg(info, args, 8))
        acc = info.add("add", {acc, info.add("broadcast", {{"axis", 1}, {"out_lens", lens_of(acc)}},
                                             {info.convert(*b, shape::int32_type)})});
    // y = saturate(round(acc * x_scale * w_scale / y_scale) + y_zero_point)
    auto f      = shape::float_type;
    auto ws     = info.convert(args[4], f);
    if(ws->get_shape().elements() > 1)
        ws = info.add("broadcast", {{"axis", 1}, {"out_lens", lens_of(acc)}}, {reshape_to(info, ws, {ws->get_shape().elements()})});
    else
        ws = reshape_to(info, ws, {});
    auto scale = info.add_broadcastable_binary_op(
        "div", info.add_broadcastable_binary_op("mul", reshape_to(info, info.convert(args[1], f), {}), ws),
        reshape_to(info, info.convert(args[6], f), {}));
    auto y  = info.add("round", {info.add_broadcastable_binary_op("mul", info.convert(acc, f), scale)});
    y       = info.add_broadcastable_binary_op("add", y, reshape_to(info, info.convert(args[7], f), {}));
    auto yt = type_of(args[7]);
    double lo = yt == shape::uint8_type ? 0 : -128;
    double hi = yt == shape::uint8_type ? 255 : 127;
    y = info.add_common_op("clip", {y, info.add_scalar(lo, f), info.add_scalar(hi, f)});
    return {info.convert(y, yt)};
}
MIGRAPHX_ONNX_PARSER(parse_qlinear_conv, "QLinearConv")

std::vector<instruction_ref> parse_conv_transpose(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() < 2)
        info.fail("expects at least 2 inputs (X, W)");
    auto x = args[0];
    auto w = args[1];
    if(rank_of(x) < 3 or rank_of(w) != rank_of(x))
        info.fail("X and W must have the same rank >= 3");
    auto kd = rank_of(x) - 2;
    std::vector<std::size_t> in(lens_of(x).begin() + 2, lens_of(x).end());
    std::vector<std::size_t> k(lens_of(w).begin() + 2, lens_of(w).end());
    auto strides   = size_attr(info, "strides", kd, 1);
    auto dilations = size_attr(info, "dilations", kd, 1);
    auto out_pad   = size_attr(info, "output_padding", kd, 0);
    auto auto_pad  = info.get_string("auto_pad", "NOTSET");
    std::vector<std::int64_t> pb(kd, 0), pe(kd, 0), out(kd);
    std::vector<std::int64_t> full(kd);
    for(std::size_t i = 0; i < kd; i++)
        full[i] = static_cast<std::int64_t>((in[i] - 1) * strides[i] + (k[i] - 1) * dilations[i] + 1);
    auto output_shape = info.get_ints("output_shape");
    if(not output_shape.empty() or auto_pad == "SAME_UPPER" or auto_pad == "SAME_LOWER")
    {
        // Output size given (or in*stride for SAME): the total padding follows from it.
        if(not output_shape.empty() and output_shape.size() != kd)
            output_shape.erase(output_shape.begin(), output_shape.end() - kd);
        for(std::size_t i = 0; i < kd; i++)
        {
            auto o     = output_shape.empty() ? static_cast<std::int64_t>(in[i] * strides[i]) : output_shape[i];
            // A negative total (output_shape beyond the full result) pads zeros at the end.
            auto total = full[i] + static_cast<std::int64_t>(out_pad[i]) - o;
            auto half  = total >= 0 ? total / 2 : -((-total + 1) / 2); // floor division
            bool upper = auto_pad == "SAME_UPPER";
            pb[i]      = upper ? half : total - half;
            pe[i]      = total - pb[i];
        }
    }
    else if(auto_pad == "NOTSET")
    {
        auto p = info.get_ints("pads", std::vector<std::int64_t>(2 * kd, 0));
        if(p.size() != 2 * kd)
            info.fail("pads must have " + std::to_string(2 * kd) + " values");
        for(std::size_t i = 0; i < kd; i++)
        {
            pb[i] = p[i];
            pe[i] = p[i + kd];
        }
    }
    else if(auto_pad != "VALID")
        info.fail("unknown auto_pad '" + auto_pad + "'");
    // out[i] = full[pb + i], zero past the end of full: crop by pb and by what of pe output_padding
    // does not give back, then zero-pad the rest.
    std::vector<std::size_t> padding(2 * kd);
    std::vector<std::int64_t> tail(2 * rank_of(x), 0);
    bool need_tail = false;
    for(std::size_t i = 0; i < kd; i++)
    {
        if(pb[i] < 0)
            info.fail("negative begin pads are not supported");
        auto op         = static_cast<std::int64_t>(out_pad[i]);
        padding[i]      = static_cast<std::size_t>(pb[i]);
        padding[i + kd] = static_cast<std::size_t>(std::max<std::int64_t>(pe[i] - op, 0));
        auto extra      = std::max<std::int64_t>(op - pe[i], 0);
        tail[rank_of(x) + 2 + i] = extra;
        need_tail = need_tail or extra > 0;
    }
    auto y = info.add("convolution_backwards",
                      {{"padding", padding},
                       {"stride", strides},
                       {"dilation", dilations},
                       {"group", info.get_int("group", 1)}},
                      {x, w});
    if(need_tail)
        y = info.add("pad", {{"pads", tail}}, {y});
    return {add_bias(info, y, args)};
}
MIGRAPHX_ONNX_PARSER(parse_conv_transpose, "ConvTranspose")

} // namespace
} // namespace onnx
} // namespace migraphx
