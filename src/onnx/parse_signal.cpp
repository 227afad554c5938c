// Signal ops: DFT and STFT (matmuls with cos/sin literals over the static length) and
// MelWeightMatrix (a literal from constant inputs).

#include "onnx/onnx_utils.hpp"
#include <cmath>

namespace migraphx {
namespace onnx {

namespace {

instruction_ref last_component(const node_info& info, instruction_ref x, std::int64_t i)
{
    auto r = static_cast<std::int64_t>(rank_of(x)) - 1;
    auto s = info.add("slice",
                      {{"axes", std::vector<std::int64_t>{r}},
                       {"starts", std::vector<std::int64_t>{i}},
                       {"ends", std::vector<std::int64_t>{i + 1}}},
                      {x});
    return info.add("squeeze", {{"axes", std::vector<std::int64_t>{r}}}, {s});
}

/// DFT of x ({..., 1 or 2} real or complex) along axis with n points -> {..., K, ..., 2}.
instruction_ref dft(const node_info& info, instruction_ref x, std::size_t axis, std::size_t n, bool inverse, bool onesided)
{
    auto comps = lens_of(x).back();
    if(comps != 1 and comps != 2)
        info.fail("the last dim must be 1 (real) or 2 (complex)");
    if(axis + 1 >= rank_of(x))
        info.fail("axis must not be the last (component) dim");
    auto t  = type_of(x);
    auto re = last_component(info, x, 0);
    std::optional<instruction_ref> im;
    if(comps == 2)
        im = last_component(info, x, 1);
    // move axis last, then fit the length to n
    auto rank = rank_of(re);
    std::vector<std::int64_t> perm;
    for(std::size_t i = 0; i < rank; i++)
        if(i != axis)
            perm.push_back(static_cast<std::int64_t>(i));
    perm.push_back(static_cast<std::int64_t>(axis));
    auto len = lens_of(re)[axis];
    auto fit = [&](instruction_ref v) {
        v = info.add("transpose", {{"permutation", perm}}, {v});
        if(n < len)
            v = info.add("slice",
                         {{"axes", std::vector<std::int64_t>{static_cast<std::int64_t>(rank - 1)}},
                          {"starts", std::vector<std::int64_t>{0}},
                          {"ends", std::vector<std::int64_t>{static_cast<std::int64_t>(n)}}},
                         {v});
        else if(n > len)
        {
            std::vector<std::int64_t> pads(2 * rank, 0);
            pads[2 * rank - 1] = static_cast<std::int64_t>(n - len);
            v                  = info.add("pad", {{"pads", pads}}, {v});
        }
        return v;
    };
    auto a = fit(re);
    std::size_t k = onesided ? n / 2 + 1 : n;
    info.check_size(n * k, "the DFT matrix");
    std::vector<double> c(n * k), s(n * k);
    for(std::size_t j = 0; j < n; j++)
        for(std::size_t q = 0; q < k; q++)
        {
            double th    = 2 * M_PI * static_cast<double>((j * q) % n) / static_cast<double>(n);
            c[j * k + q] = std::cos(th);
            s[j * k + q] = std::sin(th);
        }
    auto cm = info.add_literal(make_literal(t, {n, k}, c));
    auto sm = info.add_literal(make_literal(t, {n, k}, s));
    // forward: re' = a C + b S, im' = b C - a S; inverse: re' = (a C - b S) / n, im' = (b C + a S) / n
    auto out_re = add_matmul(info, a, cm);
    auto out_im = info.add("neg", {add_matmul(info, a, sm)});
    if(inverse)
        out_im = info.add("neg", {out_im});
    if(im)
    {
        auto b  = fit(*im);
        auto bs = add_matmul(info, b, sm);
        out_re  = info.add(inverse ? "sub" : "add", {out_re, bs});
        out_im  = info.add("add", {out_im, add_matmul(info, b, cm)});
    }
    if(inverse)
    {
        auto scale = info.add_scalar(1.0 / static_cast<double>(n), t);
        out_re     = info.add_broadcastable_binary_op("mul", out_re, scale);
        out_im     = info.add_broadcastable_binary_op("mul", out_im, scale);
    }
    std::vector<std::int64_t> inv(perm.size());
    for(std::size_t i = 0; i < perm.size(); i++)
        inv[static_cast<std::size_t>(perm[i])] = static_cast<std::int64_t>(i);
    auto back = [&](instruction_ref v) {
        v = info.add("transpose", {{"permutation", inv}}, {v});
        return info.add("unsqueeze", {{"axes", std::vector<std::int64_t>{static_cast<std::int64_t>(rank)}}}, {v});
    };
    return info.add("concat", {{"axis", static_cast<std::int64_t>(rank)}}, {back(out_re), back(out_im)});
}

std::vector<instruction_ref> parse_dft(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.empty())
        info.fail("expects an input");
    auto x    = args[0];
    auto axis = static_cast<std::size_t>(normalize_onnx_axis(info.get_int("axis", 1), rank_of(x), info));
    auto n    = lens_of(x)[axis];
    if(args.size() > 1 and not info.is_undefined(args[1]))
    {
        auto l = info.require_constant(args[1], "dft_length").at<std::int64_t>();
        if(l <= 0)
            info.fail("dft_length must be positive");
        n = static_cast<std::size_t>(l);
    }
    return {dft(info, x, axis, n, info.get_int("inverse", 0) != 0, info.get_int("onesided", 0) != 0)};
}
MIGRAPHX_ONNX_PARSER(parse_dft, "DFT")

std::vector<instruction_ref> parse_stft(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() < 2 or rank_of(args[0]) != 3)
        info.fail("expects signal {batch, length, 1 or 2} and frame_step");
    auto x    = args[0];
    auto step = info.require_constant(args[1], "frame_step").at<std::int64_t>();
    std::optional<instruction_ref> window;
    if(args.size() > 2 and not info.is_undefined(args[2]))
        window = args[2];
    std::int64_t flen = window ? static_cast<std::int64_t>(lens_of(*window)[0]) : 0;
    if(args.size() > 3 and not info.is_undefined(args[3]))
        flen = info.require_constant(args[3], "frame_length").at<std::int64_t>();
    auto len = static_cast<std::int64_t>(lens_of(x)[1]);
    if(step <= 0 or flen <= 0 or flen > len)
        info.fail("frame_step and frame_length must be positive and the frame must fit the signal");
    auto frames = static_cast<std::size_t>((len - flen) / step + 1);
    info.check_size(frames * static_cast<std::size_t>(flen), "the frame table");
    std::vector<std::int64_t> idx;
    for(std::size_t f = 0; f < frames; f++)
        for(std::int64_t j = 0; j < flen; j++)
            idx.push_back(static_cast<std::int64_t>(f) * step + j);
    auto fl  = static_cast<std::size_t>(flen);
    auto ids = info.add_literal(literal{shape{shape::int64_type, {frames, fl}}, idx});
    auto fr  = info.add("gather", {{"axis", 1}}, {x, ids}); // {batch, frames, flen, comps}
    if(window)
    {
        auto w = reshape_to(info, info.convert(*window, type_of(x)), {fl, 1});
        fr     = info.add_broadcastable_binary_op("mul", fr, w);
    }
    return {dft(info, fr, 2, fl, false, info.get_int("onesided", 1) != 0)};
}
MIGRAPHX_ONNX_PARSER(parse_stft, "STFT")

std::vector<instruction_ref> parse_mel_weight_matrix(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() != 5)
        info.fail("expects 5 inputs");
    auto bins   = info.require_constant(args[0], "num_mel_bins").at<std::int64_t>();
    auto dftl   = info.require_constant(args[1], "dft_length").at<std::int64_t>();
    auto rate   = info.require_constant(args[2], "sample_rate").at<double>();
    auto lo_hz  = info.require_constant(args[3], "lower_edge_hertz").at<double>();
    auto hi_hz  = info.require_constant(args[4], "upper_edge_hertz").at<double>();
    if(bins <= 0 or dftl <= 0 or rate <= 0 or bins > 65536 or dftl > (1 << 24))
        info.fail("num_mel_bins, dft_length and sample_rate must be positive");
    auto spec = static_cast<std::size_t>(dftl / 2 + 1);
    auto nb   = static_cast<std::size_t>(bins);
    // As the ONNX reference: mel-spaced band edges mapped to spectrogram bins, triangles between.
    double lo_mel = 2595 * std::log10(1 + lo_hz / 700);
    double hi_mel = 2595 * std::log10(1 + hi_hz / 700);
    double step   = (hi_mel - lo_mel) / static_cast<double>(nb + 2);
    std::vector<std::int64_t> edge(nb + 2);
    for(std::size_t i = 0; i < nb + 2; i++)
    {
        double hz = 700 * (std::pow(10, (static_cast<double>(i) * step + lo_mel) / 2595) - 1);
        edge[i]   = static_cast<std::int64_t>(std::floor(static_cast<double>(dftl + 1) * hz / rate));
    }
    std::vector<double> w(spec * nb, 0);
    auto at = [&](std::int64_t j, std::size_t i) -> double* {
        if(j < 0 or static_cast<std::size_t>(j) >= spec)
            return nullptr;
        return &w[static_cast<std::size_t>(j) * nb + i];
    };
    for(std::size_t i = 0; i < nb; i++)
    {
        auto l = edge[i], c = edge[i + 1], h = edge[i + 2];
        if(c == l)
        {
            if(auto* p = at(c, i))
                *p = 1;
        }
        else
            for(auto j = l; j <= c; j++)
                if(auto* p = at(j, i))
                    *p = static_cast<double>(j - l) / static_cast<double>(c - l);
        if(h > c)
            for(auto j = c; j < h; j++)
                if(auto* p = at(j, i))
                    *p = static_cast<double>(h - j) / static_cast<double>(h - c);
    }
    auto t = get_onnx_type(static_cast<int>(info.get_int("output_datatype", 1)));
    return {info.add_literal(make_literal(t, {spec, nb}, w))};
}
MIGRAPHX_ONNX_PARSER(parse_mel_weight_matrix, "MelWeightMatrix")

} // namespace
} // namespace onnx
} // namespace migraphx
