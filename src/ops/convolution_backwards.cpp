#include <migraphx/register_op.hpp>
#include "ops/check_shapes.hpp"
#include "ir/parallel_for.hpp"
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace migraphx {
namespace op {

/// Transposed convolution (ONNX ConvTranspose): x {N, C, in...}, w {C, K/group, kernel...},
/// output {N, K, (in-1)*stride - pad_begin - pad_end + dilation*(k-1) + 1 ...}.
/// output_padding and auto_pad are turned into explicit pads by the ONNX parser.
struct convolution_backwards
{
    std::vector<std::size_t> padding  = {0, 0};
    std::vector<std::size_t> stride   = {1, 1};
    std::vector<std::size_t> dilation = {1, 1};
    std::int64_t padding_mode         = 0;
    std::int64_t group                = 1;

    // Attribute order as MIGraphX's convolution_backwards (padding_mode before group).
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.padding, "padding");
        f(self.stride, "stride");
        f(self.dilation, "dilation");
        f(self.padding_mode, "padding_mode");
        f(self.group, "group");
    }

    std::string name() const { return "convolution_backwards"; }

    std::vector<std::size_t> pads(std::size_t kd) const
    {
        std::vector<std::size_t> r(2 * kd);
        for(std::size_t i = 0; i < kd; i++)
        {
            r[i]      = padding[i];
            r[i + kd] = padding.size() == 2 * kd ? padding[i + kd] : padding[i];
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
        if(std::count(stride.begin(), stride.end(), 0) > 0 or std::count(dilation.begin(), dilation.end(), 0) > 0)
            cs.fail("stride and dilation must be positive");
        if(group < 1)
            cs.fail("group must be positive, got " + std::to_string(group));
        auto g = static_cast<std::size_t>(group);
        if(x[1] != w[0])
            cs.fail("input channels " + std::to_string(x[1]) + " != weight dimension 0 (" + std::to_string(w[0]) +
                    ")");
        if(x[1] % g != 0)
            cs.fail("input channels " + std::to_string(x[1]) + " are not divisible by group " + std::to_string(g));
        auto p = pads(kd);
        std::vector<std::size_t> out{x[0], w[1] * g};
        for(std::size_t i = 0; i < kd; i++)
        {
            auto full = static_cast<std::ptrdiff_t>((x[i + 2] - 1) * stride[i] + dilation[i] * (w[i + 2] - 1) + 1);
            auto len  = full - static_cast<std::ptrdiff_t>(p[i] + p[i + kd]);
            if(x[i + 2] == 0 or w[i + 2] == 0 or len <= 0)
                cs.fail("padding removes the whole output in spatial dimension " + std::to_string(i));
            out.push_back(static_cast<std::size_t>(len));
        }
        return {inputs[0].type(), out};
    }

    argument compute(const shape& output_shape, const std::vector<argument>& args) const
    {
        const auto& xl = args[0].get_shape().lens();
        const auto& wl = args[1].get_shape().lens();
        const auto& ol = output_shape.lens();
        std::size_t kd = xl.size() - 2;
        auto p         = pads(kd);
        auto xv        = args[0].to_vector<double>();
        auto wv        = args[1].to_vector<double>();
        auto ws        = shape::standard_strides(wl);
        auto os        = shape::standard_strides(ol);

        std::size_t kelems = 1;
        for(std::size_t d = 0; d < kd; d++)
            kelems *= wl[d + 2];
        std::size_t in_spatial = 1;
        for(std::size_t d = 0; d < kd; d++)
            in_spatial *= xl[d + 2];

        auto g         = static_cast<std::size_t>(group);
        std::size_t cg = xl[1] / g;
        std::size_t kg = wl[1];
        // Channels last for the output ([n][spatial][k]) and w as [c][tap][k]: the innermost loop
        // over k writes and reads contiguously. Each output gets its terms in the same order.
        std::size_t kout = ol[1], out_spatial = os[1];
        std::vector<double> wt(wv.size());
        for(std::size_t c = 0; c < wl[0]; c++)
            for(std::size_t k = 0; k < kg; k++)
                for(std::size_t e = 0; e < kelems; e++)
                    wt[(c * kelems + e) * kg + k] = wv[c * ws[0] + k * ws[1] + e];
        std::vector<double> out_t(output_shape.elements(), 0.0);
        // Scatter: every input element times every kernel tap adds into one output element. The
        // batch entries on all cores (each writes only its own outputs, in the same order).
        parallel_for(xl[0], 1, [&](std::size_t n_first, std::size_t n_last) {
            std::vector<std::size_t> iidx(kd);
            std::vector<std::size_t> kidx(kd);
            for(std::size_t n = n_first; n < n_last; n++)
                for(std::size_t c = 0; c < xl[1]; c++)
                {
                    std::size_t gi = c / cg;
                    for(std::size_t s = 0; s < in_spatial; s++)
                    {
                        double xval = xv[(n * xl[1] + c) * in_spatial + s];
                        std::size_t rem = s;
                        for(std::size_t d = kd; d-- > 0;)
                        {
                            iidx[d] = rem % xl[d + 2];
                            rem /= xl[d + 2];
                        }
                        for(std::size_t e = 0; e < kelems; e++)
                        {
                            std::size_t krem = e;
                            std::size_t osp  = 0; // the output's spatial position
                            bool inside      = true;
                            for(std::size_t d = kd; d-- > 0;)
                            {
                                kidx[d] = krem % wl[d + 2];
                                krem /= wl[d + 2];
                                auto pos = static_cast<std::ptrdiff_t>(iidx[d] * stride[d] + kidx[d] * dilation[d]) -
                                           static_cast<std::ptrdiff_t>(p[d]);
                                if(pos < 0 or pos >= static_cast<std::ptrdiff_t>(ol[d + 2]))
                                    inside = false;
                                else
                                    osp += static_cast<std::size_t>(pos) * os[d + 2];
                            }
                            if(not inside)
                                continue;
                            double* op       = out_t.data() + (n * out_spatial + osp) * kout + gi * kg;
                            const double* wp = wt.data() + (c * kelems + e) * kg;
                            for(std::size_t k = 0; k < kg; k++)
                                op[k] += xval * wp[k];
                        }
                    }
                }
        });
        argument result{output_shape};
        result.visit([&](auto v) {
            using T = typename decltype(v)::value_type;
            for(std::size_t n = 0; n < ol[0]; n++)
                for(std::size_t k = 0; k < kout; k++)
                    for(std::size_t sp = 0; sp < out_spatial; sp++)
                        v[(n * kout + k) * out_spatial + sp] = type_cast<T>(out_t[(n * out_spatial + sp) * kout + k]);
        });
        return result;
    }
};
MIGRAPHX_REGISTER_OP(convolution_backwards)

} // namespace op
} // namespace migraphx
