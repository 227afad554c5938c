// GridSample (opset 16, 4-D): the grid's sampling positions are run-time values, so each tap is a
// gather from the flattened input at indices computed by pointwise ops, weighted and masked
// (zeros padding) as torch.nn.functional.grid_sample does.

#include "onnx/onnx_utils.hpp"

namespace migraphx {
namespace onnx {

namespace {

struct sampler
{
    const node_info& info;
    shape::type_t t;
    bool align_corners;
    std::string padding;

    instruction_ref sc(double v) const { return info.add_scalar(v, t); }
    instruction_ref bin(const std::string& op, instruction_ref a, instruction_ref b) const
    {
        return info.add_broadcastable_binary_op(op, a, b);
    }

    /// Grid value in [-1, 1] -> pixel coordinate along a dim of length n.
    instruction_ref unnormalize(instruction_ref g, std::size_t n) const
    {
        auto len = static_cast<double>(n);
        if(align_corners) // (g + 1) / 2 * (n - 1)
            return bin("mul", bin("add", g, sc(1)), sc((len - 1) / 2));
        return bin("mul", bin("sub", bin("mul", bin("add", g, sc(1)), sc(len)), sc(1)), sc(0.5));
    }

    /// Mirrors x into [low/2, high/2] (torch's reflect_coordinates with twice_low, twice_high).
    instruction_ref reflect(instruction_ref x, double twice_low, double twice_high) const
    {
        if(twice_low == twice_high)
            return info.broadcast_to(sc(0), lens_of(x));
        double mn   = twice_low / 2;
        double span = (twice_high - twice_low) / 2;
        auto in     = info.add("abs", {bin("sub", x, sc(mn))});
        auto extra  = bin("fmod", in, sc(span));
        auto flips  = info.add("floor", {bin("div", in, sc(span))});
        auto even   = bin("equal", bin("fmod", flips, sc(2)), sc(0));
        auto a      = bin("add", extra, sc(mn));
        auto b      = bin("add", bin("sub", sc(span), extra), sc(mn));
        return info.add("where", {even, a, b});
    }

    /// Applies border / reflection padding to a coordinate along a dim of length n.
    instruction_ref pad_coord(instruction_ref x, std::size_t n) const
    {
        auto len = static_cast<double>(n);
        if(padding == "reflection")
            x = align_corners ? reflect(x, 0, 2 * (len - 1)) : reflect(x, -1, 2 * len - 1);
        if(padding == "border" or padding == "reflection")
            x = info.add_common_op("clip", {x, sc(0), sc(len - 1)});
        return x;
    }
};

std::vector<instruction_ref> parse_grid_sample(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() != 2 or rank_of(args[0]) != 4 or rank_of(args[1]) != 4 or lens_of(args[1])[3] != 2)
        info.fail("expects X {N, C, H, W} and grid {N, H_out, W_out, 2}");
    auto x    = args[0];
    auto grid = args[1];
    auto t    = type_of(x);
    const auto& xl = lens_of(x);
    std::size_t n = xl[0], c = xl[1], h = xl[2], w = xl[3];
    auto ho   = lens_of(grid)[1];
    auto wo   = lens_of(grid)[2];
    auto mode = info.get_string("mode", "bilinear");
    sampler s{info, t, info.get_int("align_corners", 0) != 0, info.get_string("padding_mode", "zeros")};
    if(mode != "bilinear" and mode != "nearest" and mode != "bicubic")
        info.fail("unknown mode '" + mode + "'");
    // grid {N, Ho, Wo, 2} -> x and y coordinates as {N, 1, Ho, Wo}
    auto coord = [&](std::int64_t i, std::size_t len) {
        auto g = info.add("slice",
                          {{"axes", std::vector<std::int64_t>{3}},
                           {"starts", std::vector<std::int64_t>{i}},
                           {"ends", std::vector<std::int64_t>{i + 1}}},
                          {info.convert(grid, t)});
        g = reshape_to(info, g, {n, 1, ho, wo});
        return s.unnormalize(g, len);
    };
    auto gx = coord(0, w);
    auto gy = coord(1, h);
    // base offset of (n, c) in the flattened input, {N, C, 1, 1}
    info.check_size(n * c, "N * C");
    std::vector<std::int64_t> base(n * c);
    for(std::size_t i = 0; i < n * c; i++)
        base[i] = static_cast<std::int64_t>(i * h * w);
    auto base_lit = info.add_literal(literal{shape{shape::int64_type, {n, c, 1, 1}}, base});
    auto flat     = reshape_to(info, x, {n * c * h * w});
    std::vector<std::size_t> out{n, c, ho, wo};
    // The input value at integer positions (xi, yi), 0 outside the input.
    auto tap = [&](instruction_ref xi, instruction_ref yi) {
        auto inside = info.add("logical_and",
                               {info.add("logical_and", {s.bin("greater", xi, s.sc(-1)), s.bin("less", xi, s.sc(static_cast<double>(w)))}),
                                info.add("logical_and", {s.bin("greater", yi, s.sc(-1)), s.bin("less", yi, s.sc(static_cast<double>(h)))})});
        auto cx  = info.convert(info.add_common_op("clip", {xi, s.sc(0), s.sc(static_cast<double>(w - 1))}), shape::int64_type);
        auto cy  = info.convert(info.add_common_op("clip", {yi, s.sc(0), s.sc(static_cast<double>(h - 1))}), shape::int64_type);
        auto pos = s.bin("add", s.bin("mul", cy, info.add_scalar(static_cast<double>(w), shape::int64_type)), cx);
        auto idx = s.bin("add", pos, base_lit);
        auto v   = info.add("gather", {{"axis", 0}}, {flat, idx});
        return info.add("where", {info.broadcast_to(inside, out), v, info.broadcast_to(s.sc(0), out)});
    };
    if(mode == "nearest")
    {
        auto xi = info.add("round", {s.pad_coord(gx, w)});
        auto yi = info.add("round", {s.pad_coord(gy, h)});
        return {tap(xi, yi)};
    }
    if(mode == "bilinear")
    {
        auto px = s.pad_coord(gx, w);
        auto py = s.pad_coord(gy, h);
        auto x0 = info.add("floor", {px});
        auto y0 = info.add("floor", {py});
        auto x1 = s.bin("add", x0, s.sc(1));
        auto y1 = s.bin("add", y0, s.sc(1));
        auto fx = s.bin("sub", px, x0);
        auto fy = s.bin("sub", py, y0);
        auto gx0 = s.bin("sub", s.sc(1), fx);
        auto gy0 = s.bin("sub", s.sc(1), fy);
        auto term = [&](instruction_ref xi, instruction_ref yi, instruction_ref wx, instruction_ref wy) {
            return s.bin("mul", tap(xi, yi), info.add("mul", {wx, wy}));
        };
        auto r = info.add("add", {term(x0, y0, gx0, gy0), term(x1, y0, fx, gy0)});
        r      = info.add("add", {r, term(x0, y1, gx0, fy)});
        return {info.add("add", {r, term(x1, y1, fx, fy)})};
    }
    // bicubic: 4x4 taps around floor(x), each tap coordinate padded on its own (as torch)
    const double a = -0.75;
    auto x0 = info.add("floor", {gx});
    auto y0 = info.add("floor", {gy});
    auto fx = s.bin("sub", gx, x0);
    auto fy = s.bin("sub", gy, y0);
    auto coeffs = [&](instruction_ref f) {
        // w(d) for d = 1 + f, f, 1 - f, 2 - f
        auto near = [&](instruction_ref d) { // ((a + 2) d - (a + 3)) d^2 + 1
            auto d2 = info.add("mul", {d, d});
            return s.bin("add", info.add("mul", {s.bin("sub", s.bin("mul", d, s.sc(a + 2)), s.sc(a + 3)), d2}), s.sc(1));
        };
        auto far = [&](instruction_ref d) { // ((a d - 5a) d + 8a) d - 4a
            auto p = s.bin("sub", s.bin("mul", d, s.sc(a)), s.sc(5 * a));
            p      = s.bin("add", info.add("mul", {p, d}), s.sc(8 * a));
            return s.bin("sub", info.add("mul", {p, d}), s.sc(4 * a));
        };
        auto one_minus = s.bin("sub", s.sc(1), f);
        return std::vector<instruction_ref>{far(s.bin("add", f, s.sc(1))), near(f), near(one_minus),
                                            far(s.bin("add", one_minus, s.sc(1)))};
    };
    auto cx = coeffs(fx);
    auto cy = coeffs(fy);
    std::optional<instruction_ref> r;
    for(int j = 0; j < 4; j++)
    {
        auto yi = s.pad_coord(s.bin("add", y0, s.sc(j - 1)), h);
        for(int i = 0; i < 4; i++)
        {
            auto xi   = s.pad_coord(s.bin("add", x0, s.sc(i - 1)), w);
            auto term = s.bin("mul", tap(xi, yi), info.add("mul", {cx[i], cy[j]}));
            r         = r ? info.add("add", {*r, term}) : term;
        }
    }
    return {*r};
}
MIGRAPHX_ONNX_PARSER(parse_grid_sample, "GridSample")

} // namespace
} // namespace onnx
} // namespace migraphx
