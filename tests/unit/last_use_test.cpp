// ir/last_use: where a run may drop each result (after its last reader), and that eval still
// computes what it did with results dropped early.
#include "ir/last_use.hpp"
#include <migraphx/instruction.hpp>
#include <migraphx/literal.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/ref/target.hpp>
#include <gtest/gtest.h>
#include <algorithm>
#include <vector>

namespace {

using migraphx::shape;

bool listed(const std::vector<const migraphx::instruction*>& v, migraphx::instruction_ref x)
{
    return std::find(v.begin(), v.end(), &*x) != v.end();
}

} // namespace

TEST(last_use, each_result_is_dropped_after_its_last_reader)
{
    migraphx::module m;
    auto x = m.add_parameter("x", shape{shape::float_type, {4}});  // 0
    auto a = m.add_instruction(migraphx::make_op("relu"), x);       // 1
    auto b = m.add_instruction(migraphx::make_op("neg"), a);        // 2
    auto c = m.add_instruction(migraphx::make_op("add"), a, b);     // 3
    auto d = m.add_instruction(migraphx::make_op("abs"), c);        // 4: read by nothing after
    m.add_return({c});                                              // 5
    auto points = migraphx::last_use_points(m);
    ASSERT_EQ(points.size(), m.size());
    EXPECT_TRUE(listed(points[1], x));
    EXPECT_TRUE(listed(points[3], a)); // read by b and c: kept until c
    EXPECT_FALSE(listed(points[2], a));
    EXPECT_TRUE(listed(points[3], b));
    for(const auto& p : points)
    {
        EXPECT_FALSE(listed(p, c)); // returned: the caller keeps it
        EXPECT_FALSE(listed(p, d)); // read by nothing: never listed
    }
}

TEST(last_use, a_module_running_sub_modules_keeps_everything)
{
    migraphx::program p;
    auto* mm  = p.get_main_module();
    auto c    = mm->add_parameter("c", shape{shape::bool_type, {1}});
    auto x    = mm->add_literal(migraphx::literal{shape{shape::float_type, {2}}, std::vector<float>{2, 3}});
    auto y    = mm->add_instruction(migraphx::make_op("neg"), x);
    auto* thn = p.create_module("then_mod");
    auto* els = p.create_module("else_mod");
    thn->add_return({thn->add_instruction(migraphx::make_op("add"), x, y)});
    els->add_return({els->add_instruction(migraphx::make_op("mul"), x, y)});
    auto r = mm->add_instruction(migraphx::make_op("if"), {c}, {thn, els});
    mm->add_return({r});
    for(const auto& pts : migraphx::last_use_points(*mm))
        EXPECT_TRUE(pts.empty());
    // the branch reads y from main after main's neg: eval must still have it
    p.compile(migraphx::ref::target{});
    bool cond = true;
    auto out  = p.eval({{"c", migraphx::argument{shape{shape::bool_type, {1}}, &cond}}});
    ASSERT_EQ(out.size(), 1u);
    auto v = out[0].to_vector<float>();
    EXPECT_EQ(v, (std::vector<float>{0, 0}));
}

TEST(last_use, eval_with_early_drops_computes_the_same)
{
    // a is read at the start and at the end of a chain: dropping anything too early would fail
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto x   = mm->add_parameter("x", shape{shape::float_type, {3}});
    auto a   = mm->add_instruction(migraphx::make_op("neg"), x);
    auto b   = mm->add_instruction(migraphx::make_op("abs"), a);
    auto c   = mm->add_instruction(migraphx::make_op("mul"), b, b);
    auto d   = mm->add_instruction(migraphx::make_op("add"), c, a);
    mm->add_return({d, b});
    p.compile(migraphx::ref::target{});
    std::vector<float> in{1, -2, 3};
    for(int run = 0; run < 2; run++)
    {
        auto out = p.eval({{"x", migraphx::argument{shape{shape::float_type, {3}}, in.data()}}});
        ASSERT_EQ(out.size(), 2u);
        EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{0, 6, 6}));
        EXPECT_EQ(out[1].to_vector<float>(), (std::vector<float>{1, 2, 3}));
    }
}
