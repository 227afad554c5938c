#include "targets/cpu/lower_dnnl_int8.hpp"
#include "targets/cpu/dnnl_quant_ops.hpp"
#include "targets/cpu/dnnl_ops.hpp"
#include "passes/dead_code_elimination.hpp"
#include <migraphx/operation.hpp>
#include <algorithm>
#include <cmath>
#include <optional>

namespace migraphx {
namespace cpu {
namespace {

instruction_ref only_user(instruction_ref x)
{
    return x->outputs().size() == 1 ? x->outputs().front() : instruction_ref{};
}

/// The value of a constant behind view ops (broadcasts, reshapes...), or nothing.
std::optional<argument> constant_value(instruction_ref x)
{
    if(x->name() == "@literal")
        return x->get_literal().get_argument();
    if(x->inputs().size() != 1 or x->get_operator().output_alias({x->inputs()[0]->get_shape()}) != 0)
        return std::nullopt;
    auto in = constant_value(x->inputs()[0]);
    if(not in)
        return std::nullopt;
    return x->get_operator().compute(x->get_shape(), {*in});
}

/// A constant that varies only along axis (or not at all): its n values along the axis.
std::optional<std::vector<float>> along_axis(instruction_ref c, std::size_t axis, std::size_t n)
{
    auto a = constant_value(c);
    if(not a or a->get_shape().lens().size() <= axis or a->get_shape().lens()[axis] != n)
        return std::nullopt;
    const auto& lens = a->get_shape().lens();
    auto v           = a->to_vector<float>();
    std::size_t inner = 1;
    for(std::size_t i = axis + 1; i < lens.size(); i++)
        inner *= lens[i];
    std::vector<float> r(n);
    for(std::size_t k = 0; k < n; k++)
        r[k] = v[k * inner];
    for(std::size_t i = 0; i < v.size(); i++)
        if(v[i] != r[(i / inner) % n])
            return std::nullopt;
    return r;
}

std::optional<float> scalar_constant(instruction_ref c)
{
    auto a = constant_value(c);
    if(not a or a->get_shape().elements() == 0)
        return std::nullopt;
    auto v = a->to_vector<float>();
    if(std::any_of(v.begin(), v.end(), [&](float x) { return x != v[0]; }))
        return std::nullopt;
    return v[0];
}

bool nonnegative_post_ops(const std::vector<std::string>& ops, const std::vector<float>& alpha)
{
    if(ops.empty())
        return false;
    return ops.back() == "relu" ? alpha.back() == 0 : ops.back() == "clip" and alpha.back() >= 0;
}

void lower_conv(module& m, instruction_ref q)
{
    auto qx = q->inputs()[0], w = q->inputs()[1];
    if(qx->get_shape().lens().size() != 4 or w->name() != "@literal")
        return;
    auto d = only_user(q);
    if(d == instruction_ref{} or d->name() != "dequantizelinear" or d->inputs().size() != 2)
        return;
    auto v = q->get_operator().to_value();
    if(v.at("padding_mode").get_int64() != 0 or v.at("use_dynamic_same_auto_pad").get_bool())
        return;
    std::size_t k = q->get_shape().lens()[1];
    auto scales   = along_axis(d->inputs()[1], 1, k);
    if(not scales)
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
    op.scales = *scales;
    auto out  = channels_last(shape::float_type, q->get_shape().lens());
    std::optional<std::vector<float>> bias;
    std::optional<instruction_ref> sum;
    auto last = d;
    while(true)
    {
        auto u = only_user(last);
        if(u == instruction_ref{} or u->get_shape().type() != shape::float_type)
            break;
        if(u->name() == "add")
        {
            auto other = u->inputs()[0] == last ? u->inputs()[1] : u->inputs()[0];
            if(other == last)
                break;
            if(not bias and not sum and op.post_ops.empty())
                if((bias = along_axis(other, 1, k)))
                {
                    last = u;
                    continue;
                }
            if(not sum and op.post_ops.empty() and other->get_shape() == out)
            {
                sum = other;
                op.post_ops.push_back("sum");
                op.post_alpha.push_back(0);
                op.post_beta.push_back(0);
                last = u;
                continue;
            }
            break;
        }
        if(u->name() == "relu")
        {
            op.post_ops.push_back("relu");
            op.post_alpha.push_back(0);
            op.post_beta.push_back(0);
            last = u;
            continue;
        }
        if(u->name() == "clip" and u->inputs().size() == 3)
        {
            auto lo = scalar_constant(u->inputs()[1]), hi = scalar_constant(u->inputs()[2]);
            if(not lo or not hi or not(*lo <= *hi))
                break;
            op.post_ops.push_back("clip");
            op.post_alpha.push_back(*lo);
            op.post_beta.push_back(*hi);
            last = u;
            continue;
        }
        break;
    }
    std::vector<instruction_ref> in = {qx, w};
    if(bias)
    {
        // oneDNN 2.x applies the output scales after adding the bias
        std::vector<float> b(k);
        for(std::size_t i = 0; i < k; i++)
            b[i] = (*bias)[i] / (op.scales.size() == 1 ? op.scales[0] : op.scales[i]);
        op.bias = true;
        in.push_back(m.add_literal(literal{shape{shape::float_type, {k}}, b}));
    }
    if(sum)
    {
        op.sum = true;
        in.push_back(*sum);
    }
    if(op.scales.size() > 1 and std::all_of(op.scales.begin(), op.scales.end(), [&](float s) { return s == op.scales[0]; }))
        op.scales.resize(1);
    m.replace_instruction(last, operation{op}, in);
}

bool feeds_only_quant_convs(instruction_ref ql)
{
    const auto& outs = ql->outputs();
    return not outs.empty() and std::all_of(outs.begin(), outs.end(), [&](auto u) {
        return u->name() == "dnnl::quant_convolution" and u->inputs()[0] == ql and u->inputs()[1] != ql;
    });
}

void lower_quantize(module& m, instruction_ref ql)
{
    if(ql->get_shape().type() != shape::int8_type or ql->inputs().size() != 3 or not feeds_only_quant_convs(ql))
        return;
    auto x = ql->inputs()[0];
    if(x->get_shape().type() != shape::float_type or x->get_shape().lens().size() > 4)
        return;
    auto s  = scalar_constant(ql->inputs()[1]);
    auto zp = scalar_constant(ql->inputs()[2]);
    if(not s or not zp or *zp != 0 or not(*s > 0))
        return;
    const auto* conv = x->get_operator().any_cast<dnnl_quant_convolution>();
    if(conv != nullptr and conv->out_type == shape::float_type and not conv->sum and x->outputs().size() == 1)
    {
        // requantize inside the producer: scales / s, activation bounds in the quantized domain
        auto op = *conv;
        for(auto& sc : op.scales)
            sc /= *s;
        for(std::size_t i = 0; i < op.post_ops.size(); i++)
            if(op.post_ops[i] == "clip")
            {
                op.post_alpha[i] /= *s;
                op.post_beta[i] /= *s;
            }
        if(nonnegative_post_ops(op.post_ops, op.post_alpha))
        {
            // int8 semantics (saturate at 127) in a uint8 tensor, the fast kernel's input type
            op.out_type = shape::uint8_type;
            if(op.post_ops.back() == "relu")
            {
                op.post_ops.back()  = "clip";
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
    op.scale    = *s;
    op.out_type = nonneg ? shape::uint8_type : shape::int8_type;
    op.lo       = nonneg ? 0.0f : -128.0f;
    op.hi       = 127.0f;
    auto nq     = m.insert_instruction(ql, operation{op}, {x});
    m.replace_instruction(ql, nq);
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
    for(auto ins = m.begin(); ins != m.end(); ++ins)
        if(ins->name() == "quant_convolution")
            lower_conv(m, ins);
    dead_code_elimination{}.apply(m); // the replaced quant_convolutions still read the quantizelinears
    for(auto ins = m.begin(); ins != m.end(); ++ins)
        if(ins->name() == "quantizelinear")
            lower_quantize(m, ins);
    dead_code_elimination{}.apply(m);
    for(auto ins = m.begin(); ins != m.end(); ++ins)
        if(ins->name() == "dnnl::quant_convolution" and ins->get_shape().type() == shape::float_type)
            standard_for_others(m, ins);
}

} // namespace cpu
} // namespace migraphx
