#include <migraphx/register_op.hpp>
#include "ops/check_shapes.hpp"

namespace migraphx {
namespace op {

/// pads = [begin_0..begin_n-1, end_0..end_n-1] (negative crops); mode 0 constant, 1 reflect, 2 edge.
struct pad
{
    std::vector<std::int64_t> pads;
    float value       = 0.0f;
    std::int64_t mode = 0;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.pads, "pads");
        f(self.value, "value");
        f(self.mode, "mode");
    }
    std::string name() const { return "pad"; }
    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes cs{inputs, *this};
        cs.has(1).not_tuple().static_only();
        const auto& in = inputs[0];
        auto n         = in.ndim();
        if(pads.size() != 2 * n)
            cs.fail("pads has " + std::to_string(pads.size()) + " entries, expected " + std::to_string(2 * n));
        if(mode < 0 or mode > 2)
            cs.fail("unknown mode " + std::to_string(mode));
        std::vector<std::size_t> lens(n);
        for(std::size_t i = 0; i < n; i++)
        {
            auto len = static_cast<std::int64_t>(in.lens()[i]) + pads[i] + pads[i + n];
            if(len < 0)
                cs.fail("pads make axis " + std::to_string(i) + " negative");
            if(mode != 0 and len > 0 and in.lens()[i] == 0)
                cs.fail("reflect/edge padding of an empty axis");
            lens[i] = len;
        }
        return {in.type(), lens};
    }
    /// Input coordinate for padded coordinate x on a dim of length len, or -1 for the pad value.
    std::int64_t source(std::int64_t x, std::int64_t len) const
    {
        if(x >= 0 and x < len)
            return x;
        if(mode == 0)
            return -1;
        if(mode == 2 or len == 1)
            return x < 0 ? 0 : len - 1;
        auto period = 2 * (len - 1);
        x           = ((x % period) + period) % period;
        return x < len ? x : period - x;
    }
    argument compute(const shape& out, const std::vector<argument>& args) const
    {
        argument result{out};
        const auto& ish = args[0].get_shape();
        auto n          = ish.ndim();
        out.visit_type([&](auto as) {
            using T = typename decltype(as)::type;
            auto o  = make_view(out, reinterpret_cast<T*>(result.data()));
            auto in = make_view(ish, reinterpret_cast<const T*>(args[0].data()));
            std::vector<std::size_t> idx(n);
            for(std::size_t i = 0; i < o.size(); i++)
            {
                auto oidx   = out.multi(i);
                bool inside = true;
                for(std::size_t j = 0; j < n and inside; j++)
                {
                    auto s = source(static_cast<std::int64_t>(oidx[j]) - pads[j],
                                    static_cast<std::int64_t>(ish.lens()[j]));
                    inside = s >= 0;
                    idx[j] = s;
                }
                o[i] = inside ? in(idx) : type_cast<T>(value);
            }
        });
        return result;
    }
};
MIGRAPHX_REGISTER_OP(pad)

} // namespace op
} // namespace migraphx
