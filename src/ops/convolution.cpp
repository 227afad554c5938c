#include <migraphx/register_op.hpp>
#include "ops/check_shapes.hpp"
#include "ir/parallel_for.hpp"
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace migraphx {
namespace op {

/// N-d convolution (NCHW...), weights {K, C/group, kernel...}. Also the reference loop of
/// quant_convolution, which delegates here (so compute accepts any element types and writes the
/// output in output_shape's type).
struct convolution
{
    std::vector<std::size_t> padding  = {0, 0};
    std::vector<std::size_t> stride   = {1, 1};
    std::vector<std::size_t> dilation = {1, 1};
    std::int64_t group                = 1;
    // 0: explicit padding; 1: same_lower; 2: same_upper (padding computed from the input).
    std::int64_t padding_mode      = 0;
    bool use_dynamic_same_auto_pad = false;

    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.padding, "padding");
        f(self.stride, "stride");
        f(self.dilation, "dilation");
        f(self.group, "group");
        f(self.padding_mode, "padding_mode");
        f(self.use_dynamic_same_auto_pad, "use_dynamic_same_auto_pad");
    }

    std::string name() const { return "convolution"; }

    /// Begin paddings then end paddings, one per spatial dimension.
    std::vector<std::size_t> pads(const std::vector<std::size_t>& x, const std::vector<std::size_t>& w) const
    {
        std::size_t kd = x.size() - 2;
        std::vector<std::size_t> r(2 * kd);
        for(std::size_t i = 0; i < kd; i++)
        {
            if(padding_mode == 1 or padding_mode == 2)
            {
                std::size_t dk    = dilation[i] * (w[i + 2] - 1) + 1;
                std::size_t out   = (x[i + 2] + stride[i] - 1) / stride[i];
                std::size_t need  = (out - 1) * stride[i] + dk;
                std::size_t total = need > x[i + 2] ? need - x[i + 2] : 0;
                std::size_t small = total / 2;
                r[i]              = padding_mode == 2 ? small : total - small;
                r[i + kd]         = total - r[i];
            }
            else
            {
                r[i]      = padding[i];
                r[i + kd] = padding.size() == 2 * kd ? padding[i + kd] : padding[i];
            }
        }
        return r;
    }

    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes cs{inputs, *this};
        cs.has(2).not_tuple().static_only().same_type().same_ndims().min_ndims(3);
        const auto& x  = inputs[0].lens();
        const auto& w  = inputs[1].lens();
        std::size_t kd = x.size() - 2;
        if(stride.size() != kd or dilation.size() != kd or (padding.size() != kd and padding.size() != 2 * kd))
            cs.fail("attribute sizes (padding " + std::to_string(padding.size()) + ", stride " +
                    std::to_string(stride.size()) + ", dilation " + std::to_string(dilation.size()) +
                    ") do not match " + std::to_string(kd) + " spatial dimension(s)");
        if(padding_mode < 0 or padding_mode > 2)
            cs.fail("padding_mode must be 0 (explicit), 1 (same_lower) or 2 (same_upper), got " +
                    std::to_string(padding_mode));
        if(std::count(stride.begin(), stride.end(), 0) > 0 or std::count(dilation.begin(), dilation.end(), 0) > 0)
            cs.fail("stride and dilation must be positive");
        if(group < 1)
            cs.fail("group must be positive, got " + std::to_string(group));
        auto g = static_cast<std::size_t>(group);
        if(x[1] % g != 0)
            cs.fail("input channels " + std::to_string(x[1]) + " are not divisible by group " + std::to_string(g));
        if(x[1] / g != w[1])
            cs.fail("input channels / group (" + std::to_string(x[1] / g) + ") != weight channels " +
                    std::to_string(w[1]));
        if(w[0] % g != 0)
            cs.fail("output channels " + std::to_string(w[0]) + " are not divisible by group " + std::to_string(g));
        auto p = pads(x, w);
        std::vector<std::size_t> out{x[0], w[0]};
        for(std::size_t i = 0; i < kd; i++)
        {
            std::size_t padded = x[i + 2] + p[i] + p[i + kd];
            std::size_t dk     = dilation[i] * (w[i + 2] - 1) + 1;
            if(w[i + 2] == 0 or padded < dk)
                cs.fail("dilated kernel (" + std::to_string(dk) + ") is larger than the padded input (" +
                        std::to_string(padded) + ") in spatial dimension " + std::to_string(i));
            out.push_back((padded - dk) / stride[i] + 1);
        }
        return {inputs[0].type(), out};
    }

    argument compute(const shape& output_shape, const std::vector<argument>& args) const
    {
        const auto& xl = args[0].get_shape().lens();
        const auto& wl = args[1].get_shape().lens();
        const auto& ol = output_shape.lens();
        std::size_t kd = xl.size() - 2;
        auto p         = pads(xl, wl);
        auto xv        = args[0].to_vector<double>(); // logical (standard) order
        auto wv        = args[1].to_vector<double>();
        auto xs        = shape::standard_strides(xl);
        auto ws        = shape::standard_strides(wl);

        // Kernel positions (spatial multi-indices) and their weight offsets within one filter.
        std::size_t kelems = 1;
        for(std::size_t d = 0; d < kd; d++)
            kelems *= wl[d + 2];
        std::vector<std::size_t> kidx(kelems * kd);
        std::vector<std::size_t> woff(kelems, 0);
        for(std::size_t e = 0; e < kelems; e++)
        {
            std::size_t rem = e;
            for(std::size_t d = kd; d-- > 0;)
            {
                kidx[e * kd + d] = rem % wl[d + 2];
                rem /= wl[d + 2];
                woff[e] += kidx[e * kd + d] * ws[d + 2];
            }
        }

        auto g       = static_cast<std::size_t>(group);
        std::size_t cg = xl[1] / g;
        std::size_t kg = wl[0] / g;
        std::vector<double> out(output_shape.elements(), 0.0);
        // Output elements on all cores (each its own sum, in the same order: the result does not
        // depend on the threads); a thread takes at least ~1M multiply-adds.
        std::size_t per_output = std::max<std::size_t>(1, kelems * cg);
        parallel_for(out.size(), (std::size_t{1} << 20) / per_output + 1, [&](std::size_t first, std::size_t last) {
            std::vector<std::size_t> oidx(kd);
            std::vector<std::ptrdiff_t> start(kd);
            for(std::size_t i = first; i < last; i++)
            {
                std::size_t rem = i;
                for(std::size_t d = kd; d-- > 0;)
                {
                    oidx[d] = rem % ol[d + 2];
                    rem /= ol[d + 2];
                    start[d] = static_cast<std::ptrdiff_t>(oidx[d] * stride[d]) - static_cast<std::ptrdiff_t>(p[d]);
                }
                std::size_t k = rem % ol[1];
                std::size_t n = rem / ol[1];
                std::size_t gi = k / kg;
                double acc     = 0;
                for(std::size_t e = 0; e < kelems; e++)
                {
                    std::size_t xoff = n * xs[0] + gi * cg * xs[1];
                    bool inside      = true;
                    for(std::size_t d = 0; d < kd and inside; d++)
                    {
                        auto pos = start[d] + static_cast<std::ptrdiff_t>(kidx[e * kd + d] * dilation[d]);
                        inside   = pos >= 0 and pos < static_cast<std::ptrdiff_t>(xl[d + 2]);
                        xoff += static_cast<std::size_t>(pos) * xs[d + 2];
                    }
                    if(not inside)
                        continue;
                    std::size_t wbase = k * ws[0] + woff[e];
                    for(std::size_t c = 0; c < cg; c++)
                        acc += xv[xoff + c * xs[1]] * wv[wbase + c * ws[1]];
                }
                out[i] = acc;
            }
        });
        argument result{output_shape};
        result.visit([&](auto v) {
            using T = typename decltype(v)::value_type;
            for(std::size_t i = 0; i < out.size(); i++)
                v[i] = type_cast<T>(out[i]);
        });
        return result;
    }
};
MIGRAPHX_REGISTER_OP(convolution)

} // namespace op
} // namespace migraphx
