// quantizelinear(x, scale[, zero_point]) -> y = saturate(round_half_even(x / scale) + zero_point)
//   in the type of zero_point (any integer type, or fp8e4m3fn: x / scale + zero_point rounded to
//   nearest even e4m3, saturating at +-448, as ONNX's FLOAT8E4M3FN with saturate=1), uint8 when
//   zero_point is absent.
// dequantizelinear(x, scale[, zero_point]) -> y = (x - zero_point) * scale in scale's type.
// scale and zero_point have the same lens as x (the ONNX parser broadcasts them); any strides.
// Arithmetic is in float (double when x or scale is double), as ONNX Runtime does.
#include <migraphx/register_op.hpp>
#include "ops/check_shapes.hpp"
#include <cfenv>
#include <cmath>
#include <limits>

namespace migraphx {
namespace op {
namespace {

void check_q_inputs(const std::vector<shape>& inputs, const std::string& op)
{
    check_shapes cs{inputs, op};
    cs.has_between(2, 3).not_tuple().static_only().same_dims();
    if(not shape::is_floating(inputs[1].type()))
        cs.fail("scale must be a floating type");
    if(inputs.size() == 3 and inputs[2].type() != shape::fp8e4m3fn_type and
       (not shape::is_integral(inputs[2].type()) or inputs[2].type() == shape::bool_type))
        cs.fail("zero_point must be an integer type or fp8e4m3fn_type");
}

bool wide(const std::vector<argument>& args)
{
    return args[0].get_shape().type() == shape::double_type or args[1].get_shape().type() == shape::double_type;
}

} // namespace

struct quantizelinear
{
    std::string name() const { return "quantizelinear"; }
    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_q_inputs(inputs, name());
        auto t = inputs.size() == 3 ? inputs[2].type() : shape::uint8_type;
        return {t, inputs[0].lens()};
    }
    argument compute(const shape& out, const std::vector<argument>& args) const
    {
        auto x     = args[0].to_vector<double>();
        auto scale = args[1].to_vector<double>();
        std::vector<double> zp(x.size(), 0.0);
        if(args.size() == 3)
            zp = args[2].to_vector<double>();
        bool dbl = wide(args);
        argument result{out};
        out.visit_type([&](auto as) {
            using T = typename decltype(as)::type;
            if constexpr(std::is_integral<T>{})
            {
                auto* o          = reinterpret_cast<T*>(result.data());
                const double lo  = static_cast<double>(std::numeric_limits<T>::lowest());
                const double hi  = static_cast<double>(std::numeric_limits<T>::max());
                const int old_rm = std::fegetround();
                std::fesetround(FE_TONEAREST);
                for(std::size_t i = 0; i < x.size(); i++)
                {
                    double q = dbl ? x[i] / scale[i]
                                   : static_cast<double>(static_cast<float>(x[i]) / static_cast<float>(scale[i]));
                    double y = std::nearbyint(q) + zp[i];
                    if(std::isnan(y))
                        y = 0; // NaN has no integer; 0 rather than undefined behaviour
                    o[i] = y >= hi   ? std::numeric_limits<T>::max()
                           : y <= lo ? std::numeric_limits<T>::lowest()
                                     : static_cast<T>(y);
                }
                std::fesetround(old_rm);
            }
            else if constexpr(std::is_same<T, fp8e4m3fn>{})
            {
                auto* o = reinterpret_cast<T*>(result.data());
                for(std::size_t i = 0; i < x.size(); i++)
                {
                    // rounded once from the float quotient plus the zero point (a double one, where
                    // x or scale is double, goes through float first)
                    double y = dbl ? x[i] / scale[i] + zp[i]
                                   : static_cast<double>(static_cast<float>(x[i]) / static_cast<float>(scale[i]) +
                                                         static_cast<float>(zp[i]));
                    o[i] = T(y);
                }
            }
        });
        return result;
    }
};
MIGRAPHX_REGISTER_OP(quantizelinear)

struct dequantizelinear
{
    std::string name() const { return "dequantizelinear"; }
    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_q_inputs(inputs, name());
        if(inputs.size() == 3 and inputs[2].type() != inputs[0].type())
            check_shapes{inputs, name()}.fail("zero_point must have the type of x");
        return {inputs[1].type(), inputs[0].lens()};
    }
    argument compute(const shape& out, const std::vector<argument>& args) const
    {
        auto x     = args[0].to_vector<double>();
        auto scale = args[1].to_vector<double>();
        std::vector<double> zp(x.size(), 0.0);
        if(args.size() == 3)
            zp = args[2].to_vector<double>();
        bool dbl = wide(args);
        argument result{out};
        out.visit_type([&](auto as) {
            using T = typename decltype(as)::type;
            auto* o = reinterpret_cast<T*>(result.data());
            for(std::size_t i = 0; i < x.size(); i++)
            {
                // x - zero_point is exact in double for every integer type up to 32 bits.
                double d = x[i] - zp[i];
                o[i]     = dbl ? static_cast<T>(d * scale[i])
                               : static_cast<T>(static_cast<float>(d) * static_cast<float>(scale[i]));
            }
        });
        return result;
    }
};
MIGRAPHX_REGISTER_OP(dequantizelinear)

} // namespace op
} // namespace migraphx
