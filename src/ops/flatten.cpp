#include <migraphx/register_op.hpp>
#include "ops/check_shapes.hpp"

namespace migraphx {
namespace op {

/// {prod(lens[:axis]), prod(lens[axis:])}; the input must be standard (insert contiguous first).
struct flatten
{
    std::int64_t axis = 1;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.axis, "axis");
    }
    std::string name() const { return "flatten"; }
    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes cs{inputs, *this};
        cs.has(1).not_tuple().static_only().standard();
        const auto& lens = inputs[0].lens();
        auto n           = static_cast<std::int64_t>(lens.size());
        if(axis < -n or axis > n)
            cs.fail("axis " + std::to_string(axis) + " is out of range");
        auto a         = static_cast<std::size_t>(axis < 0 ? axis + n : axis);
        std::size_t x = 1, y = 1;
        for(std::size_t i = 0; i < lens.size(); i++)
            (i < a ? x : y) *= lens[i];
        return {inputs[0].type(), {x, y}};
    }
    argument compute(const shape& out, const std::vector<argument>& args) const { return args[0].reshape(out); }
    std::ptrdiff_t output_alias(const std::vector<shape>&) const { return 0; }
};
MIGRAPHX_REGISTER_OP(flatten)

} // namespace op
} // namespace migraphx
