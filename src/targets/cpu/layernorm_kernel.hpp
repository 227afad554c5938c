#ifndef MIGRAPHX_CPU_LAYERNORM_KERNEL_HPP
#define MIGRAPHX_CPU_LAYERNORM_KERNEL_HPP

#include <migraphx/argument.hpp>
#include <migraphx/module.hpp>
#include <migraphx/shape.hpp>
#include <string>
#include <vector>

namespace migraphx {
namespace cpu {

/// (x - mean) / sqrt(var + epsilon) over the last axis of a standard float tensor, one pass per
/// row (the ONNX importer spells it as nine ops: two reductions and their pointwise glue); with a
/// second and third input, times a scale and plus a shift (one value per position of the last
/// axis, unit stride there, broadcast over the rows: LayerNormalization's weights).
struct layernorm_kernel
{
    float epsilon = 1e-5f;
    bool planned  = false; // the output buffer is the last input (cpu::plan_memory)
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.epsilon, "epsilon");
        f(self.planned, "planned");
    }
    std::string name() const { return "cpu::layernorm"; }
    std::ptrdiff_t output_alias(const std::vector<shape>& inputs) const
    {
        return planned ? static_cast<std::ptrdiff_t>(inputs.size()) - 1 : -1;
    }
    shape compute_shape(const std::vector<shape>& in) const;
    argument compute(const shape& out, const std::vector<argument>& args) const;
};

/// Finds mean/sub/square/mean/add-epsilon/rsqrt/mul over the last axis, and the scale and shift
/// after it (passes/layernorm_match.hpp), and makes them one cpu::layernorm. Runs before the
/// reductions are lowered.
struct fuse_layernorm
{
    std::string name() const { return "cpu::fuse_layernorm"; }
    void apply(module& m) const;
};

} // namespace cpu
} // namespace migraphx

#endif
