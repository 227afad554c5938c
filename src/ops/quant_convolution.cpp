#include <migraphx/make_op.hpp>
#include <migraphx/register_op.hpp>
#include "ops/check_shapes.hpp"
#include <cstdint>
#include <string>
#include <vector>

namespace migraphx {
namespace op {

/// Convolution of int8 or uint8 data and int8 or uint8 weights (the two may differ: uint8
/// activations after a relu with int8 weights) with an int32 result. Shape rules and the
/// reference loop are convolution's (exact: int8 products summed in double).
struct quant_convolution
{
    std::vector<std::size_t> padding  = {0, 0};
    std::vector<std::size_t> stride   = {1, 1};
    std::vector<std::size_t> dilation = {1, 1};
    std::int64_t group                = 1;
    std::int64_t padding_mode         = 0;
    bool use_dynamic_same_auto_pad    = false;

    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.padding, "padding");
        f(self.stride, "stride");
        f(self.dilation, "dilation");
        f(self.group, "group");
        f(self.padding_mode, "padding_mode");
        f(self.use_dynamic_same_auto_pad, "use_dynamic_same_auto_pad");
    }

    std::string name() const { return "quant_convolution"; }

    operation as_convolution() const { return make_op("convolution", reflect_to_value(*this)); }

    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes cs{inputs, *this};
        cs.has(2).not_tuple();
        for(const auto& s : inputs)
            if(s.type() != shape::int8_type and s.type() != shape::uint8_type)
                cs.fail("data and weights must be int8 or uint8, got " + s.type_string());
        try
        {
            // mixed int8/uint8 is fine (uint8 activations after relu, int8 weights)
            return as_convolution().compute_shape({inputs[0], inputs[1].with_type(inputs[0].type())})
                .with_type(shape::int32_type);
        }
        catch(const exception& e)
        {
            throw exception("quant_" + std::string(e.what()));
        }
    }

    argument compute(const shape& output_shape, const std::vector<argument>& args) const
    {
        return as_convolution().compute(output_shape, args);
    }
};
MIGRAPHX_REGISTER_OP(quant_convolution)

} // namespace op
} // namespace migraphx
