#include <migraphx/register_op.hpp>
#include "ir/block_cache.hpp"
#include "ops/check_shapes.hpp"

namespace migraphx {
namespace op {

/// out = data[:axis] + indices + data[axis+1:]; negative indices wrap; a 0-rank indices is a scalar.
struct gather
{
    std::int64_t axis = 0;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.axis, "axis");
    }
    std::string name() const { return "gather"; }
    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes cs{inputs, *this};
        cs.has(2).not_tuple().static_only().type_in(1, {shape::int32_type, shape::int64_type});
        const auto& data = inputs[0];
        if(data.ndim() == 0)
            cs.fail("data must have rank at least 1");
        auto a    = normalize_axis(axis, data.ndim(), name());
        auto lens = data.lens();
        lens.erase(lens.begin() + a);
        const auto& ind = inputs[1].lens();
        lens.insert(lens.begin() + a, ind.begin(), ind.end());
        return {data.type(), lens};
    }
    argument compute(const shape& out, const std::vector<argument>& args) const
    {
        const auto& data = args[0].get_shape();
        const auto& ind  = args[1].get_shape();
        auto a           = static_cast<std::size_t>(normalize_axis(axis, data.ndim(), name()));
        auto axis_len    = static_cast<std::int64_t>(data.lens()[a]);
        auto indices     = args[1].to_vector<std::int64_t>();
        for(auto& k : indices)
        {
            if(k < -axis_len or k >= axis_len)
                MIGRAPHX_THROW("gather: index " + std::to_string(k) + " is out of range for axis " +
                               std::to_string(axis) + " of length " + std::to_string(axis_len));
            k = k < 0 ? k + axis_len : k;
        }
        argument result{out, allocate_uninitialized(out.bytes())}; // every element is written
        out.visit_type([&](auto as) {
            using T   = typename decltype(as)::type;
            auto o    = make_view(out, reinterpret_cast<T*>(result.data()));
            auto in   = make_view(data, reinterpret_cast<const T*>(args[0].data()));
            auto nind = ind.ndim();
            std::vector<std::size_t> didx(data.ndim());
            for(std::size_t i = 0; i < o.size(); i++)
            {
                auto oidx = out.multi(i);
                // Row-major position of the index within `indices`, from the output coords it spans.
                std::size_t k = 0;
                for(std::size_t j = 0; j < nind; j++)
                    k = k * ind.lens()[j] + oidx[a + j];
                for(std::size_t j = 0; j < data.ndim(); j++)
                    didx[j] = j < a ? oidx[j] : j == a ? indices[k] : oidx[j + nind - 1];
                o[i] = in(didx);
            }
        });
        return result;
    }
};
MIGRAPHX_REGISTER_OP(gather)

} // namespace op
} // namespace migraphx
