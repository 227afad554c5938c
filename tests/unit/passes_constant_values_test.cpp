// pass_utils constant readers (passes/constant_values.hpp), used by the int8 lowerings.
#include "passes/constant_values.hpp"
#include <migraphx/literal.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/module.hpp>
#include <gtest/gtest.h>

using migraphx::make_op;
using migraphx::shape;

TEST(passes_constant_values, per_channel_and_uniform_constants)
{
    migraphx::module m;
    std::vector<std::size_t> lens{2, 3, 4, 4};
    auto v = m.add_literal(migraphx::literal{shape{shape::float_type, {3}}, {1.0f, 2.0f, 3.0f}});
    auto b = m.add_instruction(make_op("broadcast", {{"axis", 1}, {"out_lens", lens}}), v);
    EXPECT_EQ(*migraphx::pass_utils::along_axis(b, 1, 3), (std::vector<float>{1, 2, 3}));
    EXPECT_FALSE(migraphx::pass_utils::along_axis(b, 2, 4)); // varies along 1, not 2
    EXPECT_FALSE(migraphx::pass_utils::uniform_constant(b));
    auto s  = m.add_literal(migraphx::literal{shape{shape::float_type, {1}}, {0.5f}});
    auto sb = m.add_instruction(make_op("multibroadcast", {{"out_lens", lens}}), s);
    EXPECT_EQ(*migraphx::pass_utils::along_axis(sb, 1, 3), (std::vector<float>(3, 0.5f)));
    EXPECT_EQ(*migraphx::pass_utils::uniform_constant(sb), 0.5f);
    // a {1, 3, 1, 1} literal behind a multibroadcast, read through the view's compute
    auto r  = m.add_literal(migraphx::literal{shape{shape::float_type, {1, 3, 1, 1}}, {4.0f, 5.0f, 6.0f}});
    auto rb = m.add_instruction(make_op("multibroadcast", {{"out_lens", lens}}), r);
    EXPECT_EQ(*migraphx::pass_utils::along_axis(rb, 1, 3), (std::vector<float>{4, 5, 6}));
    auto x = m.add_parameter("x", shape{shape::float_type, lens});
    EXPECT_FALSE(migraphx::pass_utils::constant_value(x));
    EXPECT_FALSE(migraphx::pass_utils::along_axis(x, 1, 3));
    auto y = m.add_instruction(make_op("relu"), x);
    EXPECT_EQ(migraphx::pass_utils::only_user(x), y);
    m.add_instruction(make_op("neg"), x);
    EXPECT_EQ(migraphx::pass_utils::only_user(x), migraphx::instruction_ref{});
}
