// maxroipool[pooled_shape={1, 1},spatial_scale=1](X {N,C,H,W}, rois {R,5} as [batch,x1,y1,x2,y2])
//     -> {R, C, pooled_h, pooled_w}: ONNX MaxRoiPool-1 (Caffe/Fast R-CNN RoI pooling).
// The roi corners are scaled and rounded to whole pixels (the end corner inclusive, so a roi is
// at least 1x1); bin (ph, pw) covers rows [floor(ph*bh), ceil((ph+1)*bh)) of the roi, with
// bh = roi_height / pooled_h, clipped to the image; an empty bin gives 0. This is what ONNX
// Runtime computes. The windows depend on the rois' values, so no composition of other ops fits.
#include <migraphx/register_op.hpp>
#include "ops/check_shapes.hpp"
#include <algorithm>
#include <cmath>

namespace migraphx {
namespace op {

struct maxroipool
{
    std::vector<std::size_t> pooled_shape = {1, 1};
    float spatial_scale                   = 1.0f;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.pooled_shape, "pooled_shape");
        f(self.spatial_scale, "spatial_scale");
    }
    std::string name() const { return "maxroipool"; }

    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes cs{inputs, *this};
        cs.has(2).not_tuple().static_only();
        if(pooled_shape.size() != 2 or pooled_shape[0] == 0 or pooled_shape[1] == 0)
            cs.fail("pooled_shape must be two positive sizes");
        const auto& x = inputs[0];
        if(x.ndim() != 4 or not shape::is_floating(x.type()))
            cs.fail("X must be a floating {N, C, H, W} tensor");
        if(inputs[1].ndim() != 2 or inputs[1].lens()[1] != 5 or inputs[1].type() != x.type())
            cs.fail("rois must be {num_rois, 5} of X's type");
        return {x.type(), {inputs[1].lens()[0], x.lens()[1], pooled_shape[0], pooled_shape[1]}};
    }

    argument compute(const shape& out, const std::vector<argument>& args) const
    {
        const auto& xl = args[0].get_shape().lens();
        auto N = static_cast<std::int64_t>(xl[0]), C = static_cast<std::int64_t>(xl[1]);
        auto H = static_cast<std::int64_t>(xl[2]), W = static_cast<std::int64_t>(xl[3]);
        auto R  = static_cast<std::int64_t>(out.lens()[0]);
        auto PH = static_cast<std::int64_t>(pooled_shape[0]), PW = static_cast<std::int64_t>(pooled_shape[1]);
        auto x    = args[0].to_vector<double>();
        auto rois = args[1].to_vector<double>();
        std::vector<double> res(out.elements(), 0.0);
        auto corner = [&](double v) { return static_cast<std::int64_t>(std::round(v * spatial_scale)); };
        for(std::int64_t r = 0; r < R; r++)
        {
            const double* roi = rois.data() + r * 5;
            if(not(roi[0] >= 0 and roi[0] < static_cast<double>(N)))
                MIGRAPHX_THROW("maxroipool: batch index " + std::to_string(roi[0]) + " is out of range for batch " +
                               std::to_string(N));
            auto b  = static_cast<std::int64_t>(roi[0]);
            auto x1 = corner(roi[1]), y1 = corner(roi[2]), x2 = corner(roi[3]), y2 = corner(roi[4]);
            double bh = static_cast<double>(std::max<std::int64_t>(y2 - y1 + 1, 1)) / static_cast<double>(PH);
            double bw = static_cast<double>(std::max<std::int64_t>(x2 - x1 + 1, 1)) / static_cast<double>(PW);
            auto clip = [](std::int64_t v, std::int64_t hi) { return std::min(std::max<std::int64_t>(v, 0), hi); };
            for(std::int64_t ph = 0; ph < PH; ph++)
                for(std::int64_t pw = 0; pw < PW; pw++)
                {
                    auto hs = clip(static_cast<std::int64_t>(std::floor(ph * bh)) + y1, H);
                    auto he = clip(static_cast<std::int64_t>(std::ceil((ph + 1) * bh)) + y1, H);
                    auto ws = clip(static_cast<std::int64_t>(std::floor(pw * bw)) + x1, W);
                    auto we = clip(static_cast<std::int64_t>(std::ceil((pw + 1) * bw)) + x1, W);
                    if(he <= hs or we <= ws)
                        continue; // empty bin: 0
                    for(std::int64_t c = 0; c < C; c++)
                    {
                        const double* plane = x.data() + (b * C + c) * H * W;
                        double m            = plane[hs * W + ws];
                        for(auto h = hs; h < he; h++)
                            for(auto w = ws; w < we; w++)
                                m = std::max(m, plane[h * W + w]);
                        res[((r * C + c) * PH + ph) * PW + pw] = m;
                    }
                }
        }
        argument result{out};
        out.visit_type([&](auto as) {
            using T = typename decltype(as)::type;
            auto* o = reinterpret_cast<T*>(result.data());
            for(std::size_t i = 0; i < res.size(); i++)
                o[i] = type_cast<T>(res[i]);
        });
        return result;
    }
};
MIGRAPHX_REGISTER_OP(maxroipool)

} // namespace op
} // namespace migraphx
