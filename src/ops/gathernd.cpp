// gathernd[batch_dims=0](data, indices): ONNX GatherND. With k = indices.lens.back(), each
// k-tuple of indices (after the first batch_dims dimensions, which index data's batch
// dimensions in step) selects a slice of data; out lens = indices.lens[:-1] + data.lens[b+k:].
// Negative indices count from the end; out-of-range indices throw when the op runs.
#include <migraphx/register_op.hpp>
#include "ops/check_shapes.hpp"

namespace migraphx {
namespace op {

struct gathernd
{
    std::int64_t batch_dims = 0;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.batch_dims, "batch_dims");
    }
    std::string name() const { return "gathernd"; }

    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes cs{inputs, *this};
        cs.has(2).not_tuple().static_only().type_in(1, {shape::int32_type, shape::int64_type});
        const auto& dl = inputs[0].lens();
        const auto& il = inputs[1].lens();
        if(dl.empty() or il.empty())
            cs.fail("data and indices must have rank at least 1");
        if(batch_dims < 0 or static_cast<std::size_t>(batch_dims) >= std::min(dl.size(), il.size()))
            cs.fail("batch_dims=" + std::to_string(batch_dims) + " must be below both ranks");
        auto b = static_cast<std::size_t>(batch_dims);
        if(not std::equal(dl.begin(), dl.begin() + b, il.begin()))
            cs.fail("the first batch_dims dimensions of data and indices must be equal");
        std::size_t k = il.back();
        if(k > dl.size() - b)
            cs.fail("indices' last dimension must not exceed data's rank minus batch_dims");
        std::vector<std::size_t> ol(il.begin(), il.end() - 1);
        ol.insert(ol.end(), dl.begin() + b + k, dl.end());
        return {inputs[0].type(), ol};
    }

    argument compute(const shape& out, const std::vector<argument>& args) const
    {
        const auto& ds = args[0].get_shape();
        const auto& dl = ds.lens();
        const auto& il = args[1].get_shape().lens();
        auto b         = static_cast<std::size_t>(batch_dims);
        std::size_t k  = il.back();
        auto indices   = args[1].to_vector<std::int64_t>();
        std::size_t slice = 1;
        for(std::size_t d = b + k; d < dl.size(); d++)
            slice *= dl[d];
        std::size_t n_tuples = slice == 0 ? 0 : out.elements() / slice;
        shape tuple_s{shape::int64_type, std::vector<std::size_t>(il.begin(), il.end() - 1)};
        shape slice_s{shape::int64_type, std::vector<std::size_t>(dl.begin() + b + k, dl.end())};
        argument result{out};
        out.visit_type([&](auto as) {
            using T = typename decltype(as)::type;
            auto* o = reinterpret_cast<T*>(result.data());
            auto in = make_view(ds, reinterpret_cast<const T*>(args[0].data()));
            {
                std::vector<std::size_t> didx(dl.size());
                for(std::size_t t = 0; t < n_tuples; t++)
                {
                    auto tidx = tuple_s.multi(t);
                    for(std::size_t d = 0; d < b; d++)
                        didx[d] = tidx[d];
                    for(std::size_t d = 0; d < k; d++)
                    {
                        auto len = static_cast<std::int64_t>(dl[b + d]);
                        auto x   = indices[t * k + d];
                        if(x < -len or x >= len)
                            MIGRAPHX_THROW("gathernd: index " + std::to_string(x) +
                                           " is out of range for data dimension " + std::to_string(b + d) +
                                           " of length " + std::to_string(len));
                        didx[b + d] = static_cast<std::size_t>(x < 0 ? x + len : x);
                    }
                    for(std::size_t j = 0; j < slice; j++)
                    {
                        auto sidx = slice_s.multi(j);
                        std::copy(sidx.begin(), sidx.end(), didx.begin() + b + k);
                        o[t * slice + j] = in(didx);
                    }
                }
            }
        });
        return result;
    }
};
MIGRAPHX_REGISTER_OP(gathernd)

} // namespace op
} // namespace migraphx
