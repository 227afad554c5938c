// Feasibility probe for gpu int8 (issue 8): times, on the device, what cuDNN's legacy int8
// convolution (NHWC, int32 compute, float/int8 output; and NCHW_VECT_C INT8x32) and cuBLASLt's
// int8 GEMM (int32 accumulate) do against their fp16 counterparts on ResNet-50's batch-32
// shapes. Standalone (no migx): g++ -O2 int8_probe.cpp -I$CUDA/include -lcudnn -lcublasLt -lcudart
#include <cublasLt.h>
#include <cuda_runtime.h>
#include "probe_time.hpp"
#include <cudnn.h>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>
#include <algorithm>

#define CK(x)                                                                                      \
    do                                                                                             \
    {                                                                                              \
        auto s_ = (x);                                                                             \
        if(s_ != 0)                                                                                \
        {                                                                                          \
            std::printf("  %s -> %d\n", #x, (int)s_);                                              \
            return -1.0;                                                                           \
        }                                                                                          \
    } while(0)

static void* dev(size_t bytes)
{
    void* p = nullptr;
    cudaMalloc(&p, bytes);
    cudaMemset(p, 1, bytes);
    return p;
}

static cudnnHandle_t H;
static cublasLtHandle_t L;

// fmt: 0 NHWC legacy, 1 NCHW_VECT_C x32
static double conv(int n, int c, int h, int w, int k, int r, int stride, cudnnDataType_t xt,
                   cudnnDataType_t yt, cudnnDataType_t ct, int vect32)
{
    int pad = r / 2;
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    cudnnCreateTensorDescriptor(&xd);
    cudnnCreateTensorDescriptor(&yd);
    cudnnCreateFilterDescriptor(&wd);
    cudnnCreateConvolutionDescriptor(&cd);
    auto fmt = vect32 ? CUDNN_TENSOR_NCHW_VECT_C : CUDNN_TENSOR_NHWC;
    CK(cudnnSetTensor4dDescriptor(xd, fmt, xt, n, c, h, w));
    CK(cudnnSetFilter4dDescriptor(wd, xt, fmt, k, c, r, r));
    CK(cudnnSetConvolution2dDescriptor(cd, pad, pad, stride, stride, 1, 1, CUDNN_CROSS_CORRELATION, ct));
    cudnnSetConvolutionMathType(cd, CUDNN_TENSOR_OP_MATH);
    int on, oc, oh, ow;
    CK(cudnnGetConvolution2dForwardOutputDim(cd, xd, wd, &on, &oc, &oh, &ow));
    CK(cudnnSetTensor4dDescriptor(yd, vect32 ? fmt : CUDNN_TENSOR_NHWC, yt, on, oc, oh, ow));
    size_t xs = (xt == CUDNN_DATA_HALF ? 2 : 1), ys = yt == CUDNN_DATA_FLOAT ? 4 : yt == CUDNN_DATA_HALF ? 2 : 1;
    void* x  = dev(size_t(n) * c * h * w * xs);
    void* wt = dev(size_t(k) * c * r * r * xs);
    void* y  = dev(size_t(on) * oc * oh * ow * ys);
    int returned = 0;
    cudnnConvolutionFwdAlgoPerf_t perf[8];
    void* ws = dev(size_t(256) << 20);
    auto st  = cudnnFindConvolutionForwardAlgorithmEx(H, xd, x, wd, wt, cd, yd, y, 8, &returned, perf, ws, size_t(256) << 20);
    double best = -1;
    if(st == CUDNN_STATUS_SUCCESS)
        for(int i = 0; i < returned; i++)
            if(perf[i].status == CUDNN_STATUS_SUCCESS)
            {
                float alpha = 1, beta = 0;
                auto algo = perf[i].algo;
                auto wsz  = perf[i].memory;
                best = time_ms([&] {
                    return cudnnConvolutionForward(H, &alpha, xd, x, wd, wt, cd, algo, ws, wsz, &beta, yd, y) ==
                           CUDNN_STATUS_SUCCESS;
                });
                break;
            }
    if(best < 0)
        std::printf("  (find status %d, returned %d, first %d)\n", (int)st, returned, returned ? (int)perf[0].status : -1);
    cudaFree(x);
    cudaFree(wt);
    cudaFree(y);
    cudaFree(ws);
    return best;
}

// row-major Y[M, N] = X[M, K] W[N, K]^T (both K-contiguous: cuBLASLt TN)
static double gemm(long m, long nn, long kk, cudaDataType_t ab, cudaDataType_t cdt, cublasComputeType_t comp,
                   cudaDataType_t scale)
{
    cublasLtMatmulDesc_t d;
    CK(cublasLtMatmulDescCreate(&d, comp, scale));
    cublasOperation_t t = CUBLAS_OP_T, nop = CUBLAS_OP_N;
    cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof(t));
    cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSB, &nop, sizeof(nop));
    cublasLtMatrixLayout_t a, b, c;
    CK(cublasLtMatrixLayoutCreate(&a, ab, kk, nn, kk)); // W stored K x N col-major
    CK(cublasLtMatrixLayoutCreate(&b, ab, kk, m, kk));  // X stored K x M
    CK(cublasLtMatrixLayoutCreate(&c, cdt, nn, m, nn));
    size_t es = ab == CUDA_R_16F ? 2 : 1, cs = cdt == CUDA_R_32I || cdt == CUDA_R_32F ? 4 : cdt == CUDA_R_16F ? 2 : 1;
    void* A = dev(kk * nn * es);
    void* B = dev(kk * m * es);
    void* C = dev(nn * m * cs);
    size_t wsz = 32 << 20;
    void* ws = dev(wsz);
    cublasLtMatmulPreference_t p;
    cublasLtMatmulPreferenceCreate(&p);
    cublasLtMatmulPreferenceSetAttribute(p, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsz, sizeof(wsz));
    cublasLtMatmulHeuristicResult_t res[8];
    int got = 0;
    CK(cublasLtMatmulAlgoGetHeuristic(L, d, a, b, c, c, p, 8, res, &got) == CUBLAS_STATUS_SUCCESS ? 0 : 1);
    double best = -1;
    for(int i = 0; i < got; i++)
    {
        int ai = 1, bi = 0;
        float af = 1, bf = 0;
        const void* al = scale == CUDA_R_32I ? (const void*)&ai : (const void*)&af;
        const void* be = scale == CUDA_R_32I ? (const void*)&bi : (const void*)&bf;
        double t_ = time_ms([&] {
            return cublasLtMatmul(L, d, al, A, a, B, b, be, C, c, C, c, &res[i].algo, ws, wsz, 0) ==
                   CUBLAS_STATUS_SUCCESS;
        });
        if(t_ > 0 and (best < 0 or t_ < best))
            best = t_;
    }
    if(got == 0)
        std::printf("  (no cuBLASLt algorithm)\n");
    cudaFree(A);
    cudaFree(B);
    cudaFree(C);
    cudaFree(ws);
    return best;
}

// ---- backend graph: conv [int8 -> int32 | half -> float] -> mul(scale[K]) -> add(bias[K]) -> relu -> y
struct bd
{
    cudnnBackendDescriptor_t d = nullptr;
    explicit bd(cudnnBackendDescriptorType_t t) { cudnnBackendCreateDescriptor(t, &d); }
    ~bd() { if(d) cudnnBackendDestroyDescriptor(d); }
    bd(const bd&) = delete;
    int set(cudnnBackendAttributeName_t a, cudnnBackendAttributeType_t t, int64_t n, const void* v)
    {
        return (int)cudnnBackendSetAttribute(d, a, t, n, v);
    }
    int i64(cudnnBackendAttributeName_t a, std::vector<int64_t> v) { return set(a, CUDNN_TYPE_INT64, v.size(), v.data()); }
    int desc(cudnnBackendAttributeName_t a, const bd& o) { return set(a, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &o.d); }
    int fin() { return (int)cudnnBackendFinalize(d); }
};

static bd* tensor(int64_t uid, std::vector<int64_t> dims, cudnnDataType_t t, bool virt, bool channel_vec = false)
{
    auto* d = new bd(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    // NHWC strides on N, C, H, W dims
    std::vector<int64_t> st(4);
    st[1] = 1;
    st[3] = dims[1];
    st[2] = dims[1] * dims[3];
    st[0] = dims[1] * dims[3] * dims[2];
    (void)channel_vec;
    d->set(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &t);
    d->i64(CUDNN_ATTR_TENSOR_DIMENSIONS, dims);
    d->i64(CUDNN_ATTR_TENSOR_STRIDES, st);
    d->i64(CUDNN_ATTR_TENSOR_UNIQUE_ID, {uid});
    d->i64(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, {16});
    d->set(CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &virt);
    if(d->fin() != 0)
        std::printf("  tensor %ld finalize failed\n", (long)uid);
    return d;
}

static bd* pw_op(cudnnPointwiseMode_t m, bd* x, bd* b, bd* y, std::vector<bd*>& keep)
{
    auto* pw = new bd(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
    auto prec = CUDNN_DATA_FLOAT;
    pw->set(CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &m);
    pw->set(CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &prec);
    pw->fin();
    keep.push_back(pw);
    auto* op = new bd(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
    op->desc(CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, *pw);
    op->desc(CUDNN_ATTR_OPERATION_POINTWISE_XDESC, *x);
    if(b)
        op->desc(CUDNN_ATTR_OPERATION_POINTWISE_BDESC, *b);
    op->desc(CUDNN_ATTR_OPERATION_POINTWISE_YDESC, *y);
    if(op->fin() != 0)
        std::printf("  pointwise op finalize failed\n");
    keep.push_back(op);
    return op;
}

// int8: x,w int8, conv int32, mul scale, add bias, relu, y int8. half: x,w half, conv float, add bias, relu, y half.
static double graph_conv(int n, int c, int h, int w, int k, int r, bool int8, int* engines_ok)
{
    int pad = r / 2;
    int oh = h, ow = w; // stride 1, same padding
    cudnnDataType_t io = int8 ? CUDNN_DATA_INT8 : CUDNN_DATA_HALF;
    std::vector<bd*> keep;
    auto* X = tensor('x', {n, c, h, w}, io, false);
    auto* W = tensor('w', {k, c, r, r}, io, false);
    auto* Y = tensor('y', {n, k, oh, ow}, io, false);
    auto* S = tensor('s', {1, k, 1, 1}, CUDNN_DATA_FLOAT, false);
    auto* B = tensor('b', {1, k, 1, 1}, int8 ? CUDNN_DATA_FLOAT : CUDNN_DATA_HALF, false);
    auto* A = tensor(100, {n, k, oh, ow}, int8 ? CUDNN_DATA_INT32 : CUDNN_DATA_FLOAT, true);
    auto* Bv = tensor(101, {n, k, oh, ow}, CUDNN_DATA_FLOAT, true);
    auto* Cv = tensor(102, {n, k, oh, ow}, CUDNN_DATA_FLOAT, true);
    keep.insert(keep.end(), {X, W, Y, S, B, A, Bv, Cv});
    auto* conv = new bd(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
    keep.push_back(conv);
    auto comp = int8 ? CUDNN_DATA_INT32 : CUDNN_DATA_FLOAT;
    auto mode = CUDNN_CROSS_CORRELATION;
    conv->set(CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &comp);
    conv->set(CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode);
    conv->i64(CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, {2});
    conv->i64(CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, {pad, pad});
    conv->i64(CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, {pad, pad});
    conv->i64(CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, {1, 1});
    conv->i64(CUDNN_ATTR_CONVOLUTION_DILATIONS, {1, 1});
    conv->fin();
    auto* cop = new bd(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
    keep.push_back(cop);
    float alpha = 1, beta = 0;
    cop->set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, 1, &alpha);
    cop->set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, 1, &beta);
    cop->desc(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, *conv);
    cop->desc(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, *X);
    cop->desc(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, *W);
    cop->desc(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, *A);
    if(cop->fin() != 0)
        std::printf("  conv op finalize failed\n");
    std::vector<cudnnBackendDescriptor_t> ops{cop->d};
    if(int8)
    {
        ops.push_back(pw_op(CUDNN_POINTWISE_MUL, A, S, Bv, keep)->d);
        ops.push_back(pw_op(CUDNN_POINTWISE_ADD, Bv, B, Cv, keep)->d);
    }
    else
        ops.push_back(pw_op(CUDNN_POINTWISE_ADD, A, B, Cv, keep)->d);
    ops.push_back(pw_op(CUDNN_POINTWISE_RELU_FWD, Cv, nullptr, Y, keep)->d);
    bd graph(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    graph.set(CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, ops.size(), ops.data());
    graph.set(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &H);
    int gs = graph.fin();
    if(gs != 0)
    {
        std::printf("  graph finalize -> %d\n", gs);
        return -1;
    }
    size_t es = int8 ? 1 : 2;
    void* x = dev(size_t(n) * c * h * w * es);
    void* wt = dev(size_t(k) * c * r * r * es);
    void* y = dev(size_t(n) * k * oh * ow * es);
    void* s = dev(k * 4);
    void* b = dev(k * 4);
    size_t wsz = size_t(256) << 20;
    void* ws = dev(wsz);
    double best = -1;
    *engines_ok = 0;
    for(auto hm : {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK})
    {
        bd heur(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
        heur.desc(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, graph);
        heur.set(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &hm);
        if(heur.fin() != 0)
            continue;
        int64_t count = 0;
        cudnnBackendGetAttribute(heur.d, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, nullptr);
        std::vector<cudnnBackendDescriptor_t> cfgs(count);
        for(auto& cf : cfgs)
            cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cf);
        int64_t got = 0;
        cudnnBackendGetAttribute(heur.d, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &got, cfgs.data());
        for(int64_t i = 0; i < got and i < 12; i++)
        {
            bd plan(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
            plan.set(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &H);
            plan.set(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfgs[i]);
            if(plan.fin() != 0)
                continue;
            int64_t need = 0, nn = 0;
            cudnnBackendGetAttribute(plan.d, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &nn, &need);
            if(need > (int64_t)wsz)
                continue;
            void* ptrs[] = {x, w == 0 ? nullptr : wt, y, s, b};
            int64_t uids[] = {'x', 'w', 'y', 's', 'b'};
            int nptr = int8 ? 5 : 4;
            if(not int8)
            {
                ptrs[3] = b;
                uids[3] = 'b';
            }
            bd vp(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
            vp.set(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, nptr, uids);
            vp.set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, nptr, ptrs);
            vp.set(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &ws);
            if(vp.fin() != 0)
                continue;
            auto t = time_ms([&] { return cudnnBackendExecute(H, plan.d, vp.d) == CUDNN_STATUS_SUCCESS; }, 20);
            if(t > 0)
            {
                ++*engines_ok;
                if(best < 0 or t < best)
                    best = t;
            }
        }
        for(auto& cf : cfgs)
            cudnnBackendDestroyDescriptor(cf);
    }
    cudaFree(x);
    cudaFree(wt);
    cudaFree(y);
    cudaFree(s);
    cudaFree(b);
    cudaFree(ws);
    for(auto it = keep.rbegin(); it != keep.rend(); ++it)
        delete *it;
    return best;
}

int main()
{
    cudnnCreate(&H);
    cublasLtCreate(&L);
    struct S
    {
        int c, hw, k, r, s;
    };
    std::vector<S> shapes = {{64, 56, 64, 3, 1},   {64, 56, 256, 1, 1},  {256, 56, 64, 1, 1},
                             {128, 28, 128, 3, 1}, {512, 28, 128, 1, 1}, {256, 14, 256, 3, 1},
                             {1024, 14, 256, 1, 1}, {512, 7, 512, 3, 1}, {2048, 7, 512, 1, 1}};
    int n = 32;
    std::printf("conv b32: C HW K r | fp16 NHWC | int8->f32 NHWC | int8->int8 NHWC | int8x32->int8x32 | ms\n");
    double t16 = 0, t8 = 0, gt16 = 0, gt8 = 0;
    for(auto s : shapes)
    {
        double a = conv(n, s.c, s.hw, s.hw, s.k, s.r, s.s, CUDNN_DATA_HALF, CUDNN_DATA_HALF, CUDNN_DATA_FLOAT, 0);
        double b = conv(n, s.c, s.hw, s.hw, s.k, s.r, s.s, CUDNN_DATA_INT8, CUDNN_DATA_FLOAT, CUDNN_DATA_INT32, 0);
        double c = conv(n, s.c, s.hw, s.hw, s.k, s.r, s.s, CUDNN_DATA_INT8, CUDNN_DATA_INT8, CUDNN_DATA_INT32, 0);
        double d = conv(n, s.c, s.hw, s.hw, s.k, s.r, s.s, CUDNN_DATA_INT8x32, CUDNN_DATA_INT8x32, CUDNN_DATA_INT32, 1);
        std::printf("%5d %3d %5d %d | %.4f | %.4f | %.4f | %.4f\n", s.c, s.hw, s.k, s.r, a, b, c, d);
        if(s.r == 1)
        {
            long m = long(n) * s.hw * s.hw;
            double g16 = gemm(m, s.k, s.c, CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F, CUDA_R_32F);
            double g8  = gemm(m, s.k, s.c, CUDA_R_8I, CUDA_R_32I, CUBLAS_COMPUTE_32I, CUDA_R_32I);
            double g8b = gemm(m, s.k, s.c, CUDA_R_8I, CUDA_R_8I, CUBLAS_COMPUTE_32I, CUDA_R_32F);
            std::printf("      gemm M=%ld: fp16 %.4f | int8->int32 %.4f | int8->int8 %.4f\n", m, g16, g8, g8b);
        }
        int e16 = 0, e8 = 0;
        double g16 = graph_conv(n, s.c, s.hw, s.hw, s.k, s.r, false, &e16);
        double g8  = graph_conv(n, s.c, s.hw, s.hw, s.k, s.r, true, &e8);
        std::printf("      graph conv+bias+relu: half %.4f (%d engines) | int8 scale+bias+relu->int8 %.4f (%d engines)\n", g16, e16, g8, e8);
        gt16 += g16;
        gt8 += g8 > 0 ? g8 : 0;
        t16 += a;
        t8 += std::max(0.0, c);
    }
    std::printf("sum fp16 %.4f int8->int8 %.4f | graph half %.4f int8 %.4f\n", t16, t8, gt16, gt8);
    // BERT-base shapes, b64 s128: M=8192
    for(auto [nn, kk] : std::vector<std::pair<long, long>>{{2304, 768}, {768, 768}, {3072, 768}, {768, 3072}})
    {
        double g16 = gemm(8192, nn, kk, CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F, CUDA_R_32F);
        double g8  = gemm(8192, nn, kk, CUDA_R_8I, CUDA_R_32I, CUBLAS_COMPUTE_32I, CUDA_R_32I);
        double g8b = gemm(8192, nn, kk, CUDA_R_8I, CUDA_R_8I, CUBLAS_COMPUTE_32I, CUDA_R_32F);
        std::printf("bert gemm 8192x%ldx%ld: fp16 %.4f | int8->int32 %.4f | int8->int8 %.4f\n", nn, kk, g16, g8, g8b);
    }
    return 0;
}
