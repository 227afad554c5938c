#include "targets/cpu/lower_dnnl_int8.hpp"
#include "passes/constant_values.hpp"
#include "passes/pass_utils.hpp"
#include "targets/cpu/dnnl_quant_ops.hpp"
#include "targets/cpu/dnnl_ops.hpp"
#include "passes/dead_code_elimination.hpp"
#include <migraphx/make_op.hpp>
#include <migraphx/operation.hpp>
#include <algorithm>
#include <cmath>
#include <optional>

namespace migraphx {
namespace cpu {
namespace {

using pass_utils::along_axis;
using pass_utils::only_user;

std::optional<float> scalar_constant(instruction_ref c) { return pass_utils::uniform_constant(c); }

bool nonnegative_post_ops(const std::vector<std::string>& ops, const std::vector<float>& alpha)
{
    if(ops.empty())
        return false;
    return ops.back() == "relu" ? alpha.back() == 0 : ops.back() == "clip" and alpha.back() >= 0;
}

/// What follows a dequantize and folds into the int8 kernel: a bias along the channel axis, a
/// residual sum (a tensor of the result's shape) and relu/clip, in that order.
struct epilogue
{
    std::optional<std::vector<float>> bias;
    std::optional<instruction_ref> sum;
    std::vector<std::string> post_ops;
    std::vector<float> post_alpha;
    std::vector<float> post_beta;
    instruction_ref last;
};

epilogue grow(instruction_ref d, std::size_t axis, std::size_t k, const shape& out)
{
    epilogue e;
    e.last = d;
    while(true)
    {
        auto u = only_user(e.last);
        if(u == instruction_ref{} or u->get_shape().type() != shape::float_type)
            break;
        if(u->name() == "add")
        {
            auto other = u->inputs()[0] == e.last ? u->inputs()[1] : u->inputs()[0];
            if(other == e.last)
                break;
            if(not e.bias and not e.sum and e.post_ops.empty())
                if((e.bias = along_axis(other, axis, k)))
                {
                    e.last = u;
                    continue;
                }
            if(not e.sum and e.post_ops.empty() and other->get_shape() == out)
            {
                e.sum = other;
                e.post_ops.push_back("sum");
                e.post_alpha.push_back(0);
                e.post_beta.push_back(0);
                e.last = u;
                continue;
            }
            break;
        }
        if(u->name() == "relu")
        {
            e.post_ops.push_back("relu");
            e.post_alpha.push_back(0);
            e.post_beta.push_back(0);
            e.last = u;
            continue;
        }
        if(u->name() == "clip" and u->inputs().size() == 3)
        {
            auto lo = scalar_constant(u->inputs()[1]), hi = scalar_constant(u->inputs()[2]);
            if(not lo or not hi or not(*lo <= *hi))
                break;
            e.post_ops.push_back("clip");
            e.post_alpha.push_back(*lo);
            e.post_beta.push_back(*hi);
            e.last = u;
            continue;
        }
        break;
    }
    return e;
}

/// The dequantize after q (its only user) with its per-channel scales and zero points, or nothing.
struct dequantize
{
    instruction_ref ins;
    std::vector<float> scales;
    std::vector<float> zero_points; // empty: none
};

std::optional<dequantize> find_dequantize(instruction_ref q, std::size_t axis, std::size_t k)
{
    auto d = only_user(q);
    if(d == instruction_ref{} or d->name() != "dequantizelinear" or d->inputs().size() < 2 or d->inputs()[0] != q or
       d->get_shape().type() != shape::float_type)
        return std::nullopt;
    auto scales = along_axis(d->inputs()[1], axis, k);
    if(not scales)
        return std::nullopt;
    dequantize r{d, *scales, {}};
    if(d->inputs().size() == 3)
    {
        auto zp = along_axis(d->inputs()[2], axis, k);
        if(not zp)
            return std::nullopt;
        r.zero_points = *zp;
    }
    return r;
}

/// Makes constant int8 weights exact for oneDNN's kernels where uint8 x int8 pairs saturate
/// (x86 without VNNI). Returns the factor f with new accumulator = f * old accumulator:
/// uint8 data or a matmul: |w| <= 63 (else w' = round(w / 2), f = 1/2);
/// an int8-data convolution (oneDNN halves its weights): even weights (w' = 2w, f = 2) when
/// |w| <= 63, else oneDNN's own halving stays (f = 1, not exact).
double fit_weights(module& m, instruction_ref& w, bool int8_data_conv)
{
    if(not int8_pairs_saturate())
        return 1;
    const auto* data = reinterpret_cast<const std::int8_t*>(w->get_literal().data());
    std::vector<int> v(data, data + w->get_shape().elements()); // standard int8 literal
    int most   = 0;
    for(auto x : v)
        most = std::max(most, std::abs(x));
    double f = 1;
    if(int8_data_conv and most <= 63)
    {
        for(auto& x : v)
            x *= 2;
        f = 2;
    }
    else if(not int8_data_conv and most > 63)
    {
        for(auto& x : v)
            x = static_cast<int>(std::nearbyint(x / 2.0)); // ties to even
        f = 0.5;
    }
    else
        return 1;
    std::vector<std::int8_t> q(v.begin(), v.end());
    w = m.add_literal(literal{w->get_shape(), q});
    return f;
}

/// Final output scales and bias (in accumulator units, oneDNN applies the scales after the
/// bias) for y = s * (acc - zp) + bias when the accumulator becomes f * acc.
void scales_and_bias(const dequantize& dq, const epilogue& e, double f, std::size_t k, std::vector<float>& scales,
                     std::vector<float>& bias, bool& has_bias)
{
    scales.clear();
    for(auto s : dq.scales)
        scales.push_back(static_cast<float>(s / f));
    has_bias = e.bias.has_value() or not dq.zero_points.empty();
    bias.assign(has_bias ? k : 0, 0.0f);
    for(std::size_t i = 0; i < bias.size(); i++)
    {
        double b = 0;
        if(e.bias)
            b += (*e.bias)[i] / scales[i];
        if(not dq.zero_points.empty())
            b -= f * dq.zero_points[i];
        bias[i] = static_cast<float>(b);
    }
    if(std::all_of(scales.begin(), scales.end(), [&](float s) { return s == scales[0]; }))
        scales.resize(1);
}

/// The int8 op (convolution or matmul) with the chain's fused epilogue (post-ops, per-channel
/// scales with the weights' factor f, bias, residual sum) replaces the chain's last instruction.
template <class Op>
void replace_with_int8_op(module& m,
                          Op op,
                          const dequantize& dq,
                          const epilogue& e,
                          double f,
                          std::size_t k,
                          instruction_ref x,
                          instruction_ref w)
{
    op.post_ops   = e.post_ops;
    op.post_alpha = e.post_alpha;
    op.post_beta  = e.post_beta;
    std::vector<float> bias;
    scales_and_bias(dq, e, f, k, op.scales, bias, op.bias);
    std::vector<instruction_ref> in = {x, w};
    if(op.bias)
        in.push_back(m.add_literal(literal{shape{shape::float_type, {k}}, bias}));
    if(e.sum)
    {
        op.sum = true;
        in.push_back(*e.sum);
    }
    m.replace_instruction(e.last, operation{op}, in);
}

void lower_conv(module& m, instruction_ref q)
{
    auto qx = q->inputs()[0], w = q->inputs()[1];
    if(qx->get_shape().lens().size() != 4 or w->name() != "@literal" or w->get_shape().type() != shape::int8_type or
       not w->get_shape().standard())
        return;
    std::size_t k = q->get_shape().lens()[1];
    auto dq       = find_dequantize(q, 1, k);
    if(not dq)
        return;
    auto v = q->get_operator().to_value();
    if(v.at("padding_mode").get_int64() != 0 or v.at("use_dynamic_same_auto_pad").get_bool())
        return;
    dnnl_quant_convolution op;
    op.stride   = v.at("stride").to_vector<std::size_t>();
    op.dilation = v.at("dilation").to_vector<std::size_t>();
    op.group    = v.at("group").get_int64();
    op.padding  = v.at("padding").to_vector<std::size_t>();
    if(op.padding.size() == 2)
        op.padding.insert(op.padding.end(), op.padding.begin(), op.padding.end());
    if(op.padding.size() != 4)
        return;
    auto out = channels_last(shape::float_type, q->get_shape().lens());
    auto e   = grow(dq->ins, 1, k, out);
    double f = fit_weights(m, w, qx->get_shape().type() == shape::int8_type);
    replace_with_int8_op(m, op, *dq, e, f, k, qx, w);
}

void lower_matmul(module& m, instruction_ref q)
{
    auto qa = q->inputs()[0], w = q->inputs()[1];
    const auto& ol = q->get_shape().lens();
    std::size_t k  = ol.back();
    if(w->name() == "multibroadcast") // one matrix for every batch
        w = w->inputs().front();
    if(w->name() != "@literal" or w->get_shape().type() != shape::int8_type or not w->get_shape().standard())
        return;
    const auto& wl = w->get_shape().lens();
    if(w->get_shape().elements() != wl[wl.size() - 2] * wl.back() or ol.size() < 2)
        return; // batched weights
    auto dq = find_dequantize(q, ol.size() - 1, k);
    if(not dq)
        return;
    shape out{shape::float_type, ol};
    auto e   = grow(dq->ins, ol.size() - 1, k, out);
    double f = fit_weights(m, w, false);
    replace_with_int8_op(m, dnnl_quant_matmul{}, *dq, e, f, k, qa, w);
}

/// dequantize(quant_dot(a, b), s) with b not constant (attention): a float product of the
/// integer values is exact while the sums stay below 2^24 (K <= 1040 for int8) and runs on
/// the float kernels: dot(float(a), float(b)) * s.
void lower_runtime_dot(module& m, instruction_ref q)
{
    auto d = only_user(q);
    if(d == instruction_ref{} or d->name() != "dequantizelinear" or d->inputs().size() != 2 or
       d->inputs()[0] != q or d->get_shape().type() != shape::float_type)
        return;
    // operands quantized only for this product: cpu::quantize (standard layout) instead
    auto operand = [&](instruction_ref x) {
        if(x->name() != "quantizelinear" or x->inputs().size() != 3 or x->outputs().size() != 1 or
           x->inputs()[0]->get_shape().type() != shape::float_type or x->get_shape().lens().size() > 4)
            return x;
        auto s  = scalar_constant(x->inputs()[1]);
        auto zp = scalar_constant(x->inputs()[2]);
        if(not s or not zp or *zp != 0 or not(*s > 0))
            return x;
        cpu_quantize op;
        op.scale         = *s;
        op.channels_last = false;
        op.out_type      = x->get_shape().type();
        op.lo            = op.out_type == shape::uint8_type ? 0.0f : -128.0f;
        op.hi            = op.out_type == shape::uint8_type ? 255.0f : 127.0f;
        return m.insert_instruction(q, operation{op}, {x->inputs()[0]});
    };
    auto fa = m.insert_instruction(q, make_op("convert", {{"target_type", shape::float_type}}), {operand(q->inputs()[0])});
    auto fb = m.insert_instruction(q, make_op("convert", {{"target_type", shape::float_type}}), {operand(q->inputs()[1])});
    auto p  = m.insert_instruction(q, make_op("dot"), {fa, fb});
    m.replace_instruction(d, make_op("mul"), {p, d->inputs()[1]});
}

bool reads_as_data(instruction_ref u, instruction_ref x)
{
    if(u->inputs().empty() or u->inputs()[0] != x)
        return false;
    if(u->name() == "dnnl::quant_convolution" or u->name() == "dnnl::quant_matmul")
        return u->inputs()[1] != x;
    if(u->name() == "pooling")
        return u->get_operator().to_value().at("mode").to<std::string>() == "max" and
               u->get_shape().lens().size() == 4;
    return false;
}

/// Where a quantizelinear's result goes: 1 int8 convolutions / max pooling (channels-last),
/// 2 int8 matmuls (standard layout), 0 anything else or a mix.
int consumers(instruction_ref ql)
{
    const auto& outs = ql->outputs();
    if(outs.empty())
        return 0;
    auto kind = [&](instruction_ref u) {
        if(reads_as_data(u, ql))
            return u->name() == "dnnl::quant_matmul" ? 2 : 1;
        return 0;
    };
    int k = kind(outs.front());
    for(auto u : outs)
        if(kind(u) != k)
            return 0;
    return k;
}

void lower_quantize(module& m, instruction_ref ql)
{
    auto type = ql->get_shape().type();
    if((type != shape::int8_type and type != shape::uint8_type) or ql->inputs().size() != 3)
        return;
    int kind = consumers(ql);
    if(kind == 0)
        return;
    auto x = ql->inputs()[0];
    if(x->get_shape().type() != shape::float_type or x->get_shape().lens().size() > 4)
        return;
    auto s  = scalar_constant(ql->inputs()[1]);
    auto zp = scalar_constant(ql->inputs()[2]);
    if(not s or not zp or *zp != 0 or not(*s > 0))
        return;
    bool is_u8       = type == shape::uint8_type;
    const auto* conv = x->get_operator().any_cast<dnnl_quant_convolution>();
    if(kind == 1 and conv != nullptr and conv->out_type == shape::float_type and not conv->sum and
       x->outputs().size() == 1)
    {
        // requantize inside the producer: scales / s, activation bounds in the quantized domain;
        // oneDNN saturates to the output type's range as quantizelinear does
        auto op = *conv;
        for(auto& sc : op.scales)
            sc /= *s;
        for(std::size_t i = 0; i < op.post_ops.size(); i++)
            if(op.post_ops[i] == "clip")
            {
                op.post_alpha[i] /= *s;
                op.post_beta[i] /= *s;
            }
        if(is_u8)
            op.out_type = shape::uint8_type;
        else if(nonnegative_post_ops(op.post_ops, op.post_alpha))
        {
            // int8 semantics (saturate at 127) in a uint8 tensor, the kernels' faster input type
            op.out_type = shape::uint8_type;
            if(op.post_ops.back() == "relu")
            {
                op.post_ops.back()   = "clip";
                op.post_alpha.back() = 0;
                op.post_beta.back()  = 127;
            }
            else
                op.post_beta.back() = std::min(op.post_beta.back(), 127.0f);
        }
        else
            op.out_type = shape::int8_type;
        auto nx = m.insert_instruction(x, operation{op}, x->inputs());
        m.replace_instruction(ql, nx);
        return;
    }
    bool nonneg = x->name() == "relu";
    if(conv != nullptr)
        nonneg = nonnegative_post_ops(conv->post_ops, conv->post_alpha);
    cpu_quantize op;
    op.scale         = *s;
    op.channels_last = kind == 1;
    if(is_u8)
    {
        op.out_type = shape::uint8_type;
        op.lo       = 0;
        op.hi       = 255;
    }
    else
    {
        // int8 values that cannot be negative go in a uint8 tensor (same numbers)
        op.out_type = nonneg and kind == 1 ? shape::uint8_type : shape::int8_type;
        op.lo       = nonneg and kind == 1 ? 0.0f : -128.0f;
        op.hi       = 127.0f;
    }
    auto nq = m.insert_instruction(ql, operation{op}, {x});
    m.replace_instruction(ql, nq);
}

void lower_pooling(module& m, instruction_ref p)
{
    auto x = p->inputs()[0];
    auto t = x->get_shape().type();
    if((t != shape::int8_type and t != shape::uint8_type) or x->get_shape().lens().size() != 4)
        return;
    if(x->name() != "cpu::quantize" and x->name() != "dnnl::quant_convolution" and x->name() != "dnnl::quant_pooling")
        return;
    auto v = p->get_operator().to_value();
    if(v.at("mode").to<std::string>() != "max")
        return;
    dnnl_quant_pooling op;
    const auto& xl = x->get_shape().lens();
    if(v.at("global").get_bool())
    {
        op.lengths = {xl[2], xl[3]};
        op.stride  = {1, 1};
        op.padding = {0, 0, 0, 0};
    }
    else
    {
        op.lengths   = v.at("lengths").to_vector<std::size_t>();
        op.stride    = v.at("stride").to_vector<std::size_t>();
        op.padding   = v.at("padding").to_vector<std::size_t>();
        op.ceil_mode = v.at("ceil_mode").get_bool();
        if(op.padding.size() == 2)
            op.padding.insert(op.padding.end(), op.padding.begin(), op.padding.end());
        if(op.lengths.size() != 2 or op.stride.size() != 2 or op.padding.size() != 4)
            return;
    }
    m.replace_instruction(p, operation{op}, {x});
}

/// Float results are channels-last; users other than the int8 ops read a standard copy (oneDNN's
/// pooling and our pointwise kernels are fast only on that).
void standard_for_others(module& m, instruction_ref conv)
{
    std::vector<instruction_ref> others;
    for(auto u : conv->outputs())
        if(u->name() != "cpu::quantize" and
           not(u->name() == "dnnl::quant_convolution" and u->inputs().back() == conv and u->inputs().front() != conv))
            others.push_back(u);
    if(others.empty())
        return;
    auto r = m.insert_instruction(std::next(conv), operation{dnnl_reorder{}}, {conv});
    for(auto u : others)
    {
        auto in = u->inputs();
        std::replace(in.begin(), in.end(), conv, r);
        m.replace_instruction(u, u->get_operator(), in, u->module_inputs());
    }
}

} // namespace

void lower_dnnl_int8::apply(module& m) const
{
    auto dd = pass_utils::data_dependent(m); // run by the reference ops, at their actual sizes
    for(auto ins = m.begin(); ins != m.end(); ++ins)
        if(dd.count(&*ins) > 0)
            continue;
        else if(ins->name() == "quant_convolution")
            lower_conv(m, ins);
        else if(ins->name() == "quant_dot")
        {
            auto w = ins->inputs()[1];
            if(w->name() == "@literal" or (w->name() == "multibroadcast" and w->inputs().front()->name() == "@literal"))
                lower_matmul(m, ins);
            else
                lower_runtime_dot(m, ins);
        }
    dead_code_elimination{}.apply(m); // the replaced ops still read the quantizelinears
    for(auto ins = m.begin(); ins != m.end(); ++ins)
        if(ins->name() == "quantizelinear")
            lower_quantize(m, ins);
    dead_code_elimination{}.apply(m);
    for(auto ins = m.begin(); ins != m.end(); ++ins)
        if(ins->name() == "pooling")
            lower_pooling(m, ins);
    for(auto ins = m.begin(); ins != m.end(); ++ins)
        if(ins->name() == "dnnl::quant_convolution" and ins->get_shape().type() == shape::float_type)
            standard_for_others(m, ins);
    dead_code_elimination{}.apply(m);
}

} // namespace cpu
} // namespace migraphx
