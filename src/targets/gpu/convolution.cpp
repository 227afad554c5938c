// gpu::convolution: cuDNN's convolution; gpu::convolution_backwards: its backward-data (a
// transposed convolution). gpu::convolution: NCHW (input may be strided; weights standard), 1-d
// convolutions as 2-d with a trailing 1. The algorithm is measured once at finalize
// (cudnnFindConvolutionForwardAlgorithmEx) and kept; float runs in plain FMA math (no TF32,
// unless MIGRAPHX_GPU_TF32=1), half on tensor cores with float accumulation.
#include "targets/gpu/context.hpp"
#include "targets/gpu/gpu_ops.hpp"
#include "ir/env.hpp"
#include <migraphx/register_op.hpp>

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

} // namespace

shape convolution::compute_shape(const std::vector<shape>& inputs) const
{
    if(inputs.size() != 3)
        MIGRAPHX_THROW(name() + ": expects x, w and the output buffer");
    if(not inputs[1].standard())
        MIGRAPHX_THROW(name() + ": weights must be standard");
    return inputs[2];
}

void convolution::finalize(context& ctx, const shape& out, const std::vector<shape>& inputs)
{
    auto& g = get_gpu_context(ctx);
    g.make_current();
    auto handle = g.get().dnn;
    auto p      = std::make_shared<plan>();
    auto t      = dnn_type(out.type());
    auto kd     = inputs[0].lens().size() - 2;

    auto xl = inputs[0].lens(), xs = inputs[0].strides();
    auto wl = inputs[1].lens(), ws = inputs[1].strides();
    auto yl = out.lens(), ys = out.strides();
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
    MIGX_CUDA_CHECK(cudnnCreateTensorDescriptor(&p->x));
    MIGX_CUDA_CHECK(cudnnCreateTensorDescriptor(&p->y));
    MIGX_CUDA_CHECK(cudnnCreateFilterDescriptor(&p->w));
    MIGX_CUDA_CHECK(cudnnCreateConvolutionDescriptor(&p->conv));
    auto xli = to_int(xl), xsi = to_int(xs), wli = to_int(wl), yli = to_int(yl), ysi = to_int(ys);
    MIGX_CUDA_CHECK(cudnnSetTensorNdDescriptor(p->x, t, static_cast<int>(xli.size()), xli.data(), xsi.data()));
    MIGX_CUDA_CHECK(cudnnSetTensorNdDescriptor(p->y, t, static_cast<int>(yli.size()), yli.data(), ysi.data()));
    MIGX_CUDA_CHECK(cudnnSetFilterNdDescriptor(p->w, t, CUDNN_TENSOR_NCHW, static_cast<int>(wli.size()), wli.data()));
    auto pi = to_int(pads), si = to_int(strides), di = to_int(dil);
    MIGX_CUDA_CHECK(cudnnSetConvolutionNdDescriptor(
        p->conv, static_cast<int>(pi.size()), pi.data(), si.data(), di.data(), CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    MIGX_CUDA_CHECK(cudnnSetConvolutionGroupCount(p->conv, static_cast<int>(group)));
    bool tf32             = env_enabled("MIGRAPHX_GPU_TF32");
    cudnnMathType_t math  = out.type() == shape::half_type ? CUDNN_TENSOR_OP_MATH
                            : tf32                         ? CUDNN_DEFAULT_MATH
                                                           : CUDNN_FMA_MATH;
    MIGX_CUDA_CHECK(cudnnSetConvolutionMathType(p->conv, math));

    std::vector<int> got(yli.size());
    MIGX_CUDA_CHECK(cudnnGetConvolutionNdForwardOutputDim(p->conv, p->x, p->w, static_cast<int>(got.size()), got.data()));
    if(got != yli)
        MIGRAPHX_THROW(name() + ": cuDNN computes another output shape than the op");

    // Measure the algorithms on scratch buffers of the real sizes.
    auto xbuf            = device_alloc(inputs[0].bytes());
    auto wbuf            = device_alloc(inputs[1].bytes());
    auto ybuf            = device_alloc(out.bytes());
    std::size_t ws_limit = 256u << 20;
    auto wsbuf           = device_alloc(ws_limit);
    MIGX_CUDA_CHECK(cudaMemset(xbuf.get(), 0, inputs[0].bytes()));
    MIGX_CUDA_CHECK(cudaMemset(wbuf.get(), 0, inputs[1].bytes()));
    constexpr int want = CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
    cudnnConvolutionFwdAlgoPerf_t perf[want];
    int returned = 0;
    MIGX_CUDA_CHECK(cudnnFindConvolutionForwardAlgorithmEx(
        handle, p->x, xbuf.get(), p->w, wbuf.get(), p->conv, p->y, ybuf.get(), want, &returned, perf, wsbuf.get(), ws_limit));
    MIGX_CUDA_CHECK(cudaStreamSynchronize(g.stream()));
    MIGX_CUDA_CHECK(cudaDeviceSynchronize());
    const cudnnConvolutionFwdAlgoPerf_t* best = nullptr;
    for(int i = 0; i < returned and best == nullptr; i++)
    {
        if(perf[i].status != CUDNN_STATUS_SUCCESS or perf[i].memory > ws_limit)
            continue;
        // Plain float stays exact to float: no TF32 tensor-core algorithms.
        if(out.type() == shape::float_type and not tf32 and perf[i].mathType == CUDNN_TENSOR_OP_MATH)
            continue;
        best = &perf[i];
    }
    if(best == nullptr)
        MIGRAPHX_THROW(name() + ": cuDNN found no algorithm for this convolution");
    p->algo = best->algo;
    p->ws   = best->memory;
    bool plain_float = out.type() == shape::float_type and not tf32;
    MIGX_CUDA_CHECK(cudnnSetConvolutionMathType(p->conv, plain_float ? CUDNN_FMA_MATH : best->mathType));
    solution_id = static_cast<std::int64_t>(best->algo);
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
    auto handle = g.get().dnn;
    auto p      = std::make_shared<plan>();
    auto t      = dnn_type(out.type());
    auto kd     = inputs[0].lens().size() - 2;
    // cuDNN's view: the forward convolution maps dx (our output) to dy (our input x).
    auto dyl = inputs[0].lens(), dys = inputs[0].strides();
    auto wl = inputs[1].lens(), ws = inputs[1].strides();
    auto dxl = out.lens(), dxs = out.strides();
    pad4(dyl, dys);
    pad4(wl, ws);
    pad4(dxl, dxs);
    std::vector<std::size_t> pads(padding.begin(), padding.begin() + kd), strides = stride, dil = dilation;
    while(pads.size() < 2)
    {
        pads.push_back(0);
        strides.push_back(1);
        dil.push_back(1);
    }
    MIGX_CUDA_CHECK(cudnnCreateTensorDescriptor(&p->x));
    MIGX_CUDA_CHECK(cudnnCreateTensorDescriptor(&p->y));
    MIGX_CUDA_CHECK(cudnnCreateFilterDescriptor(&p->w));
    MIGX_CUDA_CHECK(cudnnCreateConvolutionDescriptor(&p->conv));
    auto dyli = to_int(dyl), dysi = to_int(dys), wli = to_int(wl), dxli = to_int(dxl), dxsi = to_int(dxs);
    // p->x describes dy (our input), p->y describes dx (our output).
    MIGX_CUDA_CHECK(cudnnSetTensorNdDescriptor(p->x, t, static_cast<int>(dyli.size()), dyli.data(), dysi.data()));
    MIGX_CUDA_CHECK(cudnnSetTensorNdDescriptor(p->y, t, static_cast<int>(dxli.size()), dxli.data(), dxsi.data()));
    MIGX_CUDA_CHECK(cudnnSetFilterNdDescriptor(p->w, t, CUDNN_TENSOR_NCHW, static_cast<int>(wli.size()), wli.data()));
    auto pi = to_int(pads), si = to_int(strides), di = to_int(dil);
    MIGX_CUDA_CHECK(cudnnSetConvolutionNdDescriptor(
        p->conv, static_cast<int>(pi.size()), pi.data(), si.data(), di.data(), CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    MIGX_CUDA_CHECK(cudnnSetConvolutionGroupCount(p->conv, static_cast<int>(group)));
    bool tf32        = env_enabled("MIGRAPHX_GPU_TF32");
    bool plain_float = out.type() == shape::float_type and not tf32;
    MIGX_CUDA_CHECK(cudnnSetConvolutionMathType(
        p->conv, out.type() == shape::half_type ? CUDNN_TENSOR_OP_MATH : plain_float ? CUDNN_FMA_MATH : CUDNN_DEFAULT_MATH));
    std::vector<int> got(dxli.size());
    MIGX_CUDA_CHECK(cudnnGetConvolutionNdForwardOutputDim(p->conv, p->y, p->w, static_cast<int>(got.size()), got.data()));
    if(got != dyli)
        MIGRAPHX_THROW(name() + ": cuDNN's convolution of the output does not give the input's shape");

    auto dybuf           = device_alloc(inputs[0].bytes());
    auto wbuf            = device_alloc(inputs[1].bytes());
    auto dxbuf           = device_alloc(out.bytes());
    std::size_t ws_limit = 256u << 20;
    auto wsbuf           = device_alloc(ws_limit);
    MIGX_CUDA_CHECK(cudaMemset(dybuf.get(), 0, inputs[0].bytes()));
    MIGX_CUDA_CHECK(cudaMemset(wbuf.get(), 0, inputs[1].bytes()));
    constexpr int want = CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT;
    cudnnConvolutionBwdDataAlgoPerf_t perf[want];
    int returned = 0;
    MIGX_CUDA_CHECK(cudnnFindConvolutionBackwardDataAlgorithmEx(handle, p->w, wbuf.get(), p->x, dybuf.get(), p->conv,
                                                                p->y, dxbuf.get(), want, &returned, perf, wsbuf.get(),
                                                                ws_limit));
    MIGX_CUDA_CHECK(cudaDeviceSynchronize());
    const cudnnConvolutionBwdDataAlgoPerf_t* best = nullptr;
    for(int i = 0; i < returned and best == nullptr; i++)
    {
        if(perf[i].status != CUDNN_STATUS_SUCCESS or perf[i].memory > ws_limit)
            continue;
        if(plain_float and perf[i].mathType == CUDNN_TENSOR_OP_MATH)
            continue;
        best = &perf[i];
    }
    if(best == nullptr)
        MIGRAPHX_THROW(name() + ": cuDNN found no algorithm for this transposed convolution");
    p->bwd = best->algo;
    p->ws  = best->memory;
    MIGX_CUDA_CHECK(cudnnSetConvolutionMathType(p->conv, plain_float ? CUDNN_FMA_MATH : best->mathType));
    solution_id = static_cast<std::int64_t>(best->algo);
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
