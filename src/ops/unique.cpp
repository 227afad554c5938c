// unique[sorted=1,axis={}](X) -> tuple {Y, indices, inverse_indices, counts}: ONNX Unique.
// axis is optional, written as a list of zero or one element: axis={} (the default) flattens X
// and finds unique elements; axis={a} (a may be negative) finds unique slices along a.
// make_op("unique", {{"axis", 1}}) sets axis={1}. sorted=1 orders Y ascending (slices
// lexicographically); sorted=0 keeps first-occurrence order. indices (int64) are the first
// occurrences, inverse_indices map every input element/slice to its row in Y, counts count.
// The number of unique values U depends on the data: compute_shape gives the largest shapes
// (U = the element or slice count); compute returns the exact ones (attribute
// "dynamic_output"). See docs/internal/op-conventions.md.
#include <migraphx/register_op.hpp>
#include "ops/check_shapes.hpp"
#include <algorithm>
#include <map>
#include <numeric>

namespace migraphx {
namespace op {

struct unique
{
    bool sorted = true;
    std::vector<std::int64_t> axis;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.sorted, "sorted");
        f(self.axis, "axis");
    }
    std::string name() const { return "unique"; }
    value attributes() const { return {{"dynamic_output", true}}; }

    /// Output shapes for U unique rows.
    std::vector<shape> shapes_for(const shape& x, std::size_t u, std::size_t n) const
    {
        std::vector<std::size_t> ylens{u};
        if(not axis.empty())
        {
            ylens    = x.lens();
            ylens[static_cast<std::size_t>(normalize_axis(axis[0], x.ndim(), name()))] = u;
        }
        return {shape{x.type(), ylens},
                shape{shape::int64_type, {u}},
                shape{shape::int64_type, {n}},
                shape{shape::int64_type, {u}}};
    }

    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes cs{inputs, *this};
        cs.has(1).not_tuple().static_only();
        if(axis.size() > 1)
            cs.fail("axis must be empty or hold one axis");
        std::size_t n = inputs[0].elements();
        if(not axis.empty())
        {
            if(inputs[0].ndim() == 0)
                cs.fail("an axis needs an input of rank at least 1");
            n = inputs[0].lens()[static_cast<std::size_t>(normalize_axis(axis[0], inputs[0].ndim(), name()))];
        }
        return shape{shapes_for(inputs[0], n, n)};
    }

    argument compute(const shape&, const std::vector<argument>& args) const
    {
        const auto& xs = args[0].get_shape();
        std::size_t a = 0, rows = xs.elements(), width = 1;
        std::vector<std::size_t> perm_lens{rows};
        if(not axis.empty())
        {
            a     = static_cast<std::size_t>(normalize_axis(axis[0], xs.ndim(), name()));
            rows  = xs.lens()[a];
            width = rows == 0 ? 0 : xs.elements() / rows;
        }
        std::vector<argument> outs;
        args[0].visit([&](auto in) {
            using T = typename decltype(in)::value_type;
            using C = std::conditional_t<std::is_class<T>{}, float, T>; // half, fp8e4m3fn
            // data[r * width + j]: row r is the slice at position r along the axis, row-major.
            std::vector<T> data(rows * width);
            for(std::size_t i = 0; i < xs.elements(); i++)
            {
                std::size_t r = i, j = 0;
                if(not axis.empty())
                {
                    auto idx = xs.multi(i);
                    r        = idx[a];
                    for(std::size_t d = 0; d < idx.size(); d++)
                        if(d != a)
                            j = j * xs.lens()[d] + idx[d];
                }
                data[r * width + j] = in[i];
            }
            auto less = [&](std::size_t p, std::size_t q) {
                return std::lexicographical_compare(data.begin() + p * width,
                                                    data.begin() + (p + 1) * width,
                                                    data.begin() + q * width,
                                                    data.begin() + (q + 1) * width,
                                                    [](T x, T y) { return static_cast<C>(x) < static_cast<C>(y); });
            };
            std::map<std::size_t, std::size_t, decltype(less)> seen(less); // row -> unique id
            std::vector<std::size_t> first, inverse(rows), counts;
            for(std::size_t r = 0; r < rows; r++)
            {
                auto it = seen.find(r);
                if(it == seen.end())
                {
                    it = seen.emplace(r, first.size()).first;
                    first.push_back(r);
                    counts.push_back(0);
                }
                inverse[r] = it->second;
                counts[it->second]++;
            }
            // Output order: position of each unique id.
            std::vector<std::size_t> order(first.size());
            std::iota(order.begin(), order.end(), 0);
            if(sorted)
                std::sort(order.begin(), order.end(), [&](auto p, auto q) { return less(first[p], first[q]); });
            std::vector<std::size_t> rank(order.size());
            for(std::size_t k = 0; k < order.size(); k++)
                rank[order[k]] = k;
            auto out_s = shapes_for(xs, first.size(), rows);
            argument y{out_s[0]}, ind{out_s[1]}, inv{out_s[2]}, cnt{out_s[3]};
            auto* yp = reinterpret_cast<T*>(y.data());
            auto* ip = reinterpret_cast<std::int64_t*>(ind.data());
            auto* vp = reinterpret_cast<std::int64_t*>(inv.data());
            auto* cp = reinterpret_cast<std::int64_t*>(cnt.data());
            for(std::size_t k = 0; k < order.size(); k++)
            {
                ip[k] = static_cast<std::int64_t>(first[order[k]]);
                cp[k] = static_cast<std::int64_t>(counts[order[k]]);
            }
            for(std::size_t r = 0; r < rows; r++)
                vp[r] = static_cast<std::int64_t>(rank[inverse[r]]);
            for(std::size_t i = 0; i < out_s[0].elements(); i++)
            {
                auto idx      = out_s[0].multi(i);
                std::size_t k = axis.empty() ? i : idx[a];
                std::size_t j = 0;
                for(std::size_t d = 0; d < idx.size() and not axis.empty(); d++)
                    if(d != a)
                        j = j * xs.lens()[d] + idx[d];
                yp[i] = data[first[order[k]] * width + j];
            }
            outs = {y, ind, inv, cnt};
        });
        return argument{outs};
    }
};
MIGRAPHX_REGISTER_OP(unique)

} // namespace op
} // namespace migraphx
