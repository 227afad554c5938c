#ifndef MIGRAPHX_CPU_LOWER_GEMM_HPP
#define MIGRAPHX_CPU_LOWER_GEMM_HPP

#include <migraphx/module.hpp>
#include <string>

namespace migraphx {
namespace cpu {

/// Where the CPU has AVX2 and FMA, each dnnl::matmul (as cpu::lower_dnnl made it, with its bias,
/// residual sum and activations) becomes cpu::gemm, the cpu target's own kernel; a constant b (a
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
