// QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear.

#include "onnx/onnx_utils.hpp"

namespace migraphx {
namespace onnx {

namespace {

/// A scale or zero point laid out to x's lens: a scalar is broadcast, a 1-D one runs along axis.
instruction_ref quant_param(const node_info& info, instruction_ref p, instruction_ref x)
{
    const auto& xl = lens_of(x);
    if(p->get_shape().elements() == 1)
        return info.broadcast_to(reshape_to(info, p, {}), xl);
    if(rank_of(p) != 1)
        info.fail("scale and zero point must be scalars or 1-D");
    auto axis = normalize_onnx_axis(info.get_int("axis", 1), rank_of(x), info);
    if(lens_of(p)[0] != xl[axis])
        info.fail("a 1-D scale must have one value per element of axis " + std::to_string(axis));
    return info.add("broadcast", {{"axis", axis}, {"out_lens", xl}}, {p});
}

std::vector<instruction_ref> parse_quantize(const node_info& info, std::vector<instruction_ref> args)
{
    bool q    = info.op_type == "QuantizeLinear";
    auto name = q ? "quantizelinear" : "dequantizelinear";
    require_op(info, name);
    if(args.size() < 2)
        info.fail("expects at least 2 inputs (x, scale)");
    auto x = args[0];
    std::vector<instruction_ref> ins{x, quant_param(info, args[1], x)};
    if(args.size() > 2 and not info.is_undefined(args[2]))
        ins.push_back(quant_param(info, args[2], x));
    else if(q and info.get_int("output_dtype", 0) != 0) // opset 21: the result type without a zero point
        ins.push_back(info.broadcast_to(
            info.add_scalar(0, get_onnx_type(static_cast<int>(info.get_int("output_dtype", 0)))), lens_of(x)));
    if(q and ins.size() == 3 and ins[2]->get_shape().type() == shape::fp8e4m3fn_type and
       info.get_int("saturate", 1) == 0)
        info.fail("saturate=0 (out-of-range values to NaN) is not supported; migx quantizes to FLOAT8E4M3FN "
                  "saturating at +-448");
    return {info.add(name, ins)};
}
MIGRAPHX_ONNX_PARSER(parse_quantize, "QuantizeLinear", "DequantizeLinear")

std::vector<instruction_ref> parse_dynamic_quantize(const node_info& info, std::vector<instruction_ref> args)
{
    require_op(info, "quantizelinear");
    if(args.size() != 1)
        info.fail("expects 1 input");
    auto x = args[0];
    auto t = type_of(x);
    std::vector<std::int64_t> all;
    for(std::size_t i = 0; i < rank_of(x); i++)
        all.push_back(static_cast<std::int64_t>(i));
    auto scalar = [&](instruction_ref r) { return reshape_to(info, r, {}); };
    auto zero   = info.add_scalar(0, t);
    // The range always includes 0: scale = (max(0, max x) - min(0, min x)) / 255.
    auto lo    = info.add("min", {scalar(info.add("reduce_min", {{"axes", all}}, {x})), zero});
    auto hi    = info.add("max", {scalar(info.add("reduce_max", {{"axes", all}}, {x})), zero});
    auto scale = info.add("div", {info.add("sub", {hi, lo}), info.add_scalar(255, t)});
    // zero_point = saturate(round(0 - lo / scale)) as uint8
    auto zp = info.add("round", {info.add("sub", {zero, info.add("div", {lo, scale})})});
    zp      = info.add("clip", {zp, zero, info.add_scalar(255, t)});
    zp      = info.convert(zp, shape::uint8_type);
    auto y  = info.add("quantizelinear", {x, info.broadcast_to(scale, lens_of(x)), info.broadcast_to(zp, lens_of(x))});
    return {y, scale, zp};
}
MIGRAPHX_ONNX_PARSER(parse_dynamic_quantize, "DynamicQuantizeLinear")

} // namespace
} // namespace onnx
} // namespace migraphx
