#include <migraphx/register_op.hpp>
#include "ops/check_shapes.hpp"
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace migraphx {
namespace op {

enum class reduce_kind
{
    sum,
    mean,
    max,
    min,
    prod
};

/// reduce_sum/mean/max/min/prod[axes=...]: reduced dimensions are kept as 1; empty axes reduce
/// every axis; negative axes count from the end. Sums and products accumulate in double,
/// max/min compare in the element type.
template <class Derived, reduce_kind Kind>
struct reduce_op
{
    std::vector<std::int64_t> axes{};

    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.axes, "axes");
    }

    std::string op_name() const { return static_cast<const Derived&>(*this).name(); }

    /// One flag per dimension: reduced or not.
    std::vector<bool> reduced(std::size_t rank) const
    {
        std::vector<bool> r(rank, axes.empty());
        for(auto a : axes)
        {
            auto n = static_cast<std::size_t>(normalize_axis(a, rank, op_name()));
            if(r[n])
                throw exception(op_name() + ": axis " + std::to_string(a) + " is given twice");
            r[n] = true;
        }
        return r;
    }

    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes cs{inputs, op_name()};
        cs.has(1).not_tuple().static_only();
        auto lens = inputs[0].lens();
        auto red  = reduced(lens.size());
        for(std::size_t d = 0; d < lens.size(); d++)
            if(red[d])
                lens[d] = 1;
        return {inputs[0].type(), lens};
    }

    argument compute(const shape& output_shape, const std::vector<argument>& args) const
    {
        const auto& in  = args[0].get_shape().lens();
        auto red        = reduced(in.size());
        auto out_stride = shape::standard_strides(output_shape.lens());
        std::size_t nout  = output_shape.elements();
        std::size_t count = nout == 0 ? 0 : args[0].get_shape().elements() / nout;
        argument result{output_shape};
        args[0].visit([&](auto input) {
            using T   = typename decltype(input)::value_type;
            auto* out = reinterpret_cast<T*>(result.data());
            std::vector<double> acc(nout, Kind == reduce_kind::prod ? 1.0 : 0.0);
            std::vector<T> best(nout);
            std::vector<bool> seen(nout, false);
            for(std::size_t i = 0; i < input.size(); i++)
            {
                // Output position of input element i: its multi-index with reduced dims at 0.
                std::size_t rem = i, o = 0;
                for(std::size_t d = in.size(); d-- > 0;)
                {
                    if(not red[d])
                        o += (rem % in[d]) * out_stride[d];
                    rem /= in[d];
                }
                T x = input[i];
                if constexpr(Kind == reduce_kind::max or Kind == reduce_kind::min)
                {
                    bool better = Kind == reduce_kind::max ? best[o] < x : x < best[o];
                    if(not seen[o] or better)
                        best[o] = x;
                    seen[o] = true;
                }
                else if constexpr(Kind == reduce_kind::prod)
                    acc[o] *= type_cast<double>(x);
                else
                    acc[o] += type_cast<double>(x);
            }
            for(std::size_t o = 0; o < nout; o++)
            {
                if constexpr(Kind == reduce_kind::max or Kind == reduce_kind::min)
                    out[o] = best[o];
                else if constexpr(Kind == reduce_kind::mean)
                    out[o] = type_cast<T>(count == 0 ? 0.0 : acc[o] / static_cast<double>(count));
                else
                    out[o] = type_cast<T>(acc[o]);
            }
        });
        return result;
    }
};

struct reduce_sum : reduce_op<reduce_sum, reduce_kind::sum>
{
    std::string name() const { return "reduce_sum"; }
};
struct reduce_mean : reduce_op<reduce_mean, reduce_kind::mean>
{
    std::string name() const { return "reduce_mean"; }
};
struct reduce_max : reduce_op<reduce_max, reduce_kind::max>
{
    std::string name() const { return "reduce_max"; }
};
struct reduce_min : reduce_op<reduce_min, reduce_kind::min>
{
    std::string name() const { return "reduce_min"; }
};
struct reduce_prod : reduce_op<reduce_prod, reduce_kind::prod>
{
    std::string name() const { return "reduce_prod"; }
};
MIGRAPHX_REGISTER_OP(reduce_sum)
MIGRAPHX_REGISTER_OP(reduce_mean)
MIGRAPHX_REGISTER_OP(reduce_max)
MIGRAPHX_REGISTER_OP(reduce_min)
MIGRAPHX_REGISTER_OP(reduce_prod)

} // namespace op
} // namespace migraphx
