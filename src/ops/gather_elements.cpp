// gather_elements[axis=0](data, indices): ONNX GatherElements. out has indices' lens and
// out[i...] = data[i... with the axis coordinate replaced by indices[i...]]. Indices and data
// have the same rank; negative indices count from the end; out-of-range ones throw at run time.
#include <migraphx/register_op.hpp>
#include "ops/check_shapes.hpp"

namespace migraphx {
namespace op {

struct gather_elements
{
    std::int64_t axis = 0;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.axis, "axis");
    }
    std::string name() const { return "gather_elements"; }

    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes cs{inputs, *this};
        cs.has(2).not_tuple().static_only().type_in(1, {shape::int32_type, shape::int64_type});
        const auto& dl = inputs[0].lens();
        const auto& il = inputs[1].lens();
        if(dl.empty())
            cs.fail("data must have rank at least 1");
        auto a = static_cast<std::size_t>(normalize_axis(axis, dl.size(), name()));
        if(il.size() != dl.size())
            cs.fail("indices must have the same rank as data");
        for(std::size_t d = 0; d < dl.size(); d++)
            if(d != a and il[d] > dl[d])
                cs.fail("indices dimension " + std::to_string(d) + " exceeds data's");
        return {inputs[0].type(), il};
    }

    argument compute(const shape& out, const std::vector<argument>& args) const
    {
        const auto& dl = args[0].get_shape().lens();
        auto a         = static_cast<std::size_t>(normalize_axis(axis, dl.size(), name()));
        auto len       = static_cast<std::int64_t>(dl[a]);
        auto indices   = args[1].to_vector<std::int64_t>();
        argument result{out};
        out.visit_type([&](auto as) {
            using T = typename decltype(as)::type;
            auto* o = reinterpret_cast<T*>(result.data());
            auto in = make_view(args[0].get_shape(), reinterpret_cast<const T*>(args[0].data()));
            {
                for(std::size_t i = 0; i < indices.size(); i++)
                {
                    auto x = indices[i];
                    if(x < -len or x >= len)
                        MIGRAPHX_THROW("gather_elements: index " + std::to_string(x) +
                                       " is out of range for axis " + std::to_string(axis) + " of length " +
                                       std::to_string(len));
                    auto idx = out.multi(i);
                    idx[a]   = static_cast<std::size_t>(x < 0 ? x + len : x);
                    o[i]     = in(idx);
                }
            }
        });
        return result;
    }
};
MIGRAPHX_REGISTER_OP(gather_elements)

} // namespace op
} // namespace migraphx
