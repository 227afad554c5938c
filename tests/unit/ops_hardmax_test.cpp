#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/ref/target.hpp>
#include <gtest/gtest.h>

namespace {
using migraphx::shape;
} // namespace

TEST(ops_hardmax, shape_rules_and_bad_inputs)
{
    shape s{shape::float_type, {2, 3}};
    EXPECT_EQ(migraphx::make_op("hardmax").compute_shape({s}), s);
    EXPECT_THROW(migraphx::make_op("hardmax", {{"axis", 2}}).compute_shape({s}), migraphx::exception);
    EXPECT_THROW(migraphx::make_op("hardmax").compute_shape({s, s}), migraphx::exception);
    std::ostringstream ss;
    ss << migraphx::make_op("hardmax");
    EXPECT_EQ(ss.str(), "hardmax[axis=-1]");
}

TEST(ops_hardmax, first_maximum_wins)
{
    // ONNX test_hardmax_one_hot: ties pick the first.
    std::vector<float> d{0, 0, 0, 1, 3, 1, 3, 2};
    shape s{shape::float_type, {2, 4}};
    migraphx::argument x{s, d.data()};
    auto op = migraphx::make_op("hardmax");
    EXPECT_EQ(op.compute(s, {x}).to_vector<float>(), (std::vector<float>{0, 0, 0, 1, 1, 0, 0, 0}));
    op = migraphx::make_op("hardmax", {{"axis", 0}});
    EXPECT_EQ(op.compute(s, {x}).to_vector<float>(), (std::vector<float>{0, 0, 0, 0, 1, 1, 1, 1}));
}

TEST(ops_hardmax, program_on_transposed_input)
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto x   = mm->add_literal(migraphx::literal{shape{shape::int32_type, {2, 3}}, std::vector<int>{1, 5, 2, 7, 0, 9}});
    auto t   = mm->add_instruction(migraphx::make_op("transpose", {{"permutation", {1, 0}}}), x); // [[1,7],[5,0],[2,9]]
    mm->add_return({mm->add_instruction(migraphx::make_op("hardmax", {{"axis", 0}}), t)});
    p.compile(migraphx::ref::target{});
    EXPECT_EQ(p.eval({}).back().to_vector<int>(), (std::vector<int>{0, 0, 1, 0, 0, 1}));
}
