#include <migraphx/register_op.hpp>
#include "ops/check_shapes.hpp"
#include <cmath>
#include <string>
#include <vector>

namespace migraphx {
namespace op {

/// (x - mean) / sqrt(variance + epsilon) over the last axis, mean and variance of each row.
/// Not made by the ONNX parser (LayerNormalization is spelled as reductions and pointwise ops):
/// a target's pass that finds that pattern makes it (passes/layernorm_match.hpp), so that the
/// target runs one kernel per row. Float or half; computed in float.
struct layernorm
{
    float epsilon = 1e-5f;

    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.epsilon, "epsilon");
    }

    std::string name() const { return "layernorm"; }

    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes cs{inputs, *this};
        cs.has(1).not_tuple().static_only();
        const auto& x = inputs[0];
        if(x.type() != shape::float_type and x.type() != shape::half_type)
            cs.fail("expects float or half");
        if(x.lens().empty() or x.lens().back() == 0)
            cs.fail("expects a non-empty last axis");
        return {x.type(), x.lens()};
    }

    argument compute(const shape& output_shape, const std::vector<argument>& args) const
    {
        argument result{output_shape};
        std::size_t cols = output_shape.lens().back();
        std::size_t rows = output_shape.elements() / cols;
        auto x           = args[0].to_vector<float>(); // in standard order
        std::vector<float> y(x.size());
        for(std::size_t r = 0; r < rows; r++)
        {
            const float* row = x.data() + r * cols;
            float mean = 0, var = 0;
            for(std::size_t c = 0; c < cols; c++)
                mean += row[c];
            mean /= static_cast<float>(cols);
            for(std::size_t c = 0; c < cols; c++)
                var += (row[c] - mean) * (row[c] - mean);
            float inv = 1.0f / std::sqrt(var / static_cast<float>(cols) + epsilon);
            for(std::size_t c = 0; c < cols; c++)
                y[r * cols + c] = (row[c] - mean) * inv;
        }
        result.visit([&](auto out) {
            using T = typename decltype(out)::value_type;
            for(std::size_t i = 0; i < y.size(); i++)
                out[i] = type_cast<T>(y[i]);
        });
        return result;
    }
};
MIGRAPHX_REGISTER_OP(layernorm)

} // namespace op
} // namespace migraphx
