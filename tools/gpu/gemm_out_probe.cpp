// Probe: which output forms cuBLASLt runs for an int8 (and an fp8) product on this device, and how
// fast against the fp16 product, on BERT-base b64's shapes (M = 8192 tokens). The question it
// answers: can an int8 product write half (its scale, a scale a channel and the bias in the
// epilogue), which keeps quantize_int8's results exactly (the dequantize of the int32 sums) and
// drops the int32 write and the separate dequantize kernel?
// Standalone (no migx): g++ -O2 gemm_out_probe.cpp -I$CUDA/include -L$CUDA/lib64 -lcublasLt -lcudart
#include <cublasLt.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include "probe_time.hpp"
#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

static void* dev(size_t bytes, int fill = 1)
{
    void* p = nullptr;
    cudaMalloc(&p, bytes);
    cudaMemset(p, fill, bytes);
    return p;
}

static size_t size_of(cudaDataType_t t)
{
    switch(t)
    {
    case CUDA_R_32F:
    case CUDA_R_32I: return 4;
    case CUDA_R_16F: return 2;
    default: return 1;
    }
}

struct form
{
    const char* name;
    cudaDataType_t ab, d;
    cublasComputeType_t compute;
    cudaDataType_t scale;
    bool bias;         // CUBLASLT_EPILOGUE_BIAS (bias of D's type, or float where D is int8)
    bool alpha_vector; // a scale a output channel (CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_ZERO)
    bool fp8_scales;   // A_SCALE / B_SCALE pointers (fp8)
};

// row-major Y[M, N] = X[M, K] W[N, K]^T (both K-contiguous: cuBLASLt's TN). Best of cuBLASLt's
// first 8 heuristic candidates, ms; -1 with the reason where none runs.
static double gemm(long m, long n, long k, const form& f, std::string& why)
{
    cublasLtHandle_t L;
    cublasLtCreate(&L);
    cublasLtMatmulDesc_t d;
    if(cublasLtMatmulDescCreate(&d, f.compute, f.scale) != CUBLAS_STATUS_SUCCESS)
    {
        why = "desc";
        return -1;
    }
    cublasOperation_t t = CUBLAS_OP_T, nop = CUBLAS_OP_N;
    cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof(t));
    cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSB, &nop, sizeof(nop));
    void* bias = nullptr;
    if(f.bias)
    {
        cublasLtEpilogue_t e = CUBLASLT_EPILOGUE_BIAS;
        cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_EPILOGUE, &e, sizeof(e));
        cudaDataType_t bt = f.d == CUDA_R_8I || f.d == CUDA_R_32I ? CUDA_R_32F : f.d;
        cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bt, sizeof(bt));
        bias = dev(n * size_of(bt), 0);
        cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias));
    }
    void* alphas = nullptr;
    if(f.alpha_vector)
    {
        cublasLtPointerMode_t pm = CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_ZERO;
        cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_POINTER_MODE, &pm, sizeof(pm));
        alphas = dev(n * 4, 0);
    }
    void *as = nullptr, *bs = nullptr;
    if(f.fp8_scales)
    {
        as = dev(4, 0), bs = dev(4, 0);
        cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &as, sizeof(as));
        cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &bs, sizeof(bs));
    }
    cublasLtMatrixLayout_t a, b, c, dd;
    cublasLtMatrixLayoutCreate(&a, f.ab, k, n, k); // W stored K x N column-major
    cublasLtMatrixLayoutCreate(&b, f.ab, k, m, k); // X stored K x M
    // fp8 products write D of the output type, C of half (cuBLASLt's rule); the others C = D
    cudaDataType_t ct = f.fp8_scales ? CUDA_R_16F : f.d;
    cublasLtMatrixLayoutCreate(&c, ct, n, m, n);
    cublasLtMatrixLayoutCreate(&dd, f.d, n, m, n);
    void* A  = dev(k * n * size_of(f.ab), 0);
    void* B  = dev(k * m * size_of(f.ab), 0);
    void* C  = dev(n * m * size_of(ct), 0);
    void* D  = dev(n * m * size_of(f.d), 0);
    size_t w = 32 << 20;
    void* ws = dev(w, 0);
    cublasLtMatmulPreference_t p;
    cublasLtMatmulPreferenceCreate(&p);
    cublasLtMatmulPreferenceSetAttribute(p, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &w, sizeof(w));
    cublasLtMatmulHeuristicResult_t res[8];
    int got  = 0;
    auto hst = cublasLtMatmulAlgoGetHeuristic(L, d, a, b, c, dd, p, 8, res, &got);
    double best = -1;
    int ai = 1, bi = 0;
    float af = 1, bf = 0;
    const void* al = f.alpha_vector ? alphas : f.scale == CUDA_R_32I ? (const void*)&ai : (const void*)&af;
    const void* be = f.scale == CUDA_R_32I ? (const void*)&bi : (const void*)&bf;
    cublasStatus_t last = CUBLAS_STATUS_SUCCESS;
    for(int i = 0; i < got; i++)
    {
        double ms = time_ms([&] {
            last = cublasLtMatmul(L, d, al, A, a, B, b, be, C, c, D, dd, &res[i].algo, ws, w, 0);
            return last == CUBLAS_STATUS_SUCCESS;
        });
        if(ms > 0 and (best < 0 or ms < best))
            best = ms;
    }
    if(hst != CUBLAS_STATUS_SUCCESS or got == 0)
        why = "no algorithm (heuristic status " + std::to_string(static_cast<int>(hst)) + ")";
    else if(best < 0)
        why = "matmul status " + std::to_string(static_cast<int>(last));
    if(cudaGetLastError() != cudaSuccess)
        why += " (cuda error)";
    for(void* v : {bias, alphas, as, bs, A, B, C, D, ws})
        cudaFree(v);
    cublasLtMatmulPreferenceDestroy(p);
    for(auto l : {a, b, c, dd})
        cublasLtMatrixLayoutDestroy(l);
    cublasLtMatmulDescDestroy(d);
    cublasLtDestroy(L);
    return best;
}

int main()
{
    std::vector<form> forms = {
        {"fp16 -> fp16 +bias", CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F, CUDA_R_32F, true, false, false},
        {"int8 -> int32 (today's)", CUDA_R_8I, CUDA_R_32I, CUBLAS_COMPUTE_32I, CUDA_R_32I, false, false, false},
        {"int8 -> int8", CUDA_R_8I, CUDA_R_8I, CUBLAS_COMPUTE_32I, CUDA_R_32F, false, false, false},
        {"int8 -> int8 alpha[N]", CUDA_R_8I, CUDA_R_8I, CUBLAS_COMPUTE_32I, CUDA_R_32F, false, true, false},
        {"int8 -> fp16 (32I)", CUDA_R_8I, CUDA_R_16F, CUBLAS_COMPUTE_32I, CUDA_R_32F, false, false, false},
        {"int8 -> fp16 (32I) alpha[N] +bias", CUDA_R_8I, CUDA_R_16F, CUBLAS_COMPUTE_32I, CUDA_R_32F, true, true, false},
        {"int8 -> fp32 (32I)", CUDA_R_8I, CUDA_R_32F, CUBLAS_COMPUTE_32I, CUDA_R_32F, false, false, false},
        {"int8 -> fp32 (32F)", CUDA_R_8I, CUDA_R_32F, CUBLAS_COMPUTE_32F, CUDA_R_32F, false, false, false},
        {"int8 -> fp16 (32F)", CUDA_R_8I, CUDA_R_16F, CUBLAS_COMPUTE_32F, CUDA_R_32F, false, false, false},
        {"fp8 e4m3 -> fp16 +bias", CUDA_R_8F_E4M3, CUDA_R_16F, CUBLAS_COMPUTE_32F, CUDA_R_32F, true, false, true},
    };
    int dv = 0;
    cudaDeviceProp prop{};
    cudaGetDeviceProperties(&prop, dv);
    std::printf("%s, cuBLASLt %zu; ms per product (best of cuBLASLt's first 8 candidates, median of 7x50 calls)\n",
                prop.name, cublasLtGetVersion());
    std::vector<std::pair<long, long>> shapes{{2304, 768}, {768, 768}, {3072, 768}, {768, 3072}};
    std::printf("| form |");
    for(auto [n, k] : shapes)
        std::printf(" 8192x%ldx%ld |", n, k);
    std::printf(" sum | fp16 / this |\n|---|---|---|---|---|---|---|\n");
    double base = 0;
    for(const auto& f : forms)
    {
        std::printf("| %s |", f.name);
        double sum = 0;
        std::string why;
        for(auto [n, k] : shapes)
        {
            std::string w;
            double ms = gemm(8192, n, k, f, w);
            if(ms < 0)
            {
                why = w;
                std::printf(" - |");
                sum = -1e9;
            }
            else
            {
                std::printf(" %.4f |", ms);
                sum += ms;
            }
        }
        if(sum < 0)
            std::printf(" - | %s |\n", why.c_str());
        else
        {
            if(base == 0)
                base = sum;
            std::printf(" %.4f | %.2f |\n", sum, base / sum);
        }
        std::fflush(stdout);
    }
    return 0;
}
