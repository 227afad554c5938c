#ifndef MIGRAPHX_CPU_GEMM_KERNEL_HPP
#define MIGRAPHX_CPU_GEMM_KERNEL_HPP

// The cpu target's own float GEMM: C = steps(A B + bias), where B has been packed into panels of
// 16 columns (once, at compile time, when it is a constant). An AVX2/FMA micro-kernel keeps a
// 6x16 tile of C in registers while it runs down K; the bias, a residual add and the activations
// are applied to the tile before it is stored. A portable kernel computes the same where the CPU
// has no AVX2/FMA (slowly: the cpu target only chooses this GEMM where AVX2/FMA exist).

#include <cstddef>
#include <optional>
#include <string>

namespace migraphx {
namespace cpu {

/// Columns of B per packed panel.
constexpr std::size_t gemm_panel = 16;
/// Rows of C per micro-tile.
constexpr std::size_t gemm_tile_rows = 6;

enum class gemm_isa
{
    generic,
    avx2 // AVX2 and FMA
};

/// The best kernel the running CPU can run.
gemm_isa gemm_best_isa();

/// One elementwise step after A B + bias, in the order given (oneDNN's post-op semantics).
struct gemm_step
{
    enum kind_t
    {
        sum,      // + the summed input (the residual), element by element
        relu,     // alpha == 0: max(x, 0); else leaky: x < 0 ? alpha x : x
        clip,     // min(max(x, alpha), beta)
        logistic, // 1 / (1 + exp(-x))
        tanh,
        gelu_erf // x/2 (1 + erf(x / sqrt 2))
    };
    kind_t kind = sum;
    float alpha = 0;
    float beta  = 0;
};

/// The step for a oneDNN post-op name ("sum", "relu", "clip", "logistic", "tanh", "gelu_erf"),
/// or nothing if the kernel has no such step.
std::optional<gemm_step> gemm_step_of(const std::string& name, float alpha, float beta);

/// Floats in B (k x n) packed: ceil(n / 16) panels of k rows of 16.
std::size_t gemm_packed_size(std::size_t k, std::size_t n);

/// Packs panels [p0, p1) of B (k x n; element (i, j) at b[i * rs + j * cs]) into `out` (which
/// holds all panels: panel p starts at out + p * k * 16). Columns past n are zeros.
void gemm_pack_b(const float* b,
                 std::ptrdiff_t rs,
                 std::ptrdiff_t cs,
                 std::size_t k,
                 std::size_t n,
                 float* out,
                 std::size_t p0,
                 std::size_t p1);

/// One GEMM. A: m x k, element (i, j) at a[i * lda + j]. B: packed. C: m x n at c[i * ldc + j].
struct gemm_args
{
    std::size_t m = 0, n = 0, k = 0;
    const float* a      = nullptr;
    std::ptrdiff_t lda  = 0;
    const float* b      = nullptr;
    float* c            = nullptr;
    std::ptrdiff_t ldc  = 0;
    const float* bias   = nullptr; // n values added to every row, or none
    const float* sum    = nullptr; // m x n at sum[i * ldsum + j], for a `sum` step
    std::ptrdiff_t ldsum = 0;
    const gemm_step* steps = nullptr;
    std::size_t nsteps     = 0;
};

/// Computes rows [m0, m1) of the column panels [p0, p1) of C: one thread's share. kc: the K
/// block (0: the default). `c` must not overlap any input (`sum` included). While it computes a
/// panel, the next panel's weights are fetched into L2, and with prefetch_next also panel p1
/// (where it exists), for a caller that goes on with it.
void gemm_block(const gemm_args& g,
                std::size_t m0,
                std::size_t m1,
                std::size_t p0,
                std::size_t p1,
                gemm_isa isa,
                std::size_t kc       = 0,
                bool prefetch_next = false);

/// All of C, on the calling thread.
inline void gemm(const gemm_args& g, gemm_isa isa, std::size_t kc = 0)
{
    gemm_block(g, 0, g.m, 0, (g.n + gemm_panel - 1) / gemm_panel, isa, kc);
}

} // namespace cpu
} // namespace migraphx

#endif
