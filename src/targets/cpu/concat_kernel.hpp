#ifndef MIGRAPHX_CPU_CONCAT_KERNEL_HPP
#define MIGRAPHX_CPU_CONCAT_KERNEL_HPP

#include <migraphx/argument.hpp>
#include <migraphx/module.hpp>
#include <migraphx/shape.hpp>
#include <string>
#include <vector>

namespace migraphx {
namespace cpu {

/// concat on the cpu target's OpenMP team: the reference concat's row copies (any strides), its
/// rows split over the team from 64 KB a thread (the reference op starts plain threads only from
/// 1 MB, beside OpenMP threads that spin: UNet's channel concats in NHWC ran on one thread).
struct concat_kernel
{
    std::int64_t axis = 0;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.axis, "axis");
    }
    std::string name() const { return "cpu::concat"; }
    shape compute_shape(const std::vector<shape>& in) const;
    argument compute(const shape& out, const std::vector<argument>& args) const;
};

/// Every concat of static sizes becomes cpu::concat (those computed from data-dependent results
/// stay the reference op, which takes their actual sizes).
struct lower_concat
{
    std::string name() const { return "cpu::lower_concat"; }
    void apply(module& m) const;
};

} // namespace cpu
} // namespace migraphx

#endif
