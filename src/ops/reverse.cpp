// reverse[axes={}]: a copy of the input with the order of elements along each listed axis
// reversed (negative axes count from the end; repeating an axis is an error).
#include <migraphx/register_op.hpp>
#include "ops/check_shapes.hpp"

namespace migraphx {
namespace op {

struct reverse
{
    std::vector<std::int64_t> axes;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.axes, "axes");
    }
    std::string name() const { return "reverse"; }

    std::vector<bool> flipped(std::size_t rank) const
    {
        std::vector<bool> r(rank, false);
        for(auto x : axes)
        {
            auto a = static_cast<std::size_t>(normalize_axis(x, rank, name()));
            if(r[a])
                MIGRAPHX_THROW("reverse: axis " + std::to_string(x) + " is listed twice");
            r[a] = true;
        }
        return r;
    }

    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes{inputs, *this}.has(1).not_tuple().static_only();
        flipped(inputs[0].ndim());
        return {inputs[0].type(), inputs[0].lens()};
    }

    argument compute(const shape& out, const std::vector<argument>& args) const
    {
        auto flip = flipped(out.ndim());
        const auto& in_s = args[0].get_shape();
        argument result{out};
        auto ts = out.type_size();
        for(std::size_t i = 0; i < out.elements(); i++)
        {
            auto idx = out.multi(i);
            for(std::size_t d = 0; d < idx.size(); d++)
                if(flip[d])
                    idx[d] = out.lens()[d] - 1 - idx[d];
            std::copy_n(args[0].data() + in_s.index(idx) * ts, ts, result.data() + i * ts);
        }
        return result;
    }
};
MIGRAPHX_REGISTER_OP(reverse)

} // namespace op
} // namespace migraphx
