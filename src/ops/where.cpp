// where(cond, x, y) = cond ? x : y: cond is bool_type, x and y share a type; all equal lens,
// any strides. The output is standard, of x's type.
#include <migraphx/register_op.hpp>
#include "ops/pointwise.hpp"

namespace migraphx {
namespace op {
namespace {

struct where_op
{
    std::string name() const { return "where"; }
    value attributes() const { return {{"pointwise", true}}; }
    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes cs{inputs, *this};
        cs.has(3).not_tuple().static_only().same_dims();
        if(inputs[0].type() != shape::bool_type)
            cs.fail("the condition must be bool_type");
        if(inputs[1].type() != inputs[2].type())
            cs.fail("x and y must have the same type");
        return {inputs[1].type(), inputs[1].lens()};
    }
    argument compute(const shape& out_shape, const std::vector<argument>& args) const
    {
        elementwise::check_args(name(), out_shape, args, 3);
        if(args[0].get_shape().type() != shape::bool_type or args[1].get_shape().type() != out_shape.type() or
           args[2].get_shape().type() != out_shape.type())
            MIGRAPHX_THROW("where: argument types do not match the output type " + out_shape.type_string());
        argument result{out_shape};
        out_shape.visit_type([&](auto as) {
            using T = typename decltype(as)::type;
            elementwise::apply(
                reinterpret_cast<T*>(result.data()),
                out_shape,
                [](bool c, T x, T y) { return c ? x : y; },
                elementwise::make_input<bool>(args[0]),
                elementwise::make_input<T>(args[1]),
                elementwise::make_input<T>(args[2]));
        });
        return result;
    }
};
MIGRAPHX_REGISTER_OP(where_op)

} // namespace
} // namespace op
} // namespace migraphx
