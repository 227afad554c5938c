#include <migraphx/register_op.hpp>
#include "ir/block_cache.hpp"
#include "ops/check_shapes.hpp"
#include "ir/strided_copy.hpp"

namespace migraphx {
namespace op {

/// Joins inputs (any strides) along axis into a standard output.
struct concat
{
    std::int64_t axis = 0;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.axis, "axis");
    }
    std::string name() const { return "concat"; }
    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes cs{inputs, *this};
        cs.has_at_least(1).not_tuple().static_only().same_type().same_ndims();
        auto a    = normalize_axis(axis, inputs[0].ndim(), name());
        auto lens = inputs[0].lens();
        lens[a]   = 0;
        for(const auto& s : inputs)
        {
            for(std::size_t i = 0; i < lens.size(); i++)
                if(static_cast<std::int64_t>(i) != a and s.lens()[i] != lens[i])
                    cs.fail("dims differ off the concat axis " + std::to_string(axis));
            lens[a] += s.lens()[a];
        }
        return {inputs[0].type(), lens};
    }
    argument compute(const shape& out, const std::vector<argument>& args) const
    {
        argument result{out, allocate_uninitialized(out.bytes())}; // every element is written
        auto a = static_cast<std::size_t>(normalize_axis(axis, out.ndim(), name()));
        std::vector<shape> parts;
        std::vector<const char*> srcs;
        for(const auto& arg : args)
        {
            parts.push_back(arg.get_shape());
            srcs.push_back(arg.data());
        }
        copy_concat(parts, srcs, a, out, result.data());
        return result;
    }
};
MIGRAPHX_REGISTER_OP(concat)

} // namespace op
} // namespace migraphx
