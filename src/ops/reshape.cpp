#include <migraphx/register_op.hpp>
#include "ops/broadcast_lens.hpp"
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
        std::vector<std::size_t> lens(dims.size());
        std::size_t known = 1;
        std::ptrdiff_t infer = -1;
        for(std::size_t i = 0; i < dims.size(); i++)
        {
            if(dims[i] == -1)
            {
                if(infer >= 0)
                    cs.fail("more than one -1 in dims");
                infer = i;
                continue;
            }
            if(dims[i] < -1)
                cs.fail("negative dim " + std::to_string(dims[i]));
            if(dims[i] == 0 and i >= in.ndim())
                cs.fail("dim 0 at index " + std::to_string(i) + " has no input dim to copy");
            lens[i] = dims[i] == 0 ? in.lens()[i] : dims[i];
            known *= lens[i];
        }
        if(infer >= 0)
        {
            if(known == 0 or in.elements() % known != 0)
                cs.fail("cannot infer the -1 dim of " + lens_string(lens));
            lens[infer] = in.elements() / known;
        }
        shape out{in.type(), lens};
        if(out.elements() != in.elements())
            cs.fail("cannot reshape " + std::to_string(in.elements()) + " elements to " + lens_string(lens));
        return out;
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
