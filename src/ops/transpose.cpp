#include <migraphx/register_op.hpp>
#include "ops/check_shapes.hpp"

namespace migraphx {
namespace op {

/// Output dim i is input dim permutation[i]; a view with permuted strides.
struct transpose
{
    std::vector<std::int64_t> dims;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.dims, "permutation");
    }
    std::string name() const { return "transpose"; }
    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes cs{inputs, *this};
        cs.has(1).not_tuple().static_only();
        const auto& in = inputs[0];
        if(dims.size() != in.ndim())
            cs.fail("permutation has " + std::to_string(dims.size()) + " entries for rank " +
                    std::to_string(in.ndim()));
        std::vector<bool> seen(dims.size(), false);
        std::vector<std::size_t> lens(dims.size());
        std::vector<std::size_t> strides(dims.size());
        for(std::size_t i = 0; i < dims.size(); i++)
        {
            auto d = dims[i];
            if(d < 0 or d >= static_cast<std::int64_t>(dims.size()) or seen[d])
                cs.fail("invalid permutation (entry " + std::to_string(d) + ")");
            seen[d]    = true;
            lens[i]    = in.lens()[d];
            strides[i] = in.strides()[d];
        }
        return {in.type(), lens, strides};
    }
    argument compute(const shape& out, const std::vector<argument>& args) const { return args[0].reshape(out); }
    std::ptrdiff_t output_alias(const std::vector<shape>&) const { return 0; }
};
MIGRAPHX_REGISTER_OP(transpose)

} // namespace op
} // namespace migraphx
