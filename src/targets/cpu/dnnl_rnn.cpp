#include "targets/cpu/dnnl_rnn.hpp"
#include "ir/env.hpp"
#include "ops/rnn_common.hpp"
#include "targets/cpu/omp_region.hpp"
#include "passes/rewrite_rnn.hpp"
#include <migraphx/register_op.hpp>
#include <algorithm>
#include <array>
#include <cstring>
#include <omp.h>

namespace migraphx {
namespace cpu {

namespace {

using dims = dnnl::memory::dims;
using tag  = dnnl::memory::format_tag;
constexpr auto f32 = dnnl::memory::data_type::f32;

// oneDNN's LSTM gate k is ONNX's gate lstm_gate[k] (i f c o from i o f c); its peephole k (i f o)
// is ONNX's lstm_peephole[k] (P is i o f). GRU (z r h, oneDNN's u r o) and RNN gates keep their order.
constexpr std::array<std::size_t, 4> lstm_gate{0, 2, 3, 1};
constexpr std::array<std::size_t, 3> lstm_peephole{0, 2, 1};

using op::rnn_detail::present;

struct sizes
{
    std::int64_t T, N, I, H, D;
};

sizes sizes_of(const std::vector<shape>& inputs, std::size_t hidden, std::size_t dirs)
{
    const auto& x = inputs[0].lens();
    return {static_cast<std::int64_t>(x[0]), static_cast<std::int64_t>(x[1]), static_cast<std::int64_t>(x[2]),
            static_cast<std::int64_t>(hidden), static_cast<std::int64_t>(dirs)};
}

/// ONNX's gate of oneDNN's gate g.
std::size_t onnx_gate(const std::string& cell, std::size_t g) { return cell == "lstm" ? lstm_gate.at(g) : g; }

/// ONNX's {D, G*H, cols} gate blocks in oneDNN's gate order (still ldgoi).
std::vector<float> gates_reordered(const std::string& cell, const float* w, const sizes& s, std::size_t G, std::int64_t cols)
{
    std::vector<float> r(static_cast<std::size_t>(s.D * s.H * cols) * G);
    auto block = static_cast<std::size_t>(s.H * cols);
    for(std::size_t d = 0; d < static_cast<std::size_t>(s.D); d++)
        for(std::size_t g = 0; g < G; g++)
            std::memcpy(r.data() + (d * G + g) * block, w + (d * G + onnx_gate(cell, g)) * block, block * sizeof(float));
    return r;
}

/// Steps with fewer multiply-adds than this in their recurrent product run on one thread.
constexpr std::int64_t single_thread_macs = std::int64_t{1} << 20;

/// OpenMP's thread count for this thread's next regions (oneDNN's primitives read it when they
/// run) limited to n (0: unchanged) while it lives.
struct thread_limit
{
    int saved = omp_get_max_threads();
    explicit thread_limit(int n)
    {
        if(n > 0)
            omp_set_num_threads(n);
    }
    thread_limit(const thread_limit&) = delete;
    thread_limit& operator=(const thread_limit&) = delete;
    ~thread_limit() { omp_set_num_threads(saved); }
};

/// A step's recurrent product is small in most recurrences (1 x 128 x 512 in the zoo's LSTM: 5 us
/// on one thread, 10 on two, which meet at every step): those run on one thread (0: all).
int threads_for(const sizes& s, std::size_t gates)
{
    return s.N * static_cast<std::int64_t>(gates) * s.H * s.H < single_thread_macs ? 1 : 0;
}

dnnl::algorithm rnn_activation(const std::string& f)
{
    if(f == "relu")
        return dnnl::algorithm::eltwise_relu;
    if(f == "sigmoid")
        return dnnl::algorithm::eltwise_logistic;
    return dnnl::algorithm::eltwise_tanh;
}

} // namespace

std::size_t dnnl_rnn::gates() const { return cell == "lstm" ? 4 : cell == "rnn" ? 1 : 3; }

shape dnnl_rnn::compute_shape(const std::vector<shape>& inputs) const
{
    bool lstm = cell == "lstm";
    if(not lstm and cell != "gru" and cell != "lbr_gru" and cell != "rnn")
        MIGRAPHX_THROW(name() + ": unknown cell '" + cell + "'");
    auto s = op::rnn_detail::rnn_shape(inputs, hidden_size, gates(), lstm, direction, name());
    if(inputs[0].type() != shape::float_type)
        MIGRAPHX_THROW(name() + ": X must be float");
    for(std::size_t i : {0, 5, 6})
        if(present(inputs, i) and not inputs[i].standard())
            MIGRAPHX_THROW(name() + ": input " + std::to_string(i) + " must be standard (packed)");
    if(cell == "rnn" and activations.size() != op::rnn_detail::direction_count(direction, name()))
        MIGRAPHX_THROW(name() + ": an rnn cell needs one activation a direction");
    return s;
}

// Each direction d is its own primitive over {T, N, .} tensors: X; initial and final states at
// d * N * H in their {D, N, H} buffers; Y's direction-d rows (every D-th block of N * H).
dnnl_rnn::part dnnl_rnn::make_part(const dnnl_context& c, const std::vector<shape>& inputs, std::size_t d) const
{
    auto dirs  = op::rnn_detail::direction_count(direction, name());
    auto s     = sizes_of(inputs, hidden_size, dirs);
    auto G     = static_cast<std::int64_t>(gates());
    bool lstm  = cell == "lstm";
    bool state = present(inputs, 5) or (lstm and present(inputs, 6));
    auto dir   = direction == "reverse" or d == 1 ? dnnl::rnn_direction::unidirectional_right2left
                                                  : dnnl::rnn_direction::unidirectional_left2right;
    auto fwd   = dnnl::prop_kind::forward_inference;
    dnnl::memory::desc iter{dims{1, 1, s.N, s.H}, f32, tag::ldnc};
    dnnl::memory::desc none;
    auto src_iter = state ? iter : none;
    dnnl::memory::desc x{dims{s.T, s.N, s.I}, f32, tag::tnc};
    dnnl::memory::desc wl{dims{1, 1, s.I, G, s.H}, f32, tag::any};
    dnnl::memory::desc wi{dims{1, 1, s.H, G, s.H}, f32, tag::any};
    dnnl::memory::desc bias{dims{1, 1, cell == "lbr_gru" ? 4 : G, s.H}, f32, tag::ldgo};
    dnnl::memory::desc y{dims{s.T, s.N, s.H}, f32, dims{s.D * s.N * s.H, s.H, 1}};
    thread_limit limit{threads_for(s, gates())}; // oneDNN splits the work for the threads it sees now
    auto attr = user_scratchpad();
    if(lstm)
    {
        auto peep = present(inputs, 7) ? dnnl::memory::desc{dims{1, 1, 3, s.H}, f32, tag::ldgo} : none;
        dnnl::lstm_forward::primitive_desc pd{
            {fwd, dir, x, src_iter, src_iter, wl, wi, peep, none, bias, y, iter, iter}, attr, *c.engine};
        return {pd, dnnl::lstm_forward{pd}};
    }
    if(cell == "gru")
    {
        dnnl::gru_forward::primitive_desc pd{{fwd, dir, x, src_iter, wl, wi, bias, y, iter}, attr, *c.engine};
        return {pd, dnnl::gru_forward{pd}};
    }
    if(cell == "lbr_gru")
    {
        dnnl::lbr_gru_forward::primitive_desc pd{{fwd, dir, x, src_iter, wl, wi, bias, y, iter}, attr, *c.engine};
        return {pd, dnnl::lbr_gru_forward{pd}};
    }
    dnnl::vanilla_rnn_forward::primitive_desc pd{
        {fwd, rnn_activation(activations.at(d)), dir, x, src_iter, wl, wi, bias, y, iter}, attr, *c.engine};
    return {pd, dnnl::vanilla_rnn_forward{pd}};
}

std::shared_ptr<dnnl_rnn::prim_cache> dnnl_rnn::make_cache(context& ctx, const std::vector<shape>& inputs) const
{
    auto r    = std::make_shared<prim_cache>();
    r->inputs = inputs;
    auto dirs = op::rnn_detail::direction_count(direction, name());
    for(std::size_t d = 0; d < dirs; d++)
        r->parts.push_back(make_part(get_dnnl_context(ctx), inputs, d));
    return r;
}

std::string dnnl_rnn::impl(context& ctx, const std::vector<shape>& inputs) const
{
    return make_part(get_dnnl_context(ctx), inputs, 0).pd.impl_info_str();
}

void dnnl_rnn::finalize(context& ctx, const shape&, const std::vector<shape>& inputs)
{
    cache = make_cache(ctx, inputs);
}

std::vector<dnnl_rnn::packed_weights>
dnnl_rnn::pack(const dnnl_context& c, const prim_cache& pc, const std::vector<argument>& args) const
{
    std::vector<shape> inputs;
    for(const auto& a : args)
        inputs.push_back(a.get_shape());
    auto s  = sizes_of(inputs, hidden_size, pc.parts.size());
    auto H  = static_cast<std::size_t>(s.H);
    auto G  = gates();
    auto gh = G * H;
    // W, R, B and P as floats in their standard order (a non-standard view is copied first).
    auto w = gates_reordered(cell, args[1].to_vector<float>().data(), s, G, s.I);
    auto r = gates_reordered(cell, args[2].to_vector<float>().data(), s, G, s.H);
    auto b = present(inputs, 3) ? args[3].to_vector<float>() : std::vector<float>(s.D * 2 * gh, 0.0f);
    auto p = cell == "lstm" and present(inputs, 7) ? args[7].to_vector<float>() : std::vector<float>{};
    auto packed = [&](const float* from, std::int64_t cols, const dnnl::memory::desc& want) {
        argument a{shape{shape::int8_type, {want.get_size()}}};
        run_reorder(make_memory({dims{1, 1, cols, static_cast<std::int64_t>(G), s.H}, f32, tag::ldgoi}, c, from),
                    make_memory(want, c, a.data()),
                    c);
        return a;
    };
    auto floats = [](const std::vector<float>& v) {
        argument a{shape{shape::float_type, {v.size()}}};
        std::copy(v.begin(), v.end(), reinterpret_cast<float*>(a.data()));
        return a;
    };
    std::vector<packed_weights> result;
    for(std::size_t d = 0; d < pc.parts.size(); d++)
    {
        const auto& pd = pc.parts[d].pd;
        packed_weights pw;
        pw.layer = packed(w.data() + d * gh * s.I, s.I, pd.weights_layer_desc());
        pw.iter  = packed(r.data() + d * gh * H, s.H, pd.weights_iter_desc());
        // oneDNN adds one bias a gate: ONNX's Wb + Rb. Its linear-before-reset GRU keeps the h
        // gate's two apart (Rb_h goes inside r * (R_h h + Rb_h)): a fourth gate.
        const float* wb = b.data() + d * 2 * gh;
        const float* rb = wb + gh;
        std::vector<float> bias(cell == "lbr_gru" ? 4 * H : gh);
        for(std::size_t g = 0; g < G; g++)
            for(std::size_t j = 0; j < H; j++)
            {
                auto k          = onnx_gate(cell, g) * H + j;
                bool apart      = cell == "lbr_gru" and g == 2;
                bias[g * H + j] = wb[k] + (apart ? 0.0f : rb[k]);
                if(apart)
                    bias[3 * H + j] = rb[k];
            }
        pw.bias = floats(bias);
        if(not p.empty())
        {
            std::vector<float> q(3 * H);
            for(std::size_t g = 0; g < 3; g++)
                std::copy_n(p.begin() + static_cast<std::ptrdiff_t>((d * 3 + lstm_peephole[g]) * H), H,
                            q.begin() + static_cast<std::ptrdiff_t>(g * H));
            pw.peephole = floats(q);
        }
        result.push_back(std::move(pw));
    }
    return result;
}

argument dnnl_rnn::compute(context& ctx, const shape& out, const std::vector<argument>& args) const
{
    auto& c = get_dnnl_context(ctx);
    auto pc = cache_for(*this, ctx, out, args);
    std::vector<packed_weights> w;
    if(constant_weights)
    {
        std::lock_guard<std::mutex> lock(pc->m);
        if(pc->packed_from != args[1].data())
        {
            pc->packed      = pack(c, *pc, args);
            pc->packed_from = args[1].data();
        }
        w = pc->packed;
    }
    else
        w = pack(c, *pc, args);

    std::vector<shape> inputs;
    for(const auto& a : args)
        inputs.push_back(a.get_shape());
    bool lstm = cell == "lstm";
    std::vector<argument> results;
    for(const auto& sub : out.sub_shapes())
        results.push_back(uninitialized(sub));
    auto s      = sizes_of(inputs, hidden_size, pc->parts.size());
    auto block  = static_cast<std::size_t>(s.N * s.H) * sizeof(float); // one direction's state
    bool has_h0 = present(inputs, 5), has_c0 = lstm and present(inputs, 6);
    argument zeros; // an LSTM's initial state given without the other
    if(has_h0 != has_c0 and lstm)
        zeros = argument{out.sub_shapes()[1]};
    auto run = [&](std::size_t d) {
        const auto& pd = pc->parts[d].pd;
        std::unordered_map<int, dnnl::memory> m{
            {DNNL_ARG_SRC_LAYER, make_memory(pd.src_layer_desc(), c, args[0].data())},
            {DNNL_ARG_WEIGHTS_LAYER, make_memory(pd.weights_layer_desc(), c, w[d].layer.data())},
            {DNNL_ARG_WEIGHTS_ITER, make_memory(pd.weights_iter_desc(), c, w[d].iter.data())},
            {DNNL_ARG_BIAS, make_memory(pd.bias_desc(), c, w[d].bias.data())},
            {DNNL_ARG_DST_LAYER, make_memory(pd.dst_layer_desc(), c, results[0].data() + d * block)},
            {DNNL_ARG_DST_ITER, make_memory(pd.dst_iter_desc(), c, results[1].data() + d * block)}};
        if(lstm)
            m[DNNL_ARG_DST_ITER_C] = make_memory(pd.dst_iter_c_desc(), c, results[2].data() + d * block);
        if(lstm and present(inputs, 7))
            m[DNNL_ARG_WEIGHTS_PEEPHOLE] = make_memory(pd.weights_peephole_desc(), c, w[d].peephole.data());
        if(has_h0 or has_c0)
        {
            const char* h0  = has_h0 ? args[5].data() : zeros.data();
            m[DNNL_ARG_SRC_ITER] = make_memory(pd.src_iter_desc(), c, h0 + d * block);
            if(lstm)
            {
                const char* c0         = has_c0 ? args[6].data() : zeros.data();
                m[DNNL_ARG_SRC_ITER_C] = make_memory(pd.src_iter_c_desc(), c, c0 + d * block);
            }
        }
        thread_limit limit{threads_for(s, gates())};
        run_primitive(pc->parts[d].prim, pd, c, std::move(m));
    };
    // The two directions of a small recurrence at once, one a thread (each its own stream and
    // scratchpad: dnnl_context.hpp).
    bool both = pc->parts.size() == 2 and threads_for(s, gates()) == 1 and c.threads > 1;
    omp_region(both, 2, [&] {
#pragma omp for schedule(static)
        for(std::size_t d = 0; d < pc->parts.size(); d++)
            run(d);
    });
    return argument{results};
}

std::optional<dnnl_rnn> plain_dnnl_rnn(instruction_ref ins)
{
    const auto& n = ins->name();
    if((n != "lstm" and n != "gru" and n != "rnn") or env_enabled("MIGRAPHX_DISABLE_DNNL_RNN"))
        return std::nullopt;
    const auto& in = ins->inputs();
    for(auto x : in)
        if(x->get_shape().dynamic())
            return std::nullopt;
    if(in[0]->get_shape().type() != shape::float_type)
        return std::nullopt;
    auto v = ins->get_operator().to_value();
    if(v.at("clip").to<float>() != 0)
        return std::nullopt;
    dnnl_rnn op;
    op.cell        = n;
    op.hidden_size = v.at("hidden_size").to<std::size_t>();
    op.direction   = v.at("direction").get_string();
    auto dirs      = op::rnn_detail::direction_count(op.direction, n);
    std::vector<std::string> dflt{"tanh"};
    if(n == "lstm")
    {
        if(v.at("input_forget").to<std::int64_t>() != 0)
            return std::nullopt;
        dflt = {"sigmoid", "tanh", "tanh"};
    }
    if(n == "gru")
    {
        dflt    = {"sigmoid", "tanh"};
        op.cell = v.at("linear_before_reset").to<std::int64_t>() != 0 ? "lbr_gru" : "gru";
    }
    auto acts = op::rnn_detail::activations(v.at("actv_funcs").to_vector<std::string>(), dflt, dirs, n);
    for(std::size_t i = 0; i < acts.size(); i++)
    {
        const auto& f = acts[i].fname;
        if(n == "rnn" and (f == "tanh" or f == "relu" or f == "sigmoid"))
            op.activations.push_back(f);
        else if(f != dflt[i % dflt.size()])
            return std::nullopt;
    }
    // oneDNN runs every row to the end: only the full length is taken.
    auto lens = constant_sequence_lengths(ins);
    auto seq  = in[0]->get_shape().lens()[0];
    if(not lens or not read_by_elements(ins) or
       std::any_of(lens->begin(), lens->end(), [&](auto l) { return static_cast<std::size_t>(l) != seq; }))
        return std::nullopt;
    op.constant_weights = true;
    for(std::size_t i : {1, 2, 3, 7})
        if(i < in.size() and not in[i]->can_eval())
            op.constant_weights = false;
    return op;
}

MIGRAPHX_REGISTER_OP(dnnl_rnn)

} // namespace cpu
} // namespace migraphx
