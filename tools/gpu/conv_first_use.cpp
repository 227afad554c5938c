// What a process's first use of one legacy cuDNN convolution algorithm costs, for one fp32
// problem: after a warm-up (a tiny convolution with IMPLICIT_PRECOMP_GEMM, so cuDNN itself is
// started, as in mxr_load_time's "libraries started"), the workspace query that makes cuDNN build
// the algorithm's engine, then the first forward call and the fastest of 20 more (ms each, CUDA events around
// the calls). One process per (problem, algorithm): the first use is what is measured.
// Standalone (no migx):
//   g++ -O2 -std=c++17 conv_first_use.cpp -I$CUDA/include -L$CUDA/lib64 -lcudnn -lcudart -o conv_first_use
//   conv_first_use N C H W K R S PAD STRIDE ALGO     (FMA math, NCHW, float)
// prints: algo=A query_ms=Q first_ms=F steady_ms=S ws=B   or   algo=A unsupported (status)
#include <cudnn.h>
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#define CK(x)                                                                       \
    do                                                                              \
    {                                                                               \
        auto s_ = (x);                                                              \
        if(s_ != 0)                                                                 \
        {                                                                           \
            std::printf("error %d at line %d: %s\n", static_cast<int>(s_), __LINE__, #x); \
            std::exit(1);                                                           \
        }                                                                           \
    } while(0)

struct problem
{
    cudnnTensorDescriptor_t x{}, y{};
    cudnnFilterDescriptor_t w{};
    cudnnConvolutionDescriptor_t c{};
    int n, ch, h, wd, k, r, s, pad, stride, oh = 0, ow = 0;
    void make()
    {
        CK(cudnnCreateTensorDescriptor(&x));
        CK(cudnnCreateTensorDescriptor(&y));
        CK(cudnnCreateFilterDescriptor(&w));
        CK(cudnnCreateConvolutionDescriptor(&c));
        CK(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, ch, h, wd));
        CK(cudnnSetFilter4dDescriptor(w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, k, ch, r, s));
        CK(cudnnSetConvolution2dDescriptor(c, pad, pad, stride, stride, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
        CK(cudnnSetConvolutionMathType(c, CUDNN_FMA_MATH));
        int on, oc;
        CK(cudnnGetConvolution2dForwardOutputDim(c, x, w, &on, &oc, &oh, &ow));
        CK(cudnnSetTensor4dDescriptor(y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, k, oh, ow));
    }
};

double ms_since(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

float run(cudnnHandle_t h, problem& p, cudnnConvolutionFwdAlgo_t a, void* x, void* w, void* y, void* ws, size_t wsb)
{
    float one = 1, zero = 0, ms = 0;
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    CK(cudaEventRecord(e0));
    CK(cudnnConvolutionForward(h, &one, p.x, x, p.w, w, p.c, a, ws, wsb, &zero, p.y, y));
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    CK(cudaEventElapsedTime(&ms, e0, e1));
    return ms;
}

int main(int argc, char** argv)
{
    if(argc != 11)
    {
        std::printf("usage: conv_first_use N C H W K R S PAD STRIDE ALGO\n");
        return 2;
    }
    problem p{};
    int* f[] = {&p.n, &p.ch, &p.h, &p.wd, &p.k, &p.r, &p.s, &p.pad, &p.stride};
    for(int i = 0; i < 9; i++)
        *f[i] = std::atoi(argv[i + 1]);
    auto algo = static_cast<cudnnConvolutionFwdAlgo_t>(std::atoi(argv[10]));
    CK(cudaFree(nullptr));
    cudnnHandle_t h;
    CK(cudnnCreate(&h));
    void *x, *w, *y, *ws;
    CK(cudaMalloc(&x, 64u << 20));
    CK(cudaMalloc(&w, 64u << 20));
    CK(cudaMalloc(&y, 64u << 20));
    CK(cudaMalloc(&ws, 256u << 20));
    CK(cudaMemset(x, 0, 64u << 20));
    CK(cudaMemset(w, 0, 64u << 20));
    {
        problem t{};
        t.n = 1, t.ch = 8, t.h = 8, t.wd = 8, t.k = 8, t.r = 3, t.s = 3, t.pad = 1, t.stride = 1;
        t.make();
        size_t b = 0;
        CK(cudnnGetConvolutionForwardWorkspaceSize(h, t.x, t.w, t.c, t.y, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, &b));
        run(h, t, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, x, w, y, ws, b);
    }
    p.make();
    size_t b = 0;
    auto t0 = std::chrono::steady_clock::now();
    auto st = cudnnGetConvolutionForwardWorkspaceSize(h, p.x, p.w, p.c, p.y, algo, &b);
    double q = ms_since(t0);
    if(st != CUDNN_STATUS_SUCCESS or b > (256u << 20))
    {
        std::printf("algo=%d unsupported (status %d, ws %zu) query_ms=%.3f\n", static_cast<int>(algo), static_cast<int>(st), b, q);
        return 0;
    }
    t0          = std::chrono::steady_clock::now();
    float first = run(h, p, algo, x, w, y, ws, b);
    double fw   = ms_since(t0);
    float last  = 1e9f; // the fastest of 20 calls
    for(int i = 0; i < 20; i++)
    {
        float t = run(h, p, algo, x, w, y, ws, b);
        last    = t < last ? t : last;
    }
    std::printf("algo=%d query_ms=%.3f first_wall_ms=%.3f first_gpu_ms=%.4f steady_gpu_ms=%.4f ws=%zu\n",
                static_cast<int>(algo), q, fw, first, last, b);
    return 0;
}
