#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/ref/target.hpp>
#include <gtest/gtest.h>
#include <numeric>
#include <sstream>

namespace {
using migraphx::shape;
using lvec = std::vector<std::size_t>;
shape fs(lvec l) { return shape{shape::float_type, std::move(l)}; }
migraphx::operation pool(std::size_t ph, std::size_t pw, float scale = 1.0f)
{
    return migraphx::make_op("maxroipool", {{"pooled_shape", lvec{ph, pw}}, {"spatial_scale", scale}});
}
/// Runs maxroipool on x {N, C, 4, 4} holding x[n][c][h][w] = 100n + 4h + w (negated for odd c).
std::vector<float> run(const migraphx::operation& op, std::size_t n, std::size_t c, std::vector<float> rois)
{
    std::vector<float> x(n * c * 16);
    for(std::size_t i = 0; i < x.size(); i++)
    {
        auto b = i / (c * 16), ch = (i / 16) % c, hw = i % 16;
        x[i]   = static_cast<float>(100 * b + hw) * (ch % 2 == 1 ? -1.0f : 1.0f);
    }
    migraphx::argument xa{fs({n, c, 4, 4}), x.data()}, ra{fs({rois.size() / 5, 5}), rois.data()};
    auto out = op.compute_shape({xa.get_shape(), ra.get_shape()});
    return op.compute(out, {xa, ra}).to_vector<float>();
}
} // namespace

TEST(ops_maxroipool, shape_rules_and_bad_inputs)
{
    auto op = pool(3, 2);
    EXPECT_EQ(op.compute_shape({fs({2, 4, 8, 8}), fs({5, 5})}), fs({5, 4, 3, 2}));
    EXPECT_EQ(op.compute_shape({shape{shape::half_type, {1, 2, 8, 8}}, shape{shape::half_type, {3, 5}}}),
              (shape{shape::half_type, {3, 2, 3, 2}}));
    EXPECT_THROW(op.compute_shape({fs({2, 4, 8}), fs({5, 5})}), migraphx::exception);
    EXPECT_THROW(op.compute_shape({fs({2, 4, 8, 8}), fs({5, 4})}), migraphx::exception);
    EXPECT_THROW(op.compute_shape({fs({2, 4, 8, 8})}), migraphx::exception);
    EXPECT_THROW(op.compute_shape({fs({2, 4, 8, 8}), shape{shape::double_type, {5, 5}}}), migraphx::exception);
    EXPECT_THROW(op.compute_shape({shape{shape::int32_type, {2, 4, 8, 8}}, shape{shape::int32_type, {5, 5}}}),
                 migraphx::exception);
    EXPECT_THROW(pool(0, 2).compute_shape({fs({2, 4, 8, 8}), fs({5, 5})}), migraphx::exception);
    EXPECT_THROW(migraphx::make_op("maxroipool", {{"pooled_shape", lvec{2}}}).compute_shape({fs({2, 4, 8, 8}), fs({5, 5})}),
                 migraphx::exception);
    std::ostringstream ss;
    ss << migraphx::make_op("maxroipool");
    EXPECT_EQ(ss.str(), "maxroipool[pooled_shape={1, 1},spatial_scale=1]");
    // A batch index out of range is caught when the op runs.
    EXPECT_THROW(run(pool(1, 1), 1, 1, {1, 0, 0, 1, 1}), migraphx::exception);
    EXPECT_THROW(run(pool(1, 1), 1, 1, {-1, 0, 0, 1, 1}), migraphx::exception);
}

TEST(ops_maxroipool, bins_by_hand)
{
    // The whole 4x4 image in 2x2 bins of 2x2 pixels.
    EXPECT_EQ(run(pool(2, 2), 1, 1, {0, 0, 0, 3, 3}), (std::vector<float>{5, 7, 13, 15}));
    // A 2x2 roi (end corner inclusive) in 2x2 bins of one pixel each.
    EXPECT_EQ(run(pool(2, 2), 1, 1, {0, 1, 1, 2, 2}), (std::vector<float>{5, 6, 9, 10}));
    // spatial_scale 0.5: corners 2 and 6 become pixels 1 and 3; a 3x3 roi in 2x2 bins overlaps:
    // rows [floor(0), ceil(1.5)) = [0, 2) and [floor(1.5), ceil(3)) = [1, 3) of the roi.
    EXPECT_EQ(run(pool(2, 2, 0.5f), 1, 1, {0, 2, 2, 6, 6}), (std::vector<float>{10, 11, 14, 15}));
    // A roi wholly outside the image has empty bins: 0.
    EXPECT_EQ(run(pool(1, 2), 1, 1, {0, 5, 5, 8, 8}), (std::vector<float>{0, 0}));
    // More bins than pixels: a bin of a 1x1 roi repeats that pixel.
    EXPECT_EQ(run(pool(2, 2), 1, 1, {0, 3, 0, 3, 0}), (std::vector<float>{3, 3, 3, 3}));
    // Batch index picks the image; each channel pools on its own (channel 1 holds negated values).
    EXPECT_EQ(run(pool(1, 1), 2, 2, {1, 0, 0, 3, 3, 0, 1, 1, 2, 2}), (std::vector<float>{115, -100, 10, -5}));
}

TEST(ops_maxroipool, transposed_input_through_a_program)
{
    // x[h][w] = 4h + w, read through a transpose: the op sees 4w + h.
    std::vector<float> x(16);
    std::iota(x.begin(), x.end(), 0.0f);
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto xl  = mm->add_literal(migraphx::literal{fs({1, 1, 4, 4}), x});
    auto xt  = mm->add_instruction(migraphx::make_op("transpose", {{"permutation", {0, 1, 3, 2}}}), xl);
    auto rl  = mm->add_literal(migraphx::literal{fs({2, 5}), std::vector<float>{0, 0, 0, 1, 3, 0, 2, 0, 3, 0}});
    mm->add_return({mm->add_instruction(pool(1, 2), xt, rl)});
    p.compile(migraphx::ref::target{});
    // roi 1: columns 0-1, rows 0-3 -> bins w=0: max 4*0+3 = 3; w=1: 4+3 = 7.
    // roi 2: row 0, columns 2-3 -> 8 and 12.
    EXPECT_EQ(p.eval({}).back().to_vector<float>(), (std::vector<float>{3, 7, 8, 12}));
}
