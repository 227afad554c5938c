// dimensions_of[start=0,end=1]: the lens of its input from dim start to dim end (exclusive), as
// int64 {end - start}, read from the argument at run time. The ONNX parser's Shape of a value
// computed from a data-dependent result (whose static shape is only its largest): the sizes it
// really has. Shape of any other value stays a literal. See docs/internal/op-conventions.md.
#include <migraphx/register_op.hpp>
#include "ops/check_shapes.hpp"

namespace migraphx {
namespace op {

struct dimensions_of
{
    std::size_t start = 0;
    std::size_t end   = 1;

    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.start, "start");
        f(self.end, "end");
    }
    std::string name() const { return "dimensions_of"; }

    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes cs{inputs, *this};
        cs.has(1).not_tuple().static_only();
        if(end <= start or end > inputs[0].ndim())
            cs.fail("dims [" + std::to_string(start) + ", " + std::to_string(end) + ") are not within rank " +
                    std::to_string(inputs[0].ndim()) + " (end must be greater than start)");
        return {shape::int64_type, std::vector<std::size_t>{end - start}};
    }

    argument compute(const shape& out, const std::vector<argument>& args) const
    {
        const auto& lens = args[0].get_shape().lens();
        if(end > lens.size())
            MIGRAPHX_THROW(name() + ": input of rank " + std::to_string(lens.size()) + " has no dim " +
                           std::to_string(end - 1));
        argument result{out};
        auto* o = reinterpret_cast<std::int64_t*>(result.data());
        for(std::size_t d = start; d < end; d++)
            o[d - start] = static_cast<std::int64_t>(lens[d]);
        return result;
    }
};
MIGRAPHX_REGISTER_OP(dimensions_of)

} // namespace op
} // namespace migraphx
