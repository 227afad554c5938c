// Gemm, MatMul (numpy batching and 1-D operands), MatMulInteger, QLinearMatMul.

#include "onnx/onnx_utils.hpp"
#include "ops/broadcast_lens.hpp"

namespace migraphx {
namespace onnx {

/// a @ b with numpy matmul semantics, built from dot (shared with Einsum and the RNNs).
instruction_ref add_matmul(const node_info& info, instruction_ref a, instruction_ref b)
{
    bool a1 = rank_of(a) == 1;
    bool b1 = rank_of(b) == 1;
    if(rank_of(a) == 0 or rank_of(b) == 0)
        info.fail("matmul operands must have rank >= 1");
    if(a1)
        a = info.add("unsqueeze", {{"axes", std::vector<std::int64_t>{0}}}, {a});
    if(b1)
        b = info.add("unsqueeze", {{"axes", std::vector<std::int64_t>{1}}}, {b});
    const auto& al = lens_of(a);
    const auto& bl = lens_of(b);
    if(al.back() != bl[bl.size() - 2])
        info.fail("inner dims differ: " + lens_string(al) + " @ " + lens_string(bl));
    std::vector<std::size_t> abatch(al.begin(), al.end() - 2), bbatch(bl.begin(), bl.end() - 2);
    auto batch = compute_broadcasted_lens(abatch, bbatch);
    auto la    = batch;
    la.insert(la.end(), al.end() - 2, al.end());
    auto lb = batch;
    lb.insert(lb.end(), bl.end() - 2, bl.end());
    auto r = info.add("dot", {info.broadcast_to(a, la), info.broadcast_to(b, lb)});
    std::vector<std::int64_t> sq;
    auto rank = static_cast<std::int64_t>(rank_of(r));
    if(a1)
        sq.push_back(rank - 2);
    if(b1)
        sq.push_back(rank - 1);
    if(not sq.empty())
        r = info.add("squeeze", {{"axes", sq}}, {r});
    return r;
}

namespace {

std::vector<instruction_ref> parse_matmul(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() != 2)
        info.fail("expects 2 inputs");
    return {add_matmul(info, args[0], args[1])};
}
MIGRAPHX_ONNX_PARSER(parse_matmul, "MatMul")

std::vector<instruction_ref> parse_gemm(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() < 2)
        info.fail("expects at least 2 inputs (A, B)");
    auto a = args[0];
    auto b = args[1];
    if(rank_of(a) != 2 or rank_of(b) != 2)
        info.fail("A and B must be 2-D");
    auto t     = type_of(a);
    auto alpha = info.get_float("alpha", 1.0f);
    auto beta  = info.get_float("beta", 1.0f);
    if(info.get_int("transA", 0) != 0)
        a = info.add("transpose", {{"permutation", std::vector<std::int64_t>{1, 0}}}, {a});
    if(info.get_int("transB", 0) != 0)
        b = info.add("transpose", {{"permutation", std::vector<std::int64_t>{1, 0}}}, {b});
    if(alpha != 1.0f)
        a = info.add_broadcastable_binary_op("mul", a, info.add_scalar(alpha, t));
    if(lens_of(a)[1] != lens_of(b)[0])
        info.fail("inner dims differ: " + lens_string(lens_of(a)) + " x " + lens_string(lens_of(b)));
    auto r = info.add("dot", {a, b});
    if(args.size() > 2 and not info.is_undefined(args[2]) and beta != 0.0f)
    {
        auto c = args[2];
        if(beta != 1.0f)
            c = info.add_broadcastable_binary_op("mul", c, info.add_scalar(beta, type_of(c)));
        r = info.add("add", {r, info.broadcast_to(c, lens_of(r))});
    }
    return {r};
}
MIGRAPHX_ONNX_PARSER(parse_gemm, "Gemm")

/// x - zero_point in int32; a 1-D zero point of A applies per row (axis -2).
instruction_ref minus_zero_point(const node_info& info, instruction_ref x, instruction_ref zp, bool rows)
{
    x = info.convert(x, shape::int32_type);
    if(info.is_undefined(zp))
        return x;
    zp = info.convert(zp, shape::int32_type);
    if(rows and rank_of(zp) == 1 and zp->get_shape().elements() > 1)
        zp = info.add("unsqueeze", {{"axes", std::vector<std::int64_t>{1}}}, {zp});
    return info.add_broadcastable_binary_op("sub", x, zp);
}

std::vector<instruction_ref> parse_matmul_integer(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() < 2)
        info.fail("expects at least 2 inputs (A, B)");
    auto none = info.parser->undefined(info.mod);
    auto a    = minus_zero_point(info, args[0], args.size() > 2 ? args[2] : none, true);
    auto b    = minus_zero_point(info, args[1], args.size() > 3 ? args[3] : none, false);
    return {add_matmul(info, a, b)};
}
MIGRAPHX_ONNX_PARSER(parse_matmul_integer, "MatMulInteger")

std::vector<instruction_ref> parse_qlinear_matmul(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() != 8)
        info.fail("expects 8 inputs");
    auto a  = minus_zero_point(info, args[0], args[2], true);
    auto b  = minus_zero_point(info, args[3], args[5], false);
    auto ab = info.convert(add_matmul(info, a, b), shape::float_type);
    // y = saturate(round(ab * a_scale * b_scale / y_scale) + y_zero_point)
    auto scale = info.add_broadcastable_binary_op(
        "div",
        info.add_broadcastable_binary_op("mul", info.convert(args[1], shape::float_type),
                                         info.convert(args[4], shape::float_type)),
        info.convert(args[6], shape::float_type));
    auto y   = info.add("round", {info.add_broadcastable_binary_op("mul", ab, scale)});
    y        = info.add_broadcastable_binary_op("add", y, info.convert(args[7], shape::float_type));
    auto yt  = type_of(args[7]);
    double lo = yt == shape::uint8_type ? 0 : -128;
    double hi = yt == shape::uint8_type ? 255 : 127;
    y = info.add_common_op("clip", {y, info.add_scalar(lo, shape::float_type), info.add_scalar(hi, shape::float_type)});
    return {info.convert(y, yt)};
}
MIGRAPHX_ONNX_PARSER(parse_qlinear_matmul, "QLinearMatMul")

} // namespace
} // namespace onnx
} // namespace migraphx
