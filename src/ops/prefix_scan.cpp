// prefix_scan_sum[axis=0,exclusive=0,reverse=0]: running sum along axis (ONNX CumSum).
// exclusive leaves out the element itself (the first output is 0); reverse sums from the end.
// Floating types accumulate in double; integers accumulate in their own type and wrap.
#include <migraphx/register_op.hpp>
#include "ops/check_shapes.hpp"
#include "ops/pointwise.hpp"

namespace migraphx {
namespace op {

struct prefix_scan_sum
{
    std::int64_t axis = 0;
    bool exclusive    = false;
    bool reverse      = false;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.axis, "axis");
        f(self.exclusive, "exclusive");
        f(self.reverse, "reverse");
    }
    std::string name() const { return "prefix_scan_sum"; }

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
        argument result{out};
        out.visit_type([&](auto as) {
            using T   = typename decltype(as)::type;
            using Acc = std::conditional_t<std::is_floating_point<elementwise::compute_t<T>>{}, double, T>;
            auto* o   = reinterpret_cast<T*>(result.data());
            auto in   = make_view(args[0].get_shape(), reinterpret_cast<const T*>(args[0].data()));
            for(std::size_t b = 0; b < outer; b++)
                for(std::size_t i = 0; i < inner; i++)
                {
                    Acc acc{};
                    for(std::size_t s = 0; s < n; s++)
                    {
                        std::size_t j   = reverse ? n - 1 - s : s;
                        std::size_t pos = (b * n + j) * inner + i;
                        Acc x           = static_cast<Acc>(in[pos]);
                        if(exclusive)
                            o[pos] = static_cast<T>(acc);
                        if constexpr(std::is_integral<Acc>{})
                            acc = elementwise::wrap_add(acc, x);
                        else
                            acc += x;
                        if(not exclusive)
                            o[pos] = static_cast<T>(acc);
                    }
                }
        });
        return result;
    }
};
MIGRAPHX_REGISTER_OP(prefix_scan_sum)

} // namespace op
} // namespace migraphx
