#include <migraphx/register_op.hpp>
#include "ops/check_shapes.hpp"
#include "ops/convolution_pads.hpp"
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
        return convolution_pads(padding, padding_mode, stride, dilation, x, w);
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
        // Channels last (x as [n][spatial][c], w as [k][tap][c]): the innermost sum over c reads
        // both contiguously. The sums run in the same order as over the standard layout.
        std::size_t spatial = xl[0] * xl[1] == 0 ? 0 : xv.size() / (xl[0] * xl[1]);
        std::vector<double> xt(xv.size());
        for(std::size_t n = 0; n < xl[0]; n++)
            for(std::size_t c = 0; c < xl[1]; c++)
                for(std::size_t sp = 0; sp < spatial; sp++)
                    xt[(n * spatial + sp) * xl[1] + c] = xv[(n * xl[1] + c) * spatial + sp];
        std::vector<double> wt(wv.size());
        for(std::size_t k = 0; k < wl[0]; k++)
            for(std::size_t c = 0; c < wl[1]; c++)
                for(std::size_t e = 0; e < kelems; e++)
                    wt[(k * kelems + e) * wl[1] + c] = wv[k * ws[0] + c * ws[1] + woff[e]];
        std::vector<double> out(output_shape.elements(), 0.0);
        // Work items: (n, group, block of up to 8 output channels, output position), on all cores.
        // A block's 8 sums share each x value and run as independent chains (a single double sum is
        // bound by the add's latency); each sum still adds its terms in the same order (taps, then
        // channels), so the result does not depend on the blocking or the threads.
        constexpr std::size_t kb = 8;
        std::size_t nblocks     = (kg + kb - 1) / kb;
        std::size_t out_spatial = ol[0] * ol[1] == 0 ? 0 : out.size() / (ol[0] * ol[1]);
        std::size_t items       = ol[0] * g * nblocks * out_spatial;
        std::size_t per_item    = std::max<std::size_t>(1, kb * kelems * cg);
        std::size_t tap_stride  = kelems * cg; // from output channel k to k + 1 in wt
        parallel_for(items, (std::size_t{1} << 20) / per_item + 1, [&](std::size_t first, std::size_t last) {
            std::vector<std::ptrdiff_t> start(kd);
            for(std::size_t i = first; i < last; i++)
            {
                std::size_t osp = i % out_spatial, rem = i / out_spatial;
                std::size_t b = rem % nblocks;
                rem /= nblocks;
                std::size_t gi = rem % g, n = rem / g;
                std::size_t r  = osp;
                for(std::size_t d = kd; d-- > 0;)
                {
                    start[d] = static_cast<std::ptrdiff_t>((r % ol[d + 2]) * stride[d]) - static_cast<std::ptrdiff_t>(p[d]);
                    r /= ol[d + 2];
                }
                std::size_t k0 = gi * kg + b * kb, nb = std::min(kb, kg - b * kb);
                double acc[kb] = {};
                for(std::size_t e = 0; e < kelems; e++)
                {
                    std::size_t sp = 0; // the tap's position in x's spatial dims
                    bool inside    = true;
                    for(std::size_t d = 0; d < kd and inside; d++)
                    {
                        auto pos = start[d] + static_cast<std::ptrdiff_t>(kidx[e * kd + d] * dilation[d]);
                        inside   = pos >= 0 and pos < static_cast<std::ptrdiff_t>(xl[d + 2]);
                        sp += static_cast<std::size_t>(pos) * xs[d + 2];
                    }
                    if(not inside)
                        continue;
                    const double* xp = xt.data() + (n * spatial + sp) * xl[1] + gi * cg;
                    const double* wp = wt.data() + (k0 * kelems + e) * cg;
                    if(nb == kb)
                        for(std::size_t c = 0; c < cg; c++)
                        {
                            double xc = xp[c];
                            for(std::size_t j = 0; j < kb; j++)
                                acc[j] += xc * wp[j * tap_stride + c];
                        }
                    else
                        for(std::size_t j = 0; j < nb; j++)
                            for(std::size_t c = 0; c < cg; c++)
                                acc[j] += xp[c] * wp[j * tap_stride + c];
                }
                for(std::size_t j = 0; j < nb; j++)
                    out[(n * ol[1] + k0 + j) * out_spatial + osp] = acc[j];
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
