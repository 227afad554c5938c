// quantize_int8: convolution and dot on float data become
//   quantizelinear(x, sx) -> quant_convolution / quant_dot (int8/uint8 x int8 -> int32)
//   -> dequantizelinear(acc, sx * sw[, zp])
// with symmetric scales. Activations get one per-tensor scale from calibration (a clipping
// range chosen from a histogram of what the calibration data produced), uint8 where the value
// is non-negative by construction; constant weights are quantized here, per output channel
// (convolution: axis 0; dot: the last axis of b). The zero point of the dequantize removes the
// mean output shift that rounding the weights causes (bias correction). An accuracy check on
// the calibration data keeps the operations nearest the inputs in float when needed.
#include <migraphx/quantization.hpp>
#include <migraphx/make_op.hpp>
#include "passes/dead_code_elimination.hpp"
#include "quantize/calibrate.hpp"
#include "quantize/constant_expr.hpp"
#include "quantize/int8_support.hpp"
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <optional>
#include <unordered_map>

namespace migraphx {
namespace {

constexpr float default_abs_max = 127.0f; // scale 1 without calibration data, as MIGraphX

float scale_of(float threshold, int levels) { return range_scale(threshold, static_cast<float>(levels)); }

/// float, or half (a program quantize_fp16 made: int8 products, the rest in half).
bool is_float(instruction_ref x)
{
    auto t = x->get_shape().type();
    return (t == shape::float_type or t == shape::half_type) and not x->get_shape().dynamic();
}

bool is_gpu(const target& t) { return t.name() == "gpu"; }

/// Whether x >= 0 follows from how it is made: relu, clip with a lower bound >= 0, softmax,
/// sigmoid, exp, abs, sqrt; max/average pooling, views, concatenations and sums of such values.
bool nonnegative(instruction_ref x, int depth = 0)
{
    if(depth > 64)
        return false;
    const auto& n = x->name();
    if(n == "relu" or n == "softmax" or n == "sigmoid" or n == "abs" or n == "exp" or n == "sqrt")
        return true;
    if(n == "clip" and x->inputs().size() == 3)
    {
        auto lo_ins = x->inputs()[1];
        while(lo_ins->name() == "multibroadcast" or lo_ins->name() == "broadcast")
            lo_ins = lo_ins->inputs().front();
        auto lo = eval_constant(lo_ins);
        if(not lo or lo->get_shape().elements() == 0)
            return false;
        auto v = lo->to_vector<float>();
        return std::all_of(v.begin(), v.end(), [](float f) { return f >= 0; });
    }
    if(x->inputs().empty())
        return false;
    auto all_inputs = [&] {
        return std::all_of(
            x->inputs().begin(), x->inputs().end(), [&](auto in) { return nonnegative(in, depth + 1); });
    };
    if(n == "pooling")
    {
        auto mode = x->get_operator().to_value().at("mode").to<std::string>();
        return (mode == "max" or mode == "average") and nonnegative(x->inputs().front(), depth + 1);
    }
    static const std::vector<std::string> views = {"reshape", "flatten", "transpose", "squeeze", "unsqueeze",
                                                   "contiguous", "broadcast", "multibroadcast", "slice"};
    if(std::find(views.begin(), views.end(), n) != views.end())
        return nonnegative(x->inputs().front(), depth + 1);
    if(n == "concat" or n == "add")
        return all_inputs();
    if(n == "max") // max(a, b) >= 0 when either is
        return std::any_of(
            x->inputs().begin(), x->inputs().end(), [&](auto in) { return nonnegative(in, depth + 1); });
    return false;
}

/// Largest |int8 weight| the target computes exactly with uint8 activations. oneDNN's int8
/// kernels on x86 without VNNI multiply uint8 x int8 pairs into a saturating int16
/// (vpmaddubsw): 255 * 127 * 2 overflows, 255 * 63 * 2 does not. So weights get 7 bits there.
int weight_levels_for(const target& t)
{
    if(t.name() != "cpu")
        return 127;
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    if(__builtin_cpu_supports("avx512vnni") or __builtin_cpu_supports("avxvnni"))
        return 127;
    return 63;
#else
    return 127;
#endif
}

struct quantized_weights
{
    literal values;           // int8, standard layout, the weights' lens
    std::vector<float> scale; // one per channel along axis
};

/// Symmetric quantization of w to [-levels, levels] with one scale per index along axis.
quantized_weights quantize_weights(const argument& w, std::size_t axis, int levels)
{
    const auto& lens  = w.get_shape().lens();
    auto v            = w.to_vector<float>();
    std::size_t outer = 1, inner = 1;
    for(std::size_t i = 0; i < axis; i++)
        outer *= lens[i];
    for(std::size_t i = axis + 1; i < lens.size(); i++)
        inner *= lens[i];
    std::size_t n = lens[axis];
    std::vector<float> amax(n, 0.0f);
    for(std::size_t o = 0; o < outer; o++)
        for(std::size_t c = 0; c < n; c++)
            for(std::size_t i = 0; i < inner; i++)
                amax[c] = std::max(amax[c], std::abs(v[(o * n + c) * inner + i]));
    quantized_weights q;
    for(auto a : amax)
        q.scale.push_back(scale_of(a, levels));
    auto l = static_cast<float>(levels);
    std::vector<std::int8_t> out(v.size());
    for(std::size_t o = 0; o < outer; o++)
        for(std::size_t c = 0; c < n; c++)
            for(std::size_t i = 0; i < inner; i++)
            {
                auto k = (o * n + c) * inner + i;
                auto r = std::nearbyint(v[k] / q.scale[c]);
                out[k] = static_cast<std::int8_t>(std::isnan(r) ? 0.0f : std::clamp(r, -l, l));
            }
    q.values = literal{shape{shape::int8_type, lens}, out};
    return q;
}

/// The mean change of each output channel that rounding the weights causes, given the mean of
/// each input channel: convolution: corr[o] = sum over (c, kernel) of dW[o, c, ...] * mean[c]
/// (c within o's group); dot with b {K, N} (leading dims 1): corr[n] = sum_k mean[k] * dB[k, n].
/// Empty when it does not apply.
std::vector<double> weight_bias_correction(bool conv,
                                           const argument& w,
                                           const quantized_weights& q,
                                           std::size_t w_axis,
                                           const std::vector<double>& mean,
                                           std::int64_t group)
{
    const auto& wl = w.get_shape().lens();
    auto wv        = w.to_vector<double>();
    auto qv        = q.values.to_vector<double>();
    std::size_t n = wl[w_axis], inner = 1, outer = 1;
    for(std::size_t i = w_axis + 1; i < wl.size(); i++)
        inner *= wl[i];
    for(std::size_t i = 0; i < w_axis; i++)
        outer *= wl[i];
    auto delta = [&](std::size_t k) { return qv[k] * q.scale[(k / inner) % n] - wv[k]; };
    std::vector<double> corr(n, 0.0);
    if(conv)
    {
        // w {K, C/g, kernel...}, axis 0
        if(wl.size() < 3 or group < 1 or w_axis != 0)
            return {};
        std::size_t cg = wl[1], kel = inner / cg, kg = n / static_cast<std::size_t>(group);
        if(mean.size() != cg * static_cast<std::size_t>(group) or kg == 0)
            return {};
        for(std::size_t o = 0; o < n; o++)
            for(std::size_t c = 0; c < cg; c++)
                for(std::size_t e = 0; e < kel; e++)
                    corr[o] += delta((o * cg + c) * kel + e) * mean[(o / kg) * cg + c];
        return corr;
    }
    // dot: b {..., K, N}, w_axis the last
    if(wl.size() < 2 or w_axis + 1 != wl.size() or outer != wl[wl.size() - 2])
        return {};
    std::size_t kdim = wl[wl.size() - 2];
    if(mean.size() != kdim)
        return {};
    for(std::size_t k = 0; k < kdim; k++)
        for(std::size_t j = 0; j < n; j++)
            corr[j] += mean[k] * delta(k * n + j);
    return corr;
}

/// b {..., K, N} whose batches are all the same (a broadcast matrix) as one {K, N} matrix.
argument common_slice(const argument& b)
{
    const auto& l = b.get_shape().lens();
    if(l.size() <= 2)
        return b;
    std::size_t kn = l[l.size() - 2] * l.back();
    auto v         = b.to_vector<float>();
    for(std::size_t i = kn; i < v.size(); i++)
        if(v[i] != v[i % kn])
            return b;
    v.resize(kn);
    return literal{shape{shape::float_type, {l[l.size() - 2], l.back()}}, v}.get_argument();
}

/// How one activation is quantized: its clipping threshold, uint8 [0, 255] (non-negative
/// values) or int8 [-127, 127], and its per-channel means (for bias correction).
struct act_range
{
    float threshold  = default_abs_max;
    bool is_unsigned = false;
    std::vector<double> channel_mean;
};

/// Quantized constant weights of one op and their bias correction, made once per op.
struct weights_entry
{
    quantized_weights q;
    std::vector<double> corr;
};

struct int8_rewriter
{
    module& m;
    const quantize_int8_options& options;
    int weight_levels = 127;
    std::unordered_map<const instruction*, act_range> ranges;
    std::unordered_map<std::size_t, weights_entry>* weights_cache = nullptr;
    std::unordered_map<const instruction*, std::pair<instruction_ref, float>> quantized{}; // one per value

    instruction_ref broadcast_scalar(instruction_ref pos, literal l, const std::vector<std::size_t>& lens)
    {
        auto c = m.insert_literal(pos, std::move(l));
        return m.insert_instruction(pos, make_op("multibroadcast", {{"out_lens", lens}}), {c});
    }

    /// A per-channel constant (or a scalar when all values agree) broadcast to lens along axis.
    template <class T>
    instruction_ref broadcast_channels(instruction_ref pos,
                                       shape::type_t type,
                                       const std::vector<T>& values,
                                       std::size_t axis,
                                       const std::vector<std::size_t>& lens)
    {
        if(std::all_of(values.begin(), values.end(), [&](T v) { return v == values.front(); }))
            return broadcast_scalar(pos, literal{shape{type, {1}}, std::vector<T>{values.front()}}, lens);
        auto c = m.insert_literal(pos, literal{shape{type, {values.size()}}, values});
        return m.insert_instruction(pos, make_op("broadcast", {{"axis", axis}, {"out_lens", lens}}), {c});
    }

    /// int8/uint8 version of an activation x and its scale (made once, after x).
    std::pair<instruction_ref, float> quantize_input(instruction_ref, instruction_ref x)
    {
        auto done = quantized.find(&*x);
        if(done != quantized.end())
            return done->second;
        auto pos    = std::next(x);
        auto it     = ranges.find(&*x);
        auto r      = it == ranges.end() ? act_range{} : it->second;
        float s     = scale_of(r.threshold, r.is_unsigned ? 255 : 127);
        auto lens   = x->get_shape().lens();
        auto scale  = broadcast_scalar(pos, literal{shape{shape::float_type, {1}}, std::vector<float>{s}}, lens);
        auto zp     = r.is_unsigned
                          ? broadcast_scalar(pos, literal{shape{shape::uint8_type, {1}}, std::vector<std::uint8_t>{0}}, lens)
                          : broadcast_scalar(pos, literal{shape{shape::int8_type, {1}}, std::vector<std::int8_t>{0}}, lens);
        auto xf     = x;
        if(x->get_shape().type() != shape::float_type) // a half program: quantized from float, as scale is
            xf = m.insert_instruction(pos, make_op("convert", {{"target_type", shape::float_type}}), {x});
        auto q      = m.insert_instruction(pos, make_op("quantizelinear"), {xf, scale, zp});
        return quantized[&*x] = {q, s};
    }

    /// Every 4-d add that reads a value quantized (int8, zero point 0) for an int8 op reads
    /// that int8 value dequantized instead (in the value's type).
    void int8_residuals()
    {
        std::vector<instruction_ref> adds;
        for(auto ins = m.begin(); ins != m.end(); ++ins)
            if(ins->name() == "add" and ins->get_shape().lens().size() == 4 and is_float(ins))
                adds.push_back(ins);
        for(auto add : adds)
        {
            auto in = add->inputs();
            bool changed = false;
            for(auto& h : in)
            {
                auto it = quantized.find(&*h);
                if(it == quantized.end() or it->second.first->get_shape().type() != shape::int8_type or
                   h->get_shape().lens() != add->get_shape().lens())
                    continue;
                auto [q, s] = it->second;
                auto pos    = std::next(q);
                auto scale  = broadcast_scalar(pos, literal{shape{shape::float_type, {1}}, std::vector<float>{s}},
                                               q->get_shape().lens());
                auto d      = m.insert_instruction(pos, make_op("dequantizelinear"), {q, scale});
                if(h->get_shape().type() != shape::float_type)
                    d = m.insert_instruction(std::next(d), make_op("convert", {{"target_type", h->get_shape().type()}}), {d});
                h       = d;
                changed = true;
            }
            if(changed)
                m.replace_instruction(add, add->get_operator(), in);
        }
    }

    void rewrite(instruction_ref ins, std::size_t id)
    {
        auto x = ins->inputs()[0], w = ins->inputs()[1];
        if(not is_float(x) or not is_float(w) or not is_float(ins))
            return;
        bool conv          = ins->name() == "convolution";
        const auto& olens  = ins->get_shape().lens();
        std::size_t w_axis = conv ? 0 : w->get_shape().lens().size() - 1;
        std::size_t o_axis = conv ? 1 : olens.size() - 1;
        auto [qx, sx]      = quantize_input(ins, x);
        instruction_ref qw;
        std::vector<float> sw;
        std::vector<double> corr;
        if(is_constant(w))
        {
            auto cached = weights_cache->find(id);
            if(cached == weights_cache->end())
            {
                auto c = eval_constant(w);
                if(not c)
                    return;
                if(not conv)
                    c = common_slice(*c);
                auto axis = conv ? w_axis : c->get_shape().lens().size() - 1;
                weights_entry e{quantize_weights(*c, axis, weight_levels), {}};
                auto it = ranges.find(&*x);
                if(options.bias_correction and it != ranges.end() and not it->second.channel_mean.empty())
                    e.corr = weight_bias_correction(
                        conv, *c, e.q, axis, it->second.channel_mean,
                        conv ? ins->get_operator().to_value().at("group").get_int64() : 1);
                cached = weights_cache->emplace(id, std::move(e)).first;
            }
            qw   = m.insert_literal(ins, cached->second.q.values);
            sw   = cached->second.q.scale;
            corr = cached->second.corr;
            if(qw->get_shape().lens() != w->get_shape().lens()) // one {K, N} for every batch
                qw = m.insert_instruction(ins, make_op("multibroadcast", {{"out_lens", w->get_shape().lens()}}), {qw});
        }
        else
        {
            auto [q, s] = quantize_input(ins, w);
            qw          = q;
            sw          = {s};
        }
        auto qop = conv ? make_op("quant_convolution", ins->get_operator().to_value()) : make_op("quant_dot");
        auto acc = m.insert_instruction(ins, qop, {qx, qw});
        std::vector<float> so;
        for(auto s : sw)
            so.push_back(sx * s);
        auto scale = broadcast_channels(ins, shape::float_type, so, o_axis, olens);
        // bias correction: y = (acc - zp) * s with zp = corr / s
        std::vector<std::int32_t> zp;
        bool any = false;
        for(std::size_t i = 0; i < corr.size(); i++)
        {
            double s = so.size() == 1 ? so[0] : so[i];
            double z = s > 0 ? std::nearbyint(corr[i] / s) : 0.0;
            z        = std::clamp(z, -1.0e9, 1.0e9);
            zp.push_back(static_cast<std::int32_t>(z));
            any = any or zp.back() != 0;
        }
        std::vector<instruction_ref> dq_args{acc, scale};
        if(any)
            dq_args.push_back(broadcast_channels(ins, shape::int32_type, zp, o_axis, olens));
        // float scales (the products of two scales can be below half's normal range), then the
        // op's own type
        if(ins->get_shape().type() == shape::float_type)
            m.replace_instruction(ins, make_op("dequantizelinear"), dq_args);
        else
            m.replace_instruction(ins,
                                  make_op("convert", {{"target_type", ins->get_shape().type()}}),
                                  {m.insert_instruction(ins, make_op("dequantizelinear"), dq_args)});
    }
};

/// quantizelinear(max pooling(x)) -> max pooling(quantizelinear(x)): the same values (rounding
/// and saturation are monotone), and an int8 pooling is cheaper and keeps the int8 chain going.
void quantize_before_max_pooling(module& m)
{
    for(auto ins = m.begin(); ins != m.end(); ++ins)
    {
        if(ins->name() != "quantizelinear" or ins->inputs().size() != 3)
            continue;
        auto p = ins->inputs()[0];
        if(p->name() != "pooling" or p->get_operator().to_value().at("mode").to<std::string>() != "max")
            continue;
        auto x      = p->inputs()[0];
        auto behind = [](instruction_ref c) {
            while(c->name() == "multibroadcast" or c->name() == "broadcast")
                c = c->inputs().front();
            return c;
        };
        auto scale = eval_constant(behind(ins->inputs()[1]));
        auto zp    = eval_constant(behind(ins->inputs()[2]));
        if(not scale or not zp or scale->get_shape().elements() == 0 or zp->get_shape().elements() == 0)
            continue;
        auto sv = scale->to_vector<float>();
        auto zv = zp->to_vector<double>();
        if(std::any_of(sv.begin(), sv.end(), [&](float v) { return v != sv[0]; }) or
           std::any_of(zv.begin(), zv.end(), [&](double v) { return v != zv[0]; }))
            continue;
        const auto& lens = x->get_shape().lens();
        auto pos = std::next(x);
        auto sl  = m.insert_literal(pos, literal{shape{scale->get_shape().type(), {1}}, std::vector<float>{sv[0]}});
        auto zl  = m.insert_literal(pos, literal{shape{zp->get_shape().type(), {1}}, std::vector<double>{zv[0]}});
        auto sb  = m.insert_instruction(pos, make_op("multibroadcast", {{"out_lens", lens}}), {sl});
        auto zb  = m.insert_instruction(pos, make_op("multibroadcast", {{"out_lens", lens}}), {zl});
        auto q   = m.insert_instruction(pos, make_op("quantizelinear"), {x, sb, zb});
        auto np  = m.insert_instruction(ins, p->get_operator(), {q});
        m.replace_instruction(ins, np);
    }
}

bool selected(instruction_ref ins, const std::vector<std::string>& names, const target& t)
{
    const auto& n = ins->name();
    if(n != "convolution" and n != "dot")
        return false;
    if(std::find(names.begin(), names.end(), n) == names.end())
        return false;
    auto x = ins->inputs()[0], w = ins->inputs()[1];
    if(not is_float(x) or not is_float(w) or not is_float(ins) or x->get_shape().type() != w->get_shape().type())
        return false;
    // on the gpu, only convolutions its int8 kernels take (the others would run slower as
    // float arithmetic on integer values than they do in float)
    if(n == "convolution" and is_gpu(t))
    {
        auto v = ins->get_operator().to_value();
        return v.at("padding_mode").get_int64() == 0 and
               gpu_int8_convolution_fits(x->get_shape(), w->get_shape(), v.at("group").get_int64());
    }
    // and only products by constant weights: attention's products of two activations stay in
    // float/half, where the gpu fuses softmax(QK^T)V into one kernel (int8 there would split it
    // and quantize both operands each run; measured on BERT-base b64: 2.3x slower than fp16)
    if(n == "dot" and is_gpu(t))
        return is_constant(w) and gpu_int8_gemm_fits(x->get_shape(), w->get_shape());
    return true;
}

std::size_t position(const module& m, instruction_ref x)
{
    return static_cast<std::size_t>(std::distance(m.begin(), x));
}

} // namespace

bool gpu_int8_convolution_fits(const shape& x, const shape& w, std::int64_t group)
{
    // cuDNN's int8 engines want channel counts that fill 16-byte vectors of the NHWC rows
    return x.lens().size() == 4 and w.lens().size() == 4 and group == 1 and x.lens()[1] % 16 == 0 and
           w.lens()[0] % 16 == 0 and x.lens()[1] == w.lens()[1];
}

bool gpu_int8_gemm_fits(const shape& a, const shape& b)
{
    const auto& al = a.lens();
    const auto& bl = b.lens();
    return al.size() >= 2 and al.size() == bl.size() and al.back() == bl[bl.size() - 2] and al.back() % 4 == 0 and
           bl.back() % 4 == 0 and not a.dynamic() and not b.dynamic();
}

bool gpu_int8_gemm_runs(const shape& a, const shape& b)
{
    return a.type() == shape::int8_type and b.type() == shape::int8_type and gpu_int8_gemm_fits(a, b);
}

void quantize_int8(program& prog,
                   const target& t,
                   const std::vector<parameter_map>& calibration,
                   const std::vector<std::string>& ins_names)
{
    quantize_int8_options o;
    o.ins_names = ins_names;
    quantize_int8(prog, t, calibration, o);
}

void quantize_int8(program& prog,
                   const target& t,
                   const std::vector<parameter_map>& calibration,
                   const quantize_int8_options& options)
{
    if(prog.is_compiled())
        MIGRAPHX_THROW("quantize_int8: the program is already compiled; quantize before compile");
    for(const auto& n : options.ins_names)
        if(n != "convolution" and n != "dot")
            MIGRAPHX_THROW("quantize_int8: cannot quantize '" + n + "' (only convolution and dot)");
    if(not(options.max_float_fraction >= 0 and options.max_float_fraction <= 1))
        MIGRAPHX_THROW("quantize_int8: max_float_fraction must be in [0, 1]");
    choose_threshold({}, 127, options.calibration_method); // an unknown method fails here
    check_calibration(prog, calibration);
    quantize_int8_report report;
    auto* m = prog.get_main_module();
    std::vector<instruction_ref> targets;
    for(auto ins = m->begin(); ins != m->end(); ++ins)
        if(selected(ins, options.ins_names, t))
            targets.push_back(ins);
    if(targets.empty())
    {
        if(options.report != nullptr)
            *options.report = report;
        return;
    }

    // The activations to calibrate: non-constant float inputs, each once; the data inputs of
    // ops with constant weights also get per-channel means (convolution: axis 1, dot: last).
    std::vector<instruction_ref> watched;
    std::vector<std::int64_t> axes;
    std::unordered_map<const instruction*, std::size_t> watch_index;
    for(auto ins : targets)
    {
        bool const_w = is_constant(ins->inputs()[1]);
        for(std::size_t i = 0; i < 2; i++)
        {
            auto x = ins->inputs()[i];
            if(watch_index.count(&*x) == 0)
            {
                if(is_constant(x))
                    continue;
                watch_index[&*x] = watched.size();
                watched.push_back(x);
                axes.push_back(-1);
            }
            auto& axis = axes[watch_index[&*x]];
            if(i == 0 and const_w and axis < 0)
                axis = ins->name() == "convolution" ? 1 : static_cast<std::int64_t>(x->get_shape().lens().size()) - 1;
        }
    }

    std::vector<act_range> ranges(watched.size());
    for(std::size_t i = 0; i < watched.size(); i++)
    {
        ranges[i].is_unsigned = options.unsigned_activations and not is_gpu(t) and nonnegative(watched[i]); // cuDNN: int8
        ranges[i].threshold   = ranges[i].is_unsigned ? 2 * default_abs_max + 1 : default_abs_max; // scale 1
        report.unsigned_inputs += ranges[i].is_unsigned ? 1 : 0;
    }
    bool check = options.min_cosine > 0 and options.check_maps > 0 and not calibration.empty();
    std::vector<std::vector<double>> reference; // float outputs on the check maps
    if(calibration.empty())
        std::cerr << "migraphx: warning: quantize_int8 has no calibration data; using the default range "
                     "[-127, 127] (scale 1) for every quantized input, which may lose much accuracy\n";
    else
    {
        auto seen = calibrate_ranges(prog, t, calibration, watched, options.calibration_method != "max", axes,
                                     check ? options.check_maps : 0, &reference);
        phase_timer thresholds;
        for(std::size_t i = 0; i < watched.size(); i++)
        {
            ranges[i].threshold =
                choose_threshold(seen[i], ranges[i].is_unsigned ? 255 : 127, options.calibration_method);
            ranges[i].channel_mean = seen[i].channel_mean;
        }
        thresholds.lap("thresholds (" + options.calibration_method + ")");
    }

    // Positions make the rewrite repeatable on copies of the program.
    std::vector<std::size_t> target_pos;
    for(auto ins : targets)
        target_pos.push_back(position(*m, ins));
    std::vector<std::size_t> watched_pos;
    for(auto x : watched)
        watched_pos.push_back(position(*m, x));
    int levels = weight_levels_for(t);
    std::unordered_map<std::size_t, weights_entry> weights_cache;
    // Rewrites all selected ops of p (a copy of prog as it is now) but the first `keep`.
    auto rewrite = [&](program& p, std::size_t keep) {
        auto* pm = p.get_main_module();
        std::vector<instruction_ref> at;
        for(auto ins = pm->begin(); ins != pm->end(); ++ins)
            at.push_back(ins);
        int8_rewriter r{*pm, options, levels, {}, &weights_cache};
        for(std::size_t i = 0; i < watched_pos.size(); i++)
            r.ranges[&*at[watched_pos[i]]] = ranges[i];
        for(std::size_t i = keep; i < target_pos.size(); i++)
            r.rewrite(at[target_pos[i]], i);
        if(options.int8_residuals)
            r.int8_residuals();
        if(not is_gpu(t)) // the gpu pools in float/half (its pooling kernels have no int8)
            quantize_before_max_pooling(*pm);
        dead_code_elimination{}.apply(*pm);
    };

    std::size_t keep = 0;
    if(check and not reference.empty())
    {
        // the smallest cosine vs float over the check maps with the first k ops kept in float
        std::unordered_map<std::size_t, double> tried;
        auto cosine_with = [&](std::size_t k) {
            if(tried.count(k) != 0)
                return tried[k];
            phase_timer timer;
            program q = prog;
            rewrite(q, k);
            compile_options co;
            co.offload_copy = true;
            q.compile(t, co);
            timer.lap("check with " + std::to_string(k) + " kept in float: rewrite and compile");
            double worst = 1;
            for(std::size_t i = 0; i < reference.size(); i++)
                worst = std::min(worst, cosine_similarity(reference[i], flatten_outputs(q.eval(calibration[i]))));
            timer.lap("check with " + std::to_string(k) + " kept in float: runs, cosine " + std::to_string(worst));
            report.checks++;
            return tried[k] = worst;
        };
        auto most = static_cast<std::size_t>(std::floor(options.max_float_fraction * static_cast<double>(targets.size())));
        if(cosine_with(0) < options.min_cosine and most > 0)
        {
            if(cosine_with(most) < options.min_cosine)
                keep = most;
            else
            {
                std::size_t lo = 0, hi = most; // lo fails, hi passes
                while(hi - lo > 1)
                {
                    auto mid = lo + (hi - lo) / 2;
                    (cosine_with(mid) >= options.min_cosine ? hi : lo) = mid;
                }
                keep = hi;
            }
        }
        report.check_cosine = tried[keep];
        if(report.check_cosine < options.min_cosine)
            std::cerr << "migraphx: warning: quantize_int8: with " << keep << " of " << targets.size()
                      << " operations kept in float, the cosine similarity to float on the calibration data is "
                      << report.check_cosine << " (wanted " << options.min_cosine << ")\n";
    }
    phase_timer final_rewrite;
    rewrite(prog, keep);
    final_rewrite.lap("rewrite");
    report.kept_float = keep;
    report.quantized  = targets.size() - keep;
    if(options.report != nullptr)
        *options.report = report;
}

} // namespace migraphx
