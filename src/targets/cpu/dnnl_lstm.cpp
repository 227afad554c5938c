#include "targets/cpu/dnnl_lstm.hpp"
#include "ir/env.hpp"
#include "ops/rnn_common.hpp"
#include "targets/cpu/omp_region.hpp"
#include "passes/constant_values.hpp"
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

// oneDNN's gate k is ONNX's gate onnx_gate[k] (i f c o from i o f c); its peephole k (i f o) is
// ONNX's onnx_peephole[k] (P is i o f).
constexpr std::array<std::size_t, 4> onnx_gate{0, 2, 3, 1};
constexpr std::array<std::size_t, 3> onnx_peephole{0, 2, 1};

bool present(const std::vector<shape>& inputs, std::size_t i) { return op::rnn_detail::present(inputs, i); }

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

/// ONNX's {D, 4H, cols} gate blocks reordered into oneDNN's gate order (still ldgoi).
std::vector<float> gates_reordered(const float* w, std::int64_t D, std::int64_t H, std::int64_t cols)
{
    std::vector<float> r(static_cast<std::size_t>(D * 4 * H * cols));
    auto block = static_cast<std::size_t>(H * cols);
    for(std::int64_t d = 0; d < D; d++)
        for(std::size_t g = 0; g < 4; g++)
            std::memcpy(r.data() + (static_cast<std::size_t>(d) * 4 + g) * block,
                        w + (static_cast<std::size_t>(d) * 4 + onnx_gate[g]) * block,
                        block * sizeof(float));
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

/// A step's recurrent product is small in most LSTMs (1 x 128 x 512 in the zoo's: 5 us on one
/// thread, 10 on two, which meet at every step): those run on one thread (0: all).
int threads_for(const sizes& s) { return s.N * 4 * s.H * s.H < single_thread_macs ? 1 : 0; }

} // namespace

shape dnnl_lstm::compute_shape(const std::vector<shape>& inputs) const
{
    auto s = op::rnn_detail::rnn_shape(inputs, hidden_size, 4, true, direction, name());
    if(inputs[0].type() != shape::float_type)
        MIGRAPHX_THROW(name() + ": X must be float");
    for(std::size_t i : {0, 5, 6})
        if(present(inputs, i) and not inputs[i].standard())
            MIGRAPHX_THROW(name() + ": input " + std::to_string(i) + " must be standard (packed)");
    return s;
}

// Each direction d is its own primitive over {T, N, .} tensors: X; initial and final states at
// d * N * H in their {D, N, H} buffers; Y's direction-d rows (every D-th block of N * H).
dnnl::lstm_forward::primitive_desc
dnnl_lstm::make_pd(const dnnl_context& c, const std::vector<shape>& inputs, std::size_t d) const
{
    auto dirs  = op::rnn_detail::direction_count(direction, name());
    auto s     = sizes_of(inputs, hidden_size, dirs);
    bool state = present(inputs, 5) or present(inputs, 6);
    bool back  = direction == "reverse" or d == 1;
    dnnl::memory::desc iter{dims{1, 1, s.N, s.H}, f32, tag::ldnc};
    dnnl::memory::desc none;
    dnnl::memory::desc y{dims{s.T, s.N, s.H}, f32, dims{s.D * s.N * s.H, s.H, 1}};
    dnnl::lstm_forward::desc desc{dnnl::prop_kind::forward_inference,
                                  back ? dnnl::rnn_direction::unidirectional_right2left
                                       : dnnl::rnn_direction::unidirectional_left2right,
                                  {dims{s.T, s.N, s.I}, f32, tag::tnc},
                                  state ? iter : none,
                                  state ? iter : none,
                                  {dims{1, 1, s.I, 4, s.H}, f32, tag::any},
                                  {dims{1, 1, s.H, 4, s.H}, f32, tag::any},
                                  present(inputs, 7) ? dnnl::memory::desc{dims{1, 1, 3, s.H}, f32, tag::ldgo} : none,
                                  none, // no projection
                                  {dims{1, 1, 4, s.H}, f32, tag::ldgo},
                                  y,
                                  iter,
                                  iter};
    thread_limit limit{threads_for(s)}; // oneDNN splits the work for the threads it sees now
    return {desc, user_scratchpad(), *c.engine};
}

std::shared_ptr<dnnl_lstm::prim_cache> dnnl_lstm::make_cache(context& ctx, const std::vector<shape>& inputs) const
{
    auto r    = std::make_shared<prim_cache>();
    r->inputs = inputs;
    auto dirs = op::rnn_detail::direction_count(direction, name());
    for(std::size_t d = 0; d < dirs; d++)
    {
        auto pd = make_pd(get_dnnl_context(ctx), inputs, d);
        r->parts.push_back({pd, dnnl::lstm_forward{pd}});
    }
    return r;
}

std::string dnnl_lstm::impl(context& ctx, const std::vector<shape>& inputs) const
{
    return make_pd(get_dnnl_context(ctx), inputs, 0).impl_info_str();
}

void dnnl_lstm::finalize(context& ctx, const shape&, const std::vector<shape>& inputs)
{
    cache = make_cache(ctx, inputs);
}

std::vector<dnnl_lstm::packed_weights>
dnnl_lstm::pack(const dnnl_context& c, const prim_cache& pc, const std::vector<argument>& args) const
{
    std::vector<shape> inputs;
    for(const auto& a : args)
        inputs.push_back(a.get_shape());
    auto s  = sizes_of(inputs, hidden_size, pc.parts.size());
    auto H  = static_cast<std::size_t>(s.H);
    auto gh = 4 * H;
    // W, R, B and P as floats in their standard order (a non-standard view is copied first).
    auto w = gates_reordered(args[1].to_vector<float>().data(), s.D, s.H, s.I);
    auto r = gates_reordered(args[2].to_vector<float>().data(), s.D, s.H, s.H);
    auto b = present(inputs, 3) ? args[3].to_vector<float>() : std::vector<float>(s.D * 2 * gh, 0.0f);
    auto p = present(inputs, 7) ? args[7].to_vector<float>() : std::vector<float>{};
    auto packed = [&](const float* from, std::int64_t cols, const dnnl::memory::desc& want) {
        argument a{shape{shape::int8_type, {want.get_size()}}};
        run_reorder(make_memory({dims{1, 1, cols, 4, s.H}, f32, tag::ldgoi}, c, from), make_memory(want, c, a.data()), c);
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
        // oneDNN adds one bias: ONNX's Wb + Rb.
        std::vector<float> bias(gh);
        for(std::size_t g = 0; g < 4; g++)
            for(std::size_t j = 0; j < H; j++)
            {
                auto from         = d * 2 * gh + onnx_gate[g] * H + j;
                bias[g * H + j] = b[from] + b[from + gh];
            }
        pw.bias = floats(bias);
        if(not p.empty())
        {
            std::vector<float> q(3 * H);
            for(std::size_t g = 0; g < 3; g++)
                std::copy_n(p.begin() + static_cast<std::ptrdiff_t>((d * 3 + onnx_peephole[g]) * H), H,
                            q.begin() + static_cast<std::ptrdiff_t>(g * H));
            pw.peephole = floats(q);
        }
        result.push_back(std::move(pw));
    }
    return result;
}

argument dnnl_lstm::compute(context& ctx, const shape& out, const std::vector<argument>& args) const
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
    const auto& subs = out.sub_shapes();
    argument y = uninitialized(subs[0]), yh = uninitialized(subs[1]), yc = uninitialized(subs[2]);
    auto s     = sizes_of(inputs, hidden_size, pc->parts.size());
    auto block = static_cast<std::size_t>(s.N * s.H) * sizeof(float); // one direction's state
    argument zeros; // an initial state given without the other
    if(present(inputs, 5) != present(inputs, 6))
        zeros = argument{subs[1]};
    auto run = [&](std::size_t d) {
        const auto& pd = pc->parts[d].pd;
        std::unordered_map<int, dnnl::memory> m{
            {DNNL_ARG_SRC_LAYER, make_memory(pd.src_layer_desc(), c, args[0].data())},
            {DNNL_ARG_WEIGHTS_LAYER, make_memory(pd.weights_layer_desc(), c, w[d].layer.data())},
            {DNNL_ARG_WEIGHTS_ITER, make_memory(pd.weights_iter_desc(), c, w[d].iter.data())},
            {DNNL_ARG_BIAS, make_memory(pd.bias_desc(), c, w[d].bias.data())},
            {DNNL_ARG_DST_LAYER, make_memory(pd.dst_layer_desc(), c, y.data() + d * block)},
            {DNNL_ARG_DST_ITER, make_memory(pd.dst_iter_desc(), c, yh.data() + d * block)},
            {DNNL_ARG_DST_ITER_C, make_memory(pd.dst_iter_c_desc(), c, yc.data() + d * block)}};
        if(present(inputs, 7))
            m[DNNL_ARG_WEIGHTS_PEEPHOLE] = make_memory(pd.weights_peephole_desc(), c, w[d].peephole.data());
        if(present(inputs, 5) or present(inputs, 6))
        {
            const char* h0 = present(inputs, 5) ? args[5].data() : zeros.data();
            const char* c0 = present(inputs, 6) ? args[6].data() : zeros.data();
            m[DNNL_ARG_SRC_ITER]   = make_memory(pd.src_iter_desc(), c, h0 + d * block);
            m[DNNL_ARG_SRC_ITER_C] = make_memory(pd.src_iter_c_desc(), c, c0 + d * block);
        }
        thread_limit limit{threads_for(s)};
        run_primitive(pc->parts[d].prim, pd, c, std::move(m));
    };
    // The two directions of a small LSTM at once, one a thread (each its own stream and
    // scratchpad: dnnl_context.hpp).
    bool both = pc->parts.size() == 2 and threads_for(s) == 1 and c.threads > 1;
    omp_region(both, 2, [&] {
#pragma omp for schedule(static)
        for(std::size_t d = 0; d < pc->parts.size(); d++)
            run(d);
    });
    return argument{std::vector<argument>{y, yh, yc}};
}

std::optional<dnnl_lstm> plain_dnnl_lstm(instruction_ref ins)
{
    if(ins->name() != "lstm" or env_enabled("MIGRAPHX_DISABLE_DNNL_LSTM"))
        return std::nullopt;
    const auto& in = ins->inputs();
    for(auto x : in)
        if(x->get_shape().dynamic())
            return std::nullopt;
    if(in[0]->get_shape().type() != shape::float_type)
        return std::nullopt;
    auto v = ins->get_operator().to_value();
    if(v.at("clip").to<float>() != 0 or v.at("input_forget").to<std::int64_t>() != 0)
        return std::nullopt;
    dnnl_lstm op;
    op.hidden_size = v.at("hidden_size").to<std::size_t>();
    op.direction   = v.at("direction").get_string();
    auto dirs      = op::rnn_detail::direction_count(op.direction, "lstm");
    auto acts = op::rnn_detail::activations(v.at("actv_funcs").to_vector<std::string>(), {"sigmoid", "tanh", "tanh"},
                                            dirs, "lstm");
    for(std::size_t i = 0; i < acts.size(); i++)
        if(acts[i].fname != (i % 3 == 0 ? "sigmoid" : "tanh"))
            return std::nullopt;
    if(in.size() > 4 and in[4]->get_shape().elements() > 0)
    {
        // oneDNN runs every row to the end: only the full length is taken.
        auto lens = pass_utils::constant_value(in[4]);
        if(not lens)
            return std::nullopt;
        auto seq = in[0]->get_shape().lens()[0];
        for(auto l : lens->to_vector<std::int64_t>())
            if(static_cast<std::size_t>(l) != seq)
                return std::nullopt;
    }
    if(not std::all_of(ins->outputs().begin(), ins->outputs().end(),
                       [](instruction_ref u) { return u->name() == "get_tuple_elem"; }))
        return std::nullopt;
    op.constant_weights = true;
    for(std::size_t i : {1, 2, 3, 7})
        if(i < in.size() and not in[i]->can_eval())
            op.constant_weights = false;
    return op;
}

MIGRAPHX_REGISTER_OP(dnnl_lstm)

} // namespace cpu
} // namespace migraphx
