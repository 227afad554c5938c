#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/ref/target.hpp>
#include <gtest/gtest.h>

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
