// reshape_with_dims[dims={..},allowzero=0](x, shape): x reshaped to the sizes that shape holds at
// run time, as ONNX Reshape reads them (0 copies x's dim unless allowzero, -1 is inferred), as a
// standard tensor: ONNX Reshape whose shape is computed from the shape of a data-dependent result.
// dims is the declared result (the sizes computed from the declared, largest, shapes); the
// result is never larger (attribute dynamic_output). See src/ops/run_time_sizes.hpp.
#include <migraphx/register_op.hpp>
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

    /// ONNX's reading of the sizes for an input of lens in (n elements).
    std::vector<std::size_t> resolve(const std::vector<std::int64_t>& want, const std::vector<std::size_t>& in) const
    {
        std::size_t n = 1;
        for(auto l : in)
            n *= l;
        std::vector<std::size_t> lens(want.size());
        std::size_t known    = 1;
        std::ptrdiff_t infer = -1;
        for(std::size_t i = 0; i < want.size(); i++)
        {
            if(want[i] == -1)
            {
                if(infer >= 0)
                    MIGRAPHX_THROW(name() + ": the shape holds more than one -1");
                infer = static_cast<std::ptrdiff_t>(i);
                continue;
            }
            if(want[i] < -1)
                MIGRAPHX_THROW(name() + ": the shape holds a negative size " + std::to_string(want[i]));
            if(want[i] == 0 and not allowzero)
            {
                if(i >= in.size())
                    MIGRAPHX_THROW(name() + ": a 0 at index " + std::to_string(i) + " has no input dim to copy");
                lens[i] = in[i];
            }
            else
                lens[i] = static_cast<std::size_t>(want[i]);
            known *= lens[i];
        }
        if(infer >= 0 and known == 0 and n == 0)
            lens[infer] = dims.at(infer); // any length holds no elements: the declared one
        else if(infer >= 0)
        {
            if(known == 0 or n % known != 0)
                MIGRAPHX_THROW(name() + ": cannot infer the -1 size: " + std::to_string(n) + " elements into " +
                               lens_string(lens));
            lens[infer] = n / known;
        }
        std::size_t m = 1;
        for(auto l : lens)
            m *= l;
        if(m != n)
            MIGRAPHX_THROW(name() + ": cannot reshape " + lens_string(in) + " to " + lens_string(lens));
        return lens;
    }

    argument compute(const shape&, const std::vector<argument>& args) const
    {
        auto lens = resolve(read_sizes(args[1]), args[0].get_shape().lens());
        check_within_declared(name(), lens, dims);
        auto x = args[0].contiguous(); // a copy: the result owns its memory
        return x.reshape(shape{x.get_shape().type(), lens});
    }
};
MIGRAPHX_REGISTER_OP(reshape_with_dims)

} // namespace op
} // namespace migraphx
