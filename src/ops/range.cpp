// range[max_length=n](start, limit, delta): start, start + delta, ... while before limit
// (ONNX Range: ceil((limit - start) / delta) values, none when that is negative), in start's type,
// from one-element inputs read at run time. The ONNX parser makes a literal of a Range of
// constants; this op is a Range whose inputs are computed from the shape of a data-dependent
// result (torch.arange(len(x))): max_length is the length at the declared (largest) shapes, the
// static shape {max_length}; the result is never longer (attribute dynamic_output).
#include <migraphx/register_op.hpp>
#include "ops/run_time_sizes.hpp"
#include <cmath>

namespace migraphx {
namespace op {

struct range
{
    std::size_t max_length = 0;

    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.max_length, "max_length");
    }
    std::string name() const { return "range"; }
    value attributes() const { return {{"dynamic_output", true}}; }

    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes cs{inputs, *this};
        cs.has(3).not_tuple().static_only().same_type();
        for(const auto& s : inputs)
            if(s.elements() != 1)
                cs.fail("start, limit and delta must have one element each");
        if(inputs[0].type() == shape::bool_type)
            cs.fail("bool is not a number type");
        return {inputs[0].type(), std::vector<std::size_t>{max_length}};
    }

    argument compute(const shape&, const std::vector<argument>& args) const
    {
        auto start = args[0].at<double>();
        auto limit = args[1].at<double>();
        auto delta = args[2].at<double>();
        if(delta == 0)
            MIGRAPHX_THROW(name() + ": delta must not be 0");
        auto count = std::max(std::ceil((limit - start) / delta), 0.0);
        if(not(count <= static_cast<double>(max_length)))
            MIGRAPHX_THROW(name() + ": " + std::to_string(count) + " values (start " + std::to_string(start) +
                           ", limit " + std::to_string(limit) + ", delta " + std::to_string(delta) +
                           ") exceed the declared (largest) length " + std::to_string(max_length));
        auto n = static_cast<std::size_t>(count);
        argument result{shape{args[0].get_shape().type(), std::vector<std::size_t>{n}}};
        result.visit([&](auto out) {
            using T = typename decltype(out)::value_type;
            // Integer ranges step in the integer type, as the ONNX reference does.
            for(std::size_t i = 0; i < n; i++)
                out[i] = type_cast<T>(start + static_cast<double>(i) * delta);
        });
        return result;
    }
};
MIGRAPHX_REGISTER_OP(range)

} // namespace op
} // namespace migraphx
