#ifndef MIGRAPHX_CPU_LERP_KERNEL_HPP
#define MIGRAPHX_CPU_LERP_KERNEL_HPP

// A linear interpolation along one axis, as ONNX Resize (linear) is exported and parsed: two
// gathers of the same data at constant indices, each times constant weights along the axis,
// added:  y[.., j, ..] = x[.., i0[j], ..] * w0[j] + x[.., i1[j], ..] * w1[j].
// One pass over the output instead of two gathered copies and a pointwise kernel over them
// (UNet's bilinear upsampling: 1.4 of 8.6 ms on a 2-core Zen 4).

#include <migraphx/argument.hpp>
#include <migraphx/module.hpp>
#include <migraphx/shape.hpp>
#include <string>
#include <vector>

namespace migraphx {
namespace cpu {

/// Inputs: x (float, standard), i0, w0, i1, w1 (packed vectors of n each: int64 indices in
/// [0, axis length), float weights), then the output buffer where planned. An index outside
/// that range is an error.
struct lerp_kernel
{
    std::int64_t axis = 0;
    bool planned      = false; // the output buffer is the last input (cpu::plan_memory)
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.axis, "axis");
        f(self.planned, "planned");
    }
    std::string name() const { return "cpu::lerp"; }
    std::ptrdiff_t output_alias(const std::vector<shape>& inputs) const
    {
        return planned ? static_cast<std::ptrdiff_t>(inputs.size()) - 1 : -1;
    }
    shape compute_shape(const std::vector<shape>& in) const;
    argument compute(const shape& out, const std::vector<argument>& args) const;
};

/// add(mul(gather(x, I0), W0), mul(gather(x, I1), W1)) of float x, literal indices I0, I1 and
/// weights W0, W1 that are literals varying along the gathers' axis only (broadcast over the
/// rest), in either operand order, becomes cpu::lerp. Before cpu::lower_gather.
struct lower_lerp
{
    std::string name() const { return "cpu::lower_lerp"; }
    void apply(module& m) const;
};

} // namespace cpu
} // namespace migraphx

#endif
