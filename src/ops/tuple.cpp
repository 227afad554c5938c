#include <migraphx/register_op.hpp>
#include "ops/check_shapes.hpp"

namespace migraphx {
namespace op {

/// The index-th element of a tuple (e.g. one output of a multi-output op); shares its memory.
struct get_tuple_elem
{
    std::size_t index = 0;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.index, "index");
    }
    std::string name() const { return "get_tuple_elem"; }
    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes cs{inputs, *this};
        cs.has(1);
        if(inputs[0].type() != shape::tuple_type)
            cs.fail("input must be a tuple");
        if(index >= inputs[0].sub_shapes().size())
            cs.fail("index " + std::to_string(index) + " is out of range");
        return inputs[0].sub_shapes()[index];
    }
    argument compute(const shape&, const std::vector<argument>& args) const
    {
        auto subs = args[0].get_sub_objects();
        if(index >= subs.size())
            MIGRAPHX_THROW("get_tuple_elem: index " + std::to_string(index) + " is out of range");
        return subs[index];
    }
    std::ptrdiff_t output_alias(const std::vector<shape>&) const { return 0; }
};
MIGRAPHX_REGISTER_OP(get_tuple_elem)

} // namespace op
} // namespace migraphx
