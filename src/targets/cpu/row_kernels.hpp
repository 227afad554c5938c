#ifndef MIGRAPHX_CPU_ROW_KERNELS_HPP
#define MIGRAPHX_CPU_ROW_KERNELS_HPP

// Kernels over the rows (the innermost, contiguous axis) of a standard float tensor, threaded
// over rows: softmax/logsoftmax and reductions. Other layouts or axes stay on the reference ops.

#include <migraphx/argument.hpp>
#include <migraphx/module.hpp>
#include <migraphx/shape.hpp>
#include <string>
#include <vector>

namespace migraphx {
namespace cpu {

struct row_softmax
{
    bool log     = false;
    bool planned = false; // the output buffer is the last input (cpu::plan_memory)
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.log, "log");
        f(self.planned, "planned");
    }
    std::string name() const { return "cpu::softmax"; }
    std::ptrdiff_t output_alias(const std::vector<shape>& inputs) const
    {
        return planned ? static_cast<std::ptrdiff_t>(inputs.size()) - 1 : -1;
    }
    shape compute_shape(const std::vector<shape>& in) const;
    argument compute(const shape& out, const std::vector<argument>& args) const;
};

/// sum, mean, max or min over the last axis; the result keeps that axis as 1.
struct row_reduce
{
    std::string mode = "sum";
    bool planned     = false; // the output buffer is the last input (cpu::plan_memory)
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.mode, "mode");
        f(self.planned, "planned");
    }
    std::string name() const { return "cpu::reduce"; }
    std::ptrdiff_t output_alias(const std::vector<shape>& inputs) const
    {
        return planned ? static_cast<std::ptrdiff_t>(inputs.size()) - 1 : -1;
    }
    shape compute_shape(const std::vector<shape>& in) const;
    argument compute(const shape& out, const std::vector<argument>& args) const;
};

/// softmax, logsoftmax and reduce_{sum,mean,max,min} over the last axis of a standard float
/// tensor become the row kernels.
struct lower_row_ops
{
    std::string name() const { return "cpu::lower_row_ops"; }
    void apply(module& m) const;
};

} // namespace cpu
} // namespace migraphx

#endif
