#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/ref/target.hpp>
#include <gtest/gtest.h>

namespace {
using migraphx::shape;
migraphx::operation rev(std::vector<std::int64_t> axes) { return migraphx::make_op("reverse", {{"axes", axes}}); }
} // namespace

TEST(ops_reverse, shape_rules_and_bad_inputs)
{
    shape s{shape::int32_type, {2, 3}};
    EXPECT_EQ(rev({1}).compute_shape({s}), s);
    EXPECT_EQ(rev({}).compute_shape({s}), s);
    EXPECT_THROW(rev({2}).compute_shape({s}), migraphx::exception);
    EXPECT_THROW(rev({1, -1}).compute_shape({s}), migraphx::exception);
    std::ostringstream ss;
    ss << rev({0, 1});
    EXPECT_EQ(ss.str(), "reverse[axes={0, 1}]");
}

TEST(ops_reverse, compute)
{
    std::vector<int> d{1, 2, 3, 4, 5, 6};
    shape s{shape::int32_type, {2, 3}};
    migraphx::argument a{s, d.data()};
    EXPECT_EQ(rev({1}).compute(s, {a}).to_vector<int>(), (std::vector<int>{3, 2, 1, 6, 5, 4}));
    EXPECT_EQ(rev({-2}).compute(s, {a}).to_vector<int>(), (std::vector<int>{4, 5, 6, 1, 2, 3}));
    EXPECT_EQ(rev({0, 1}).compute(s, {a}).to_vector<int>(), (std::vector<int>{6, 5, 4, 3, 2, 1}));
}

TEST(ops_reverse, program_on_transposed_input)
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto x   = mm->add_literal(migraphx::literal{shape{shape::float_type, {2, 3}}, std::vector<float>{1, 2, 3, 4, 5, 6}});
    auto t   = mm->add_instruction(migraphx::make_op("transpose", {{"permutation", {1, 0}}}), x); // [[1,4],[2,5],[3,6]]
    mm->add_return({mm->add_instruction(rev({0}), t)});
    p.compile(migraphx::ref::target{});
    EXPECT_EQ(p.eval({}).back().to_vector<float>(), (std::vector<float>{3, 6, 2, 5, 1, 4}));
}
