#include <migraphx/register_op.hpp>
#include "ops/check_shapes.hpp"

namespace migraphx {
namespace op {

/// Every steps[i]-th element along axes[i]: a view with multiplied strides.
struct step
{
    std::vector<std::int64_t> axes;
    std::vector<std::int64_t> steps;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.axes, "axes");
        f(self.steps, "steps");
    }
    std::string name() const { return "step"; }
    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes cs{inputs, *this};
        cs.has(1).not_tuple().static_only();
        const auto& in = inputs[0];
        if(axes.size() != steps.size())
            cs.fail("axes and steps must have the same size");
        auto lens    = in.lens();
        auto strides = in.strides();
        for(std::size_t i = 0; i < axes.size(); i++)
        {
            auto a = normalize_axis(axes[i], in.ndim(), name());
            if(steps[i] <= 0)
                cs.fail("steps must be positive, got " + std::to_string(steps[i]));
            auto s = static_cast<std::size_t>(steps[i]);
            lens[a]    = (lens[a] + s - 1) / s;
            strides[a] *= s;
        }
        return {in.type(), lens, strides};
    }
    argument compute(const shape& out, const std::vector<argument>& args) const { return args[0].reshape(out); }
    std::ptrdiff_t output_alias(const std::vector<shape>&) const { return 0; }
};
MIGRAPHX_REGISTER_OP(step)

} // namespace op
} // namespace migraphx
