// nonmaxsuppression[center_point_box=0](boxes {B, N, 4}, scores {B, C, N}
//     [, max_output_boxes_per_class, iou_threshold, score_threshold]) -> int64 {selected, 3}
// ONNX NonMaxSuppression: rows are [batch, class, box], grouped by batch then class, and within
// a class in selection order (score descending, ties by lower box index). A box is kept when its
// score is above score_threshold (strictly) and its IoU with every box already kept in that
// class is not above iou_threshold. Absent optional inputs: max_output_boxes_per_class 0 (no
// output), iou_threshold 0, score_threshold none; each is a one-element tensor if given.
// center_point_box=0: boxes are [y1, x1, y2, x2] (any two opposite corners); 1: [xc, yc, w, h].
// The row count depends on the data: compute_shape returns the largest, {B*C*N, 3}; compute
// returns exactly {selected, 3} (attribute "dynamic_output"). See docs/internal/op-conventions.md.
#include <migraphx/register_op.hpp>
#include "ops/check_shapes.hpp"
#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

namespace migraphx {
namespace op {

struct nonmaxsuppression
{
    bool center_point_box = false;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.center_point_box, "center_point_box");
    }
    std::string name() const { return "nonmaxsuppression"; }
    value attributes() const { return {{"dynamic_output", true}, {"dynamic_axes", std::vector<std::int64_t>{0}}}; }

    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes cs{inputs, *this};
        cs.has_between(2, 5).not_tuple().static_only();
        const auto& b = inputs[0].lens();
        const auto& s = inputs[1].lens();
        if(b.size() != 3 or b[2] != 4)
            cs.fail("boxes must be {num_batches, spatial_dimension, 4}");
        if(s.size() != 3 or s[0] != b[0] or s[2] != b[1])
            cs.fail("scores must be {num_batches, num_classes, spatial_dimension}");
        for(std::size_t i = 2; i < inputs.size(); i++)
            if(inputs[i].elements() > 1)
                cs.fail("input " + std::to_string(i) + " must hold at most one element");
        return {shape::int64_type, {b[0] * s[1] * b[1], 3}};
    }

    std::array<double, 4> corners(const std::vector<double>& boxes, std::size_t i) const
    {
        const double* p = boxes.data() + 4 * i;
        if(center_point_box)
            return {p[1] - p[3] / 2, p[0] - p[2] / 2, p[1] + p[3] / 2, p[0] + p[2] / 2};
        return {std::min(p[0], p[2]), std::min(p[1], p[3]), std::max(p[0], p[2]), std::max(p[1], p[3])};
    }

    static double iou(const std::array<double, 4>& a, const std::array<double, 4>& b)
    {
        double ih    = std::min(a[2], b[2]) - std::max(a[0], b[0]);
        double iw    = std::min(a[3], b[3]) - std::max(a[1], b[1]);
        if(ih <= 0 or iw <= 0)
            return 0;
        double inter = ih * iw;
        double uni   = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter;
        return uni <= 0 ? 0 : inter / uni;
    }

    /// The greedy selection of one class: of `order` (score descending), each box whose IoU with
    /// every box kept before it is not above th, at most max_out of them.
    static std::vector<std::size_t> select(const std::vector<std::array<double, 4>>& cs,
                                           const std::vector<std::size_t>& order,
                                           std::int64_t max_out,
                                           double th)
    {
        std::vector<std::size_t> kept;
        auto full = [&] { return static_cast<std::int64_t>(kept.size()) >= max_out; };
        auto finite = std::all_of(order.begin(), order.end(), [&](auto i) {
            return std::all_of(cs[i].begin(), cs[i].end(), [](double v) { return std::isfinite(v); });
        });
        // A kept box can suppress only a box it intersects (IoU > th >= 0 needs an overlap), so
        // each candidate is checked only against the kept boxes sharing one of a grid of columns
        // with it: the same boxes are kept as by checking every one (torchvision's detectors run
        // one NMS over all classes' boxes, set apart by an offset per class: thousands kept, a
        // few near each). With th < 0 every kept box suppresses, and a NaN or infinite corner
        // has no column: those check every kept box.
        if(th < 0 or not finite or order.size() < 64)
        {
            for(auto i : order)
            {
                if(full())
                    break;
                if(std::all_of(kept.begin(), kept.end(), [&](auto k) { return iou(cs[i], cs[k]) <= th; }))
                    kept.push_back(i);
            }
            return kept;
        }
        double lo = cs[order.front()][1], hi = cs[order.front()][3];
        for(auto i : order)
        {
            lo = std::min(lo, cs[i][1]);
            hi = std::max(hi, cs[i][3]);
        }
        const std::size_t columns = std::min<std::size_t>(1024, order.size());
        double scale              = hi > lo ? static_cast<double>(columns) / (hi - lo) : 0.0;
        // Monotone in x (correctly rounded operations are), so overlapping spans share a column.
        auto column = [&](double x) {
            return std::min(columns - 1, static_cast<std::size_t>(std::max(0.0, (x - lo) * scale)));
        };
        std::vector<std::vector<std::size_t>> grid(columns); // kept boxes by column
        std::vector<std::size_t> seen(cs.size(), order.size()); // the candidate that last checked a box
        for(std::size_t n = 0; n < order.size() and not full(); n++)
        {
            auto i = order[n];
            auto c0 = column(cs[i][1]), c1 = column(cs[i][3]);
            bool suppressed = false;
            for(auto c = c0; c <= c1 and not suppressed; c++)
                for(auto k : grid[c])
                {
                    if(seen[k] == n)
                        continue;
                    seen[k] = n;
                    if(not(iou(cs[i], cs[k]) <= th))
                    {
                        suppressed = true;
                        break;
                    }
                }
            if(suppressed)
                continue;
            kept.push_back(i);
            for(auto c = c0; c <= c1; c++)
                grid[c].push_back(i);
        }
        return kept;
    }

    argument compute(const shape&, const std::vector<argument>& args) const
    {
        const auto& bl  = args[0].get_shape().lens();
        std::size_t nb  = bl[0], nbox = bl[1], nc = args[1].get_shape().lens()[1];
        auto boxes      = args[0].to_vector<double>();
        auto scores     = args[1].to_vector<double>();
        auto scalar_arg = [&](std::size_t i) -> const argument* {
            return args.size() > i and args[i].get_shape().elements() == 1 ? &args[i] : nullptr;
        };
        std::int64_t max_out = scalar_arg(2) ? args[2].at<std::int64_t>() : 0;
        double iou_th        = scalar_arg(3) ? args[3].at<double>() : 0.0;
        bool has_score_th    = scalar_arg(4) != nullptr;
        double score_th      = has_score_th ? args[4].at<double>() : 0.0;
        std::vector<std::int64_t> rows;
        for(std::size_t b = 0; b < nb and max_out > 0; b++)
        {
            std::vector<std::array<double, 4>> cs(nbox);
            for(std::size_t i = 0; i < nbox; i++)
                cs[i] = corners(boxes, b * nbox + i);
            for(std::size_t c = 0; c < nc; c++)
            {
                const double* sc = scores.data() + (b * nc + c) * nbox;
                std::vector<std::size_t> order;
                for(std::size_t i = 0; i < nbox; i++)
                    if(not has_score_th or sc[i] > score_th)
                        order.push_back(i);
                std::stable_sort(order.begin(), order.end(), [&](auto x, auto y) { return sc[x] > sc[y]; });
                auto kept = select(cs, order, max_out, iou_th);
                for(auto k : kept)
                    rows.insert(rows.end(), {std::int64_t(b), std::int64_t(c), std::int64_t(k)});
            }
        }
        argument result{shape{shape::int64_type, {rows.size() / 3, 3}}};
        std::copy(rows.begin(), rows.end(), reinterpret_cast<std::int64_t*>(result.data()));
        return result;
    }
};
MIGRAPHX_REGISTER_OP(nonmaxsuppression)

} // namespace op
} // namespace migraphx
