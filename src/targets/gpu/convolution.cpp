// gpu::convolution: cuDNN's convolution; gpu::convolution_backwards: its backward-data (a
// transposed convolution). gpu::convolution: NCHW or NHWC (input and output may be strided;
// weights standard, or KRSC for NHWC: layout_nhwc.hpp), 1-d
// convolutions as 2-d with a trailing 1. The algorithm is measured once at finalize
// (cudnnFindConvolutionForwardAlgorithmEx) and kept; float runs in plain FMA math (no TF32,
// unless MIGRAPHX_GPU_TF32=1), half on tensor cores with float accumulation.
#include "targets/gpu/context.hpp"
#include "targets/gpu/gpu_ops.hpp"
#include "targets/gpu/layout_nhwc.hpp"
#include "ir/env.hpp"
#include <migraphx/register_op.hpp>
#include <mutex>
#include <optional>
#include <sstream>
#include <unordered_map>

namespace migraphx {
namespace gpu {

struct convolution::plan
{
    cudnnTensorDescriptor_t x = nullptr, y = nullptr;
    cudnnFilterDescriptor_t w = nullptr;
    cudnnConvolutionDescriptor_t conv = nullptr;
    cudnnConvolutionFwdAlgo_t algo{};
    std::size_t ws = 0;
    ~plan()
    {
        if(x)
            cudnnDestroyTensorDescriptor(x);
        if(y)
            cudnnDestroyTensorDescriptor(y);
        if(w)
            cudnnDestroyFilterDescriptor(w);
        if(conv)
            cudnnDestroyConvolutionDescriptor(conv);
    }
};

namespace {

std::vector<int> to_int(const std::vector<std::size_t>& v)
{
    std::vector<int> r;
    for(auto x : v)
    {
        if(x > static_cast<std::size_t>(std::numeric_limits<int>::max()))
            MIGRAPHX_THROW("gpu::convolution: dimension too large for cuDNN");
        r.push_back(static_cast<int>(x));
    }
    return r;
}

/// lens/strides padded to at least 4 dims with trailing 1s.
void pad4(std::vector<std::size_t>& lens, std::vector<std::size_t>& strides)
{
    while(lens.size() < 4)
    {
        lens.push_back(1);
        strides.push_back(1);
    }
}

cudnnDataType_t dnn_type(shape::type_t t)
{
    if(t == shape::float_type)
        return CUDNN_DATA_FLOAT;
    if(t == shape::half_type)
        return CUDNN_DATA_HALF;
    MIGRAPHX_THROW("gpu::convolution: unsupported element type");
}

/// Scratch buffers of the real sizes for cuDNN's algorithm search (inputs zeroed, on the
/// context's stream so that the search runs after the zeroing).
struct search_buffers
{
    static constexpr std::size_t ws_limit = 256u << 20;
    std::shared_ptr<char> in, w, out, ws;
    search_buffers(const gpu_context& g, const shape& in_s, const shape& w_s, const shape& out_s)
        : in(device_alloc(in_s.bytes())), w(device_alloc(w_s.bytes())), out(device_alloc(out_s.bytes())),
          ws(device_alloc(ws_limit))
    {
        MIGX_CUDA_CHECK(cudaMemsetAsync(in.get(), 0, in_s.bytes(), g.stream()));
        MIGX_CUDA_CHECK(cudaMemsetAsync(w.get(), 0, w_s.bytes(), g.stream()));
    }
};

/// Whether float runs in plain FP32 (no TF32 unless MIGRAPHX_GPU_TF32=1).
bool plain_float(shape::type_t t) { return t == shape::float_type and not env_enabled("MIGRAPHX_GPU_TF32"); }

/// The fastest measured algorithm that succeeded within the workspace limit (no tensor-op math
/// for plain float); throws naming `what` when there is none.
template <class Perf>
const Perf& best_algorithm(const Perf* perf, int returned, bool plain, const std::string& what)
{
    for(int i = 0; i < returned; i++)
    {
        if(perf[i].status != CUDNN_STATUS_SUCCESS or perf[i].memory > search_buffers::ws_limit)
            continue;
        if(plain and perf[i].mathType == CUDNN_TENSOR_OP_MATH)
            continue;
        return perf[i];
    }
    MIGRAPHX_THROW(what + ": cuDNN found no algorithm");
}

/// What a search chose for one problem.
struct algo_choice
{
    int algo = 0;
    std::size_t memory = 0;
    cudnnMathType_t math = CUDNN_DEFAULT_MATH;
};

/// One search per distinct problem and device in a process: a program compiled twice (e.g. a
/// dynamic program's variant and a static program of the same shape) gets the same algorithms,
/// so the same bits, and the second compile skips the timing.
template <class Search>
algo_choice chosen_algorithm(const std::string& key, Search search)
{
    static std::mutex m;
    static std::unordered_map<std::string, algo_choice> chosen;
    {
        std::lock_guard<std::mutex> lock(m);
        auto it = chosen.find(key);
        if(it != chosen.end())
            return it->second;
    }
    auto c = search();
    std::lock_guard<std::mutex> lock(m);
    return chosen.emplace(key, c).first->second;
}

std::string problem_key(const std::string& what,
                        int device,
                        const std::vector<shape>& inputs,
                        const shape& out,
                        const std::vector<std::size_t>& padding,
                        const std::vector<std::size_t>& stride,
                        const std::vector<std::size_t>& dilation,
                        std::int64_t group)
{
    std::ostringstream ss;
    ss << what << " dev" << device << " x " << inputs[0] << " w " << inputs[1] << " y " << out << " g" << group
       << " tf32 " << env_enabled("MIGRAPHX_GPU_TF32");
    for(const auto* v : {&padding, &stride, &dilation})
    {
        ss << " |";
        for(auto x : *v)
            ss << " " << x;
    }
    return ss.str();
}

/// The algorithm for a problem: measured by find(buf, perf, count, &returned) on scratch buffers
/// of the real sizes the first time the process meets the problem, remembered after.
template <class Perf, int Count, class Find>
algo_choice choose_algorithm(gpu_context& g,
                             const std::string& key,
                             const std::vector<shape>& inputs,
                             const shape& out,
                             bool plain,
                             const std::string& what,
                             Find find)
{
    return chosen_algorithm(key, [&] {
        search_buffers buf(g, inputs[0], inputs[1], out);
        Perf perf[Count];
        int returned = 0;
        find(buf, perf, Count, &returned);
        MIGX_CUDA_CHECK(cudaStreamSynchronize(g.stream()));
        MIGX_CUDA_CHECK(cudaDeviceSynchronize());
        const auto& best = best_algorithm(perf, returned, plain, what);
        return algo_choice{static_cast<int>(best.algo), best.memory, best.mathType};
    });
}

/// solution_id: the algorithm, plus 256 x cuDNN's math type where the type does not fix it (not
/// plain float). A loaded program's finalize takes it instead of searching when cuDNN accepts it
/// for the problem (workspace(choice, &bytes) succeeds within the limit); else nullopt (search).
std::int64_t to_solution_id(const algo_choice& c, bool plain)
{
    return c.algo + (plain ? 0 : 256 * static_cast<int>(c.math));
}

template <class Workspace>
std::optional<algo_choice> saved_algorithm(std::int64_t id, bool plain, Workspace workspace)
{
    if(id < 0 or id / 256 > CUDNN_FMA_MATH)
        return std::nullopt;
    algo_choice c;
    c.algo = static_cast<int>(id % 256);
    c.math = plain ? CUDNN_FMA_MATH : static_cast<cudnnMathType_t>(id / 256);
    if(workspace(c, &c.memory) != CUDNN_STATUS_SUCCESS or c.memory > search_buffers::ws_limit)
        return std::nullopt;
    return c;
}

/// The descriptors both ops share: p.x the op's input, p.w its weights, p.y its output, and
/// p.conv the forward convolution, which maps x to y (convolution) or y to x (the transposed
/// convolution, computed as cuDNN's backward-data). Shapes are padded to 4 dims (a 1-d
/// convolution is 2-d with a trailing 1); cuDNN must agree on the forward output's shape.
void describe_convolution(convolution::plan& p,
                          const std::string& what,
                          const shape& x,
                          const shape& w,
                          const shape& y,
                          const std::vector<std::size_t>& padding,
                          const std::vector<std::size_t>& stride,
                          const std::vector<std::size_t>& dilation,
                          std::int64_t group,
                          bool transposed)
{
    auto t  = dnn_type(y.type());
    auto kd = x.lens().size() - 2;
    auto xl = x.lens(), xs = x.strides();
    auto wl = w.lens(), ws = w.strides();
    auto yl = y.lens(), ys = y.strides();
    pad4(xl, xs);
    pad4(wl, ws);
    pad4(yl, ys);
    std::vector<std::size_t> pads(padding.begin(), padding.begin() + kd), strides = stride, dil = dilation;
    while(pads.size() < 2)
    {
        pads.push_back(0);
        strides.push_back(1);
        dil.push_back(1);
    }
    MIGX_CUDA_CHECK(cudnnCreateTensorDescriptor(&p.x));
    MIGX_CUDA_CHECK(cudnnCreateTensorDescriptor(&p.y));
    MIGX_CUDA_CHECK(cudnnCreateFilterDescriptor(&p.w));
    MIGX_CUDA_CHECK(cudnnCreateConvolutionDescriptor(&p.conv));
    auto xli = to_int(xl), xsi = to_int(xs), wli = to_int(wl), yli = to_int(yl), ysi = to_int(ys);
    MIGX_CUDA_CHECK(cudnnSetTensorNdDescriptor(p.x, t, static_cast<int>(xli.size()), xli.data(), xsi.data()));
    MIGX_CUDA_CHECK(cudnnSetTensorNdDescriptor(p.y, t, static_cast<int>(yli.size()), yli.data(), ysi.data()));
    // NHWC weights (layout_nhwc.hpp) are KRSC in memory; cuDNN takes their dims as K, C, R, S.
    // Weights laid out as both (1x1, depthwise) follow x.
    bool krsc    = is_nhwc(w) and (not w.standard() or (is_nhwc(x) and not x.standard()));
    auto wformat = krsc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
    MIGX_CUDA_CHECK(cudnnSetFilterNdDescriptor(p.w, t, wformat, static_cast<int>(wli.size()), wli.data()));
    auto pi = to_int(pads), si = to_int(strides), di = to_int(dil);
    MIGX_CUDA_CHECK(cudnnSetConvolutionNdDescriptor(
        p.conv, static_cast<int>(pi.size()), pi.data(), si.data(), di.data(), CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    MIGX_CUDA_CHECK(cudnnSetConvolutionGroupCount(p.conv, static_cast<int>(group)));
    cudnnMathType_t math = y.type() == shape::half_type ? CUDNN_TENSOR_OP_MATH
                           : plain_float(y.type())     ? CUDNN_FMA_MATH
                                                       : CUDNN_DEFAULT_MATH;
    MIGX_CUDA_CHECK(cudnnSetConvolutionMathType(p.conv, math));
    // The forward direction: x -> y, or for the transposed convolution y -> x.
    auto src = transposed ? p.y : p.x;
    const auto& dst = transposed ? xli : yli;
    std::vector<int> got(dst.size());
    MIGX_CUDA_CHECK(cudnnGetConvolutionNdForwardOutputDim(p.conv, src, p.w, static_cast<int>(got.size()), got.data()));
    if(got != dst)
        MIGRAPHX_THROW(what + ": cuDNN computes another output shape than the op");
}

} // namespace

shape convolution::compute_shape(const std::vector<shape>& inputs) const
{
    if(inputs.size() != 3)
        MIGRAPHX_THROW(name() + ": expects x, w and the output buffer");
    if(not inputs[1].standard() and not is_nhwc(inputs[1]))
        MIGRAPHX_THROW(name() + ": weights must be standard or NHWC");
    return inputs[2];
}

void convolution::finalize(context& ctx, const shape& out, const std::vector<shape>& inputs)
{
    auto& g = get_gpu_context(ctx);
    g.make_current();
    auto p = std::make_shared<plan>();
    describe_convolution(*p, name(), inputs[0], inputs[1], out, padding, stride, dilation, group, false);
    bool plain = plain_float(out.type());
    auto key   = problem_key(name(), g.get().device, inputs, out, padding, stride, dilation, group);
    auto saved = saved_algorithm(solution_id, plain, [&](const algo_choice& a, std::size_t* bytes) {
        cudnnSetConvolutionMathType(p->conv, a.math);
        return cudnnGetConvolutionForwardWorkspaceSize(
            g.get().dnn, p->x, p->w, p->conv, p->y, static_cast<cudnnConvolutionFwdAlgo_t>(a.algo), bytes);
    });
    auto c = saved ? *saved : choose_algorithm<cudnnConvolutionFwdAlgoPerf_t, CUDNN_CONVOLUTION_FWD_ALGO_COUNT>(
        g, key, inputs, out, plain, name(), [&](search_buffers& buf, auto* perf, int want, int* returned) {
            MIGX_CUDA_CHECK(cudnnFindConvolutionForwardAlgorithmEx(g.get().dnn, p->x, buf.in.get(), p->w, buf.w.get(),
                                                                   p->conv, p->y, buf.out.get(), want, returned, perf,
                                                                   buf.ws.get(), search_buffers::ws_limit));
        });
    p->algo = static_cast<cudnnConvolutionFwdAlgo_t>(c.algo);
    p->ws   = c.memory;
    MIGX_CUDA_CHECK(cudnnSetConvolutionMathType(p->conv, plain ? CUDNN_FMA_MATH : c.math));
    solution_id = to_solution_id(c, plain);
    g.reserve_workspace(p->ws);
    cache = p;
}

argument convolution::compute(context& ctx, const shape& out, const std::vector<argument>& args) const
{
    if(not cache)
        MIGRAPHX_THROW(name() + ": run before finalize");
    if(out.elements() == 0)
        return args[2];
    auto& g = get_gpu_context(ctx);
    float a = 1, b = 0;
    MIGX_CUDA_CHECK(cudnnConvolutionForward(g.get().dnn,
                                            &a,
                                            cache->x,
                                            args[0].data(),
                                            cache->w,
                                            args[1].data(),
                                            cache->conv,
                                            cache->algo,
                                            g.workspace(),
                                            cache->ws,
                                            &b,
                                            cache->y,
                                            args[2].data()));
    return args[2];
}
MIGRAPHX_REGISTER_OP(convolution)

// ---- gpu::conv_bias_relu ----------------------------------------------------------------------

struct conv_bias_relu::epilogue
{
    cudnnTensorDescriptor_t bias = nullptr;
    cudnnActivationDescriptor_t act = nullptr;
    ~epilogue()
    {
        if(bias)
            cudnnDestroyTensorDescriptor(bias);
        if(act)
            cudnnDestroyActivationDescriptor(act);
    }
};

bool conv_bias_relu::supported_bias(const shape& b, const shape& out)
{
    if(b.type() != out.type() or b.lens() != out.lens() or out.lens().size() != 4)
        return false;
    const auto& st = b.strides();
    for(std::size_t d = 0; d < 4; d++)
        if(b.lens()[d] != 1 and st[d] != (d == 1 ? 1u : 0u))
            return false;
    return true;
}

shape conv_bias_relu::compute_shape(const std::vector<shape>& inputs) const
{
    if(inputs.size() != (residual ? 5u : 4u))
        MIGRAPHX_THROW(name() + ": expects x, w, the bias" + (residual ? ", z" : "") + " and the output buffer");
    if(not inputs[1].standard() and not is_nhwc(inputs[1]))
        MIGRAPHX_THROW(name() + ": weights must be standard or NHWC");
    if(not supported_bias(inputs[2], inputs.back()))
        MIGRAPHX_THROW(name() + ": the bias must be one value per output channel");
    if(residual and (inputs[3].lens() != inputs.back().lens() or inputs[3].strides() != inputs.back().strides()))
        MIGRAPHX_THROW(name() + ": z must have the output's shape and layout");
    return inputs.back();
}

void conv_bias_relu::finalize(context& ctx, const shape& out, const std::vector<shape>& inputs)
{
    convolution::finalize(ctx, out, {inputs[0], inputs[1], out});
    auto e = std::make_shared<epilogue>();
    MIGX_CUDA_CHECK(cudnnCreateTensorDescriptor(&e->bias));
    int k = static_cast<int>(out.lens()[1]);
    MIGX_CUDA_CHECK(cudnnSetTensor4dDescriptor(e->bias, CUDNN_TENSOR_NCHW, dnn_type(out.type()), 1, k, 1, 1));
    MIGX_CUDA_CHECK(cudnnCreateActivationDescriptor(&e->act));
    MIGX_CUDA_CHECK(cudnnSetActivationDescriptor(e->act, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0));
    fused = e;
}

argument conv_bias_relu::compute(context& ctx, const shape& out, const std::vector<argument>& args) const
{
    if(not cache or not fused)
        MIGRAPHX_THROW(name() + ": run before finalize");
    if(out.elements() == 0)
        return args.back();
    auto& g = get_gpu_context(ctx);
    float a1 = 1, a2 = residual ? 1.0f : 0.0f;
    // Without a residual, z is the output itself, scaled by 0.
    const void* z = residual ? args[3].data() : args.back().data();
    MIGX_CUDA_CHECK(cudnnConvolutionBiasActivationForward(g.get().dnn,
                                                          &a1,
                                                          cache->x,
                                                          args[0].data(),
                                                          cache->w,
                                                          args[1].data(),
                                                          cache->conv,
                                                          cache->algo,
                                                          g.workspace(),
                                                          cache->ws,
                                                          &a2,
                                                          cache->y,
                                                          z,
                                                          fused->bias,
                                                          args[2].data(),
                                                          fused->act,
                                                          cache->y,
                                                          args.back().data()));
    return args.back();
}
MIGRAPHX_REGISTER_OP(conv_bias_relu)

struct convolution_backwards::plan : convolution::plan
{
    cudnnConvolutionBwdDataAlgo_t bwd{};
};

shape convolution_backwards::compute_shape(const std::vector<shape>& inputs) const
{
    if(inputs.size() != 3)
        MIGRAPHX_THROW(name() + ": expects x, w and the output buffer");
    if(not inputs[1].standard())
        MIGRAPHX_THROW(name() + ": weights must be standard");
    return inputs[2];
}

void convolution_backwards::finalize(context& ctx, const shape& out, const std::vector<shape>& inputs)
{
    auto& g = get_gpu_context(ctx);
    g.make_current();
    auto p = std::make_shared<plan>();
    // cuDNN's view: the forward convolution maps dx (our output, p->y) to dy (our input x, p->x).
    describe_convolution(*p, name(), inputs[0], inputs[1], out, padding, stride, dilation, group, true);
    bool plain = plain_float(out.type());
    auto key   = problem_key(name(), g.get().device, inputs, out, padding, stride, dilation, group);
    auto saved = saved_algorithm(solution_id, plain, [&](const algo_choice& a, std::size_t* bytes) {
        cudnnSetConvolutionMathType(p->conv, a.math);
        return cudnnGetConvolutionBackwardDataWorkspaceSize(
            g.get().dnn, p->w, p->x, p->conv, p->y, static_cast<cudnnConvolutionBwdDataAlgo_t>(a.algo), bytes);
    });
    auto c = saved ? *saved : choose_algorithm<cudnnConvolutionBwdDataAlgoPerf_t, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT>(
        g, key, inputs, out, plain, name(), [&](search_buffers& buf, auto* perf, int want, int* returned) {
            MIGX_CUDA_CHECK(cudnnFindConvolutionBackwardDataAlgorithmEx(
                g.get().dnn, p->w, buf.w.get(), p->x, buf.in.get(), p->conv, p->y, buf.out.get(), want, returned, perf,
                buf.ws.get(), search_buffers::ws_limit));
        });
    p->bwd = static_cast<cudnnConvolutionBwdDataAlgo_t>(c.algo);
    p->ws  = c.memory;
    MIGX_CUDA_CHECK(cudnnSetConvolutionMathType(p->conv, plain ? CUDNN_FMA_MATH : c.math));
    solution_id = to_solution_id(c, plain);
    g.reserve_workspace(p->ws);
    cache = p;
}

argument convolution_backwards::compute(context& ctx, const shape& out, const std::vector<argument>& args) const
{
    if(not cache)
        MIGRAPHX_THROW(name() + ": run before finalize");
    if(out.elements() == 0)
        return args[2];
    auto& g = get_gpu_context(ctx);
    float a = 1, b = 0;
    MIGX_CUDA_CHECK(cudnnConvolutionBackwardData(g.get().dnn, &a, cache->w, args[1].data(), cache->x, args[0].data(),
                                                 cache->conv, cache->bwd, g.workspace(), cache->ws, &b, cache->y,
                                                 args[2].data()));
    return args[2];
}
MIGRAPHX_REGISTER_OP(convolution_backwards)

} // namespace gpu
} // namespace migraphx
