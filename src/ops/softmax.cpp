#include <migraphx/register_op.hpp>
#include "ops/check_shapes.hpp"
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace migraphx {
namespace op {

namespace {

shape softmax_shape(const check_shapes& cs, std::int64_t axis)
{
    cs.has(1).not_tuple().static_only().min_ndims(1);
    normalize_axis(axis, cs.inputs[0].ndim(), cs.op_name);
    return {cs.inputs[0].type(), cs.inputs[0].lens()};
}

/// Softmax (or log-softmax) along axis, max-subtracted, in double.
argument softmax_compute(const shape& output_shape, const argument& arg, std::int64_t axis, bool log)
{
    const auto& lens = output_shape.lens();
    auto a           = static_cast<std::size_t>(normalize_axis(axis, lens.size(), "softmax"));
    std::size_t n    = lens[a];
    std::size_t inner = 1;
    for(std::size_t d = a + 1; d < lens.size(); d++)
        inner *= lens[d];
    std::size_t outer = n * inner == 0 ? 0 : output_shape.elements() / (n * inner);
    auto x            = arg.to_vector<double>();
    std::vector<double> y(x.size());
    for(std::size_t o = 0; o < outer; o++)
        for(std::size_t i = 0; i < inner; i++)
        {
            std::size_t base = o * n * inner + i;
            double m         = x[base];
            for(std::size_t j = 1; j < n; j++)
                m = std::max(m, x[base + j * inner]);
            double sum = 0;
            for(std::size_t j = 0; j < n; j++)
                sum += std::exp(x[base + j * inner] - m);
            for(std::size_t j = 0; j < n; j++)
            {
                double z           = x[base + j * inner] - m;
                y[base + j * inner] = log ? z - std::log(sum) : std::exp(z) / sum;
            }
        }
    argument result{output_shape};
    result.visit([&](auto v) {
        using T = typename decltype(v)::value_type;
        for(std::size_t i = 0; i < y.size(); i++)
            v[i] = type_cast<T>(y[i]);
    });
    return result;
}

} // namespace

struct softmax
{
    std::int64_t axis = 1;

    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.axis, "axis");
    }

    std::string name() const { return "softmax"; }
    shape compute_shape(const std::vector<shape>& inputs) const
    {
        return softmax_shape(check_shapes{inputs, *this}, axis);
    }
    argument compute(const shape& output_shape, const std::vector<argument>& args) const
    {
        return softmax_compute(output_shape, args[0], axis, false);
    }
};
MIGRAPHX_REGISTER_OP(softmax)

struct logsoftmax
{
    std::int64_t axis = 1;

    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.axis, "axis");
    }

    std::string name() const { return "logsoftmax"; }
    shape compute_shape(const std::vector<shape>& inputs) const
    {
        return softmax_shape(check_shapes{inputs, *this}, axis);
    }
    argument compute(const shape& output_shape, const std::vector<argument>& args) const
    {
        return softmax_compute(output_shape, args[0], axis, true);
    }
};
MIGRAPHX_REGISTER_OP(logsoftmax)

} // namespace op
} // namespace migraphx
