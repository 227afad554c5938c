#include <migraphx/register_op.hpp>
#include "ops/broadcast_lens.hpp"
#include "ops/check_shapes.hpp"

namespace migraphx {
namespace op {

/// Places the input's dims at `axis` of out_lens; every other dim gets stride 0.
struct broadcast
{
    std::uint64_t axis = 0;
    std::vector<std::size_t> broadcast_lens;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.axis, "axis");
        f(self.broadcast_lens, "out_lens");
    }
    std::string name() const { return "broadcast"; }
    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes cs{inputs, *this};
        cs.has(1).not_tuple().static_only();
        const auto& in = inputs[0];
        if(axis + in.ndim() > broadcast_lens.size())
            cs.fail("axis " + std::to_string(axis) + " plus input rank exceeds out_lens " +
                    lens_string(broadcast_lens));
        std::vector<std::size_t> strides(broadcast_lens.size(), 0);
        for(std::size_t i = 0; i < in.ndim(); i++)
        {
            auto out_len = broadcast_lens[axis + i];
            if(in.lens()[i] != out_len and in.lens()[i] != 1)
                cs.fail("input dims do not match out_lens " + lens_string(broadcast_lens) + " at axis " +
                        std::to_string(axis));
            strides[axis + i] = in.lens()[i] == out_len ? in.strides()[i] : 0;
        }
        return {in.type(), broadcast_lens, strides};
    }
    argument compute(const shape& out, const std::vector<argument>& args) const { return args[0].reshape(out); }
    std::ptrdiff_t output_alias(const std::vector<shape>&) const { return 0; }
};
MIGRAPHX_REGISTER_OP(broadcast)

/// Numpy-style: dims of 1 (or missing on the left) are stretched with stride 0.
struct multibroadcast
{
    std::vector<std::size_t> output_lens;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.output_lens, "out_lens");
    }
    std::string name() const { return "multibroadcast"; }
    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes cs{inputs, *this};
        cs.has(1).not_tuple().static_only();
        const auto& in = inputs[0];
        if(in.ndim() > output_lens.size())
            cs.fail("input rank exceeds out_lens " + lens_string(output_lens));
        auto offset = output_lens.size() - in.ndim();
        std::vector<std::size_t> strides(output_lens.size(), 0);
        for(std::size_t i = 0; i < in.ndim(); i++)
        {
            auto out_len = output_lens[offset + i];
            if(in.lens()[i] == out_len)
                strides[offset + i] = in.strides()[i];
            else if(in.lens()[i] != 1)
                cs.fail("input cannot be broadcast to " + lens_string(output_lens));
        }
        return {in.type(), output_lens, strides};
    }
    argument compute(const shape& out, const std::vector<argument>& args) const { return args[0].reshape(out); }
    std::ptrdiff_t output_alias(const std::vector<shape>&) const { return 0; }
};
MIGRAPHX_REGISTER_OP(multibroadcast)

} // namespace op
} // namespace migraphx
