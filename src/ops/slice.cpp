#include <migraphx/register_op.hpp>
#include "ops/check_shapes.hpp"
#include <algorithm>

namespace migraphx {
namespace op {

/// ONNX Slice with step 1: a view at a byte offset keeping the input strides. Negative starts/ends
/// count from the end; both are clamped to [0, len] (so INT64_MAX/INT64_MIN mean "to the end/start").
struct slice
{
    std::vector<std::int64_t> axes;
    std::vector<std::int64_t> starts;
    std::vector<std::int64_t> ends;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.axes, "axes");
        f(self.starts, "starts");
        f(self.ends, "ends");
    }
    std::string name() const { return "slice"; }

    static std::int64_t clamp_index(std::int64_t x, std::int64_t len)
    {
        if(x < 0)
            x = x < -len ? 0 : x + len;
        return std::min(x, len);
    }
    /// Start and end of every input dim after normalizing; throws on bad attributes.
    std::vector<std::pair<std::size_t, std::size_t>> ranges(const shape& in) const
    {
        std::vector<shape> ins{in};
        check_shapes cs{ins, *this};
        if(axes.size() != starts.size() or axes.size() != ends.size())
            cs.fail("axes, starts and ends must have the same size");
        std::vector<std::pair<std::size_t, std::size_t>> r;
        for(auto len : in.lens())
            r.emplace_back(0, len);
        std::vector<bool> seen(in.ndim(), false);
        for(std::size_t i = 0; i < axes.size(); i++)
        {
            auto axis = normalize_axis(axes[i], in.ndim(), name());
            if(seen[axis])
                cs.fail("axis " + std::to_string(axes[i]) + " appears twice");
            seen[axis] = true;
            auto len   = static_cast<std::int64_t>(in.lens()[axis]);
            auto s     = clamp_index(starts[i], len);
            auto e     = std::max(s, clamp_index(ends[i], len));
            r[axis]    = {s, e};
        }
        return r;
    }
    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes{inputs, *this}.has(1).not_tuple().static_only();
        const auto& in = inputs[0];
        auto lens      = in.lens();
        auto r         = ranges(in);
        for(std::size_t i = 0; i < lens.size(); i++)
            lens[i] = r[i].second - r[i].first;
        return {in.type(), lens, in.strides()};
    }
    argument compute(const shape& out, const std::vector<argument>& args) const
    {
        // compute_shape checked the attributes against this input's shape (out is its result), so
        // only the offset is left: no checks or vectors, which cost a recurrent network's many
        // slices more than their views (the zoo LSTM: 384 a run).
        const auto& in     = args[0].get_shape();
        std::size_t offset = 0;
        for(std::size_t i = 0; i < axes.size(); i++)
        {
            auto axis = normalize_axis(axes[i], in.ndim(), name());
            auto len  = static_cast<std::int64_t>(in.lens()[axis]);
            offset += static_cast<std::size_t>(clamp_index(starts[i], len)) * in.strides()[axis];
        }
        return args[0].view(out, offset * in.type_size());
    }
    std::ptrdiff_t output_alias(const std::vector<shape>&) const { return 0; }
};
MIGRAPHX_REGISTER_OP(slice)

} // namespace op
} // namespace migraphx
