#ifndef MIGRAPHX_CPU_TARGET_HPP
#define MIGRAPHX_CPU_TARGET_HPP

#include <migraphx/compile_options.hpp>
#include <migraphx/context.hpp>
#include <migraphx/pass.hpp>
#include <string>
#include <vector>

namespace migraphx {
namespace cpu {

/// The CPU target: oneDNN for convolution, matmul and pooling (with their bias, activation and
/// residual-add fusions, in oneDNN's blocked layouts), threaded kernels of our own for the rest.
/// Threads: MIGRAPHX_CPU_THREADS, else OMP_NUM_THREADS, else every core.
struct target
{
    std::string name() const { return "cpu"; }
    std::vector<pass> get_passes(migraphx::context& ctx, const compile_options& options) const;
    migraphx::context get_context() const;
};

} // namespace cpu
} // namespace migraphx

#endif
