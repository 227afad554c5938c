#include "targets/cpu/lower_dnnl.hpp"
#include "targets/cpu/dnnl_rnn.hpp"
#include "ops/convolution_pads.hpp"
#include "passes/pass_utils.hpp"
#include "targets/cpu/dnnl_ops.hpp"
#include "targets/cpu/lower_gemm.hpp"
#include <migraphx/make_op.hpp>
#include <migraphx/operation.hpp>
#include <algorithm>
#include <cmath>
#include <optional>

namespace migraphx {
namespace cpu {
namespace {

bool is_float(instruction_ref x) { return x->get_shape().type() == shape::float_type and not x->get_shape().dynamic(); }

instruction_ref only_user(instruction_ref x)
{
    return x->outputs().size() == 1 ? x->outputs().front() : instruction_ref{};
}

/// The literal behind a chain of broadcast views, or nothing.
std::optional<literal> constant_of(instruction_ref x)
{
    while(x->name() == "broadcast" or x->name() == "multibroadcast")
        x = x->inputs().front();
    if(x->name() != "@literal")
        return std::nullopt;
    return x->get_literal();
}

/// The other operand of a binary op, given one.
instruction_ref other_input(instruction_ref bin, instruction_ref one)
{
    const auto& in = bin->inputs();
    return in[0] == one ? in[1] : in[0];
}

/// The per-element constant of a broadcast view that varies only along axis (a bias), as floats.
std::optional<std::vector<float>> bias_along(instruction_ref c, std::size_t axis)
{
    const auto& s = c->get_shape();
    for(std::size_t i = 0; i < s.lens().size(); i++)
        if(i != axis and s.lens()[i] != 1 and s.strides()[i] != 0)
            return std::nullopt;
    auto lit = constant_of(c);
    if(not lit or lit->get_shape().elements() != s.lens()[axis])
        return std::nullopt;
    return lit->to_vector<float>();
}

struct post_op
{
    std::string algo;
    float alpha = 0, beta = 0;
};

/// The oneDNN eltwise post-op an instruction amounts to, if any.
std::optional<post_op> eltwise_of(instruction_ref u)
{
    auto n = u->name();
    if(n == "relu")
        return post_op{"relu"};
    if(n == "sigmoid")
        return post_op{"logistic"};
    if(n == "tanh")
        return post_op{"tanh"};
    if(n == "hardswish")
        return post_op{"hardswish"};
    if(n == "leaky_relu")
        return post_op{"relu", static_cast<float>(u->get_operator().to_value().at("alpha").get_float())};
    if(n == "clip")
    {
        auto lo = constant_of(u->inputs()[1]);
        auto hi = constant_of(u->inputs()[2]);
        if(not lo or not hi or lo->get_shape().elements() != 1 or hi->get_shape().elements() != 1)
            return std::nullopt;
        float l = lo->to_vector<float>()[0], h = hi->to_vector<float>()[0];
        if(not(l <= h)) // oneDNN rejects an empty range (and NaN bounds); the reference op decides
            return std::nullopt;
        return post_op{"clip", l, h};
    }
    return std::nullopt;
}

bool is_scalar_constant(instruction_ref x, double value, double tol)
{
    auto c = constant_of(x);
    return c and c->get_shape().elements() == 1 and std::abs(c->to_vector<double>()[0] - value) <= tol;
}

/// The erf form of GELU on x, x * 0.5 * (1 + erf(x / sqrt(2))) as torch exports it (in any order
/// of the two multiplications): the instruction computing it, or nothing.
std::optional<instruction_ref> match_gelu(instruction_ref x)
{
    if(x->outputs().size() != 2)
        return std::nullopt;
    instruction_ref scaled{}, outer{};
    for(auto u : x->outputs())
    {
        if(u->name() == "div" and u->inputs()[0] == x and is_scalar_constant(u->inputs()[1], std::sqrt(2.0), 1e-4))
            scaled = u;
        else if(u->name() == "mul" and u->inputs()[0] == x and is_scalar_constant(u->inputs()[1], M_SQRT1_2, 1e-4))
            scaled = u;
        else if(u->name() == "mul")
            outer = u;
    }
    if(scaled == instruction_ref{} or outer == instruction_ref{} or scaled->outputs().size() != 1)
        return std::nullopt;
    auto e = scaled->outputs().front();
    if(e->name() != "erf" or e->outputs().size() != 1)
        return std::nullopt;
    auto one = e->outputs().front();
    if(one->name() != "add" or one->outputs().size() != 1 or not is_scalar_constant(other_input(one, e), 1.0, 1e-6))
        return std::nullopt;
    // x * (1 + erf) * 0.5, or x * 0.5 first and then * (1 + erf)
    if(other_input(outer, x) == one and outer->outputs().size() == 1)
    {
        auto half = outer->outputs().front();
        if(half->name() == "mul" and is_scalar_constant(other_input(half, outer), 0.5, 1e-6))
            return half;
    }
    if(is_scalar_constant(other_input(outer, x), 0.5, 1e-6) and outer->outputs().size() == 1)
    {
        auto prod = outer->outputs().front();
        if(prod->name() == "mul" and other_input(prod, outer) == one)
            return prod;
    }
    return std::nullopt;
}

/// SiLU / swish on x, x * sigmoid(x) (EfficientNet's activation as torch exports it): the
/// product, or nothing.
std::optional<instruction_ref> match_swish(instruction_ref x)
{
    if(x->outputs().size() != 2)
        return std::nullopt;
    for(auto s : x->outputs())
    {
        if(s->name() != "sigmoid" or s->outputs().size() != 1)
            continue;
        auto prod = s->outputs().front();
        if(prod->name() == "mul" and other_input(prod, s) == x and prod->inputs().size() == 2)
            return prod;
    }
    return std::nullopt;
}

/// Grows a fused op from `root` over its single-user chain: bias (axis), sum, eltwise.
/// Returns the last instruction absorbed; fills bias, sum operand and post-ops.
struct fusion
{
    instruction_ref last;
    std::optional<std::vector<float>> bias;
    std::optional<instruction_ref> sum;
    std::vector<post_op> ops;
};

fusion grow(instruction_ref root, std::size_t bias_axis, bool allow_sum, bool allow_gelu)
{
    fusion f;
    f.last = root;
    while(true)
    {
        auto g = allow_gelu ? match_gelu(f.last) : std::nullopt;
        if(g)
        {
            f.ops.push_back({"gelu_erf"});
            f.last = *g;
            continue;
        }
        if(auto sw = match_swish(f.last))
        {
            f.ops.push_back({"swish", 1.0f});
            f.last = *sw;
            continue;
        }
        auto u = only_user(f.last);
        if(u == instruction_ref{} or not is_float(u))
            break;
        if(u->name() == "add")
        {
            auto other = other_input(u, f.last);
            if(other == f.last)
                break;
            if(not f.bias and not f.sum and f.ops.empty())
            {
                if(auto b = bias_along(other, bias_axis))
                {
                    f.bias = b;
                    f.last = u;
                    continue;
                }
            }
            if(allow_sum and not f.sum and other->get_shape() == u->get_shape() and
               other->get_shape().standard())
            {
                f.sum = other;
                f.ops.push_back({"sum"});
                f.last = u;
                continue;
            }
            break;
        }
        auto e = eltwise_of(u);
        if(not e)
            break;
        f.ops.push_back(*e);
        f.last = u;
    }
    return f;
}

template <class Op>
void set_post_ops(Op& op, const fusion& f)
{
    for(const auto& p : f.ops)
    {
        op.post_ops.push_back(p.algo);
        op.post_alpha.push_back(p.alpha);
        op.post_beta.push_back(p.beta);
    }
    op.bias = f.bias.has_value();
    op.sum  = f.sum.has_value();
}

std::vector<instruction_ref> fused_inputs(module& m, std::vector<instruction_ref> in, const fusion& f)
{
    if(f.bias)
        in.push_back(m.add_literal(literal{shape{shape::float_type, {f.bias->size()}}, *f.bias}));
    if(f.sum)
        in.push_back(*f.sum);
    return in;
}

void lower_convolution(module& m, instruction_ref ins)
{
    auto op = plain_dnnl_convolution(ins);
    if(not op)
        return;
    auto f = grow(ins, 1, true, true);
    set_post_ops(*op, f);
    m.replace_instruction(f.last, operation{*op}, fused_inputs(m, {ins->inputs()[0], ins->inputs()[1]}, f));
}

/// A batch of one-row products by the same matrix, dot({B, 1, K}, broadcast {K, N}) (torch's
/// sequence-first attention input: ViT's [197, 1, 768] times the QKV weights), as one {B, K} x
/// {K, N} product: oneDNN ran it as 197 matrix-vector products, 2.7x the time a multiply-add of
/// the one product. Returns the new product, or ins where the pattern does not hold.
instruction_ref rows_as_one_product(module& m, instruction_ref ins)
{
    auto a = ins->inputs()[0], b = ins->inputs()[1];
    const auto& as = a->get_shape();
    const auto& bs = b->get_shape();
    if(as.lens().size() != 3 or as.lens()[1] != 1 or bs.lens().size() != 3 or bs.strides()[0] != 0 or
       bs.lens()[0] < 2 or b->name() != "multibroadcast")
        return ins;
    auto w = b->inputs().front();
    if(w->get_shape().lens() != std::vector<std::size_t>{bs.lens()[1], bs.lens()[2]})
        return ins;
    auto rows = m.insert_instruction(ins, make_op("squeeze", {{"axes", std::vector<std::int64_t>{1}}}), a);
    auto prod = m.insert_instruction(ins, make_op("dot"), rows, w);
    m.replace_instruction(ins, make_op("unsqueeze", {{"axes", std::vector<std::int64_t>{1}}}), {prod});
    return prod;
}

void lower_dot(module& m, instruction_ref ins)
{
    ins        = rows_as_one_product(m, ins);
    auto plain = plain_dnnl_matmul(ins);
    if(not plain)
        return;
    auto a = ins->inputs()[0], b = ins->inputs()[1];
    auto op = *plain;
    // GELU where cpu::lower_gemm will move the matmul to cpu::gemm, which applies it to each tile
    // in registers, or where oneDNN runs AVX-512 (its brgemm matmul applies it as cheaply: BERT's
    // FFN product 0.231 -> 0.246 ms on a Zen 5); oneDNN 2.6's AVX2 matmul runs it as a slow extra
    // pass (1.15 ms with it, 0.73 without on a Zen 3), slower than cpu::pointwise after it.
    bool gelu = own_gemm_preferred() or dnnl::get_effective_cpu_isa() >= dnnl::cpu_isa::avx512_core;
    auto f    = grow(ins, ins->get_shape().lens().size() - 1, true, gelu);
    set_post_ops(op, f);
    m.replace_instruction(f.last, operation{op}, fused_inputs(m, {a, b}, f));
}

/// An average pool of a zero pad of x's spatial dims (the parser's form of ONNX
/// count_include_pad=1) as oneDNN's pooling of x with that padding, included in the average: the
/// pad was a reference op of its own (~0.2 ms a call in Inception v3). Not where ceil mode's
/// extra windows reach past the pad (oneDNN would count those positions, the pad op does not).
/// Returns x, or the pad itself where it does not fold.
instruction_ref fold_zero_pad(instruction_ref pad, dnnl_pooling& op)
{
    if(pad->name() != "pad" or op.mode != "average" or
       std::any_of(op.padding.begin(), op.padding.end(), [](auto p) { return p != 0; }))
        return pad;
    auto v    = pad->get_operator().to_value();
    auto pads = v.at("pads").to_vector<std::int64_t>();
    auto x    = pad->inputs().front();
    auto r    = x->get_shape().lens().size();
    if(v.at("mode").to<std::int64_t>() != 0 or v.at("value").to<float>() != 0.0f or pads.size() != 2 * r or
       pads[0] != 0 or pads[1] != 0 or pads[r] != 0 or pads[r + 1] != 0 or
       std::any_of(pads.begin(), pads.end(), [](auto p) { return p < 0; }))
        return pad;
    auto kd    = r - 2;
    auto out   = pad->get_shape().lens();
    auto folded = op;
    folded.padding.clear();
    for(std::size_t i = 0; i < kd; i++)
        folded.padding.push_back(static_cast<std::size_t>(pads[i + 2]));
    for(std::size_t i = 0; i < kd; i++)
        folded.padding.push_back(static_cast<std::size_t>(pads[i + 2 + r]));
    // The windows' last positions, as the unpadded op computes them on the padded input.
    const auto& xl = x->get_shape().lens();
    for(std::size_t i = 0; i < kd; i++)
    {
        auto span = out[i + 2] - op.lengths[i];
        auto n    = (op.ceil_mode ? (span + op.stride[i] - 1) / op.stride[i] : span / op.stride[i]) + 1;
        if(op.ceil_mode and n > 1 and (n - 1) * op.stride[i] >= out[i + 2])
            n--;
        if((n - 1) * op.stride[i] + op.lengths[i] > xl[i + 2] + folded.padding[i] + folded.padding[i + kd])
            return pad;
    }
    folded.include_padding = true;
    op                     = folded;
    return x;
}

void lower_pooling(module& m, instruction_ref ins)
{
    auto x = ins->inputs()[0];
    auto v = ins->get_operator().to_value();
    auto mode = v.at("mode").get_string();
    if(mode != "max" and mode != "average")
        return;
    if(not is_float(x) or x->get_shape().lens().size() < 3 or x->get_shape().lens().size() > 5)
        return;
    const auto& xl = x->get_shape().lens();
    auto kd        = xl.size() - 2;
    dnnl_pooling op;
    op.mode = mode;
    if(v.at("global").get_bool())
    {
        op.lengths.assign(xl.begin() + 2, xl.end());
        op.stride.assign(kd, 1);
        op.padding.assign(2 * kd, 0);
    }
    else
    {
        op.lengths   = v.at("lengths").to_vector<std::size_t>();
        op.stride    = v.at("stride").to_vector<std::size_t>();
        op.padding   = v.at("padding").to_vector<std::size_t>();
        op.ceil_mode = v.at("ceil_mode").get_bool();
        if(op.padding.size() == kd)
            op.padding.insert(op.padding.end(), op.padding.begin(), op.padding.end());
        x = fold_zero_pad(x, op);
    }
    m.replace_instruction(ins, operation{op}, {x});
}

/// oneDNN's reorder takes any strides but zero (a broadcast); cpu::pointwise copies those.
bool dnnl_copyable(const shape& s)
{
    if(s.lens().empty())
        return false;
    for(std::size_t i = 0; i < s.lens().size(); i++)
        if(s.lens()[i] > 1 and s.strides()[i] == 0)
            return false;
    return true;
}

} // namespace

std::optional<dnnl_convolution> plain_dnnl_convolution(instruction_ref ins)
{
    auto v = ins->get_operator().to_value();
    if(v.at("use_dynamic_same_auto_pad").get_bool())
        return std::nullopt;
    auto x = ins->inputs()[0], w = ins->inputs()[1];
    if(not is_float(x) or not is_float(w))
        return std::nullopt;
    dnnl_convolution op;
    op.stride   = v.at("stride").to_vector<std::size_t>();
    op.dilation = v.at("dilation").to_vector<std::size_t>();
    op.group    = v.at("group").get_int64();
    op.padding  = convolution_pads(v.at("padding").to_vector<std::size_t>(),
                                  v.at("padding_mode").get_int64(),
                                  op.stride,
                                  op.dilation,
                                  x->get_shape().lens(),
                                  w->get_shape().lens());
    return op;
}

std::optional<dnnl_deconvolution> plain_dnnl_deconvolution(instruction_ref ins)
{
    auto v = ins->get_operator().to_value();
    auto x = ins->inputs()[0], w = ins->inputs()[1];
    auto rank = x->get_shape().lens().size();
    if(v.at("padding_mode").get_int64() != 0 or not is_float(x) or not is_float(w) or rank < 3 or rank > 5)
        return std::nullopt;
    auto kd = rank - 2;
    dnnl_deconvolution op;
    op.stride   = v.at("stride").to_vector<std::size_t>();
    op.dilation = v.at("dilation").to_vector<std::size_t>();
    op.group    = v.at("group").get_int64();
    op.padding  = v.at("padding").to_vector<std::size_t>();
    op.constant_weights = w->can_eval();
    if(op.padding.size() == kd)
        op.padding.insert(op.padding.end(), op.padding.begin(), op.padding.end());
    return op;
}

std::optional<dnnl_matmul> plain_dnnl_matmul(instruction_ref ins)
{
    auto a = ins->inputs()[0], b = ins->inputs()[1];
    if(not is_float(a) or not is_float(b) or a->get_shape().lens().size() < 2)
        return std::nullopt;
    if(a->get_shape().elements() == 0 or b->get_shape().elements() == 0)
        return std::nullopt; // oneDNN leaves the result unwritten when K is 0
    return dnnl_matmul{};
}

/// An lstm, gru or rnn oneDNN computes becomes cpu::rnn, its X and initial states made standard.
void lower_rnn(module& m, instruction_ref ins)
{
    auto op = plain_dnnl_rnn(ins);
    if(not op)
        return;
    auto args = ins->inputs();
    for(std::size_t i : {0, 5, 6})
        if(i < args.size() and not args[i]->get_shape().standard())
            args[i] = m.insert_instruction(ins, make_op("contiguous"), {args[i]});
    m.replace_instruction(ins, operation{*op}, args);
}

void lower_dnnl::apply(module& m) const
{
    auto dd = pass_utils::data_dependent(m); // run by the reference ops, at their actual sizes
    for(auto ins = m.begin(); ins != m.end(); ++ins)
    {
        if(dd.count(&*ins) > 0)
            continue;
        if(ins->name() == "convolution")
            lower_convolution(m, ins);
        else if(ins->name() == "dot")
            lower_dot(m, ins);
        else if(ins->name() == "pooling")
            lower_pooling(m, ins);
        else if(ins->name() == "convolution_backwards")
        {
            if(auto op = plain_dnnl_deconvolution(ins))
                m.replace_instruction(ins, operation{*op}, ins->inputs());
        }
        else if(ins->name() == "lstm" or ins->name() == "gru" or ins->name() == "rnn")
            lower_rnn(m, ins);
        else if(ins->name() == "contiguous" and is_float(ins) and dnnl_copyable(ins->inputs().front()->get_shape()))
            m.replace_instruction(ins, operation{dnnl_reorder{}}, ins->inputs());
    }
}

} // namespace cpu
} // namespace migraphx
