#include <migraphx/register_op.hpp>
#include "ops/check_shapes.hpp"
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace migraphx {
namespace op {

/// ONNX LRN across channels of {N, C, ...}:
/// y = x / (bias + alpha / size * sum of x^2 over channels [c - (size-1)/2, c + size/2])^beta.
struct lrn
{
    float alpha       = 0.0001f;
    float beta        = 0.75f;
    float bias        = 1.0f;
    std::int64_t size = 1;

    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.alpha, "alpha");
        f(self.beta, "beta");
        f(self.bias, "bias");
        f(self.size, "size");
    }

    std::string name() const { return "lrn"; }

    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes cs{inputs, *this};
        cs.has(1).not_tuple().static_only().min_ndims(2);
        if(size < 1)
            cs.fail("size must be positive, got " + std::to_string(size));
        return {inputs[0].type(), inputs[0].lens()};
    }

    argument compute(const shape& output_shape, const std::vector<argument>& args) const
    {
        const auto& lens  = output_shape.lens();
        std::size_t c_len = lens[1];
        std::size_t inner = 1;
        for(std::size_t d = 2; d < lens.size(); d++)
            inner *= lens[d];
        auto below = static_cast<std::size_t>((size - 1) / 2);
        auto above = static_cast<std::size_t>(size / 2);
        double scale = static_cast<double>(alpha) / static_cast<double>(size);
        auto x       = args[0].to_vector<double>();
        std::vector<double> y(x.size());
        for(std::size_t n = 0; n < lens[0]; n++)
            for(std::size_t c = 0; c < c_len; c++)
            {
                std::size_t lo = c >= below ? c - below : 0;
                std::size_t hi = std::min(c + above, c_len - 1);
                for(std::size_t i = 0; i < inner; i++)
                {
                    double sq = 0;
                    for(std::size_t j = lo; j <= hi; j++)
                    {
                        double v = x[(n * c_len + j) * inner + i];
                        sq += v * v;
                    }
                    std::size_t at = (n * c_len + c) * inner + i;
                    y[at] = x[at] / std::pow(static_cast<double>(bias) + scale * sq, static_cast<double>(beta));
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
};
MIGRAPHX_REGISTER_OP(lrn)

} // namespace op
} // namespace migraphx
