// quantize_int8: convolution and dot on float data become
//   quantizelinear(x, sx) -> quant_convolution / quant_dot (int8 x int8 -> int32)
//   -> dequantizelinear(acc, sx * sw)
// with symmetric scales (zero point 0, s = abs_max / 127). Activations get one per-tensor scale
// from calibration; constant weights are quantized here, per output channel (convolution: axis
// 0; dot: the last axis of b), from their own values.
#include <migraphx/quantization.hpp>
#include <migraphx/make_op.hpp>
#include "passes/dead_code_elimination.hpp"
#include "quantize/calibrate.hpp"
#include <algorithm>
#include <cmath>
#include <iostream>
#include <optional>
#include <unordered_map>

namespace migraphx {
namespace {

constexpr float default_abs_max = 127.0f; // scale 1 without calibration data, as MIGraphX

float scale_of(float abs_max) { return abs_max > 0 and std::isfinite(abs_max) ? abs_max / 127.0f : 1.0f; }

/// The value of a constant expression (literals and ops of literals), or nothing.
std::optional<argument> eval_constant(instruction_ref x, int depth = 0)
{
    if(x->name() == "@literal")
        return x->get_literal().get_argument();
    if(depth > 16 or x->name().empty() or x->name().front() == '@' or not x->module_inputs().empty() or
       x->inputs().empty())
        return std::nullopt;
    std::vector<argument> args;
    for(auto in : x->inputs())
    {
        auto a = eval_constant(in, depth + 1);
        if(not a)
            return std::nullopt;
        args.push_back(*a);
    }
    if(x->name() == "quantize_capture" or x->get_operator().attributes().contains("side_effects"))
        return std::nullopt;
    return x->get_operator().compute(x->get_shape(), args);
}

bool is_float(instruction_ref x) { return x->get_shape().type() == shape::float_type and not x->get_shape().dynamic(); }

struct quantized_weights
{
    literal values;           // int8, standard layout, the weights' lens
    std::vector<float> scale; // one per channel along axis
};

/// Symmetric int8 quantization of w with one scale per index along axis.
quantized_weights quantize_weights(const argument& w, std::size_t axis)
{
    const auto& lens = w.get_shape().lens();
    auto v           = w.to_vector<float>();
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
        q.scale.push_back(scale_of(a));
    std::vector<std::int8_t> out(v.size());
    for(std::size_t o = 0; o < outer; o++)
        for(std::size_t c = 0; c < n; c++)
            for(std::size_t i = 0; i < inner; i++)
            {
                auto k = (o * n + c) * inner + i;
                auto r = std::nearbyint(v[k] / q.scale[c]);
                out[k] = static_cast<std::int8_t>(std::isnan(r) ? 0.0f : std::clamp(r, -127.0f, 127.0f));
            }
    q.values = literal{shape{shape::int8_type, lens}, out};
    return q;
}

struct int8_rewriter
{
    module& m;
    std::unordered_map<const instruction*, float> abs_max;

    instruction_ref scalar_like(instruction_ref pos, literal l, const std::vector<std::size_t>& lens)
    {
        auto c = m.insert_literal(pos, std::move(l));
        return m.insert_instruction(pos, make_op("multibroadcast", {{"out_lens", lens}}), {c});
    }

    /// int8 version of an activation x and its scale.
    std::pair<instruction_ref, float> quantize_input(instruction_ref pos, instruction_ref x)
    {
        auto it    = abs_max.find(&*x);
        float s    = scale_of(it == abs_max.end() ? default_abs_max : it->second);
        auto lens  = x->get_shape().lens();
        auto scale = scalar_like(pos, literal{shape{shape::float_type, {1}}, std::vector<float>{s}}, lens);
        auto zp    = scalar_like(pos, literal{shape{shape::int8_type, {1}}, std::vector<std::int8_t>{0}}, lens);
        return {m.insert_instruction(pos, make_op("quantizelinear"), {x, scale, zp}), s};
    }

    /// The int8 weights and their scales (per channel along axis when constant).
    std::pair<instruction_ref, std::vector<float>> quantize_weight(instruction_ref pos, instruction_ref w, std::size_t axis)
    {
        if(auto c = eval_constant(w))
        {
            auto q = quantize_weights(*c, axis);
            return {m.insert_literal(pos, q.values), q.scale};
        }
        auto [qw, s] = quantize_input(pos, w);
        return {qw, {s}};
    }

    void rewrite(instruction_ref ins)
    {
        auto x = ins->inputs()[0], w = ins->inputs()[1];
        if(not is_float(x) or not is_float(w) or not is_float(ins))
            return;
        bool conv          = ins->name() == "convolution";
        const auto& olens  = ins->get_shape().lens();
        std::size_t w_axis = conv ? 0 : w->get_shape().lens().size() - 1;
        std::size_t o_axis = conv ? 1 : olens.size() - 1;
        auto [qx, sx]      = quantize_input(ins, x);
        auto [qw, sw]      = quantize_weight(ins, w, w_axis);
        auto qop = conv ? make_op("quant_convolution", ins->get_operator().to_value()) : make_op("quant_dot");
        auto acc = m.insert_instruction(ins, qop, {qx, qw});
        std::vector<float> so;
        for(auto s : sw)
            so.push_back(sx * s);
        instruction_ref scale;
        if(so.size() == 1)
            scale = scalar_like(ins, literal{shape{shape::float_type, {1}}, so}, olens);
        else
        {
            auto c = m.insert_literal(ins, literal{shape{shape::float_type, {so.size()}}, so});
            scale  = m.insert_instruction(ins, make_op("broadcast", {{"axis", o_axis}, {"out_lens", olens}}), {c});
        }
        m.replace_instruction(ins, make_op("dequantizelinear"), {acc, scale});
    }
};

bool selected(instruction_ref ins, const std::vector<std::string>& names)
{
    auto n = ins->name();
    if(n != "convolution" and n != "dot")
        return false;
    if(std::find(names.begin(), names.end(), n) == names.end())
        return false;
    auto x = ins->inputs()[0], w = ins->inputs()[1];
    return is_float(x) and is_float(w) and is_float(ins);
}

} // namespace

void quantize_int8(program& prog,
                   const target& t,
                   const std::vector<parameter_map>& calibration,
                   const std::vector<std::string>& ins_names)
{
    if(prog.is_compiled())
        MIGRAPHX_THROW("quantize_int8: the program is already compiled; quantize before compile");
    for(const auto& n : ins_names)
        if(n != "convolution" and n != "dot")
            MIGRAPHX_THROW("quantize_int8: cannot quantize '" + n + "' (only convolution and dot)");
    check_calibration(prog, calibration);
    auto* m = prog.get_main_module();
    std::vector<instruction_ref> targets;
    for(auto ins = m->begin(); ins != m->end(); ++ins)
        if(selected(ins, ins_names))
            targets.push_back(ins);
    if(targets.empty())
        return;

    // The activations to calibrate: non-constant float inputs, each once.
    std::vector<instruction_ref> watched;
    std::unordered_map<const instruction*, bool> seen;
    for(auto ins : targets)
        for(auto x : ins->inputs())
            if(not seen[&*x] and not eval_constant(x))
            {
                seen[&*x] = true;
                watched.push_back(x);
            }

    int8_rewriter r{*m, {}};
    if(calibration.empty())
        std::cerr << "migraphx: warning: quantize_int8 has no calibration data; using the default range "
                     "[-127, 127] (scale 1) for every quantized input, which may lose much accuracy\n";
    else if(not watched.empty())
    {
        auto ranges = calibrate_abs_max(prog, t, calibration, watched);
        for(std::size_t i = 0; i < watched.size(); i++)
            r.abs_max[&*watched[i]] = ranges[i];
    }
    for(auto ins : targets)
        r.rewrite(ins);
    dead_code_elimination{}.apply(*m);
}

} // namespace migraphx
