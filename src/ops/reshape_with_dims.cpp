// reshape_with_dims[dims={..},allowzero=0](x, shape): x reshaped to the sizes that shape holds at
// run time, as ONNX Reshape reads them (0 copies x's dim unless allowzero, -1 is inferred), as a
// standard tensor: ONNX Reshape whose shape is computed from the shape of a data-dependent result.
// dims is the declared result (the sizes computed from the declared, largest, shapes); the
// result is never larger (attribute dynamic_output). See src/ops/run_time_sizes.hpp.
#include <migraphx/register_op.hpp>
#include "ops/reshape_sizes.hpp"
#include "ops/run_time_sizes.hpp"

namespace migraphx {
namespace op {

struct reshape_with_dims
{
    std::vector<std::size_t> dims;
    bool allowzero = false;

    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.dims, "dims");
        f(self.allowzero, "allowzero");
    }
    std::string name() const { return "reshape_with_dims"; }
    value attributes() const { return {{"dynamic_output", true}}; }

    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes cs{inputs, *this};
        cs.has(2).not_tuple().static_only();
        check_sizes_input(cs, inputs[1], dims.size(), "shape");
        return {inputs[0].type(), dims};
    }

    argument compute(const shape&, const std::vector<argument>& args) const
    {
        auto lens = reshape_sizes(
            read_sizes(args[1]), args[0].get_shape().lens(), allowzero,
            [&](const std::string& why) { MIGRAPHX_THROW(name() + ": " + why); }, &dims);
        check_within_declared(name(), lens, dims);
        auto x = args[0].contiguous(); // a copy: the result owns its memory
        return x.reshape(shape{x.get_shape().type(), lens});
    }
};
MIGRAPHX_REGISTER_OP(reshape_with_dims)

} // namespace op
} // namespace migraphx
