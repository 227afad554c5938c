#ifndef MIGRAPHX_CPU_GATHER_KERNEL_HPP
#define MIGRAPHX_CPU_GATHER_KERNEL_HPP

#include <migraphx/argument.hpp>
#include <migraphx/module.hpp>
#include <migraphx/shape.hpp>
#include <string>
#include <vector>

namespace migraphx {
namespace cpu {

/// gather on standard data: copies whole inner blocks (e.g. embedding rows) instead of walking
/// element by element. Out-of-range indices are an error, as in the reference op.
struct gather_kernel
{
    std::int64_t axis = 0;
    bool planned      = false; // the output buffer is the last input (cpu::plan_memory)
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.axis, "axis");
        f(self.planned, "planned");
    }
    std::string name() const { return "cpu::gather"; }
    std::ptrdiff_t output_alias(const std::vector<shape>& inputs) const
    {
        return planned ? static_cast<std::ptrdiff_t>(inputs.size()) - 1 : -1;
    }
    shape compute_shape(const std::vector<shape>& in) const;
    argument compute(const shape& out, const std::vector<argument>& args) const;
};

/// gather with standard data and a non-negative axis becomes cpu::gather.
struct lower_gather
{
    std::string name() const { return "cpu::lower_gather"; }
    void apply(module& m) const;
};

} // namespace cpu
} // namespace migraphx

#endif
