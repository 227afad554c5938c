#include <migraphx/register_op.hpp>
#include "ops/broadcast_lens.hpp"
#include "ops/reshape_sizes.hpp"
#include "ops/check_shapes.hpp"
#include <algorithm>

namespace migraphx {
namespace op {

/// dims: 0 copies the input dim, -1 is inferred. A view of a standard input; a non-standard
/// input is copied into the new (standard) layout.
struct reshape
{
    std::vector<std::int64_t> dims;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.dims, "dims");
    }
    std::string name() const { return "reshape"; }
    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes cs{inputs, *this};
        cs.has(1).not_tuple().static_only();
        const auto& in = inputs[0];
        auto lens = reshape_sizes(dims, in.lens(), false, [&](const std::string& why) { cs.fail(why); });
        return {in.type(), lens};
    }
    argument compute(const shape& out, const std::vector<argument>& args) const
    {
        if(args[0].get_shape().standard())
            return args[0].reshape(out);
        return args[0].contiguous().reshape(out);
    }
    std::ptrdiff_t output_alias(const std::vector<shape>& inputs) const
    {
        return not inputs.empty() and inputs[0].standard() ? 0 : -1;
    }
};
MIGRAPHX_REGISTER_OP(reshape)

} // namespace op
} // namespace migraphx
