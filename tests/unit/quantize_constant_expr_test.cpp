#include "quantize/constant_expr.hpp"
#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <gtest/gtest.h>

using migraphx::make_op;
using migraphx::shape;

TEST(quantize_constant_expr, literals_and_ops_of_literals_are_constant_and_evaluate)
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto x   = mm->add_parameter("x", shape{shape::float_type, {2, 3}});
    auto w   = mm->add_literal(migraphx::literal{shape{shape::float_type, {3, 2}}, std::vector<float>{1, 2, 3, 4, 5, 6}});
    auto wt  = mm->add_instruction(make_op("transpose", {{"permutation", {1, 0}}}), w);
    auto sum = mm->add_instruction(make_op("add"), x, wt);
    EXPECT_TRUE(migraphx::is_constant(w));
    EXPECT_TRUE(migraphx::is_constant(wt));
    EXPECT_FALSE(migraphx::is_constant(x));
    EXPECT_FALSE(migraphx::is_constant(sum));
    auto v = migraphx::eval_constant(wt);
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(v->to_vector<float>(), (std::vector<float>{1, 3, 5, 2, 4, 6}));
    EXPECT_FALSE(migraphx::eval_constant(sum).has_value());
}

TEST(quantize_constant_expr, too_deep_chains_are_not_constant)
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto c   = mm->add_literal(migraphx::literal{shape{shape::float_type, {2}}, std::vector<float>{1, -1}});
    for(int i = 0; i < 20; i++)
        c = mm->add_instruction(make_op("neg"), c);
    EXPECT_FALSE(migraphx::is_constant(c));
    EXPECT_FALSE(migraphx::eval_constant(c).has_value());
}
