// convert[target_type=N]: elementwise type conversion (target_type prints as the type's
// integer, as MIGraphX). Floating to integer truncates toward zero; NaN and out-of-range
// values become 0 instead of undefined behaviour; to bool is x != 0; integers wrap.
#include <migraphx/register_op.hpp>
#include "ops/pointwise.hpp"

namespace migraphx {
namespace op {
namespace {

struct convert_op
{
    shape::type_t target_type = shape::half_type;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.target_type, "target_type");
    }
    std::string name() const { return "convert"; }
    value attributes() const { return {{"pointwise", true}}; }
    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes cs{inputs, *this};
        cs.has(1).not_tuple().static_only();
        if(target_type < shape::bool_type or target_type >= shape::tuple_type)
            cs.fail("target_type " + std::to_string(static_cast<int>(target_type)) + " is not an element type");
        return {target_type, inputs[0].lens()};
    }
    argument compute(const shape& out_shape, const std::vector<argument>& args) const
    {
        elementwise::check_args(name(), out_shape, args, 1);
        argument result{out_shape};
        out_shape.visit_type([&](auto out_as) {
            using U = typename decltype(out_as)::type;
            args[0].get_shape().visit_type([&](auto in_as) {
                using T = typename decltype(in_as)::type;
                elementwise::apply(reinterpret_cast<U*>(result.data()),
                                   out_shape,
                                   [](T x) { return elementwise::safe_cast<U>(x); },
                                   elementwise::make_input<T>(args[0]));
            });
        });
        return result;
    }
};
MIGRAPHX_REGISTER_OP(convert_op)

} // namespace
} // namespace op
} // namespace migraphx
