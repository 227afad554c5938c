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
/// target runs one kernel per row. Float or half; computed in float. Optional second and third
/// inputs, a scale and a shift with x's lens and type that vary along the last axis only (a
/// trained model's LayerNormalization weights, broadcast over the rows): y * scale + shift,
/// still in float, rounded once.
/// A gpu pass may also fold in what comes before and after (gpu/fuse_layernorm.hpp): with
/// `addends` = n the first n inputs (x's lens and type, any strides) are added to make x (in
/// float, rounded to x's type, as the add it replaces); with `float_out` the result is float
/// whatever x's type (a following convert to float).
struct layernorm
{
    float epsilon       = 1e-5f;
    std::size_t addends = 1;
    bool float_out      = false;

    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.epsilon, "epsilon");
        f(self.addends, "addends");
        f(self.float_out, "float_out");
    }

    std::string name() const { return "layernorm"; }

    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes cs{inputs, *this};
        if(addends < 1 or addends > 4)
            cs.fail("expects 1 to 4 addends, got " + std::to_string(addends));
        cs.has_between(addends, addends + 2).not_tuple().static_only();
        const auto& x = inputs[0];
        if(x.type() != shape::float_type and x.type() != shape::half_type)
            cs.fail("expects float or half");
        if(x.lens().empty() or x.lens().back() == 0)
            cs.fail("expects a non-empty last axis");
        for(std::size_t i = 1; i < addends; i++)
            if(inputs[i].type() != x.type() or inputs[i].lens() != x.lens())
                cs.fail("expects its addends with the same type and lens");
        for(std::size_t i = addends; i < inputs.size(); i++)
        {
            const auto& a = inputs[i];
            if(a.type() != x.type() or a.lens() != x.lens())
                cs.fail("expects its scale and shift with the input's type and lens");
            for(std::size_t d = 0; d + 1 < a.lens().size(); d++)
                if(a.strides()[d] != 0 and a.lens()[d] != 1)
                    cs.fail("expects a scale and shift that vary along the last axis only");
        }
        return {float_out ? shape::float_type : x.type(), x.lens()};
    }

    argument compute(const shape& output_shape, const std::vector<argument>& args) const
    {
        argument result{output_shape};
        std::size_t cols = output_shape.lens().back();
        std::size_t rows = output_shape.elements() / cols;
        auto x           = args[0].to_vector<float>(); // in standard order
        if(addends > 1)
        {
            for(std::size_t i = 1; i < addends; i++)
            {
                auto b = args[i].to_vector<float>();
                for(std::size_t k = 0; k < x.size(); k++)
                    x[k] += b[k];
            }
            // rounded to x's type, as the add this replaces returned it
            argument sum{shape{args[0].get_shape().type(), output_shape.lens()}};
            sum.visit([&](auto out) {
                using T = typename decltype(out)::value_type;
                for(std::size_t k = 0; k < x.size(); k++)
                    out[k] = type_cast<T>(x[k]);
            });
            x = sum.to_vector<float>();
        }
        std::vector<float> scale, shift;
        if(args.size() > addends)
            scale = args[addends].to_vector<float>();
        if(args.size() > addends + 1)
            shift = args[addends + 1].to_vector<float>();
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
            {
                auto i = r * cols + c;
                y[i]   = (row[c] - mean) * inv;
                if(not scale.empty())
                    y[i] *= scale[i];
                if(not shift.empty())
                    y[i] += shift[i];
            }
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
