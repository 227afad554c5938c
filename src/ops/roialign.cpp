// roialign[coordinate_transformation_mode=half_pixel,mode=avg,output_height=1,output_width=1,
//          sampling_ratio=0,spatial_scale=1](X {N,C,H,W}, rois {R,4} as [x1,y1,x2,y2],
//          batch_indices {R}) -> {R, C, output_height, output_width}: ONNX RoiAlign-16.
// half_pixel shifts the scaled roi by -0.5; output_half_pixel (the opset-10 behaviour) does not
// and forces each roi to at least 1x1. sampling_ratio 0 means ceil(roi_size / output_size)
// samples per bin. "max" takes the largest weighted corner term over the samples, as ONNX
// Runtime and the ONNX reference do. Accumulation is in double.
#include <migraphx/register_op.hpp>
#include "ir/block_cache.hpp"
#include "ops/check_shapes.hpp"
#include "ir/parallel_for.hpp"
#include <cmath>

namespace migraphx {
namespace op {

struct roialign
{
    std::string coordinate_transformation_mode = "half_pixel";
    std::string mode                           = "avg";
    std::int64_t output_height                 = 1;
    std::int64_t output_width                  = 1;
    std::int64_t sampling_ratio                = 0;
    float spatial_scale                        = 1.0f;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.coordinate_transformation_mode, "coordinate_transformation_mode");
        f(self.mode, "mode");
        f(self.output_height, "output_height");
        f(self.output_width, "output_width");
        f(self.sampling_ratio, "sampling_ratio");
        f(self.spatial_scale, "spatial_scale");
    }
    std::string name() const { return "roialign"; }

    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes cs{inputs, *this};
        cs.has(3).not_tuple().static_only().type_in(2, {shape::int32_type, shape::int64_type});
        if(coordinate_transformation_mode != "half_pixel" and coordinate_transformation_mode != "output_half_pixel")
            cs.fail("coordinate_transformation_mode must be half_pixel or output_half_pixel");
        if(mode != "avg" and mode != "max")
            cs.fail("mode must be avg or max");
        if(output_height <= 0 or output_width <= 0 or sampling_ratio < 0)
            cs.fail("output sizes must be positive and sampling_ratio non-negative");
        const auto& x = inputs[0];
        if(x.ndim() != 4 or not shape::is_floating(x.type()))
            cs.fail("X must be a floating {N, C, H, W} tensor");
        if(inputs[1].ndim() != 2 or inputs[1].lens()[1] != 4 or inputs[1].type() != x.type())
            cs.fail("rois must be {num_rois, 4} of X's type");
        if(inputs[2].lens() != std::vector<std::size_t>{inputs[1].lens()[0]})
            cs.fail("batch_indices must be {num_rois}");
        return {x.type(),
                {inputs[1].lens()[0], x.lens()[1], std::size_t(output_height), std::size_t(output_width)}};
    }

    /// One bilinear sample: four positions in a plane and their weights; outside the image it
    /// reads nothing and counts as 0.
    struct sample
    {
        bool inside       = false;
        std::size_t at[4] = {0, 0, 0, 0};
        double w[4]       = {0, 0, 0, 0};
    };

    argument compute(const shape& out, const std::vector<argument>& args) const
    {
        const auto& xl = args[0].get_shape().lens();
        std::size_t N = xl[0], C = xl[1], H = xl[2], W = xl[3];
        std::size_t R = out.lens()[0], oh = out.lens()[2], ow = out.lens()[3];
        auto rois     = args[1].to_vector<double>();
        auto bidx     = args[2].to_vector<std::int64_t>();
        for(std::size_t n = 0; n < R; n++)
            if(bidx[n] < 0 or static_cast<std::size_t>(bidx[n]) >= N)
                MIGRAPHX_THROW("roialign: batch index " + std::to_string(bidx[n]) + " is out of range for batch " +
                               std::to_string(N));
        bool half   = coordinate_transformation_mode == "half_pixel";
        bool is_max = mode == "max";
        auto x      = args[0].get_shape().standard() ? args[0] : args[0].contiguous();
        argument result{out, allocate_uninitialized(out.bytes())}; // every element is written
        out.visit_type([&](auto as) {
            using T        = typename decltype(as)::type;
            const T* xdata = reinterpret_cast<const T*>(x.data());
            T* o           = reinterpret_cast<T*>(result.data());
            // Per RoI: where each output cell samples (the same in every channel), then every
            // channel from those, RoIs on all cores (each output's sum in the same order as one
            // sample at a time).
            parallel_for(R, 1, [&](std::size_t first, std::size_t last) {
                std::vector<sample> samples;
                for(std::size_t n = first; n < last; n++)
                {
                    double off = half ? 0.5 : 0.0;
                    double x1 = rois[n * 4] * spatial_scale - off, y1 = rois[n * 4 + 1] * spatial_scale - off;
                    double x2 = rois[n * 4 + 2] * spatial_scale - off, y2 = rois[n * 4 + 3] * spatial_scale - off;
                    double rw = x2 - x1, rh = y2 - y1;
                    if(not half)
                        rw = std::max(rw, 1.0), rh = std::max(rh, 1.0);
                    double bh = rh / oh, bw = rw / ow;
                    auto gh   = static_cast<std::size_t>(sampling_ratio > 0 ? sampling_ratio
                                                                            : std::max(0.0, std::ceil(rh / oh)));
                    auto gw   = static_cast<std::size_t>(sampling_ratio > 0 ? sampling_ratio
                                                                            : std::max(0.0, std::ceil(rw / ow)));
                    double count = std::max<double>(gh * gw, 1);
                    samples.assign(oh * ow * gh * gw, sample{});
                    auto* s = samples.data();
                    for(std::size_t ph = 0; ph < oh; ph++)
                        for(std::size_t pw = 0; pw < ow; pw++)
                            for(std::size_t iy = 0; iy < gh; iy++)
                                for(std::size_t ix = 0; ix < gw; ix++, s++)
                                {
                                    double y  = y1 + ph * bh + (iy + 0.5) * bh / gh;
                                    double xx = x1 + pw * bw + (ix + 0.5) * bw / gw;
                                    if(y < -1.0 or y > double(H) or xx < -1.0 or xx > double(W))
                                        continue;
                                    y       = std::max(y, 0.0);
                                    xx      = std::max(xx, 0.0);
                                    auto yl = static_cast<std::size_t>(y), xl0 = static_cast<std::size_t>(xx);
                                    std::size_t yh = yl + 1, xh = xl0 + 1;
                                    if(yl >= H - 1)
                                        yh = yl = H - 1, y = double(yl);
                                    if(xl0 >= W - 1)
                                        xh = xl0 = W - 1, xx = double(xl0);
                                    double ly = y - yl, lx = xx - xl0, hy = 1 - ly, hx = 1 - lx;
                                    *s = {true,
                                          {yl * W + xl0, yl * W + xh, yh * W + xl0, yh * W + xh},
                                          {hy * hx, hy * lx, ly * hx, ly * lx}};
                                }
                    const T* img = xdata + static_cast<std::size_t>(bidx[n]) * C * H * W;
                    const std::size_t per_cell = gh * gw;
                    for(std::size_t c = 0; c < C; c++)
                    {
                        const T* plane = img + c * H * W;
                        T* dst         = o + (n * C + c) * oh * ow;
                        for(std::size_t cell = 0; cell < oh * ow; cell++)
                        {
                            double acc = 0;
                            const sample* cs = samples.data() + cell * per_cell;
                            for(std::size_t k = 0; k < per_cell; k++)
                            {
                                double v[4] = {0, 0, 0, 0};
                                if(cs[k].inside)
                                    for(int q = 0; q < 4; q++)
                                        v[q] = cs[k].w[q] * static_cast<double>(plane[cs[k].at[q]]);
                                if(is_max)
                                {
                                    double m = std::max(std::max(v[0], v[1]), std::max(v[2], v[3]));
                                    acc      = k == 0 ? m : std::max(acc, m);
                                }
                                else
                                    acc += v[0] + v[1] + v[2] + v[3];
                            }
                            dst[cell] = static_cast<T>(is_max ? acc : acc / count);
                        }
                    }
                }
            });
        });
        return result;
    }
};
MIGRAPHX_REGISTER_OP(roialign)

} // namespace op
} // namespace migraphx
