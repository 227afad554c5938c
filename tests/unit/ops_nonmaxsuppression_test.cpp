#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/ref/target.hpp>
#include <gtest/gtest.h>
#include <algorithm>
#include <array>
#include <cstdint>

namespace {
using migraphx::shape;
using i64  = std::vector<std::int64_t>;
using lvec = std::vector<std::size_t>;
shape fs(lvec l) { return shape{shape::float_type, std::move(l)}; }

// The six boxes of the ONNX NonMaxSuppression tests: two clusters near y=0 and x=0/10, one far.
std::vector<float> onnx_boxes()
{
    return {0.0f, 0.0f,   1.0f, 1.0f,  0.0f, 0.1f,  1.0f, 1.1f,  0.0f, -0.1f,  1.0f, 0.9f,
            0.0f, 10.0f,  1.0f, 11.0f, 0.0f, 10.1f, 1.0f, 11.1f, 0.0f, 100.0f, 1.0f, 101.0f};
}
std::vector<float> onnx_scores() { return {0.9f, 0.75f, 0.6f, 0.95f, 0.5f, 0.3f}; }

migraphx::argument nms(bool center,
                       std::vector<float> boxes,
                       std::vector<float> scores,
                       lvec box_lens,
                       lvec score_lens,
                       std::int64_t max_out,
                       float iou,
                       float score)
{
    auto op = migraphx::make_op("nonmaxsuppression", {{"center_point_box", center}});
    shape one_i{shape::int64_type, {1}};
    std::vector<migraphx::argument> args{{fs(box_lens), boxes.data()},
                                         {fs(score_lens), scores.data()},
                                         {one_i, &max_out},
                                         {fs({1}), &iou},
                                         {fs({1}), &score}};
    std::vector<shape> ss;
    for(const auto& a : args)
        ss.push_back(a.get_shape());
    return op.compute(op.compute_shape(ss), args).copy();
}
} // namespace

TEST(ops_nonmaxsuppression, shape_rules_and_bad_inputs)
{
    auto op = migraphx::make_op("nonmaxsuppression");
    EXPECT_EQ(op.compute_shape({fs({2, 6, 4}), fs({2, 3, 6})}), (shape{shape::int64_type, {36, 3}}));
    EXPECT_TRUE(op.attributes().at("dynamic_output").get_bool());
    EXPECT_THROW(op.compute_shape({fs({2, 6, 5}), fs({2, 3, 6})}), migraphx::exception);
    EXPECT_THROW(op.compute_shape({fs({2, 6, 4}), fs({1, 3, 6})}), migraphx::exception);
    EXPECT_THROW(op.compute_shape({fs({2, 6, 4}), fs({2, 3, 5})}), migraphx::exception);
    EXPECT_THROW(op.compute_shape({fs({2, 6, 4})}), migraphx::exception);
    EXPECT_THROW(op.compute_shape({fs({2, 6, 4}), fs({2, 3, 6}), shape{shape::int64_type, {2}}}), migraphx::exception);
    std::ostringstream ss;
    ss << op;
    EXPECT_EQ(ss.str(), "nonmaxsuppression[center_point_box=0]");
}

TEST(ops_nonmaxsuppression, onnx_cases)
{
    // suppress_by_IOU_and_scores
    auto r = nms(false, onnx_boxes(), onnx_scores(), {1, 6, 4}, {1, 1, 6}, 3, 0.5f, 0.4f);
    EXPECT_EQ(r.get_shape(), (shape{shape::int64_type, {2, 3}}));
    EXPECT_EQ(r.to_vector<std::int64_t>(), (i64{0, 0, 3, 0, 0, 0}));
    // limit_output_size / no score threshold gives three with a larger limit
    EXPECT_EQ(nms(false, onnx_boxes(), onnx_scores(), {1, 6, 4}, {1, 1, 6}, 2, 0.5f, 0.0f).to_vector<std::int64_t>(),
              (i64{0, 0, 3, 0, 0, 0}));
    EXPECT_EQ(nms(false, onnx_boxes(), onnx_scores(), {1, 6, 4}, {1, 1, 6}, 3, 0.5f, 0.0f).to_vector<std::int64_t>(),
              (i64{0, 0, 3, 0, 0, 0, 0, 0, 5}));
    // center_point_box_format
    std::vector<float> centre{0.5f, 0.5f,  1.0f, 1.0f, 0.5f, 0.6f,  1.0f, 1.0f, 0.5f, 0.4f,   1.0f, 1.0f,
                              0.5f, 10.5f, 1.0f, 1.0f, 0.5f, 10.6f, 1.0f, 1.0f, 0.5f, 100.5f, 1.0f, 1.0f};
    EXPECT_EQ(nms(true, centre, onnx_scores(), {1, 6, 4}, {1, 1, 6}, 3, 0.5f, 0.0f).to_vector<std::int64_t>(),
              (i64{0, 0, 3, 0, 0, 0, 0, 0, 5}));
    // two_classes and two_batches
    auto s2 = onnx_scores();
    s2.insert(s2.end(), s2.begin(), s2.end());
    EXPECT_EQ(nms(false, onnx_boxes(), s2, {1, 6, 4}, {1, 2, 6}, 2, 0.5f, 0.0f).to_vector<std::int64_t>(),
              (i64{0, 0, 3, 0, 0, 0, 0, 1, 3, 0, 1, 0}));
    auto b2 = onnx_boxes();
    b2.insert(b2.end(), b2.begin(), b2.end());
    EXPECT_EQ(nms(false, b2, s2, {2, 6, 4}, {2, 1, 6}, 2, 0.5f, 0.0f).to_vector<std::int64_t>(),
              (i64{0, 0, 3, 0, 0, 0, 1, 0, 3, 1, 0, 0}));
    // identical boxes: only the first survives
    std::vector<float> same;
    for(int i = 0; i < 10; i++)
        same.insert(same.end(), {0, 0, 1, 1});
    EXPECT_EQ(nms(false, same, std::vector<float>(10, 0.9f), {1, 10, 4}, {1, 1, 10}, 3, 0.5f, 0.0f)
                  .to_vector<std::int64_t>(),
              (i64{0, 0, 0}));
    // flipped corners give the same boxes
    std::vector<float> flipped{1.0f, 1.0f, 0.0f, 0.0f, 0.0f, 0.1f, 1.0f, 1.1f, 0.0f, 0.9f, 1.0f, -0.1f,
                               0.0f, 10.0f, 1.0f, 11.0f, 1.0f, 10.1f, 0.0f, 11.1f, 1.0f, 101.0f, 0.0f, 100.0f};
    EXPECT_EQ(nms(false, flipped, onnx_scores(), {1, 6, 4}, {1, 1, 6}, 3, 0.5f, 0.0f).to_vector<std::int64_t>(),
              (i64{0, 0, 3, 0, 0, 0, 0, 0, 5}));
}

TEST(ops_nonmaxsuppression, program_with_defaults_gives_no_rows)
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto b   = mm->add_literal(migraphx::literal{fs({1, 6, 4}), onnx_boxes()});
    auto s   = mm->add_literal(migraphx::literal{fs({1, 1, 6}), onnx_scores()});
    auto n0  = mm->add_instruction(migraphx::make_op("nonmaxsuppression"), b, s);
    auto m   = mm->add_literal(migraphx::literal{shape{shape::int64_type, {1}}, std::vector<std::int64_t>{10}});
    auto n1  = mm->add_instruction(migraphx::make_op("nonmaxsuppression"), b, s, m);
    mm->add_return({n0, n1});
    p.compile(migraphx::ref::target{});
    auto r = p.eval({});
    EXPECT_EQ(r[0].get_shape().lens(), (lvec{0, 3}));
    // iou_threshold 0: any overlap suppresses; the best box of each of the three clusters survives.
    EXPECT_EQ(r[1].to_vector<std::int64_t>(), (i64{0, 0, 3, 0, 0, 0, 0, 0, 5}));
}

namespace {
/// ONNX NonMaxSuppression as the spec words it, every candidate checked against every kept box
/// (the op checks only those sharing a column: the rows must be the same).
i64 brute_force(bool center, const std::vector<float>& boxes, const std::vector<float>& scores, std::size_t nbox,
                std::size_t nc, std::int64_t max_out, double th, double score_th)
{
    auto corners = [&](std::size_t i) {
        std::array<double, 4> p{boxes[4 * i], boxes[4 * i + 1], boxes[4 * i + 2], boxes[4 * i + 3]};
        if(center)
            return std::array<double, 4>{p[1] - p[3] / 2, p[0] - p[2] / 2, p[1] + p[3] / 2, p[0] + p[2] / 2};
        return std::array<double, 4>{std::min(p[0], p[2]), std::min(p[1], p[3]), std::max(p[0], p[2]), std::max(p[1], p[3])};
    };
    auto iou = [](const std::array<double, 4>& a, const std::array<double, 4>& b) {
        double ih = std::min(a[2], b[2]) - std::max(a[0], b[0]);
        double iw = std::min(a[3], b[3]) - std::max(a[1], b[1]);
        if(ih <= 0 or iw <= 0)
            return 0.0;
        double inter = ih * iw;
        double uni   = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter;
        return uni <= 0 ? 0 : inter / uni;
    };
    i64 rows;
    for(std::size_t c = 0; c < nc; c++)
    {
        std::vector<std::size_t> order;
        for(std::size_t i = 0; i < nbox; i++)
            if(double(scores[c * nbox + i]) > score_th)
                order.push_back(i);
        std::stable_sort(order.begin(), order.end(), [&](auto x, auto y) { return scores[c * nbox + x] > scores[c * nbox + y]; });
        std::vector<std::size_t> kept;
        for(auto i : order)
        {
            if(static_cast<std::int64_t>(kept.size()) >= max_out)
                break;
            bool ok = true;
            for(auto k : kept)
                ok = ok and iou(corners(i), corners(k)) <= th;
            if(ok)
                kept.push_back(i);
        }
        for(auto k : kept)
            rows.insert(rows.end(), {0, std::int64_t(c), std::int64_t(k)});
    }
    return rows;
}
} // namespace

TEST(ops_nonmaxsuppression, many_boxes_give_the_rows_checking_every_kept_box_gives)
{
    // Clusters set apart by an offset per group (torchvision's batched NMS), big and tiny boxes,
    // both box formats, several thresholds (a negative one: one box a class) and output caps.
    std::uint64_t state = 7;
    auto rnd = [&] {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return static_cast<double>(state >> 11) / 9007199254740992.0;
    };
    for(bool center : {false, true})
        for(double th : {0.0, 0.3, 0.7, 1.0, -0.5})
            for(std::int64_t max_out : {5, 100, 100000})
            {
                const std::size_t nbox = 600, nc = 2;
                std::vector<float> boxes(nbox * 4), scores(nbox * nc);
                for(std::size_t i = 0; i < nbox; i++)
                {
                    double off  = 50.0 * static_cast<double>(i % 7); // seven groups far apart
                    double size = rnd() < 0.05 ? 30 * rnd() : 2 * rnd();
                    double y = 10 * rnd(), x = off + 10 * rnd();
                    if(center)
                    {
                        boxes[4 * i] = float(x), boxes[4 * i + 1] = float(y), boxes[4 * i + 2] = float(size),
                        boxes[4 * i + 3] = float(size * (0.5 + rnd()));
                    }
                    else
                    {
                        boxes[4 * i] = float(y), boxes[4 * i + 1] = float(x), boxes[4 * i + 2] = float(y + size),
                        boxes[4 * i + 3] = float(x + size * (0.5 + rnd()));
                    }
                }
                for(auto& s : scores)
                    s = float(rnd());
                SCOPED_TRACE(std::to_string(center) + " th " + std::to_string(th) + " max " + std::to_string(max_out));
                auto got  = nms(center, boxes, scores, {1, nbox, 4}, {1, nc, nbox}, max_out, float(th), 0.1f);
                auto want = brute_force(center, boxes, scores, nbox, nc, max_out, double(float(th)), double(0.1f));
                EXPECT_EQ(got.to_vector<std::int64_t>(), want);
            }
}
