// Resize and Upsample. With static shapes the sampling positions are known at parse time, so each
// resized axis becomes gathers at index literals weighted by coefficient literals (separable
// nearest / linear / cubic), following the ONNX reference implementation's conventions.

#include "onnx/onnx_utils.hpp"
#include <cmath>

namespace migraphx {
namespace onnx {

namespace {

struct resize_params
{
    std::string mode = "nearest";
    std::string coord = "half_pixel";
    std::string nearest = "round_prefer_floor";
    double cubic_a = -0.75;
    bool exclude_outside = false;
    double extrapolation = 0;
};

/// Taps (index, weight) of one output position along one axis; empty means "extrapolate".
std::vector<std::pair<std::int64_t, double>>
taps(const resize_params& p, std::size_t in, double scale, std::size_t x, double roi_start, double roi_end)
{
    double out = scale * static_cast<double>(in);
    double xf  = static_cast<double>(x);
    double len = static_cast<double>(in);
    double xo  = 0;
    const auto& c = p.coord;
    if(c == "align_corners")
        xo = out == 1 ? 0 : xf * (len - 1) / (out - 1);
    else if(c == "asymmetric")
        xo = xf / scale;
    else if(c == "pytorch_half_pixel")
        xo = out == 1 ? -0.5 : (xf + 0.5) / scale - 0.5;
    else if(c == "tf_half_pixel_for_nn")
        xo = (xf + 0.5) / scale;
    else if(c == "tf_crop_and_resize")
    {
        xo = out == 1 ? (roi_end - roi_start) * (len - 1) / 2 : xf * (roi_end - roi_start) * (len - 1) / (out - 1);
        xo += roi_start * (len - 1);
        if(xo < 0 or xo > len - 1)
            return {};
    }
    else // half_pixel
        xo = (xf + 0.5) / scale - 0.5;
    auto xi      = static_cast<std::int64_t>(std::floor(xo));
    double ratio = xo - static_cast<double>(xi);
    if(ratio == 0)
    {
        // The reference takes an integer position as the right neighbour with ratio 1.
        ratio = 1;
        xi -= 1;
    }
    std::vector<double> coeffs;
    std::int64_t first = xi;
    if(p.mode == "nearest")
    {
        bool right = true;
        if(ratio != 1)
        {
            const auto& m = p.nearest;
            if(m == "round_prefer_ceil")
                right = ratio >= 0.5;
            else if(m == "floor")
                right = false;
            else if(m == "ceil")
                right = true;
            else
                right = ratio > 0.5;
        }
        coeffs = {right ? 0.0 : 1.0, right ? 1.0 : 0.0};
    }
    else if(p.mode == "linear")
        coeffs = {1 - ratio, ratio};
    else
    {
        double a = p.cubic_a, r = ratio, s = 1 - ratio;
        coeffs   = {((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a,
                  ((a + 2) * r - (a + 3)) * r * r + 1,
                  ((a + 2) * s - (a + 3)) * s * s + 1,
                  ((a * (s + 1) - 5 * a) * (s + 1) + 8 * a) * (s + 1) - 4 * a};
        first    = xi - 1;
    }
    auto hi = static_cast<std::int64_t>(in) - 1;
    if(p.exclude_outside)
    {
        double sum = 0;
        for(std::size_t j = 0; j < coeffs.size(); j++)
        {
            auto idx = first + static_cast<std::int64_t>(j);
            if(idx < 0 or idx > hi)
                coeffs[j] = 0;
            sum += coeffs[j];
        }
        for(auto& cf : coeffs)
            cf = sum == 0 ? 0 : cf / sum;
    }
    std::vector<std::pair<std::int64_t, double>> r;
    for(std::size_t j = 0; j < coeffs.size(); j++)
        r.emplace_back(std::clamp<std::int64_t>(first + static_cast<std::int64_t>(j), 0, hi), coeffs[j]);
    return r;
}

instruction_ref resize_axis(const node_info& info,
                            instruction_ref x,
                            std::size_t axis,
                            std::size_t out,
                            double scale,
                            const resize_params& p,
                            double roi_start,
                            double roi_end)
{
    auto in = lens_of(x)[axis];
    if(out > (std::size_t{1} << 20))
        info.fail("a resized dim of " + std::to_string(out) + " is too large");
    std::vector<std::vector<std::pair<std::int64_t, double>>> all(out);
    std::vector<int> extrapolate(out, 0);
    bool identity = in == out and p.coord != "tf_crop_and_resize";
    std::size_t ntaps = 0;
    for(std::size_t i = 0; i < out; i++)
    {
        all[i] = taps(p, in, scale, i, roi_start, roi_end);
        if(all[i].empty())
            extrapolate[i] = 1;
        ntaps = std::max(ntaps, all[i].size());
    }
    if(ntaps == 0)
        ntaps = 1;
    for(std::size_t i = 0; i < out and identity; i++)
        for(const auto& [idx, w] : all[i])
            identity = identity and (w == 0 or (idx == static_cast<std::int64_t>(i) and w == 1));
    if(identity)
        return x;
    auto t = type_of(x);
    std::vector<std::size_t> wl(rank_of(x), 1);
    wl[axis] = out;
    auto gather_at = [&](const std::vector<std::int64_t>& idx) {
        return info.add("gather", {{"axis", static_cast<std::int64_t>(axis)}},
                        {x, info.add_literal(int64_literal(idx))});
    };
    std::optional<instruction_ref> r;
    if(p.mode == "nearest")
    {
        // One tap has weight 1: gather it.
        std::vector<std::int64_t> idx(out, 0);
        for(std::size_t i = 0; i < out; i++)
            for(const auto& [k, w] : all[i])
                if(w != 0)
                    idx[i] = k;
        r = gather_at(idx);
    }
    for(std::size_t j = 0; j < ntaps and p.mode != "nearest"; j++)
    {
        std::vector<std::int64_t> idx(out, 0);
        std::vector<double> w(out, 0);
        bool used = false;
        for(std::size_t i = 0; i < out; i++)
        {
            if(all[i].empty())
                continue;
            idx[i] = all[i][j].first;
            w[i]   = all[i][j].second;
            used   = used or w[i] != 0;
        }
        if(not used and r)
            continue;
        auto g = info.add_broadcastable_binary_op("mul", gather_at(idx), info.add_literal(make_literal(t, wl, w)));
        r      = r ? info.add("add", {*r, g}) : g;
    }
    if(std::any_of(extrapolate.begin(), extrapolate.end(), [](int e) { return e != 0; }))
    {
        auto mask = info.add_literal(make_literal(shape::bool_type, wl, extrapolate));
        r = info.add_common_op("where", {mask, info.add_scalar(p.extrapolation, t), *r});
    }
    return *r;
}

std::vector<double> optional_doubles(const node_info& info, const std::vector<instruction_ref>& args, std::size_t i,
                                     const std::string& what)
{
    if(args.size() <= i or info.is_undefined(args[i]))
        return {};
    return info.require_constant(args[i], what).to_vector<double>();
}

std::vector<instruction_ref> parse_resize(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.empty())
        info.fail("expects an input");
    auto x    = args[0];
    auto rank = rank_of(x);
    resize_params p;
    p.mode = info.get_string("mode", "nearest");
    if(p.mode == "bilinear" or p.mode == "trilinear")
        p.mode = "linear";
    if(p.mode != "nearest" and p.mode != "linear" and p.mode != "cubic")
        info.fail("unknown mode '" + p.mode + "'");
    if(info.get_int("antialias", 0) != 0)
        info.fail("antialias is not supported");
    std::vector<double> scales, sizes, roi;
    bool legacy = info.op_type == "Upsample" or info.opset < 11;
    if(legacy)
    {
        p.coord   = "asymmetric";
        p.nearest = "floor";
        if(info.has("scales"))
        {
            auto f = info.get_floats("scales");
            scales.assign(f.begin(), f.end());
        }
        else
            scales = optional_doubles(info, args, 1, "scales");
    }
    else
    {
        p.coord           = info.get_string("coordinate_transformation_mode", "half_pixel");
        p.nearest         = info.get_string("nearest_mode", "round_prefer_floor");
        p.cubic_a         = info.get_float("cubic_coeff_a", -0.75f);
        p.exclude_outside = info.get_int("exclude_outside", 0) != 0;
        p.extrapolation   = info.get_float("extrapolation_value", 0.0f);
        roi               = optional_doubles(info, args, 1, "roi");
        scales            = optional_doubles(info, args, 2, "scales");
        sizes             = optional_doubles(info, args, 3, "sizes");
    }
    if(info.has("axes"))
        info.fail("the axes attribute is not supported");
    std::vector<std::size_t> out(rank);
    if(not sizes.empty())
    {
        if(sizes.size() != rank)
            info.fail("sizes has " + std::to_string(sizes.size()) + " values for rank " + std::to_string(rank));
        scales.clear();
        for(std::size_t i = 0; i < rank; i++)
        {
            if(not(sizes[i] >= 0 and sizes[i] < 1e12))
                info.fail("sizes must be non-negative and not too large");
            out[i] = static_cast<std::size_t>(sizes[i]);
            scales.push_back(static_cast<double>(out[i]) / static_cast<double>(lens_of(x)[i]));
        }
    }
    else
    {
        if(scales.size() != rank)
            info.fail("scales has " + std::to_string(scales.size()) + " values for rank " + std::to_string(rank));
        for(std::size_t i = 0; i < rank; i++)
        {
            if(scales[i] <= 0)
                info.fail("scales must be positive");
            auto o = std::floor(static_cast<double>(lens_of(x)[i]) * scales[i]);
            if(not(o < 1e12))
                info.fail("scales give a too large output");
            out[i] = static_cast<std::size_t>(o);
        }
    }
    if(p.coord == "tf_crop_and_resize" and roi.size() != 2 * rank)
        info.fail("tf_crop_and_resize needs roi with " + std::to_string(2 * rank) + " values");
    for(std::size_t a = rank; a-- > 0;)
    {
        double rs = roi.size() == 2 * rank ? roi[a] : 0;
        double re = roi.size() == 2 * rank ? roi[a + rank] : 1;
        x         = resize_axis(info, x, a, out[a], scales[a], p, rs, re);
    }
    return {x};
}
MIGRAPHX_ONNX_PARSER(parse_resize, "Resize", "Upsample")

} // namespace
} // namespace onnx
} // namespace migraphx
