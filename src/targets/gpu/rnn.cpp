#include "targets/gpu/rnn.hpp"
#include "targets/gpu/context.hpp"
#include "targets/gpu/cudnn_graph.hpp"
#include "targets/gpu/cudnn_graph_spec.hpp"
#include "targets/gpu/tuning_cache.hpp"
#include "ir/env.hpp"
#include "ops/rnn_common.hpp"
#include "passes/rewrite_rnn.hpp"
#include <migraphx/register_op.hpp>
#include <algorithm>
#include <array>
#include <iostream>
#include <mutex>
#include <sstream>
#include <unordered_map>

namespace migraphx {
namespace gpu {

namespace {

using op::rnn_detail::present;

std::size_t gate_count(const std::string& cell) { return cell == "lstm" ? 4 : cell == "gru" ? 3 : 1; }

/// cuDNN's linear-layer id of ONNX's gate g, for W (R: + gates). ONNX's LSTM gates are i o f c,
/// cuDNN's i f c o; ONNX's GRU gates z r h, cuDNN's r z h.
int cudnn_gate(const std::string& cell, std::size_t g)
{
    static constexpr std::array<int, 4> lstm{0, 3, 1, 2};
    static constexpr std::array<int, 3> gru{1, 0, 2};
    if(cell == "lstm")
        return lstm.at(g);
    if(cell == "gru")
        return gru.at(g);
    return 0;
}

cudnnRNNMode_t cell_mode(const std::string& cell)
{
    if(cell == "lstm")
        return CUDNN_LSTM;
    if(cell == "gru")
        return CUDNN_GRU;
    if(cell == "rnn_relu")
        return CUDNN_RNN_RELU;
    return CUDNN_RNN_TANH;
}

/// cuDNN's algorithms for inference by the names gpu::rnn's `algo` and MIGRAPHX_GPU_RNN_ALGO use.
constexpr std::array<std::pair<const char*, cudnnRNNAlgo_t>, 3> rnn_algos{
    {{"standard", CUDNN_RNN_ALGO_STANDARD},
     {"persist_static", CUDNN_RNN_ALGO_PERSIST_STATIC},
     {"persist_static_small_h", CUDNN_RNN_ALGO_PERSIST_STATIC_SMALL_H}}};

std::optional<cudnnRNNAlgo_t> algo_named(const std::string& name)
{
    for(const auto& [n, a] : rnn_algos)
        if(name == n)
            return a;
    return std::nullopt;
}

/// The choices made in this process, by problem (with the device index): a program compiled
/// twice gets the same algorithm, so the same bits.
struct rnn_choices
{
    std::mutex m;
    std::unordered_map<std::string, std::string> algos;
    static rnn_choices& get()
    {
        static rnn_choices c;
        return c;
    }
};

bool trace_cudnn() { return env_enabled("MIGRAPHX_TRACE_CUDNN"); }

std::size_t round_up(std::size_t n) { return (n + 63) / 64 * 64; }

/// A cuDNN tensor descriptor for the length of a scope.
struct tensor_desc
{
    cudnnTensorDescriptor_t d = nullptr;
    tensor_desc() { MIGX_CUDA_CHECK(cudnnCreateTensorDescriptor(&d)); }
    tensor_desc(const tensor_desc&)            = delete;
    tensor_desc& operator=(const tensor_desc&) = delete;
    ~tensor_desc() { cudnnDestroyTensorDescriptor(d); }
};

} // namespace

rnn_parts
rnn_layout(std::size_t seq, std::size_t batch, std::size_t dirs, std::size_t hidden, bool lstm, std::size_t layers)
{
    rnn_parts p;
    auto states = layers * dirs * batch * hidden;
    p.h         = round_up(seq * batch * dirs * hidden);
    p.c         = p.h + round_up(states);
    p.total     = lstm ? p.c + states : p.c;
    return p;
}

namespace {

/// Where layer l's W, R and B are among gpu::rnn's inputs (in: without the output buffer); b is
/// 0 where the layer has no B.
struct layer_inputs
{
    std::size_t w, r, b;
};

layer_inputs inputs_of_layer(const rnn& op, const std::vector<shape>& in, std::size_t l)
{
    if(op.layers == 1)
        return {1, 2, present(in, 3) ? 3u : 0u};
    return {1 + 3 * l, 2 + 3 * l, 3 + 3 * l};
}

} // namespace

/// cuDNN's descriptors, the weight space and where each ONNX weight goes in it.
struct rnn::plan
{
    cudnnRNNDescriptor_t desc    = nullptr;
    cudnnRNNDataDescriptor_t x   = nullptr;
    cudnnRNNDataDescriptor_t y   = nullptr;
    cudnnTensorDescriptor_t h    = nullptr;
    std::shared_ptr<char> weights; // cuDNN's weight space
    std::size_t weight_bytes = 0;
    std::shared_ptr<char> seq_lens; // int32 per row, on the device (cudnnRNNForward reads them there)
    std::size_t workspace = 0;
    rnn_parts parts;
    /// One matrix or bias: bytes from input `input` at `from` to the weight space at `to`.
    struct copy
    {
        std::size_t input, from, to, bytes;
    };
    std::vector<copy> copies;
    std::mutex m;
    /// The inputs the copies read (each layer's W, R and B), and where they were at the last load.
    std::vector<std::size_t> weight_inputs;
    std::vector<const void*> loaded_from;
    std::size_t hx = 0, cx = 0; // the initial states' inputs; 0: none
    /// reverse with initial states: cuDNN's h, then c, each {2, batch, hidden} (state_bytes a
    /// direction). The forward half stays zero; a run copies the op's states into the backward half.
    std::shared_ptr<char> states;
    std::size_t state_bytes = 0;

    plan()                       = default;
    plan(const plan&)            = delete;
    plan& operator=(const plan&) = delete;
    ~plan()
    {
        if(h != nullptr)
            cudnnDestroyTensorDescriptor(h);
        if(y != nullptr)
            cudnnDestroyRNNDataDescriptor(y);
        if(x != nullptr)
            cudnnDestroyRNNDataDescriptor(x);
        if(desc != nullptr)
            cudnnDestroyRNNDescriptor(desc);
    }
};

namespace {

/// Scratch sizes of one forward call, in bytes: X, Y and one state (h or c); whether the op reads
/// initial states (hx, cx).
struct rnn_sizes
{
    std::size_t x, y, state;
    bool initial_states;
};

/// One forward call of p as described now on zeroed scratch buffers of the problem's sizes: to
/// try an algorithm (cuDNN accepts some in the descriptor and refuses them only when called) or
/// to time it.
struct forward_trial
{
    forward_trial(gpu_context& gc, const rnn::plan& pl, bool is_lstm, const rnn_sizes& n) : g(gc), p(pl), lstm(is_lstm)
    {
        if(cudnnGetRNNWeightSpaceSize(g.get().dnn, p.desc, &wbytes) != CUDNN_STATUS_SUCCESS)
            return;
        x = device_alloc(n.x), y = device_alloc(n.y), hy = device_alloc(n.state), cy = device_alloc(n.state);
        if(n.initial_states)
            hx = device_alloc(n.state), cx = device_alloc(n.state);
        w  = device_alloc(wbytes);
        ws = p.workspace > 0 ? device_alloc(p.workspace) : nullptr;
        for(const auto& [b, bytes] : {std::pair{&x, n.x}, {&w, wbytes}, {&hx, n.state}, {&cx, n.state}})
            if(*b)
                MIGX_CUDA_CHECK(cudaMemsetAsync(b->get(), 0, bytes, g.stream()));
    }
    /// Whether cuDNN ran the call (enqueued on g's stream).
    bool call() const
    {
        return w and cudnnRNNForward(g.get().dnn, p.desc, CUDNN_FWD_MODE_INFERENCE,
                                     reinterpret_cast<const int32_t*>(p.seq_lens.get()), p.x, x.get(), p.y, y.get(),
                                     p.h, hx.get(), hy.get(), p.h, lstm ? cx.get() : nullptr,
                                     lstm ? cy.get() : nullptr, wbytes, w.get(), p.workspace, ws.get(), 0,
                                     nullptr) == CUDNN_STATUS_SUCCESS;
    }
    /// Whether cuDNN runs the call to the end.
    bool runs() const { return call() and cudaStreamSynchronize(g.stream()) == cudaSuccess; }
    /// Milliseconds per call, recorded and replayed as a compiled program runs it
    /// (dnn::time_on_stream); nullopt where cuDNN refuses the call or it cannot be recorded.
    std::optional<double> time() const
    {
        return dnn::time_on_stream(g.stream(), [&] { return call(); }, 5);
    }

    private:
    gpu_context& g;
    const rnn::plan& p;
    bool lstm;
    std::size_t wbytes = 0;
    std::shared_ptr<char> x, y, hx, hy, cx, cy, w, ws;
};

/// The fastest algorithm cuDNN accepts for the problem (set_up(a) describes p with a and says
/// whether cuDNN accepts it): this process's choice, else the tuning cache's, else measured
/// (and written to the tuning cache).
template <class SetUp>
std::string algorithm_for(gpu_context& g, const rnn::plan& p, const std::string& problem, SetUp set_up,
                          bool lstm, const rnn_sizes& n)
{
    auto mem_key = "dev" + std::to_string(g.get().device) + " " + problem;
    auto& mem    = rnn_choices::get();
    {
        std::lock_guard<std::mutex> lock(mem.m);
        auto it = mem.algos.find(mem_key);
        if(it != mem.algos.end())
            return it->second;
    }
    auto tc       = tuning_cache::from_env();
    auto disk_key = "cudnn rnn algorithm " + device_identity(g.get().device) + ": " + problem;
    std::string best;
    if(auto v = tc.read(disk_key); v and algo_named(*v) and set_up(*algo_named(*v)))
        best = *v;
    else
    {
        std::vector<std::optional<double>> times;
        for(const auto& [name, a] : rnn_algos)
        {
            times.push_back(set_up(a) ? forward_trial(g, p, lstm, n).time() : std::nullopt);
            if(trace_cudnn())
                std::cerr << "cudnn: " << problem << ": rnn algorithm " << name << " "
                          << (times.back() ? std::to_string(*times.back()) + " ms" : std::string("refused")) << "\n";
        }
        auto k = dnn::fastest(times);
        if(k < 0)
            MIGRAPHX_THROW("gpu::rnn: cuDNN accepts no algorithm for " + problem);
        best = rnn_algos.at(static_cast<std::size_t>(k)).first;
        tc.write(disk_key, best);
    }
    if(trace_cudnn())
        std::cerr << "cudnn: " << problem << ": rnn algorithm " << best << "\n";
    std::lock_guard<std::mutex> lock(mem.m);
    return mem.algos.emplace(mem_key, best).first->second;
}

} // namespace

void forget_rnn_choices()
{
    auto& mem = rnn_choices::get();
    std::lock_guard<std::mutex> lock(mem.m);
    mem.algos.clear();
}

shape rnn::compute_shape(const std::vector<shape>& inputs) const
{
    bool lstm = cell == "lstm";
    if(not lstm and cell != "gru" and cell != "rnn_tanh" and cell != "rnn_relu")
        MIGRAPHX_THROW(name() + ": unknown cell '" + cell + "'");
    if(layers == 0)
        MIGRAPHX_THROW(name() + ": layers must be at least 1");
    if(reverse and (bidirectional or layers > 1))
        MIGRAPHX_THROW(name() + ": reverse is one direction of one layer");
    auto dirs = bidirectional ? 2u : 1u;
    if(layers == 1 and (inputs.size() < 4 or inputs.size() > 8))
        MIGRAPHX_THROW(name() + ": expects X, W, R, optional B, sequence_lens, initial_h, initial_c, and the output");
    if(layers > 1 and inputs.size() != 2 + 3 * layers)
        MIGRAPHX_THROW(name() + ": a stack of " + std::to_string(layers) +
                       " layers expects X, W, R and B of each layer, and the output");
    std::vector<shape> in(inputs.begin(), inputs.end() - 1);
    const auto& x = in[0];
    if(x.type() != shape::float_type and x.type() != shape::half_type)
        MIGRAPHX_THROW(name() + ": X must be float or half");
    if(x.ndim() != 3)
        MIGRAPHX_THROW(name() + ": X must be {seq, batch, input}");
    if(layers == 1)
    {
        if(in.size() > (lstm ? 7u : 6u))
            MIGRAPHX_THROW(name() + ": peepholes are not taken");
        op::rnn_detail::rnn_shape(in, hidden_size, gate_count(cell), lstm,
                                  bidirectional ? "bidirectional" : reverse ? "reverse" : "forward", name());
    }
    else
    {
        auto gh = gate_count(cell) * hidden_size;
        for(std::size_t l = 0; l < layers; l++)
        {
            auto li   = inputs_of_layer(*this, in, l);
            auto cols = l == 0 ? x.lens()[2] : dirs * hidden_size;
            if(in[li.w] != shape{x.type(), {dirs, gh, cols}} or in[li.r] != shape{x.type(), {dirs, gh, hidden_size}} or
               in[li.b] != shape{x.type(), {dirs, 2 * gh}})
                MIGRAPHX_THROW(name() + ": layer " + std::to_string(l) + "'s W, R or B has the wrong shape or type");
        }
    }
    for(std::size_t i = 0; i < in.size(); i++)
        if((layers > 1 or i != 4) and present(in, i) and not in[i].standard()) // 4: sequence_lens
            MIGRAPHX_THROW(name() + ": input " + std::to_string(i) + " must be standard (packed)");
    auto seq = x.lens()[0], batch = x.lens()[1];
    if(not seq_lens.empty() and seq_lens.size() != batch)
        MIGRAPHX_THROW(name() + ": seq_lens must have one length a row");
    for(auto l : seq_lens)
        if(l < 1 or static_cast<std::size_t>(l) > seq)
            MIGRAPHX_THROW(name() + ": every sequence length must be in 1.." + std::to_string(seq));
    auto want = rnn_layout(seq, batch, cudnn_dirs(), hidden_size, lstm, layers).total;
    const auto& out = inputs.back();
    if(out.type() != x.type() or out.elements() != want or not out.standard())
        MIGRAPHX_THROW(name() + ": the output buffer must be " + std::to_string(want) + " standard elements of X's type");
    return out;
}

void rnn::finalize(context& ctx, const shape&, const std::vector<shape>& inputs)
{
    auto& g = get_gpu_context(ctx);
    g.make_current();
    auto p        = std::make_shared<plan>();
    std::vector<shape> in(inputs.begin(), inputs.end() - 1);
    const auto& x = in[0];
    auto T = static_cast<int>(x.lens()[0]), N = static_cast<int>(x.lens()[1]), I = static_cast<int>(x.lens()[2]);
    auto H    = static_cast<int>(hidden_size);
    int D     = static_cast<int>(cudnn_dirs());
    bool half = x.type() == shape::half_type;
    auto dt   = half ? CUDNN_DATA_HALF : CUDNN_DATA_FLOAT;
    // float in plain FP32 unless compile_options::tf32 or MIGRAPHX_GPU_TF32=1 (as the
    // convolutions); half on tensor cores.
    auto math = half ? CUDNN_TENSOR_OP_MATH : g.float_tf32() ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH;
    auto dnn  = g.get().dnn;
    auto L    = static_cast<int>(layers);
    p->parts  = rnn_layout(x.lens()[0], x.lens()[1], D, hidden_size, cell == "lstm", layers);

    MIGX_CUDA_CHECK(cudnnCreateRNNDescriptor(&p->desc));
    auto describe = [&](cudnnRNNAlgo_t algo) {
        return cudnnSetRNNDescriptor_v8(p->desc, algo, cell_mode(cell), CUDNN_RNN_DOUBLE_BIAS,
                                        D == 2 ? CUDNN_BIDIRECTIONAL : CUDNN_UNIDIRECTIONAL, CUDNN_LINEAR_INPUT, dt,
                                        CUDNN_DATA_FLOAT, math, I, H, H, L, nullptr, CUDNN_RNN_PADDED_IO_ENABLED);
    };
    std::vector<int> lens(static_cast<std::size_t>(N), T);
    if(not seq_lens.empty())
        lens.assign(seq_lens.begin(), seq_lens.end());
    MIGX_CUDA_CHECK(cudnnCreateRNNDataDescriptor(&p->x));
    MIGX_CUDA_CHECK(cudnnCreateRNNDataDescriptor(&p->y));
    // Rows shorter than the sequence: their Y past the end is 0, as ONNX defines it.
    double zero = 0; // read as X's type: 0 of any width is all-zero bits
    void* fill  = &zero;
    MIGX_CUDA_CHECK(cudnnSetRNNDataDescriptor(p->x, dt, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED, T, N, I, lens.data(),
                                              fill));
    MIGX_CUDA_CHECK(cudnnSetRNNDataDescriptor(p->y, dt, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED, T, N, D * H,
                                              lens.data(), fill));
    MIGX_CUDA_CHECK(cudnnCreateTensorDescriptor(&p->h));
    std::array<int, 3> hd{L * D, N, H}, hs{N * H, H, 1};
    MIGX_CUDA_CHECK(cudnnSetTensorNdDescriptor(p->h, dt, 3, hd.data(), hs.data()));
    p->seq_lens = device_alloc(lens.size() * sizeof(int));
    MIGX_CUDA_CHECK(cudaMemcpyAsync(p->seq_lens.get(), lens.data(), lens.size() * sizeof(int), cudaMemcpyHostToDevice,
                                    g.stream()));
    MIGX_CUDA_CHECK(cudaStreamSynchronize(g.stream())); // lens lives on this stack

    // The algorithm: MIGRAPHX_GPU_RNN_ALGO's where it names one (the standard one where cuDNN
    // refuses it), else the one a loaded program was saved with, else the fastest cuDNN runs for
    // the problem (algorithm_for: measured once, kept in the tuning cache).
    std::size_t reserve = 0;
    auto set_up = [&](cudnnRNNAlgo_t a) {
        return describe(a) == CUDNN_STATUS_SUCCESS and
               cudnnGetRNNTempSpaceSizes(dnn, p->desc, CUDNN_FWD_MODE_INFERENCE, p->x, &p->workspace, &reserve) ==
                   CUDNN_STATUS_SUCCESS;
    };
    auto cells = static_cast<std::size_t>(D * N * H);
    rnn_sizes sizes{x.bytes(), static_cast<std::size_t>(T) * cells * x.type_size(), layers * cells * x.type_size(),
                    layers == 1 and present(in, 5)};
    // accepted in the descriptor and run by cuDNN (it refuses some only when called)
    auto runs = [&](cudnnRNNAlgo_t a) { return set_up(a) and forward_trial(g, *p, cell == "lstm", sizes).runs(); };
    std::ostringstream problem; // what a choice is kept by, and what the traces name
    problem << cell << " seq " << T << " batch " << N << " input " << I << " hidden " << H << " dirs " << D
            << " layers " << L << " " << x.type_string() << " math " << static_cast<int>(math) << " lens";
    for(auto l : lens)
        problem << " " << l;
    auto forced = env_string("MIGRAPHX_GPU_RNN_ALGO");
    if(not forced.empty() and forced != "measured" and not algo_named(forced))
        MIGRAPHX_THROW("MIGRAPHX_GPU_RNN_ALGO: '" + forced +
                       "' is not one of standard, persist_static, persist_static_small_h, measured");
    bool saved   = forced.empty() and algo_named(algo) and runs(*algo_named(algo)); // a loaded program's
    bool measure = forced.empty() or forced == "measured";
    if(not saved and not measure)
    {
        algo = forced == "standard" or runs(*algo_named(forced)) ? forced : "standard";
        if(algo != forced and trace_cudnn())
            std::cerr << "cudnn: " << problem.str() << ": rnn algorithm " << forced << " refused, standard instead\n";
    }
    else if(not saved)
        algo = algorithm_for(g, *p, problem.str(), set_up, cell == "lstm", sizes);
    if(not set_up(*algo_named(algo)))
        MIGRAPHX_THROW(name() + ": cuDNN refuses the " + algo + " algorithm it accepted before");

    // The weight space, zeroed (an absent B is zero biases), and where each ONNX gate block goes.
    MIGX_CUDA_CHECK(cudnnGetRNNWeightSpaceSize(dnn, p->desc, &p->weight_bytes));
    p->weights = device_alloc(p->weight_bytes);
    MIGX_CUDA_CHECK(cudaMemsetAsync(p->weights.get(), 0, p->weight_bytes, g.stream()));
    tensor_desc mdesc, bdesc;
    auto md = mdesc.d, bd = bdesc.d;
    auto elements = [](cudnnTensorDescriptor_t t) {
        cudnnDataType_t type{};
        int nd = 0;
        std::array<int, 8> dims{}, strides{};
        MIGX_CUDA_CHECK(cudnnGetTensorNdDescriptor(t, 8, &type, &nd, dims.data(), strides.data()));
        std::size_t n = 1;
        for(int i = 0; i < nd; i++)
            n *= static_cast<std::size_t>(dims[static_cast<std::size_t>(i)]);
        return n;
    };
    auto es    = x.type_size();
    auto G     = gate_count(cell);
    auto uH    = hidden_size;
    auto uD    = static_cast<std::size_t>(D);
    char* base = p->weights.get();
    for(std::size_t l = 0; l < layers; l++)
    {
        auto li = inputs_of_layer(*this, in, l);
        p->weight_inputs.insert(p->weight_inputs.end(), {li.w, li.r});
        if(li.b != 0)
            p->weight_inputs.push_back(li.b);
        // the first layer reads X, the others the layer before's Y (both directions)
        auto in_cols = l == 0 ? x.lens()[2] : uD * uH;
        // ONNX's direction d is cuDNN's d, and reverse's one cuDNN's second (backward) one
        for(std::size_t d = 0; d < (bidirectional ? 2u : 1u); d++)
        {
            auto cudnn_d = reverse ? 1 : d;
            for(std::size_t g2 = 0; g2 < G; g2++)
            {
                for(std::size_t r = 0; r < 2; r++) // W, then R
                {
                    auto id    = cudnn_gate(cell, g2) + static_cast<int>(r * G);
                    void* m_at = nullptr;
                    void* b_at = nullptr;
                    MIGX_CUDA_CHECK(cudnnGetRNNWeightParams(dnn, p->desc, static_cast<int>(l * uD + cudnn_d),
                                                            p->weight_bytes, base, id, md, &m_at, bd, &b_at));
                    auto cols = r == 0 ? in_cols : uH;
                    if(m_at == nullptr or b_at == nullptr or elements(md) != uH * cols or elements(bd) != uH)
                        MIGRAPHX_THROW(name() + ": cuDNN's weight space is not laid out as expected (cell " + cell +
                                       ", layer " + std::to_string(l) + ", gate " + std::to_string(g2) + ")");
                    auto to_m = static_cast<std::size_t>(static_cast<char*>(m_at) - base);
                    auto to_b = static_cast<std::size_t>(static_cast<char*>(b_at) - base);
                    // W {D, G*H, cols}, R {D, G*H, H}: gate g of direction d is rows (d*G + g)*H..
                    p->copies.push_back({r == 0 ? li.w : li.r, (d * G + g2) * uH * cols * es, to_m, uH * cols * es});
                    // B {D, 2*G*H}: Wb's gates, then Rb's.
                    if(li.b != 0)
                        p->copies.push_back({li.b, (d * 2 * G + r * G + g2) * uH * es, to_b, uH * es});
                }
            }
        }
    }
    p->loaded_from.assign(p->weight_inputs.size(), nullptr);
    // a stack starts from zeros (cudnn_rnn_for)
    p->hx = layers == 1 and present(in, 5) ? 5 : 0;
    p->cx = layers == 1 and cell == "lstm" and present(in, 6) ? 6 : 0;
    if(reverse and (p->hx != 0 or p->cx != 0))
    {
        p->state_bytes = static_cast<std::size_t>(N * H) * es;
        p->states      = device_alloc(4 * p->state_bytes);
        MIGX_CUDA_CHECK(cudaMemsetAsync(p->states.get(), 0, 4 * p->state_bytes, g.stream()));
    }
    g.reserve_workspace(p->workspace);
    cache = p;
}

argument rnn::compute(context& ctx, const shape&, const std::vector<argument>& args) const
{
    if(not cache)
        MIGRAPHX_THROW(name() + ": run before finalize");
    auto& g = get_gpu_context(ctx);
    auto& p = *cache;
    {
        // Constant weights are loaded once (the first run is never recorded: ir/replay.hpp).
        std::lock_guard<std::mutex> lock(p.m);
        bool loaded = constant_weights and std::equal(p.weight_inputs.begin(), p.weight_inputs.end(),
                                                      p.loaded_from.begin(),
                                                      [&](std::size_t i, const void* at) { return args[i].data() == at; });
        if(not loaded)
        {
            for(const auto& c : p.copies)
                MIGX_CUDA_CHECK(cudaMemcpyAsync(p.weights.get() + c.to, args[c.input].data() + c.from, c.bytes,
                                                cudaMemcpyDeviceToDevice, g.stream()));
            for(std::size_t k = 0; k < p.weight_inputs.size(); k++)
                p.loaded_from[k] = args[p.weight_inputs[k]].data();
        }
    }
    const auto& out = args.back();
    auto es         = out.get_shape().type_size();
    char* base      = out.data();
    const void* hx  = p.hx != 0 ? args[p.hx].data() : nullptr;
    const void* cx  = p.cx != 0 ? args[p.cx].data() : nullptr;
    if(p.states)
    {
        // reverse: the op's states into the backward half; cuDNN is given the whole {2, batch,
        // hidden} (given the backward half's address, it read it as the forward direction's)
        auto into = [&](const void*& state, std::size_t at) {
            if(state == nullptr)
                return;
            char* whole = p.states.get() + at;
            MIGX_CUDA_CHECK(cudaMemcpyAsync(whole + p.state_bytes, state, p.state_bytes, cudaMemcpyDeviceToDevice,
                                            g.stream()));
            state = whole;
        };
        into(hx, 0);
        into(cx, 2 * p.state_bytes);
    }
    void* cy        = cell == "lstm" ? base + p.parts.c * es : nullptr;
    MIGX_CUDA_CHECK(cudnnRNNForward(g.get().dnn, p.desc, CUDNN_FWD_MODE_INFERENCE,
                                    reinterpret_cast<const int32_t*>(p.seq_lens.get()), p.x, args[0].data(), p.y,
                                    base + p.parts.y * es, p.h, hx, base + p.parts.h * es, p.h, cx, cy, p.weight_bytes,
                                    p.weights.get(), p.workspace, p.workspace > 0 ? g.workspace() : nullptr, 0,
                                    nullptr));
    return out;
}

namespace {

/// Absent, or a literal of zeros (PyTorch's export gives each layer zero initial states).
bool absent_or_zeros(instruction_ref x)
{
    if(x->get_shape().elements() == 0 or x->name() == "undefined")
        return true;
    if(x->name() != "@literal")
        return false;
    auto v = x->get_literal().to_vector<double>();
    return std::all_of(v.begin(), v.end(), [](double e) { return e == 0; });
}

/// Whether a recurrent op's initial states (inputs 5 on: initial_h, initial_c, and P where
/// present) are absent or zeros.
bool zero_initial_states(instruction_ref ins)
{
    const auto& in = ins->inputs();
    return std::all_of(in.begin() + std::min<std::ptrdiff_t>(5, static_cast<std::ptrdiff_t>(in.size())), in.end(),
                       absent_or_zeros);
}

} // namespace

std::optional<rnn> cudnn_rnn_for(instruction_ref ins)
{
    const auto& n = ins->name();
    // MIGRAPHX_GPU_CUDNN_RNN=0: the recurrences unrolled (rewrite_rnn) instead
    bool off = env_disabled("MIGRAPHX_GPU_CUDNN_RNN");
    if((n != "lstm" and n != "gru" and n != "rnn") or off)
        return std::nullopt;
    const auto& in = ins->inputs();
    std::vector<shape> shapes;
    for(auto x : in)
    {
        if(x->get_shape().dynamic())
            return std::nullopt;
        shapes.push_back(x->get_shape());
    }
    auto t = shapes[0].type();
    if(t != shape::float_type and t != shape::half_type)
        return std::nullopt;
    auto v = ins->get_operator().to_value();
    if(v.at("clip").to<float>() != 0)
        return std::nullopt;
    auto direction = v.at("direction").get_string();
    if(direction != "forward" and direction != "bidirectional" and direction != "reverse")
        return std::nullopt;
    rnn op;
    op.hidden_size   = v.at("hidden_size").to<std::size_t>();
    op.bidirectional = direction == "bidirectional";
    op.reverse       = direction == "reverse";
    auto dirs        = op.bidirectional ? 2u : 1u;
    std::vector<std::string> dflt{"tanh"};
    if(n == "lstm")
    {
        if(v.at("input_forget").to<std::int64_t>() != 0 or present(shapes, 7))
            return std::nullopt;
        dflt = {"sigmoid", "tanh", "tanh"};
    }
    if(n == "gru")
    {
        if(v.at("linear_before_reset").to<std::int64_t>() == 0)
            return std::nullopt; // cuDNN's GRU is the linear-before-reset form
        dflt = {"sigmoid", "tanh"};
    }
    op.cell  = n;
    auto acts = op::rnn_detail::activations(v.at("actv_funcs").to_vector<std::string>(), dflt, dirs, n);
    for(std::size_t i = 0; i < acts.size(); i++)
    {
        const auto& f = acts[i].fname;
        if(n == "rnn")
        {
            if(f != acts[0].fname or (f != "tanh" and f != "relu"))
                return std::nullopt;
            op.cell = "rnn_" + f;
        }
        else if(f != dflt[i % dflt.size()])
            return std::nullopt;
    }
    auto lens = constant_sequence_lengths(ins);
    if(not lens or not read_by_elements(ins))
        return std::nullopt;
    auto seq = shapes[0].lens()[0];
    for(auto l : *lens)
    {
        if(l < 1 or static_cast<std::size_t>(l) > seq)
            return std::nullopt; // cuDNN takes no empty row
        op.seq_lens.push_back(static_cast<std::int32_t>(l));
    }
    if(std::all_of(lens->begin(), lens->end(), [&](auto l) { return static_cast<std::size_t>(l) == seq; }))
        op.seq_lens.clear();
    op.constant_weights = true;
    for(std::size_t i : {1, 2, 3})
        if(i < in.size() and not in[i]->can_eval())
            op.constant_weights = false;
    return op;
}

namespace {

/// The recurrent op whose X is ins's Y through views alone, read nowhere else: Y {seq, 1, batch,
/// hidden} reshaped (squeeze, reshape, contiguous) to {seq, batch, hidden}; a bidirectional Y
/// {seq, 2, batch, hidden} transposed by {0, 2, 1, 3} first, to {seq, batch, 2 * hidden}: cuDNN's
/// own Y as a stack's next layer reads it.
std::optional<instruction_ref> layer_fed_by(instruction_ref ins, const rnn& op)
{
    std::vector<instruction_ref> y;
    for(auto u : ins->outputs())
        if(u->name() == "get_tuple_elem" and u->get_operator().to_value().at("index").to<std::size_t>() == 0)
            y.push_back(u);
    if(y.size() != 1)
        return std::nullopt;
    auto cur          = y.front();
    auto seq          = cur->get_shape().lens()[0];
    auto batch        = cur->get_shape().lens()[2];
    bool transposed   = false;
    for(std::size_t step = 0; step < 6 and cur->outputs().size() == 1; step++)
    {
        auto u        = cur->outputs().front();
        const auto& n = u->name();
        if(n == "transpose" and op.bidirectional and step == 0 and
           u->get_operator().to_value().at("permutation").to_vector<std::int64_t>() ==
               std::vector<std::int64_t>{0, 2, 1, 3})
            transposed = true;
        else if(n != "squeeze" and n != "reshape" and n != "contiguous")
        {
            bool next = (n == "lstm" or n == "gru" or n == "rnn") and u->inputs().front() == cur and
                        std::count(u->inputs().begin(), u->inputs().end(), cur) == 1;
            auto dirs = op.bidirectional ? 2u : 1u;
            if(not next or transposed != op.bidirectional or
               cur->get_shape().lens() != std::vector<std::size_t>{seq, batch, dirs * op.hidden_size})
                return std::nullopt;
            return u;
        }
        cur = u;
    }
    return std::nullopt;
}

/// Whether a layer's inputs suit a stack: B present, initial states absent or zeros.
bool stackable_inputs(instruction_ref ins)
{
    const auto& in = ins->inputs();
    return in.size() >= 4 and in[3]->get_shape().elements() > 0 and zero_initial_states(ins);
}

} // namespace

std::vector<instruction_ref> rnn_stack(instruction_ref ins,
                                       const rnn& op,
                                       const std::function<const rnn*(instruction_ref)>& taken,
                                       const std::function<bool(instruction_ref, instruction_ref)>& before)
{
    std::vector<instruction_ref> stack{ins};
    if(env_disabled("MIGRAPHX_GPU_RNN_STACK") or op.reverse or not stackable_inputs(ins))
        return stack;
    for(auto next = layer_fed_by(ins, op); next; next = layer_fed_by(*next, op))
    {
        const auto* o = taken(*next);
        if(o == nullptr or o->cell != op.cell or o->hidden_size != op.hidden_size or
           o->bidirectional != op.bidirectional or o->reverse or o->seq_lens != op.seq_lens or
           o->constant_weights != op.constant_weights or not stackable_inputs(*next))
            break;
        // W, R and B are read where the stack runs: at its first layer
        const auto& in = (*next)->inputs();
        if(not std::all_of(in.begin() + 1, in.begin() + 4, [&](instruction_ref w) { return before(w, ins); }))
            break;
        stack.push_back(*next);
    }
    return stack;
}

MIGRAPHX_REGISTER_OP(rnn)

} // namespace gpu
} // namespace migraphx
