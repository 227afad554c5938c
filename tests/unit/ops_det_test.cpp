#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/ref/target.hpp>
#include <gtest/gtest.h>

namespace {
using migraphx::shape;
using lvec = std::vector<std::size_t>;
shape fs(lvec l) { return shape{shape::float_type, std::move(l)}; }
} // namespace

TEST(ops_det, shape_rules_and_bad_inputs)
{
    auto op = migraphx::make_op("det");
    EXPECT_EQ(op.compute_shape({fs({3, 3})}).lens(), lvec{});
    EXPECT_EQ(op.compute_shape({fs({2, 4, 3, 3})}), fs({2, 4}));
    EXPECT_THROW(op.compute_shape({fs({3, 2})}), migraphx::exception);
    EXPECT_THROW(op.compute_shape({fs({3})}), migraphx::exception);
    EXPECT_THROW(op.compute_shape({shape{shape::int32_type, {2, 2}}}), migraphx::exception);
}

TEST(ops_det, compute_batch_with_pivoting_and_singular)
{
    auto op = migraphx::make_op("det");
    // [[1, 2], [3, 4]] -> -2; [[0, 1], [1, 0]] -> -1 (needs a pivot); [[1, 2], [2, 4]] -> 0.
    std::vector<double> d{1, 2, 3, 4, 0, 1, 1, 0, 1, 2, 2, 4};
    shape s{shape::double_type, {3, 2, 2}};
    migraphx::argument x{s, d.data()};
    auto r = op.compute(op.compute_shape({s}), {x}).to_vector<double>();
    ASSERT_EQ(r.size(), 3u);
    EXPECT_NEAR(r[0], -2.0, 1e-12);
    EXPECT_NEAR(r[1], -1.0, 1e-12);
    EXPECT_NEAR(r[2], 0.0, 1e-12);
    // ONNX test_det_2d: arange(4).reshape(2, 2) -> -2; a 3x3 with a known determinant.
    std::vector<float> m{2, -3, 1, 2, 0, -1, 1, 4, 5};
    migraphx::argument x3{fs({3, 3}), m.data()};
    EXPECT_NEAR(op.compute(op.compute_shape({fs({3, 3})}), {x3}).to_vector<float>()[0], 49.0f, 1e-4f);
}

TEST(ops_det, program_on_transposed_input)
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto x   = mm->add_literal(migraphx::literal{fs({2, 2, 2}), std::vector<float>{1, 2, 3, 4, 2, 0, 1, 3}});
    auto t   = mm->add_instruction(migraphx::make_op("transpose", {{"permutation", {0, 2, 1}}}), x);
    mm->add_return({mm->add_instruction(migraphx::make_op("det"), t)});
    p.compile(migraphx::ref::target{});
    auto r = p.eval({}).back().to_vector<float>();
    EXPECT_NEAR(r[0], -2.0f, 1e-5f);
    EXPECT_NEAR(r[1], 6.0f, 1e-5f);
}
