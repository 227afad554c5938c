#include <migraphx/register_op.hpp>
#include "ops/check_shapes.hpp"
#include <algorithm>

namespace migraphx {
namespace op {

/// Removes dims of length 1 (the listed axes, or all of them when axes is empty); a view.
struct squeeze
{
    std::vector<std::int64_t> axes;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.axes, "axes");
    }
    std::string name() const { return "squeeze"; }
    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes cs{inputs, *this};
        cs.has(1).not_tuple().static_only();
        const auto& in = inputs[0];
        std::vector<bool> drop(in.ndim(), axes.empty());
        for(auto a : axes)
        {
            auto axis = normalize_axis(a, in.ndim(), name());
            if(in.lens()[axis] != 1)
                cs.fail("cannot squeeze axis " + std::to_string(a) + " of length " +
                        std::to_string(in.lens()[axis]));
            drop[axis] = true;
        }
        std::vector<std::size_t> lens, strides;
        for(std::size_t i = 0; i < in.ndim(); i++)
        {
            if(drop[i] and in.lens()[i] == 1)
                continue;
            lens.push_back(in.lens()[i]);
            strides.push_back(in.strides()[i]);
        }
        return {in.type(), lens, strides};
    }
    argument compute(const shape& out, const std::vector<argument>& args) const { return args[0].reshape(out); }
    std::ptrdiff_t output_alias(const std::vector<shape>&) const { return 0; }
};
MIGRAPHX_REGISTER_OP(squeeze)

/// Inserts dims at `axes` (indices into the output). With steps, the new axis of length step
/// splits the next input dim into {step, len / step} (as MIGraphX).
struct unsqueeze
{
    std::vector<std::int64_t> axes;
    std::vector<std::int64_t> steps;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.axes, "axes");
        f(self.steps, "steps");
    }
    std::string name() const { return "unsqueeze"; }
    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes cs{inputs, *this};
        cs.has(1).not_tuple().static_only();
        const auto& in = inputs[0];
        if(steps.size() > axes.size())
            cs.fail("more steps than axes");
        auto n = in.ndim() + axes.size();
        std::vector<std::ptrdiff_t> step_of(n, -1); // -1: an input dim
        for(std::size_t i = 0; i < axes.size(); i++)
        {
            auto axis = normalize_axis(axes[i], n, name());
            if(step_of[axis] >= 0)
                cs.fail("axis " + std::to_string(axes[i]) + " appears twice");
            step_of[axis] = i < steps.size() ? steps[i] : 1;
            if(step_of[axis] <= 0)
                cs.fail("steps must be positive");
        }
        auto old_lens = in.lens();
        std::vector<std::size_t> lens(n), strides(n);
        std::size_t p = 0;
        for(std::size_t i = 0; i < n; i++)
        {
            if(step_of[i] < 0)
            {
                lens[i]    = old_lens[p];
                strides[i] = in.strides()[p++];
                continue;
            }
            auto step = static_cast<std::size_t>(step_of[i]);
            lens[i]   = step;
            if(p < old_lens.size())
            {
                if(old_lens[p] % step != 0)
                    cs.fail("dim " + std::to_string(old_lens[p]) + " is not divisible by step " +
                            std::to_string(step));
                old_lens[p] /= step;
                strides[i] = in.strides()[p] * old_lens[p];
            }
            else if(step != 1)
                cs.fail("step must be 1 for a trailing new axis");
            else
                strides[i] = 1;
        }
        return {in.type(), lens, strides};
    }
    argument compute(const shape& out, const std::vector<argument>& args) const { return args[0].reshape(out); }
    std::ptrdiff_t output_alias(const std::vector<shape>&) const { return 0; }
};
MIGRAPHX_REGISTER_OP(unsqueeze)

} // namespace op
} // namespace migraphx
