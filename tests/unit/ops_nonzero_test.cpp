#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/ref/target.hpp>
#include <gtest/gtest.h>

namespace {
using migraphx::shape;
using i64 = std::vector<std::int64_t>;
} // namespace

TEST(ops_nonzero, shape_is_the_maximum)
{
    auto op = migraphx::make_op("nonzero");
    EXPECT_EQ(op.compute_shape({shape{shape::float_type, {2, 3}}}), (shape{shape::int64_type, {2, 6}}));
    EXPECT_EQ(op.compute_shape({shape{shape::bool_type, {5}}}), (shape{shape::int64_type, {1, 5}}));
    EXPECT_TRUE(op.attributes().at("dynamic_output").get_bool());
    EXPECT_THROW(op.compute_shape({}), migraphx::exception);
    shape s{shape::float_type, {2}};
    EXPECT_THROW(op.compute_shape({s, s}), migraphx::exception);
}

TEST(ops_nonzero, compute_exact_count)
{
    auto op = migraphx::make_op("nonzero");
    std::vector<float> d{0, 1, 0, 2, 0, 3};
    migraphx::argument x{shape{shape::float_type, {2, 3}}, d.data()};
    auto r = op.compute(op.compute_shape({x.get_shape()}), {x});
    EXPECT_EQ(r.get_shape(), (shape{shape::int64_type, {2, 3}}));
    EXPECT_EQ(r.to_vector<std::int64_t>(), (i64{0, 1, 1, 1, 0, 2}));
    std::vector<float> z(4, 0.0f);
    migraphx::argument zx{shape{shape::float_type, {4}}, z.data()};
    EXPECT_EQ(op.compute(op.compute_shape({zx.get_shape()}), {zx}).get_shape().lens(), (std::vector<std::size_t>{1, 0}));
}

TEST(ops_nonzero, program_on_transposed_input)
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto x   = mm->add_literal(migraphx::literal{shape{shape::int32_type, {2, 3}}, std::vector<int>{0, 1, 0, 2, 0, 3}});
    auto t   = mm->add_instruction(migraphx::make_op("transpose", {{"permutation", {1, 0}}}), x);
    mm->add_return({mm->add_instruction(migraphx::make_op("nonzero"), t)});
    p.compile(migraphx::ref::target{});
    auto r = p.eval({}).back();
    // t = [[0, 2], [1, 0], [0, 3]]
    EXPECT_EQ(r.get_shape().lens(), (std::vector<std::size_t>{2, 3}));
    EXPECT_EQ(r.to_vector<std::int64_t>(), (i64{0, 1, 2, 1, 0, 1}));
}

// Faster R-CNN's export: NonZero then Transpose(perm 1, 0). The transpose is compiled for
// nonzero's largest shape {1, 8} but gets {1, 3}: it must view what it got.
TEST(ops_nonzero, a_view_of_the_result_sees_its_real_size)
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto x   = mm->add_parameter("x", shape{shape::float_type, {8}});
    auto nz  = mm->add_instruction(migraphx::make_op("nonzero"), x);
    auto t   = mm->add_instruction(migraphx::make_op("transpose", {{"permutation", {1, 0}}}), nz);
    mm->add_return({mm->add_instruction(migraphx::make_op("contiguous"), t)});
    p.compile(migraphx::ref::target{});
    std::vector<float> d{0, 1, 0, 2, 0, 0, 3, 0};
    auto r = p.eval({{"x", migraphx::argument{shape{shape::float_type, {8}}, d.data()}}}).back();
    EXPECT_EQ(r.get_shape().lens(), (std::vector<std::size_t>{3, 1}));
    EXPECT_EQ(r.to_vector<std::int64_t>(), (i64{1, 3, 6}));
}
