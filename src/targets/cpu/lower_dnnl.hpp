#ifndef MIGRAPHX_CPU_LOWER_DNNL_HPP
#define MIGRAPHX_CPU_LOWER_DNNL_HPP

#include <migraphx/module.hpp>
#include <string>

namespace migraphx {
namespace cpu {

/// convolution, dot and pooling (float) become oneDNN ops, taking in the per-channel bias add,
/// a residual add and activations that follow them as oneDNN post-ops.
struct lower_dnnl
{
    std::string name() const { return "cpu::lower_dnnl"; }
    void apply(module& m) const;
};

} // namespace cpu
} // namespace migraphx

#endif
