// compress[axis={}](input, condition): ONNX Compress. condition is rank 1 (nonzero = keep);
// axis={} selects elements of the flattened input, axis={a} selects slices along a. A condition
// shorter than the selected dimension drops the rest; a longer one is an error. The kept count
// depends on the data: compute_shape gives the largest shape (condition's length), compute the
// exact one (attribute "dynamic_output"). axis is a list of zero or one element, as in unique.
#include <migraphx/register_op.hpp>
#include "ops/check_shapes.hpp"

namespace migraphx {
namespace op {

struct compress
{
    std::vector<std::int64_t> axis;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.axis, "axis");
    }
    std::string name() const { return "compress"; }
    value attributes() const { return {{"dynamic_output", true}}; }

    shape out_shape(const shape& x, std::size_t kept) const
    {
        if(axis.empty())
            return {x.type(), {kept}};
        auto lens = x.lens();
        lens[static_cast<std::size_t>(normalize_axis(axis[0], x.ndim(), name()))] = kept;
        return {x.type(), lens};
    }

    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes cs{inputs, *this};
        cs.has(2).not_tuple().static_only();
        if(axis.size() > 1)
            cs.fail("axis must be empty or hold one axis");
        if(inputs[1].ndim() != 1)
            cs.fail("condition must have rank 1");
        std::size_t limit = inputs[0].elements();
        if(not axis.empty())
        {
            if(inputs[0].ndim() == 0)
                cs.fail("an axis needs an input of rank at least 1");
            limit = inputs[0].lens()[static_cast<std::size_t>(normalize_axis(axis[0], inputs[0].ndim(), name()))];
        }
        if(inputs[1].elements() > limit)
            cs.fail("condition is longer than the selected dimension");
        return out_shape(inputs[0], inputs[1].elements());
    }

    argument compute(const shape&, const std::vector<argument>& args) const
    {
        const auto& xs = args[0].get_shape();
        auto cond      = args[1].to_vector<double>();
        std::vector<std::size_t> keep; // positions kept, in order
        for(std::size_t i = 0; i < cond.size(); i++)
            if(cond[i] != 0)
                keep.push_back(i);
        auto out = out_shape(xs, keep.size());
        std::size_t a = axis.empty() ? 0 : static_cast<std::size_t>(normalize_axis(axis[0], xs.ndim(), name()));
        argument result{out};
        auto ts = out.type_size();
        for(std::size_t i = 0; i < out.elements(); i++)
        {
            std::size_t src;
            if(axis.empty())
                src = xs.index(keep[i]);
            else
            {
                auto idx = out.multi(i);
                idx[a]   = keep[idx[a]];
                src      = xs.index(idx);
            }
            std::copy_n(args[0].data() + src * ts, ts, result.data() + i * ts);
        }
        return result;
    }
};
MIGRAPHX_REGISTER_OP(compress)

} // namespace op
} // namespace migraphx
