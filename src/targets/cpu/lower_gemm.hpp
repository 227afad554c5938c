#ifndef MIGRAPHX_CPU_LOWER_GEMM_HPP
#define MIGRAPHX_CPU_LOWER_GEMM_HPP

#include <migraphx/module.hpp>
#include <string>

namespace migraphx {
namespace cpu {

/// Whether the cpu target's own GEMM runs float products here: where the CPU has AVX2 and FMA but
/// oneDNN runs no AVX-512 kernels (with AVX-512 oneDNN's brgemm matmul is faster: BERT's products
/// 1.5-1.9x on a 2-core Zen 5). MIGRAPHX_CPU_GEMM=own|onednn overrides it (own needs AVX2/FMA).
bool own_gemm_preferred();

/// Where own_gemm_preferred(), each dnnl::matmul (as cpu::lower_dnnl made it, with its bias,
/// residual sum and activations) becomes cpu::gemm, the cpu target's own kernel, and elsewhere
/// (where the kernel runs) the small ones, up to 2^18 multiply-adds (an LSTM step's); a constant b (a
/// literal, or a view of one) is packed into the kernel's layout here, once. Elsewhere (and for
/// post-ops the kernel lacks) oneDNN's matmul stays. `force` converts on any CPU (for tests: the
/// kernel then runs its portable code).
struct lower_gemm
{
    bool force = false;
    std::string name() const { return "cpu::lower_gemm"; }
    void apply(module& m) const;
};

} // namespace cpu
} // namespace migraphx

#endif
