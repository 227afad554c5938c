// broadcast_with_dims[out_lens={..}](x, dims): x numpy-broadcast to the sizes that dims holds at
// run time, as a standard tensor (ONNX Expand, and ConstantOfShape with x a scalar, where the
// sizes are computed from the shape of a data-dependent result). out_lens is the declared result:
// x's declared lens broadcast with the sizes computed from the declared (largest) shapes; the
// result is never larger (attribute dynamic_output). See src/ops/run_time_sizes.hpp.
#include <migraphx/register_op.hpp>
#include "ops/run_time_sizes.hpp"

namespace migraphx {
namespace op {

struct broadcast_with_dims
{
    std::vector<std::size_t> output_lens;

    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.output_lens, "out_lens");
    }
    std::string name() const { return "broadcast_with_dims"; }
    value attributes() const { return {{"dynamic_output", true}}; }

    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes cs{inputs, *this};
        cs.has(2).not_tuple().static_only();
        check_sizes_input(cs, inputs[1], 0, "dims");
        const auto& x = inputs[0];
        auto rank     = std::max(x.ndim(), inputs[1].elements());
        if(output_lens.size() != rank)
            cs.fail("out_lens " + lens_string(output_lens) + " must have rank " + std::to_string(rank));
        bool fits = true;
        for(std::size_t i = 0; i < x.ndim(); i++)
        {
            auto in = x.lens()[i], out = output_lens[rank - x.ndim() + i];
            fits = fits and (in == out or in == 1);
        }
        if(not fits)
            cs.fail("x cannot be broadcast to out_lens " + lens_string(output_lens));
        return {x.type(), output_lens};
    }

    argument compute(const shape&, const std::vector<argument>& args) const
    {
        const auto& x = args[0].get_shape();
        std::vector<std::size_t> dims;
        for(auto d : read_sizes(args[1]))
        {
            if(d < 0)
                MIGRAPHX_THROW(name() + ": dims holds a negative size " + std::to_string(d));
            dims.push_back(static_cast<std::size_t>(d));
        }
        std::vector<std::size_t> lens;
        try
        {
            lens = compute_broadcasted_lens(x.lens(), dims);
        }
        catch(const exception& e)
        {
            MIGRAPHX_THROW(name() + ": " + e.what());
        }
        check_within_declared(name(), lens, output_lens);
        // A view of x with stride 0 along the broadcast dims, copied out.
        std::vector<std::size_t> strides(lens.size(), 0);
        auto offset = lens.size() - x.ndim();
        for(std::size_t i = 0; i < x.ndim(); i++)
            if(x.lens()[i] == lens[offset + i])
                strides[offset + i] = x.strides()[i];
        return args[0].reshape(shape{x.type(), lens, strides}).contiguous();
    }
};
MIGRAPHX_REGISTER_OP(broadcast_with_dims)

} // namespace op
} // namespace migraphx
