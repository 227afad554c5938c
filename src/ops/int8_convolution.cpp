#include <migraphx/half.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/register_op.hpp>
#include "ops/check_shapes.hpp"
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace migraphx {
namespace op {

/// An int8 convolution with its dequantize epilogue: y = act(acc * scales[k] [+ bias[k]]
/// [+ z * z_scale]),
/// acc the exact int32 sum of x * w, act relu or nothing; y int8 (requantized: rounded half to
/// even, saturated to [-128, 127]), half or float. Not made by the parser: the gpu target's
/// fuse_int8 pass folds quantize_int8's "quant_convolution -> dequantizelinear [-> bias add]
/// [-> residual add] [-> relu] [-> quantizelinear]" into it, so that cuDNN runs the chain as one
/// int8 kernel. Inputs: x int8 {N, C, H, W}; w int8 {K, C, R, S}; bias float {K} if bias; z
/// (y's lens; int8 (an int8 residual stream), half or float) if residual. The epilogue is
/// computed in float.
struct int8_convolution
{
    std::vector<std::size_t> padding{0, 0, 0, 0}; // begin h, w, end h, w
    std::vector<std::size_t> stride{1, 1}, dilation{1, 1};
    std::vector<float> scales; // one per output channel, or one for all
    bool bias = false, residual = false, relu = false;
    float z_scale          = 1; // the residual's scale (an int8 z's, over a requantized y's)
    shape::type_t out_type = shape::float_type;

    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.padding, "padding");
        f(self.stride, "stride");
        f(self.dilation, "dilation");
        f(self.scales, "scales");
        f(self.bias, "bias");
        f(self.residual, "residual");
        f(self.relu, "relu");
        f(self.z_scale, "z_scale");
        f(self.out_type, "out_type");
    }

    std::string name() const { return "int8_convolution"; }

    operation accumulate() const
    {
        return make_op("quant_convolution", {{"padding", padding}, {"stride", stride}, {"dilation", dilation}});
    }

    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes cs{inputs, *this};
        cs.has(2 + (bias ? 1 : 0) + (residual ? 1 : 0)).not_tuple().static_only();
        const auto& x = inputs[0];
        const auto& w = inputs[1];
        if(x.type() != shape::int8_type or w.type() != shape::int8_type)
            cs.fail("expects int8 data and weights");
        if(x.lens().size() != 4 or w.lens().size() != 4)
            cs.fail("expects 2-d convolutions (4-d data and weights)");
        if(out_type != shape::int8_type and out_type != shape::half_type and out_type != shape::float_type)
            cs.fail("expects an int8, half or float result");
        if(padding.size() != 4 or stride.size() != 2 or dilation.size() != 2)
            cs.fail("expects 4 paddings, 2 strides and 2 dilations");
        auto k = w.lens()[0];
        if(scales.size() != 1 and scales.size() != k)
            cs.fail("expects one scale, or one per output channel");
        auto acc = accumulate().compute_shape({x, w});
        std::size_t next = 2;
        if(bias and (inputs[next].type() != shape::float_type or inputs[next++].lens() != std::vector<std::size_t>{k}))
            cs.fail("expects a float bias of {K}");
        if(residual and (inputs[next].lens() != acc.lens() or (inputs[next].type() != shape::int8_type and
                                                                inputs[next].type() != shape::half_type and
                                                                inputs[next].type() != shape::float_type)))
            cs.fail("expects a residual of the result's lens, int8, half or float");
        return {out_type, acc.lens()};
    }

    argument compute(const shape& out, const std::vector<argument>& args) const
    {
        auto acc = accumulate().compute(out.with_type(shape::int32_type), {args[0], args[1]}).to_vector<double>();
        std::vector<float> b, z;
        std::size_t next = 2;
        if(bias)
            b = args[next++].to_vector<float>();
        if(residual)
            z = args[next++].to_vector<float>();
        const auto& l     = out.lens();
        std::size_t inner = l[2] * l[3];
        argument result{out};
        result.visit([&](auto o) {
            using T = typename decltype(o)::value_type;
            for(std::size_t i = 0; i < acc.size(); i++)
            {
                auto k  = (i / inner) % l[1];
                float v = static_cast<float>(acc[i]) * scales[scales.size() == 1 ? 0 : k];
                if(bias)
                    v += b[k];
                if(residual)
                    v += z[i] * z_scale;
                if(relu)
                    v = std::max(v, 0.0f);
                if(out_type == shape::int8_type)
                    v = std::isnan(v) ? 0.0f : std::clamp(std::nearbyint(v), -128.0f, 127.0f);
                o[i] = type_cast<T>(v);
            }
        });
        return result;
    }
};
MIGRAPHX_REGISTER_OP(int8_convolution)

} // namespace op
} // namespace migraphx
