#include <migraphx/register_op.hpp>
#include "ops/check_shapes.hpp"

namespace migraphx {
namespace op {

/// Copies any strided/broadcast view into standard row-major layout.
struct contiguous
{
    std::string name() const { return "contiguous"; }
    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes{inputs, *this}.has(1).not_tuple().static_only();
        return inputs[0].as_standard();
    }
    argument compute(const shape& out, const std::vector<argument>& args) const
    {
        argument result{out};
        out.visit_type([&](auto as) {
            using T = typename decltype(as)::type;
            auto o  = make_view(out, reinterpret_cast<T*>(result.data()));
            auto in = make_view(args[0].get_shape(), reinterpret_cast<const T*>(args[0].data()));
            for(std::size_t i = 0; i < o.size(); i++)
                o[i] = in[i];
        });
        return result;
    }
};
MIGRAPHX_REGISTER_OP(contiguous)

} // namespace op
} // namespace migraphx
