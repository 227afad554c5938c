// topk[k=1,axis=0,largest=1]: the k largest (or smallest) elements along axis, as a tuple
// {values (input type), indices (int64)}, both with lens[axis] = k. Results are sorted
// (descending for largest, ascending otherwise) and stable: equal values keep the lower index
// first. NaN compares greater than any number (as ONNX Runtime), so it comes first for largest.
// An optional second input (a one-element integer tensor) gives k at run time (ONNX TopK whose K is
// computed from the shape of a data-dependent result): then the attribute k is the declared,
// largest k, and the results have the run-time k, which must not exceed it.
#include <migraphx/register_op.hpp>
#include "ops/run_time_sizes.hpp"
#include <algorithm>
#include <cmath>
#include <numeric>

namespace migraphx {
namespace op {

struct topk
{
    std::int64_t k    = 1;
    std::int64_t axis = 0;
    bool largest      = true;

    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.k, "k");
        f(self.axis, "axis");
        f(self.largest, "largest");
    }
    std::string name() const { return "topk"; }

    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes cs{inputs, *this};
        cs.has_between(1, 2).not_tuple().static_only();
        if(inputs[0].ndim() < 1)
            cs.fail("the input must have rank >= 1");
        if(inputs.size() == 2)
            check_sizes_input(cs, inputs[1], 1, "k");
        auto lens = inputs[0].lens();
        auto a    = static_cast<std::size_t>(normalize_axis(axis, lens.size(), name()));
        if(k < 0 or static_cast<std::size_t>(k) > lens[a])
            cs.fail("k=" + std::to_string(k) + " must be in [0, " + std::to_string(lens[a]) + "]");
        lens[a] = static_cast<std::size_t>(k);
        return shape{std::vector<shape>{shape{inputs[0].type(), lens}, shape{shape::int64_type, lens}}};
    }

    argument compute(const shape& out, const std::vector<argument>& args) const
    {
        const auto& in_s = args[0].get_shape();
        auto a           = static_cast<std::size_t>(normalize_axis(axis, in_s.ndim(), name()));
        shape vs         = out.sub_shapes()[0];
        shape is         = out.sub_shapes()[1];
        if(args.size() == 2)
        {
            auto rk = args[1].at<std::int64_t>();
            if(rk < 0 or rk > k)
                MIGRAPHX_THROW(name() + ": the run-time k=" + std::to_string(rk) + " is not within [0, " +
                               std::to_string(k) + "] (the declared k, computed from the largest shapes)");
            auto lens = in_s.lens();
            lens[a]   = static_cast<std::size_t>(rk);
            vs        = shape{in_s.type(), lens};
            is        = shape{shape::int64_type, lens};
        }
        argument values{vs};
        argument indices{is};
        std::size_t n     = in_s.lens()[a];
        std::size_t kk    = vs.lens()[a];
        // An input shorter than declared (a data-dependent size) can hold fewer than k values.
        if(kk > n)
            MIGRAPHX_THROW(name() + ": k=" + std::to_string(kk) + " but the input holds only " + std::to_string(n) +
                           " values along axis " + std::to_string(a) +
                           " (a data-dependent size smaller than the k computed for its largest size)");
        std::size_t inner = 1;
        for(std::size_t d = a + 1; d < in_s.ndim(); d++)
            inner *= in_s.lens()[d];
        std::size_t outer = n == 0 ? 0 : in_s.elements() / (n * inner);
        auto* oi          = reinterpret_cast<std::int64_t*>(indices.data());
        args[0].visit([&](auto input) {
            using T = typename decltype(input)::value_type;
            auto* ov = reinterpret_cast<T*>(values.data());
            std::vector<std::size_t> order(n);
            std::vector<double> key(n);
            for(std::size_t o = 0; o < outer; o++)
                for(std::size_t i = 0; i < inner; i++)
                {
                    std::size_t base = o * n * inner + i;
                    for(std::size_t j = 0; j < n; j++)
                        key[j] = static_cast<double>(input[base + j * inner]);
                    std::iota(order.begin(), order.end(), 0);
                    // "a before b": strictly better key (NaN counts as the largest value), equal
                    // keys by lower index: a total order, so selecting the k first and sorting
                    // only them gives what a stable sort of the whole row would (a detector's
                    // 1000 of 200,000 anchors: O(n) instead of O(n log n)).
                    auto before = [&](std::size_t x, std::size_t y) {
                        double p = key[x], q = key[y];
                        bool pn = std::isnan(p), qn = std::isnan(q);
                        if(pn or qn)
                        {
                            if(pn != qn)
                                return largest ? pn : qn;
                            return x < y;
                        }
                        if(p != q)
                            return largest ? p > q : p < q;
                        return x < y;
                    };
                    if(kk < n)
                        std::nth_element(order.begin(), order.begin() + kk, order.end(), before);
                    std::sort(order.begin(), order.begin() + kk, before);
                    std::size_t obase = o * kk * inner + i;
                    for(std::size_t j = 0; j < kk; j++)
                    {
                        ov[obase + j * inner] = input[base + order[j] * inner];
                        oi[obase + j * inner] = static_cast<std::int64_t>(order[j]);
                    }
                }
        });
        return argument{std::vector<argument>{values, indices}};
    }
};
MIGRAPHX_REGISTER_OP(topk)

} // namespace op
} // namespace migraphx
