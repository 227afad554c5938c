#include "targets/cpu/gemm_kernel.hpp"
#include "targets/cpu/fast_math.hpp"
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <immintrin.h>

namespace migraphx {
namespace cpu {
namespace {

constexpr std::size_t nr = gemm_panel;
constexpr std::size_t mr = gemm_tile_rows;

/// Where a micro-tile goes and what happens to it on the way.
struct tile_out
{
    float* c;
    std::ptrdiff_t ldc;
    std::size_t cols; // valid columns, 1..16
    bool accumulate;  // add to what C holds (an earlier K block's partial sum)
    bool last;        // the last K block: apply bias and steps
    const float* bias;
    const float* sum; // this tile's first element of the summed input
    std::ptrdiff_t ldsum;
    const gemm_step* steps;
    std::size_t nsteps;
};

// erf as a rational function, x P(x^2) / Q(x^2) on [-4, 4] (+-1 beyond): the approximation
// Eigen and XLA use for float, within 4.5e-7 of erf everywhere (absolute). Cheaper than
// fast_math.hpp's fast_erf (no exp): GELU is the epilogue of BERT's largest GEMM.
constexpr float erf_p[7] = {-2.72614225801306e-10f,
                            2.77068142495902e-08f,
                            -2.10102402082508e-06f,
                            -5.69250639462346e-05f,
                            -7.34990630326855e-04f,
                            -2.95459980854025e-03f,
                            -1.60960333262415e-02f};
constexpr float erf_q[5] = {-1.45660718464996e-05f,
                            -2.13374055278905e-04f,
                            -1.68282697438203e-03f,
                            -7.37332916720468e-03f,
                            -1.42647390514189e-02f};

float erf_scalar(float x)
{
    x        = std::min(std::max(x, -4.0f), 4.0f); // NaN stays NaN
    float x2 = x * x;
    float p  = erf_p[0];
    for(int i = 1; i < 7; i++)
        p = p * x2 + erf_p[i];
    float q = erf_q[0];
    for(int i = 1; i < 5; i++)
        q = q * x2 + erf_q[i];
    return x * p / q;
}

// --- portable kernel ----------------------------------------------------------------------------

float apply_step_scalar(float v, const gemm_step& s, float summand)
{
    switch(s.kind)
    {
    case gemm_step::sum: return v + summand;
    case gemm_step::relu: // NaN stays NaN; -inf becomes 0 (relu), -inf alpha (leaky)
        return v < 0.0f ? (s.alpha == 0.0f ? 0.0f : s.alpha * v) : v;
    case gemm_step::clip: return std::min(std::max(v, s.alpha), s.beta);
    case gemm_step::logistic: return 1.0f / (1.0f + fast_exp(-v));
    case gemm_step::tanh: return fast_tanh(v);
    case gemm_step::gelu_erf: return 0.5f * v * (1.0f + erf_scalar(v * 0.70710678118654752f));
    }
    return v;
}

template <std::size_t MR>
void tile_generic(std::size_t kc, const float* a, std::ptrdiff_t lda, const float* b, const tile_out& o)
{
    float acc[MR][nr] = {};
    for(std::size_t k = 0; k < kc; k++)
    {
        for(std::size_t r = 0; r < MR; r++)
        {
            float av = a[static_cast<std::ptrdiff_t>(r) * lda + static_cast<std::ptrdiff_t>(k)];
            for(std::size_t j = 0; j < nr; j++)
                acc[r][j] += av * b[k * nr + j];
        }
    }
    for(std::size_t r = 0; r < MR; r++)
    {
        float* c = o.c + static_cast<std::ptrdiff_t>(r) * o.ldc;
        for(std::size_t j = 0; j < o.cols; j++)
        {
            float v = acc[r][j];
            if(o.accumulate)
                v += c[j];
            if(o.last)
            {
                if(o.bias != nullptr)
                    v += o.bias[j];
                for(std::size_t s = 0; s < o.nsteps; s++)
                {
                    float summand =
                        o.steps[s].kind == gemm_step::sum ? o.sum[static_cast<std::ptrdiff_t>(r) * o.ldsum + j] : 0.0f;
                    v = apply_step_scalar(v, o.steps[s], summand);
                }
            }
            c[j] = v;
        }
    }
}

// --- AVX2/FMA kernel ----------------------------------------------------------------------------

#define MIGX_AVX2 __attribute__((target("avx2,fma")))
#define MIGX_AVX2_INLINE __attribute__((target("avx2,fma"), always_inline)) inline

// The vector forms of fast_math.hpp's exp and tanh and of erf_scalar: the same formulas, so
// both kernels agree.
MIGX_AVX2_INLINE __m256 exp8(__m256 x)
{
    __m256 big = _mm256_blendv_ps(_mm256_set1_ps(1.0f),
                                  _mm256_set1_ps(INFINITY),
                                  _mm256_cmp_ps(x, _mm256_set1_ps(88.7228391f), _CMP_GT_OQ));
    // max/min return their second operand where one is NaN: NaN stays NaN
    x         = _mm256_min_ps(_mm256_set1_ps(88.7f), _mm256_max_ps(_mm256_set1_ps(-87.3f), x));
    __m256 m  = _mm256_set1_ps(12582912.0f);
    __m256 k  = _mm256_sub_ps(_mm256_add_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504f)), m), m);
    __m256 r  = _mm256_add_ps(_mm256_sub_ps(x, _mm256_mul_ps(k, _mm256_set1_ps(0.693359375f))),
                             _mm256_mul_ps(k, _mm256_set1_ps(2.12194440e-4f)));
    __m256 p  = _mm256_set1_ps(1.9875691500e-4f);
    p         = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
    p         = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
    p         = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
    p         = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
    p         = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
    p         = _mm256_fmadd_ps(_mm256_mul_ps(p, r), r, _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
    __m256i e = _mm256_slli_epi32(_mm256_cvtps_epi32(_mm256_add_ps(k, _mm256_set1_ps(126.0f))), 23);
    __m256 scale = _mm256_castsi256_ps(e);
    return _mm256_mul_ps(_mm256_mul_ps(_mm256_mul_ps(p, scale), _mm256_set1_ps(2.0f)), big);
}

MIGX_AVX2_INLINE __m256 copysign8(__m256 mag, __m256 sign)
{
    __m256 s = _mm256_set1_ps(-0.0f);
    return _mm256_or_ps(_mm256_andnot_ps(s, mag), _mm256_and_ps(s, sign));
}

MIGX_AVX2_INLINE __m256 tanh8(__m256 x)
{
    __m256 one = _mm256_set1_ps(1.0f);
    __m256 a   = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x);
    __m256 e   = exp8(_mm256_mul_ps(_mm256_set1_ps(-2.0f), a));
    __m256 t   = _mm256_div_ps(_mm256_sub_ps(one, e), _mm256_add_ps(one, e));
    __m256 x2  = _mm256_mul_ps(x, x);
    __m256 s   = _mm256_fmadd_ps(x2, _mm256_set1_ps(-17.0f / 315), _mm256_set1_ps(2.0f / 15));
    s          = _mm256_fmadd_ps(x2, s, _mm256_set1_ps(-1.0f / 3));
    s          = _mm256_mul_ps(x, _mm256_fmadd_ps(x2, s, one));
    return _mm256_blendv_ps(copysign8(t, x), s, _mm256_cmp_ps(a, _mm256_set1_ps(0.0625f), _CMP_LT_OQ));
}

MIGX_AVX2_INLINE __m256 erf8(__m256 x)
{
    // max/min return their second operand where one is NaN: NaN stays NaN
    x         = _mm256_max_ps(_mm256_set1_ps(-4.0f), _mm256_min_ps(_mm256_set1_ps(4.0f), x));
    __m256 x2 = _mm256_mul_ps(x, x);
    __m256 p  = _mm256_set1_ps(erf_p[0]);
    for(int i = 1; i < 7; i++)
        p = _mm256_fmadd_ps(p, x2, _mm256_set1_ps(erf_p[i]));
    __m256 q = _mm256_set1_ps(erf_q[0]);
    for(int i = 1; i < 5; i++)
        q = _mm256_fmadd_ps(q, x2, _mm256_set1_ps(erf_q[i]));
    return _mm256_div_ps(_mm256_mul_ps(x, p), q);
}

/// Lanes [0, n) of 8 (n in 1..8) as a maskload/maskstore mask.
MIGX_AVX2_INLINE __m256i lanes(std::size_t n)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

MIGX_AVX2_INLINE __m256 load8(const float* p, std::size_t n, __m256i mask)
{
    return n >= 8 ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, mask);
}

MIGX_AVX2_INLINE __m256 apply_step8(__m256 v, const gemm_step& s, const float* sum, std::size_t n, __m256i mask)
{
    switch(s.kind)
    {
    case gemm_step::sum: return _mm256_add_ps(v, load8(sum, n, mask));
    case gemm_step::relu:
        if(s.alpha == 0.0f)
            return _mm256_max_ps(_mm256_setzero_ps(), v);
        return _mm256_blendv_ps(
            v, _mm256_mul_ps(v, _mm256_set1_ps(s.alpha)), _mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_LT_OQ));
    case gemm_step::clip:
        return _mm256_min_ps(_mm256_set1_ps(s.beta), _mm256_max_ps(_mm256_set1_ps(s.alpha), v));
    case gemm_step::logistic:
        return _mm256_div_ps(_mm256_set1_ps(1.0f),
                             _mm256_add_ps(_mm256_set1_ps(1.0f), exp8(_mm256_sub_ps(_mm256_setzero_ps(), v))));
    case gemm_step::tanh: return tanh8(v);
    case gemm_step::gelu_erf:
    {
        __m256 e = erf8(_mm256_mul_ps(v, _mm256_set1_ps(0.70710678118654752f)));
        return _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.5f), v), _mm256_add_ps(_mm256_set1_ps(1.0f), e));
    }
    }
    return v;
}

/// Stores one 8-wide part of a row of a tile with fewer than 16 columns: column offset j, the
/// row's accumulator v.
MIGX_AVX2_INLINE void store8(__m256 v, const tile_out& o, std::size_t r, std::size_t j)
{
    if(j >= o.cols)
        return;
    std::size_t n = std::min<std::size_t>(8, o.cols - j);
    __m256i mask  = lanes(n);
    float* c      = o.c + static_cast<std::ptrdiff_t>(r) * o.ldc + j;
    if(o.accumulate)
        v = _mm256_add_ps(v, load8(c, n, mask));
    if(o.last)
    {
        if(o.bias != nullptr)
            v = _mm256_add_ps(v, load8(o.bias + j, n, mask));
        const float* sum = o.sum == nullptr ? nullptr : o.sum + static_cast<std::ptrdiff_t>(r) * o.ldsum + j;
        for(std::size_t s = 0; s < o.nsteps; s++)
            v = apply_step8(v, o.steps[s], sum, n, mask);
    }
    if(n == 8)
        _mm256_storeu_ps(c, v);
    else
        _mm256_maskstore_ps(c, mask, v);
}

template <std::size_t MR>
MIGX_AVX2 void tile_avx2(std::size_t kc, const float* a, std::ptrdiff_t lda, const float* b, const tile_out& o)
{
    __m256 c0[MR], c1[MR];
    const float* ar[MR];
#pragma GCC unroll 8
    for(std::size_t r = 0; r < MR; r++)
    {
        c0[r] = _mm256_setzero_ps();
        c1[r] = _mm256_setzero_ps();
        ar[r] = a + static_cast<std::ptrdiff_t>(r) * lda;
        // The tile's rows of C (a new buffer, rarely in cache: the stores would wait for the
        // lines) and of the summed input are fetched while the products run.
        const float* c = o.c + static_cast<std::ptrdiff_t>(r) * o.ldc;
        __builtin_prefetch(c, 1, 3);
        __builtin_prefetch(c + nr - 1, 1, 3);
        if(o.last and o.sum != nullptr)
        {
            const float* s = o.sum + static_cast<std::ptrdiff_t>(r) * o.ldsum;
            __builtin_prefetch(s, 0, 3);
            __builtin_prefetch(s + nr - 1, 0, 3);
        }
    }
    // one k: two vectors of B, each row's broadcast A times both (a macro: a lambda would not
    // inherit the target attribute)
#define MIGX_GEMM_STEP(kk)                                                                         \
    do                                                                                             \
    {                                                                                              \
        __m256 b0 = _mm256_loadu_ps(b + (kk)*nr);                                                  \
        __m256 b1 = _mm256_loadu_ps(b + (kk)*nr + 8);                                              \
        _Pragma("GCC unroll 8") for(std::size_t r = 0; r < MR; r++)                                \
        {                                                                                          \
            __m256 av = _mm256_broadcast_ss(ar[r] + (kk));                                         \
            c0[r]     = _mm256_fmadd_ps(av, b0, c0[r]);                                            \
            c1[r]     = _mm256_fmadd_ps(av, b1, c1[r]);                                            \
        }                                                                                          \
    } while(false)
    std::size_t k = 0;
    if constexpr(MR == 6)
    {
        // The full tile in assembly: GCC 12 keeps the 12 accumulators in registers only for the
        // plain loop and spills them once the loop is unrolled. Four k per iteration, then the
        // rest one by one; the sums go through a small buffer to the epilogue below.
        alignas(32) float acc[6 * nr];
        const float* a0    = a;
        const float* a3    = a + 3 * lda;
        const float* bp    = b;
        std::size_t n4     = kc / 4;
        std::size_t n1     = kc % 4;
        std::ptrdiff_t ldb = lda * static_cast<std::ptrdiff_t>(sizeof(float));
// one k: B's two vectors into ymm0/1, each row's A broadcast into ymm2 times both, into the
// row's accumulators (row r: ymm(4 + 2r), ymm(5 + 2r)). Rows 0-2 from a0, rows 3-5 from a3.
#define MIGX_ROW(ADDR, C0, C1)                                                                     \
    "vbroadcastss " ADDR ", %%ymm2\n\t"                                                            \
    "vfmadd231ps %%ymm0, %%ymm2, %%" C0 "\n\t"                                                     \
    "vfmadd231ps %%ymm1, %%ymm2, %%" C1 "\n\t"
#define MIGX_K(OA, OB0, OB1)                                                                       \
    "vmovups " OB0 "(%[b]), %%ymm0\n\t"                                                            \
    "vmovups " OB1 "(%[b]), %%ymm1\n\t"                                                            \
    MIGX_ROW(OA "(%[a0])", "ymm4", "ymm5")                                                         \
    MIGX_ROW(OA "(%[a0],%[lda],1)", "ymm6", "ymm7")                                                \
    MIGX_ROW(OA "(%[a0],%[lda],2)", "ymm8", "ymm9")                                                \
    MIGX_ROW(OA "(%[a3])", "ymm10", "ymm11")                                                       \
    MIGX_ROW(OA "(%[a3],%[lda],1)", "ymm12", "ymm13")                                              \
    MIGX_ROW(OA "(%[a3],%[lda],2)", "ymm14", "ymm15")
#define MIGX_ZERO(R) "vxorps %%" R ", %%" R ", %%" R "\n\t"
#define MIGX_SAVE(R, OFF) "vmovaps %%" R ", " OFF "(%[acc])\n\t"
        // clang-format off
        asm volatile(
            MIGX_ZERO("ymm4") MIGX_ZERO("ymm5") MIGX_ZERO("ymm6") MIGX_ZERO("ymm7")
            MIGX_ZERO("ymm8") MIGX_ZERO("ymm9") MIGX_ZERO("ymm10") MIGX_ZERO("ymm11")
            MIGX_ZERO("ymm12") MIGX_ZERO("ymm13") MIGX_ZERO("ymm14") MIGX_ZERO("ymm15")
            "test %[n4], %[n4]\n\t"
            "jz 2f\n\t"
            "1:\n\t"
            MIGX_K("0", "0", "32")
            MIGX_K("4", "64", "96")
            MIGX_K("8", "128", "160")
            MIGX_K("12", "192", "224")
            "add $16, %[a0]\n\t"
            "add $16, %[a3]\n\t"
            "add $256, %[b]\n\t"
            "dec %[n4]\n\t"
            "jnz 1b\n\t"
            "2:\n\t"
            "test %[n1], %[n1]\n\t"
            "jz 4f\n\t"
            "3:\n\t"
            MIGX_K("0", "0", "32")
            "add $4, %[a0]\n\t"
            "add $4, %[a3]\n\t"
            "add $64, %[b]\n\t"
            "dec %[n1]\n\t"
            "jnz 3b\n\t"
            "4:\n\t"
            MIGX_SAVE("ymm4", "0") MIGX_SAVE("ymm5", "32") MIGX_SAVE("ymm6", "64")
            MIGX_SAVE("ymm7", "96") MIGX_SAVE("ymm8", "128") MIGX_SAVE("ymm9", "160")
            MIGX_SAVE("ymm10", "192") MIGX_SAVE("ymm11", "224") MIGX_SAVE("ymm12", "256")
            MIGX_SAVE("ymm13", "288") MIGX_SAVE("ymm14", "320") MIGX_SAVE("ymm15", "352")
            : [a0] "+r"(a0), [a3] "+r"(a3), [b] "+r"(bp), [n4] "+r"(n4), [n1] "+r"(n1)
            : [lda] "r"(ldb), [acc] "r"(acc)
            : "cc", "memory", "xmm0", "xmm1", "xmm2", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
              "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
        // clang-format on
#undef MIGX_SAVE
#undef MIGX_ZERO
#undef MIGX_K
#undef MIGX_ROW
#pragma GCC unroll 8
        for(std::size_t r = 0; r < MR; r++)
        {
            c0[r] = _mm256_load_ps(acc + r * nr);
            c1[r] = _mm256_load_ps(acc + r * nr + 8);
        }
        k = kc;
    }
    if constexpr(MR == 1)
    {
        // One row (a matrix-vector product): two accumulators would leave the FMAs waiting on
        // each other's latency, so four k at a time go to four pairs of partial sums.
        __m256 p0[3] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
        __m256 p1[3] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
        for(; k + 4 <= kc; k += 4)
        {
            __m256 a0 = _mm256_broadcast_ss(a + k);
            c0[0]     = _mm256_fmadd_ps(a0, _mm256_loadu_ps(b + k * nr), c0[0]);
            c1[0]     = _mm256_fmadd_ps(a0, _mm256_loadu_ps(b + k * nr + 8), c1[0]);
#pragma GCC unroll 3
            for(std::size_t u = 0; u < 3; u++)
            {
                __m256 au = _mm256_broadcast_ss(a + k + u + 1);
                p0[u]     = _mm256_fmadd_ps(au, _mm256_loadu_ps(b + (k + u + 1) * nr), p0[u]);
                p1[u]     = _mm256_fmadd_ps(au, _mm256_loadu_ps(b + (k + u + 1) * nr + 8), p1[u]);
            }
        }
        c0[0] = _mm256_add_ps(_mm256_add_ps(c0[0], p0[0]), _mm256_add_ps(p0[1], p0[2]));
        c1[0] = _mm256_add_ps(_mm256_add_ps(c1[0], p1[0]), _mm256_add_ps(p1[1], p1[2]));
    }
    for(; k < kc; k++)
        MIGX_GEMM_STEP(k);
#undef MIGX_GEMM_STEP
    if(o.cols == nr and not o.accumulate and (not o.last or (o.bias == nullptr and o.nsteps == 0)))
    {
        // the common case of a plain product: straight stores
#pragma GCC unroll 8
        for(std::size_t r = 0; r < MR; r++)
        {
            float* c = o.c + static_cast<std::ptrdiff_t>(r) * o.ldc;
            _mm256_storeu_ps(c, c0[r]);
            _mm256_storeu_ps(c + 8, c1[r]);
        }
    }
    else if(o.cols == nr)
    {
        // all 16 columns: each step over the whole tile (12 independent vectors in flight,
        // where one vector's GELU alone is a chain of some 15 dependent operations)
#pragma GCC unroll 8
        for(std::size_t r = 0; r < MR; r++)
        {
            if(o.accumulate)
            {
                const float* c = o.c + static_cast<std::ptrdiff_t>(r) * o.ldc;
                c0[r]          = _mm256_add_ps(c0[r], _mm256_loadu_ps(c));
                c1[r]          = _mm256_add_ps(c1[r], _mm256_loadu_ps(c + 8));
            }
        }
        if(o.last)
        {
            if(o.bias != nullptr)
            {
                __m256 b0 = _mm256_loadu_ps(o.bias), b1 = _mm256_loadu_ps(o.bias + 8);
#pragma GCC unroll 8
                for(std::size_t r = 0; r < MR; r++)
                {
                    c0[r] = _mm256_add_ps(c0[r], b0);
                    c1[r] = _mm256_add_ps(c1[r], b1);
                }
            }
            __m256i all = _mm256_set1_epi32(-1);
            for(std::size_t s = 0; s < o.nsteps; s++)
            {
                const gemm_step& st = o.steps[s];
#pragma GCC unroll 8
                for(std::size_t r = 0; r < MR; r++)
                {
                    const float* sum = o.sum == nullptr ? nullptr : o.sum + static_cast<std::ptrdiff_t>(r) * o.ldsum;
                    c0[r]            = apply_step8(c0[r], st, sum, 8, all);
                    c1[r]            = apply_step8(c1[r], st, sum == nullptr ? nullptr : sum + 8, 8, all);
                }
            }
        }
#pragma GCC unroll 8
        for(std::size_t r = 0; r < MR; r++)
        {
            float* c = o.c + static_cast<std::ptrdiff_t>(r) * o.ldc;
            _mm256_storeu_ps(c, c0[r]);
            _mm256_storeu_ps(c + 8, c1[r]);
        }
    }
    else
    {
#pragma GCC unroll 8
        for(std::size_t r = 0; r < MR; r++)
        {
            store8(c0[r], o, r, 0);
            store8(c1[r], o, r, 8);
        }
    }
}

using tile_fn = void (*)(std::size_t, const float*, std::ptrdiff_t, const float*, const tile_out&);

const tile_fn generic_tiles[mr + 1] = {nullptr,
                                       tile_generic<1>,
                                       tile_generic<2>,
                                       tile_generic<3>,
                                       tile_generic<4>,
                                       tile_generic<5>,
                                       tile_generic<6>};
const tile_fn avx2_tiles[mr + 1]    = {
    nullptr, tile_avx2<1>, tile_avx2<2>, tile_avx2<3>, tile_avx2<4>, tile_avx2<5>, tile_avx2<6>};

/// Fetches bytes [from, to) of p (whole cache lines) into L2.
inline void prefetch_l2(const char* p, std::size_t from, std::size_t to)
{
    for(std::size_t off = from / 64 * 64; off < to; off += 64)
        _mm_prefetch(p + off, _MM_HINT_T1);
}

/// K per block. Each block of a panel is re-read from cache by every row tile, and every block
/// after the first reloads the tiles of C: on a Zen 3 core, K up to 1024 in one block was the
/// fastest (BERT's 128x256x1024: 89 GFLOPS unblocked, 85 at 512, 70-85 at 256).
std::size_t default_kc(std::size_t k) { return k <= 2048 ? std::max<std::size_t>(k, 1) : 1024; }

} // namespace

gemm_isa gemm_best_isa()
{
    static const gemm_isa isa = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") and __builtin_cpu_supports("fma") ? gemm_isa::avx2
                                                                                 : gemm_isa::generic;
    }();
    return isa;
}

std::optional<gemm_step> gemm_step_of(const std::string& name, float alpha, float beta)
{
    gemm_step s;
    s.alpha = alpha;
    s.beta  = beta;
    if(name == "sum")
        s.kind = gemm_step::sum;
    else if(name == "relu")
        s.kind = gemm_step::relu;
    else if(name == "clip" and not(alpha > beta))
        s.kind = gemm_step::clip;
    else if(name == "logistic")
        s.kind = gemm_step::logistic;
    else if(name == "tanh")
        s.kind = gemm_step::tanh;
    else if(name == "gelu_erf")
        s.kind = gemm_step::gelu_erf;
    else
        return std::nullopt;
    return s;
}

std::size_t gemm_packed_size(std::size_t k, std::size_t n) { return (n + nr - 1) / nr * nr * k; }

void gemm_pack_b(const float* b,
                 std::ptrdiff_t rs,
                 std::ptrdiff_t cs,
                 std::size_t k,
                 std::size_t n,
                 float* out,
                 std::size_t p0,
                 std::size_t p1)
{
    for(std::size_t p = p0; p < p1; p++)
    {
        float* panel   = out + p * k * nr;
        std::size_t n0 = p * nr;
        std::size_t w  = std::min(nr, n - n0);
        auto at        = [&](std::size_t i, std::size_t j) {
            return b[static_cast<std::ptrdiff_t>(i) * rs + static_cast<std::ptrdiff_t>(n0 + j) * cs];
        };
        if(std::abs(cs) <= std::abs(rs) or k == 1)
        {
            // rows of B are (nearly) contiguous: copy row by row
            for(std::size_t i = 0; i < k; i++)
            {
                for(std::size_t j = 0; j < w; j++)
                    panel[i * nr + j] = at(i, j);
                for(std::size_t j = w; j < nr; j++)
                    panel[i * nr + j] = 0.0f;
            }
        }
        else
        {
            // columns are contiguous (a transposed B): read down each column
            for(std::size_t j = 0; j < nr; j++)
                for(std::size_t i = 0; i < k; i++)
                    panel[i * nr + j] = j < w ? at(i, j) : 0.0f;
        }
    }
}

void gemm_block(const gemm_args& g,
                std::size_t m0,
                std::size_t m1,
                std::size_t p0,
                std::size_t p1,
                gemm_isa isa,
                std::size_t kc,
                bool prefetch_next)
{
    if(m0 >= m1 or p0 >= p1)
        return;
    if(kc == 0)
        kc = default_kc(g.k);
    const tile_fn* tiles = isa == gemm_isa::avx2 ? avx2_tiles : generic_tiles;
    // K = 0 is one empty block: C = steps(bias)
    std::size_t blocks = g.k == 0 ? 1 : (g.k + kc - 1) / kc;
    for(std::size_t kb = 0; kb < blocks; kb++)
    {
        std::size_t k0  = kb * kc;
        std::size_t len = std::min(kc, g.k - std::min(k0, g.k));
        std::size_t bytes           = len * nr * sizeof(float);
        std::size_t tiles_per_panel = (m1 - m0 + mr - 1) / mr;
        // the first panel's block: into L2 before its first tile needs it
        if(tiles_per_panel >= 4)
            prefetch_l2(reinterpret_cast<const char*>(g.b + (p0 * g.k + k0) * nr), 0, bytes);
        std::size_t pn              = prefetch_next ? std::min(p1 + 1, (g.n + nr - 1) / nr) : p1;
        for(std::size_t p = p0; p < p1; p++)
        {
            std::size_t n0  = p * nr;
            const float* bp = g.b + (p * g.k + k0) * nr;
            // Weights often come from memory (a model's are larger than the caches): the next
            // panel's block is fetched into L2 a share per tile while this panel's tiles run.
            // (Not for a few rows: the hardware prefetcher keeps up with a single tile's stream
            // and a whole panel's prefetches at once would crowd out its loads.)
            const char* next = p + 1 < pn and tiles_per_panel >= 4 ? reinterpret_cast<const char*>(bp + g.k * nr)
                                                                   : nullptr;
            std::size_t tile = 0;
            for(std::size_t i = m0, rows = 0; i < m1; i += rows, tile++)
            {
                if(next != nullptr)
                    prefetch_l2(next, bytes * tile / tiles_per_panel, bytes * (tile + 1) / tiles_per_panel);
                // 7 or 8 rows left: two tiles of 4 and 3-4 rows (8 accumulators keep both FMA
                // pipes busy) rather than 6 and a 1-2 row tile (2-4 accumulators do not)
                std::size_t left = m1 - i;
                rows             = left == 7 or left == 8 ? 4 : std::min(mr, left);
                auto row         = static_cast<std::ptrdiff_t>(i);
                tile_out o{g.c + row * g.ldc + static_cast<std::ptrdiff_t>(n0),
                           g.ldc,
                           std::min(nr, g.n - n0),
                           kb > 0,
                           kb + 1 == blocks,
                           g.bias == nullptr ? nullptr : g.bias + n0,
                           g.sum == nullptr ? nullptr : g.sum + row * g.ldsum + static_cast<std::ptrdiff_t>(n0),
                           g.ldsum,
                           g.steps,
                           g.nsteps};
                tiles[rows](len, g.a + row * g.lda + static_cast<std::ptrdiff_t>(k0), g.lda, bp, o);
            }
        }
    }
}

} // namespace cpu
} // namespace migraphx
