#include <migraphx/register_op.hpp>
#include "ops/check_shapes.hpp"
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace migraphx {
namespace op {

/// Average / max / Lp-norm pooling over the spatial dimensions of {N, C, spatial...}.
/// Padded positions never count: average divides by the number of input elements in the window
/// (ONNX count_include_pad=0; the parser inserts a pad op for count_include_pad=1), max ignores
/// them, and they add nothing to an Lp norm.
struct pooling
{
    std::string mode                 = "average"; // "average", "max" or "lpnorm"
    std::vector<std::size_t> padding = {0, 0};    // per spatial dim, or all begins then all ends
    std::vector<std::size_t> stride  = {1, 1};
    std::vector<std::size_t> lengths = {1, 1};
    bool ceil_mode                   = false;
    std::int64_t lp_order            = 2;
    bool global                      = false; // pool the whole spatial extent

    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.mode, "mode");
        f(self.padding, "padding");
        f(self.stride, "stride");
        f(self.lengths, "lengths");
        f(self.ceil_mode, "ceil_mode");
        f(self.lp_order, "lp_order");
        f(self.global, "global");
    }

    std::string name() const { return "pooling"; }

    enum class kind
    {
        average,
        max,
        lpnorm,
        invalid
    };
    // The numbers are MIGraphX's pooling_mode enum values, as older serialized programs carry them.
    kind get_kind() const
    {
        if(mode == "average" or mode == "0")
            return kind::average;
        if(mode == "max" or mode == "1")
            return kind::max;
        if(mode == "lpnorm" or mode == "2")
            return kind::lpnorm;
        return kind::invalid;
    }

    struct window
    {
        std::vector<std::size_t> len, stride, pad_begin;
    };
    window get_window(const std::vector<std::size_t>& in) const
    {
        std::size_t kd = in.size() - 2;
        window w;
        for(std::size_t i = 0; i < kd; i++)
        {
            w.len.push_back(global ? in[i + 2] : lengths[i]);
            w.stride.push_back(global ? 1 : stride[i]);
            w.pad_begin.push_back(global ? 0 : padding[i]);
        }
        return w;
    }

    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes cs{inputs, *this};
        cs.has(1).not_tuple().static_only().min_ndims(3);
        auto k = get_kind();
        if(k == kind::invalid)
            cs.fail("unknown mode '" + mode + "' (expected average, max or lpnorm)");
        if(k == kind::lpnorm and lp_order <= 0)
            cs.fail("lp_order must be positive, got " + std::to_string(lp_order));
        const auto& in = inputs[0].lens();
        std::size_t kd = in.size() - 2;
        std::vector<std::size_t> out(in.begin(), in.begin() + 2);
        if(global)
        {
            out.resize(in.size(), 1);
            return {inputs[0].type(), out};
        }
        if(lengths.size() != kd or stride.size() != kd or (padding.size() != kd and padding.size() != 2 * kd))
            cs.fail("attribute sizes (padding " + std::to_string(padding.size()) + ", stride " +
                    std::to_string(stride.size()) + ", lengths " + std::to_string(lengths.size()) +
                    ") do not match " + std::to_string(kd) + " spatial dimension(s)");
        if(std::count(stride.begin(), stride.end(), 0) > 0 or std::count(lengths.begin(), lengths.end(), 0) > 0)
            cs.fail("stride and lengths must be positive");
        for(std::size_t i = 0; i < kd; i++)
        {
            std::size_t pb     = padding[i];
            std::size_t pe     = padding.size() == 2 * kd ? padding[i + kd] : padding[i];
            std::size_t padded = in[i + 2] + pb + pe;
            if(padded < lengths[i])
                cs.fail("window length " + std::to_string(lengths[i]) + " is larger than the padded input (" +
                        std::to_string(padded) + ") in spatial dimension " + std::to_string(i));
            std::size_t span = padded - lengths[i];
            std::size_t len  = (ceil_mode ? (span + stride[i] - 1) / stride[i] : span / stride[i]) + 1;
            // ONNX/PyTorch: in ceil mode the last window must start inside the input or left padding.
            if(ceil_mode and len > 1 and (len - 1) * stride[i] >= in[i + 2] + pb)
                len--;
            out.push_back(len);
        }
        return {inputs[0].type(), out};
    }

    argument compute(const shape& output_shape, const std::vector<argument>& args) const
    {
        const auto& in = args[0].get_shape().lens();
        const auto& ol = output_shape.lens();
        std::size_t kd = in.size() - 2;
        auto w         = get_window(in);
        auto k         = get_kind();
        auto p         = static_cast<double>(lp_order);
        argument result{output_shape}; // standard, same type as the input
        args[0].visit([&](auto input) {
            using T = typename decltype(input)::value_type;
            auto* output = reinterpret_cast<T*>(result.data());
            std::vector<std::size_t> lo(kd), hi(kd), idx(in.size());
            for(std::size_t i = 0; i < output_shape.elements(); i++)
            {
                std::size_t rem = i;
                for(std::size_t d = kd; d-- > 0;)
                {
                    std::size_t o = rem % ol[d + 2];
                    rem /= ol[d + 2];
                    auto start = static_cast<std::ptrdiff_t>(o * w.stride[d]) -
                                 static_cast<std::ptrdiff_t>(w.pad_begin[d]);
                    auto end = std::min(start + static_cast<std::ptrdiff_t>(w.len[d]),
                                        static_cast<std::ptrdiff_t>(in[d + 2]));
                    lo[d] = static_cast<std::size_t>(std::max<std::ptrdiff_t>(start, 0));
                    hi[d] = static_cast<std::size_t>(std::max<std::ptrdiff_t>(end, 0));
                }
                idx[1] = rem % ol[1];
                idx[0] = rem / ol[1];
                std::size_t count = 1;
                for(std::size_t d = 0; d < kd; d++)
                    count *= hi[d] > lo[d] ? hi[d] - lo[d] : 0;
                double acc = 0;
                T best{};
                for(std::size_t e = 0; e < count; e++)
                {
                    std::size_t r = e;
                    for(std::size_t d = kd; d-- > 0;)
                    {
                        std::size_t n = hi[d] - lo[d];
                        idx[d + 2]    = lo[d] + r % n;
                        r /= n;
                    }
                    T x = input(idx);
                    if(k == kind::max)
                        best = (e == 0 or best < x) ? x : best;
                    else if(k == kind::average)
                        acc += type_cast<double>(x);
                    else
                        acc += std::pow(std::abs(type_cast<double>(x)), p);
                }
                if(k == kind::max)
                    output[i] = best;
                else if(k == kind::average)
                    output[i] = type_cast<T>(count == 0 ? 0.0 : acc / static_cast<double>(count));
                else
                    output[i] = type_cast<T>(std::pow(acc, 1.0 / p));
            }
        });
        return result;
    }
};
MIGRAPHX_REGISTER_OP(pooling)

} // namespace op
} // namespace migraphx
