#include <migraphx/make_op.hpp>
#include <migraphx/module.hpp>
#include <migraphx/program.hpp>
#include <gtest/gtest.h>
#include "passes/dead_code_elimination.hpp"
#include "passes/eliminate_common_subexpression.hpp"
#include "passes/pass_manager.hpp"

using migraphx::make_op;
using migraphx::shape;

namespace {

void run_cse(migraphx::module& m) { migraphx::run_passes(m, {migraphx::eliminate_common_subexpression{}}); }

struct cse_test_side_effect
{
    std::string name() const { return "cse_test_side_effect"; }
    migraphx::value attributes() const { return {{"side_effects", true}}; }
    shape compute_shape(const std::vector<shape>& inputs) const { return inputs.front(); }
    migraphx::argument compute(const shape&, const std::vector<migraphx::argument>& args) const
    {
        return args.front();
    }
};

const shape s23{shape::float_type, {2, 3}};

} // namespace

TEST(pass_eliminate_common_subexpression, merges_equal_instructions)
{
    migraphx::module m1;
    {
        auto x  = m1.add_parameter("x", s23);
        auto y  = m1.add_parameter("y", s23);
        auto a1 = m1.add_instruction(make_op("add"), x, y);
        auto a2 = m1.add_instruction(make_op("add"), x, y);
        auto r  = m1.add_instruction(make_op("mul"), a1, a2);
        m1.add_return({r});
    }
    run_cse(m1);
    migraphx::module m2;
    {
        auto x  = m2.add_parameter("x", s23);
        auto y  = m2.add_parameter("y", s23);
        auto a1 = m2.add_instruction(make_op("add"), x, y);
        auto r  = m2.add_instruction(make_op("mul"), a1, a1);
        m2.add_return({r});
    }
    EXPECT_EQ(m1, m2) << m1;
}

TEST(pass_eliminate_common_subexpression, merges_whole_chains)
{
    migraphx::module m1;
    {
        auto x  = m1.add_parameter("x", s23);
        auto r1 = m1.add_instruction(make_op("relu"), x);
        auto n1 = m1.add_instruction(make_op("neg"), r1);
        auto r2 = m1.add_instruction(make_op("relu"), x);
        auto n2 = m1.add_instruction(make_op("neg"), r2);
        auto s  = m1.add_instruction(make_op("sub"), n1, n2);
        m1.add_return({s, n2});
    }
    run_cse(m1);
    migraphx::module m2;
    {
        auto x  = m2.add_parameter("x", s23);
        auto r1 = m2.add_instruction(make_op("relu"), x);
        auto n1 = m2.add_instruction(make_op("neg"), r1);
        auto s  = m2.add_instruction(make_op("sub"), n1, n1);
        m2.add_return({s, n1});
    }
    EXPECT_EQ(m1, m2) << m1;
}

TEST(pass_eliminate_common_subexpression, keeps_different_attributes_inputs_and_order)
{
    auto build = [](migraphx::module& m) {
        auto x  = m.add_parameter("x", shape{shape::float_type, {2, 3, 4}});
        auto y  = m.add_parameter("y", shape{shape::float_type, {2, 3, 4}});
        auto t1 = m.add_instruction(make_op("transpose", {{"permutation", {1, 0, 2}}}), x);
        auto t2 = m.add_instruction(make_op("transpose", {{"permutation", {0, 2, 1}}}), x);
        auto a1 = m.add_instruction(make_op("sub"), x, y);
        auto a2 = m.add_instruction(make_op("sub"), y, x);
        auto a3 = m.add_instruction(make_op("add"), x, y);
        m.add_return({t1, t2, a1, a2, a3});
    };
    migraphx::module m1, m2;
    build(m1);
    build(m2);
    run_cse(m1);
    EXPECT_EQ(m1, m2) << m1;
}

TEST(pass_eliminate_common_subexpression, merges_equal_literals_only)
{
    migraphx::module m1;
    {
        auto x  = m1.add_parameter("x", s23);
        auto l1 = m1.add_literal(migraphx::literal{s23, {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f}});
        auto l2 = m1.add_literal(migraphx::literal{s23, {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f}});
        auto l3 = m1.add_literal(migraphx::literal{s23, {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 7.0f}});
        auto a1 = m1.add_instruction(make_op("add"), x, l1);
        auto a2 = m1.add_instruction(make_op("add"), x, l2);
        auto a3 = m1.add_instruction(make_op("add"), x, l3);
        m1.add_return({a1, a2, a3});
    }
    migraphx::run_passes(m1, {migraphx::eliminate_common_subexpression{}, migraphx::dead_code_elimination{}});
    migraphx::module m2;
    {
        auto x  = m2.add_parameter("x", s23);
        auto l2 = m2.add_literal(migraphx::literal{s23, {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f}});
        auto l3 = m2.add_literal(migraphx::literal{s23, {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 7.0f}});
        auto a1 = m2.add_instruction(make_op("add"), x, l2);
        auto a3 = m2.add_instruction(make_op("add"), x, l3);
        m2.add_return({a1, a1, a3});
    }
    EXPECT_EQ(m1, m2) << m1;
}

TEST(pass_eliminate_common_subexpression, literals_of_other_type_or_shape_stay)
{
    auto build = [](migraphx::module& m) {
        auto a = m.add_literal(migraphx::literal{shape{shape::float_type, {2}}, {1.0f, 2.0f}});
        auto b = m.add_literal(migraphx::literal{shape{shape::int32_type, {2}}, {1, 2}});
        auto c = m.add_literal(migraphx::literal{shape{shape::float_type, {2, 1}}, {1.0f, 2.0f}});
        m.add_return({a, b, c});
    };
    migraphx::module m1, m2;
    build(m1);
    build(m2);
    run_cse(m1);
    EXPECT_EQ(m1, m2) << m1;
}

TEST(pass_eliminate_common_subexpression, never_merges_side_effects)
{
    auto build = [](migraphx::module& m) {
        auto x = m.add_parameter("x", s23);
        auto a = m.add_instruction(cse_test_side_effect{}, x);
        auto b = m.add_instruction(cse_test_side_effect{}, x);
        m.add_return({a, b});
    };
    migraphx::module m1, m2;
    build(m1);
    build(m2);
    run_cse(m1);
    EXPECT_EQ(m1, m2) << m1;
}

TEST(pass_eliminate_common_subexpression, results_are_unchanged)
{
    migraphx::program p1;
    {
        auto* mm = p1.get_main_module();
        auto x   = mm->add_parameter("x", s23);
        auto l1  = mm->add_literal(migraphx::literal{s23, {1.0f, -2.0f, 3.0f, -4.0f, 5.0f, -6.0f}});
        auto l2  = mm->add_literal(migraphx::literal{s23, {1.0f, -2.0f, 3.0f, -4.0f, 5.0f, -6.0f}});
        auto a1  = mm->add_instruction(make_op("add"), x, l1);
        auto a2  = mm->add_instruction(make_op("add"), x, l2);
        auto e1  = mm->add_instruction(make_op("relu"), a1);
        auto e2  = mm->add_instruction(make_op("relu"), a2);
        auto r   = mm->add_instruction(make_op("sub"), e1, a2);
        auto q   = mm->add_instruction(make_op("mul"), r, e2);
        mm->add_return({q});
    }
    migraphx::program p2 = p1;
    migraphx::run_passes(*p2.get_main_module(),
                         {migraphx::eliminate_common_subexpression{}, migraphx::dead_code_elimination{}});
    EXPECT_EQ(p2.get_main_module()->size(), 7);
    std::vector<float> xv = {0.5f, 0.5f, -4.0f, 5.0f, 0.0f, 7.0f};
    migraphx::parameter_map params{{"x", migraphx::argument{s23, xv.data()}}};
    EXPECT_EQ(p1.eval(params).back().to_vector<float>(), p2.eval(params).back().to_vector<float>());
}
