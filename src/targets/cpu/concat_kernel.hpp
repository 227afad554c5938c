#ifndef MIGRAPHX_CPU_CONCAT_KERNEL_HPP
#define MIGRAPHX_CPU_CONCAT_KERNEL_HPP

// cpu::concat: concat writing into a buffer cpu::plan_memory places in the run's scratch memory.
// The reference op allocates its result every run; a UNet's 2 MB channel concat spent most of its
// 0.5 ms faulting in those fresh pages.

#include <migraphx/argument.hpp>
#include <migraphx/module.hpp>
#include <migraphx/shape.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace migraphx {
namespace cpu {

struct concat_kernel
{
    std::int64_t axis = 0; // non-negative
    bool planned      = false; // the output buffer is the last input (cpu::plan_memory)
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.axis, "axis");
        f(self.planned, "planned");
    }
    std::string name() const { return "cpu::concat"; }
    std::ptrdiff_t output_alias(const std::vector<shape>& inputs) const
    {
        return planned ? static_cast<std::ptrdiff_t>(inputs.size()) - 1 : -1;
    }
    shape compute_shape(const std::vector<shape>& in) const;
    argument compute(const shape& out, const std::vector<argument>& args) const;
};

/// concat of static inputs becomes cpu::concat (run after cpu::blocked_layout, which rewrites
/// concat for its layouts, and before cpu::plan_memory).
struct lower_concat
{
    std::string name() const { return "cpu::lower_concat"; }
    void apply(module& m) const;
};

} // namespace cpu
} // namespace migraphx

#endif
