// select_branch(cond, a, b): a when the one-element cond is nonzero, else b, whole (a standard
// copy). The ONNX parser's If with a run-time condition whose branches give different or
// data-dependent sizes (torchvision's batched_nms: an empty tensor when there are no boxes, else
// the NMS's keep): a and b have one type and rank; the declared result is the larger of the two
// in each dim, the actual one that of the branch taken (attribute dynamic_output).
#include <migraphx/register_op.hpp>
#include "ops/check_shapes.hpp"
#include <algorithm>

namespace migraphx {
namespace op {

struct select_branch
{
    std::string name() const { return "select_branch"; }
    value attributes() const { return {{"dynamic_output", true}}; }

    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes cs{inputs, *this};
        cs.has(3).not_tuple().static_only();
        if(inputs[0].elements() != 1)
            cs.fail("the condition must have one element");
        const auto& a = inputs[1];
        const auto& b = inputs[2];
        if(a.type() != b.type() or a.ndim() != b.ndim())
            cs.fail("the branches must have one type and rank");
        std::vector<std::size_t> lens(a.ndim());
        for(std::size_t i = 0; i < lens.size(); i++)
            lens[i] = std::max(a.lens()[i], b.lens()[i]);
        return {a.type(), lens};
    }

    argument compute(const shape&, const std::vector<argument>& args) const
    {
        if(args[0].get_shape().elements() != 1)
            MIGRAPHX_THROW(name() + ": the condition must have one element");
        return (args[0].at<double>() != 0 ? args[1] : args[2]).contiguous();
    }
};
MIGRAPHX_REGISTER_OP(select_branch)

} // namespace op
} // namespace migraphx
