#include <migraphx/register_op.hpp>
#include "ops/check_shapes.hpp"
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace migraphx {
namespace op {

/// y = scale * (x - mean) / sqrt(variance + epsilon) + bias, inputs (x, scale, bias, mean, variance).
/// bn_mode 1 (spatial): each parameter holds C values, one per channel (x dimension 1).
/// bn_mode 0 (per activation): each parameter holds one value per element of x[n].
struct batch_norm_inference
{
    float epsilon        = 1.0e-5f;
    float momentum       = 0.9f;
    std::int64_t bn_mode = 1;

    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.epsilon, "epsilon");
        f(self.momentum, "momentum");
        f(self.bn_mode, "bn_mode");
    }

    std::string name() const { return "batch_norm_inference"; }

    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes cs{inputs, *this};
        cs.has(5).not_tuple().static_only();
        check_shapes{{inputs[0]}, *this}.min_ndims(2);
        if(bn_mode != 0 and bn_mode != 1)
            cs.fail("bn_mode must be 0 (per activation) or 1 (spatial), got " + std::to_string(bn_mode));
        const auto& x = inputs[0].lens();
        std::size_t n = bn_mode == 1 ? x[1] : inputs[0].elements() / x[0];
        for(std::size_t i = 1; i < 5; i++)
            if(inputs[i].elements() != n)
                cs.fail("input " + std::to_string(i) + " must have " + std::to_string(n) + " element(s)");
        return {inputs[0].type(), x};
    }

    argument compute(const shape& output_shape, const std::vector<argument>& args) const
    {
        const auto& x      = output_shape.lens();
        std::size_t inner  = 1; // elements sharing one parameter index within x[n]
        std::size_t params = args[1].get_shape().elements();
        for(std::size_t d = 2; d < x.size(); d++)
            inner *= x[d];
        if(bn_mode == 0)
            inner = 1;
        auto scale = args[1].to_vector<double>();
        auto bias  = args[2].to_vector<double>();
        auto mean  = args[3].to_vector<double>();
        auto var   = args[4].to_vector<double>();
        std::vector<double> factor(params);
        for(std::size_t c = 0; c < params; c++)
            factor[c] = scale[c] / std::sqrt(var[c] + static_cast<double>(epsilon));
        argument result{output_shape};
        args[0].visit([&](auto in) {
            using T  = typename decltype(in)::value_type;
            auto* out = reinterpret_cast<T*>(result.data());
            for(std::size_t i = 0; i < in.size(); i++)
            {
                std::size_t c = (i / inner) % params;
                out[i] = type_cast<T>((type_cast<double>(in[i]) - mean[c]) * factor[c] + bias[c]);
            }
        });
        return result;
    }
};
MIGRAPHX_REGISTER_OP(batch_norm_inference)

} // namespace op
} // namespace migraphx
