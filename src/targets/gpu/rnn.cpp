#include "targets/gpu/rnn.hpp"
#include "targets/gpu/context.hpp"
#include "ir/env.hpp"
#include "ops/rnn_common.hpp"
#include "passes/rewrite_rnn.hpp"
#include <migraphx/register_op.hpp>
#include <algorithm>
#include <array>
#include <mutex>

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

/// MIGRAPHX_GPU_RNN_ALGO: cuDNN's standard algorithm (default), or a persistent one to try.
cudnnRNNAlgo_t algo_from_env()
{
    auto a = env_string("MIGRAPHX_GPU_RNN_ALGO");
    if(a == "persist_static")
        return CUDNN_RNN_ALGO_PERSIST_STATIC;
    if(a == "persist_static_small_h")
        return CUDNN_RNN_ALGO_PERSIST_STATIC_SMALL_H;
    return CUDNN_RNN_ALGO_STANDARD;
}

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

rnn_parts rnn_layout(std::size_t seq, std::size_t batch, std::size_t dirs, std::size_t hidden, bool lstm)
{
    rnn_parts p;
    p.h     = round_up(seq * batch * dirs * hidden);
    p.c     = p.h + round_up(dirs * batch * hidden);
    p.total = lstm ? p.c + dirs * batch * hidden : p.c;
    return p;
}

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
    std::array<const void*, 3> loaded_from{}; // W, R, B of the last load

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

shape rnn::compute_shape(const std::vector<shape>& inputs) const
{
    if(inputs.size() < 4 or inputs.size() > 8)
        MIGRAPHX_THROW(name() + ": expects X, W, R, optional B, sequence_lens, initial_h, initial_c, and the output");
    std::vector<shape> in(inputs.begin(), inputs.end() - 1);
    bool lstm = cell == "lstm";
    if(not lstm and cell != "gru" and cell != "rnn_tanh" and cell != "rnn_relu")
        MIGRAPHX_THROW(name() + ": unknown cell '" + cell + "'");
    if(in.size() > (lstm ? 7u : 6u))
        MIGRAPHX_THROW(name() + ": peepholes are not taken");
    auto dirs = bidirectional ? 2u : 1u;
    op::rnn_detail::rnn_shape(in, hidden_size, gate_count(cell), lstm, bidirectional ? "bidirectional" : "forward",
                              name());
    const auto& x = in[0];
    if(x.type() != shape::float_type and x.type() != shape::half_type)
        MIGRAPHX_THROW(name() + ": X must be float or half");
    for(std::size_t i : {0, 1, 2, 3, 5, 6})
        if(present(in, i) and not in[i].standard())
            MIGRAPHX_THROW(name() + ": input " + std::to_string(i) + " must be standard (packed)");
    auto seq = x.lens()[0], batch = x.lens()[1];
    if(not seq_lens.empty() and seq_lens.size() != batch)
        MIGRAPHX_THROW(name() + ": seq_lens must have one length a row");
    for(auto l : seq_lens)
        if(l < 1 or static_cast<std::size_t>(l) > seq)
            MIGRAPHX_THROW(name() + ": every sequence length must be in 1.." + std::to_string(seq));
    auto want = rnn_layout(seq, batch, dirs, hidden_size, lstm).total;
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
    const auto& x = inputs[0];
    auto T = static_cast<int>(x.lens()[0]), N = static_cast<int>(x.lens()[1]), I = static_cast<int>(x.lens()[2]);
    auto H    = static_cast<int>(hidden_size);
    int D     = bidirectional ? 2 : 1;
    bool half = x.type() == shape::half_type;
    auto dt   = half ? CUDNN_DATA_HALF : CUDNN_DATA_FLOAT;
    // float in plain FP32 unless MIGRAPHX_GPU_TF32=1 (as the convolutions); half on tensor cores.
    auto math = half ? CUDNN_TENSOR_OP_MATH : env_enabled("MIGRAPHX_GPU_TF32") ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH;
    auto dnn  = g.get().dnn;
    p->parts  = rnn_layout(x.lens()[0], x.lens()[1], D, hidden_size, cell == "lstm");

    MIGX_CUDA_CHECK(cudnnCreateRNNDescriptor(&p->desc));
    auto describe = [&](cudnnRNNAlgo_t algo) {
        return cudnnSetRNNDescriptor_v8(p->desc, algo, cell_mode(cell), CUDNN_RNN_DOUBLE_BIAS,
                                        D == 2 ? CUDNN_BIDIRECTIONAL : CUDNN_UNIDIRECTIONAL, CUDNN_LINEAR_INPUT, dt,
                                        CUDNN_DATA_FLOAT, math, I, H, H, 1, nullptr, CUDNN_RNN_PADDED_IO_ENABLED);
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
    // A persistent algorithm asked for (MIGRAPHX_GPU_RNN_ALGO) that cuDNN refuses for this
    // problem falls back to the standard one.
    auto algo  = algo_from_env();
    std::size_t reserve = 0;
    bool taken = algo != CUDNN_RNN_ALGO_STANDARD and describe(algo) == CUDNN_STATUS_SUCCESS and
                 cudnnGetRNNTempSpaceSizes(dnn, p->desc, CUDNN_FWD_MODE_INFERENCE, p->x, &p->workspace, &reserve) ==
                     CUDNN_STATUS_SUCCESS;
    if(not taken)
    {
        MIGX_CUDA_CHECK(describe(CUDNN_RNN_ALGO_STANDARD));
        MIGX_CUDA_CHECK(cudnnGetRNNTempSpaceSizes(dnn, p->desc, CUDNN_FWD_MODE_INFERENCE, p->x, &p->workspace, &reserve));
    }
    MIGX_CUDA_CHECK(cudnnCreateTensorDescriptor(&p->h));
    std::array<int, 3> hd{D, N, H}, hs{N * H, H, 1};
    MIGX_CUDA_CHECK(cudnnSetTensorNdDescriptor(p->h, dt, 3, hd.data(), hs.data()));

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
    auto uI    = x.lens()[2];
    bool bias  = present(inputs, 3);
    char* base = p->weights.get();
    for(std::size_t d = 0; d < static_cast<std::size_t>(D); d++)
    {
        for(std::size_t g2 = 0; g2 < G; g2++)
        {
            for(std::size_t r = 0; r < 2; r++) // W, then R
            {
                auto id     = cudnn_gate(cell, g2) + static_cast<int>(r * G);
                void* m_at  = nullptr;
                void* b_at  = nullptr;
                MIGX_CUDA_CHECK(cudnnGetRNNWeightParams(dnn, p->desc, static_cast<int>(d), p->weight_bytes, base, id, md,
                                                        &m_at, bd, &b_at));
                auto cols = r == 0 ? uI : uH;
                if(m_at == nullptr or b_at == nullptr or elements(md) != uH * cols or elements(bd) != uH)
                    MIGRAPHX_THROW(name() + ": cuDNN's weight space is not laid out as expected (cell " + cell +
                                   ", gate " + std::to_string(g2) + ")");
                auto to_m = static_cast<std::size_t>(static_cast<char*>(m_at) - base);
                auto to_b = static_cast<std::size_t>(static_cast<char*>(b_at) - base);
                // W {D, G*H, I}, R {D, G*H, H}: gate g of direction d is rows (d*G + g)*H..
                p->copies.push_back({1 + r, (d * G + g2) * uH * cols * es, to_m, uH * cols * es});
                // B {D, 2*G*H}: Wb's gates, then Rb's.
                if(bias)
                    p->copies.push_back({3, (d * 2 * G + r * G + g2) * uH * es, to_b, uH * es});
            }
        }
    }
    p->seq_lens = device_alloc(lens.size() * sizeof(int));
    MIGX_CUDA_CHECK(cudaMemcpyAsync(p->seq_lens.get(), lens.data(), lens.size() * sizeof(int), cudaMemcpyHostToDevice,
                                    g.stream()));
    MIGX_CUDA_CHECK(cudaStreamSynchronize(g.stream())); // lens lives on this stack
    g.reserve_workspace(p->workspace);
    cache = p;
}

argument rnn::compute(context& ctx, const shape&, const std::vector<argument>& args) const
{
    if(not cache)
        MIGRAPHX_THROW(name() + ": run before finalize");
    auto& g = get_gpu_context(ctx);
    auto& p = *cache;
    std::vector<shape> in;
    for(std::size_t i = 0; i + 1 < args.size(); i++)
        in.push_back(args[i].get_shape());
    {
        // Constant weights are loaded once (the first run is never recorded: ir/replay.hpp).
        std::array<const void*, 3> from{args[1].data(), args[2].data(), present(in, 3) ? args[3].data() : nullptr};
        std::lock_guard<std::mutex> lock(p.m);
        if(not constant_weights or from != p.loaded_from)
        {
            for(const auto& c : p.copies)
                MIGX_CUDA_CHECK(cudaMemcpyAsync(p.weights.get() + c.to, args[c.input].data() + c.from, c.bytes,
                                                cudaMemcpyDeviceToDevice, g.stream()));
            p.loaded_from = from;
        }
    }
    const auto& out = args.back();
    auto es         = out.get_shape().type_size();
    char* base      = out.data();
    const void* hx  = present(in, 5) ? args[5].data() : nullptr;
    const void* cx  = cell == "lstm" and present(in, 6) ? args[6].data() : nullptr;
    void* cy        = cell == "lstm" ? base + p.parts.c * es : nullptr;
    MIGX_CUDA_CHECK(cudnnRNNForward(g.get().dnn, p.desc, CUDNN_FWD_MODE_INFERENCE,
                                    reinterpret_cast<const int32_t*>(p.seq_lens.get()), p.x, args[0].data(), p.y,
                                    base + p.parts.y * es, p.h, hx, base + p.parts.h * es, p.h, cx, cy, p.weight_bytes,
                                    p.weights.get(), p.workspace, p.workspace > 0 ? g.workspace() : nullptr, 0,
                                    nullptr));
    return out;
}

std::optional<rnn> cudnn_rnn_for(instruction_ref ins)
{
    const auto& n = ins->name();
    if((n != "lstm" and n != "gru" and n != "rnn") or not env_enabled("MIGRAPHX_GPU_CUDNN_RNN"))
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
    if(direction != "forward" and direction != "bidirectional")
        return std::nullopt; // cuDNN has no reverse-only direction
    rnn op;
    op.hidden_size   = v.at("hidden_size").to<std::size_t>();
    op.bidirectional = direction == "bidirectional";
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

MIGRAPHX_REGISTER_OP(rnn)

} // namespace gpu
} // namespace migraphx
