// hardmax[axis=-1]: 1 at the first largest element along axis, 0 elsewhere (ONNX Hardmax-13).
#include <migraphx/register_op.hpp>
#include "ops/check_shapes.hpp"

namespace migraphx {
namespace op {

struct hardmax
{
    std::int64_t axis = -1;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.axis, "axis");
    }
    std::string name() const { return "hardmax"; }
    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes{inputs, *this}.has(1).not_tuple().static_only().min_ndims(1);
        normalize_axis(axis, inputs[0].ndim(), name());
        return {inputs[0].type(), inputs[0].lens()};
    }
    argument compute(const shape& out, const std::vector<argument>& args) const
    {
        auto a            = static_cast<std::size_t>(normalize_axis(axis, out.ndim(), name()));
        std::size_t n     = out.lens()[a];
        std::size_t inner = 1;
        for(std::size_t d = a + 1; d < out.ndim(); d++)
            inner *= out.lens()[d];
        std::size_t outer = n * inner == 0 ? 0 : out.elements() / (n * inner);
        auto x            = args[0].to_vector<double>();
        argument result{out};
        out.visit_type([&](auto as) {
            using T = typename decltype(as)::type;
            auto* o = reinterpret_cast<T*>(result.data());
            for(std::size_t b = 0; b < outer; b++)
                for(std::size_t i = 0; i < inner; i++)
                {
                    std::size_t base = b * n * inner + i, best = 0;
                    for(std::size_t j = 1; j < n; j++)
                        if(x[base + j * inner] > x[base + best * inner])
                            best = j;
                    o[base + best * inner] = static_cast<T>(1);
                }
        });
        return result;
    }
};
MIGRAPHX_REGISTER_OP(hardmax)

} // namespace op
} // namespace migraphx
