#include <migraphx/make_op.hpp>
#include <migraphx/module.hpp>
#include <migraphx/program.hpp>
#include <gtest/gtest.h>
#include "passes/dead_code_elimination.hpp"
#include "passes/pass_manager.hpp"

using migraphx::make_op;
using migraphx::shape;

namespace {

void run_dce(migraphx::module& m) { migraphx::run_passes(m, {migraphx::dead_code_elimination{}}); }

// An op that must run even when nobody reads its result (like a print or a store).
struct dce_test_side_effect
{
    std::string name() const { return "dce_test_side_effect"; }
    migraphx::value attributes() const { return {{"side_effects", true}}; }
    shape compute_shape(const std::vector<shape>& inputs) const { return inputs.front(); }
    migraphx::argument compute(const shape&, const std::vector<migraphx::argument>& args) const
    {
        return args.front();
    }
};

const shape s23{shape::float_type, {2, 3}};

} // namespace

TEST(pass_dead_code_elimination, removes_unused_chains)
{
    migraphx::module m1;
    {
        auto x = m1.add_parameter("x", s23);
        auto r = m1.add_instruction(make_op("relu"), x);
        auto a = m1.add_instruction(make_op("neg"), x); // dead chain: neg -> abs -> exp
        auto b = m1.add_instruction(make_op("abs"), a);
        m1.add_instruction(make_op("exp"), b);
        m1.add_return({r});
    }
    run_dce(m1);
    migraphx::module m2;
    {
        auto x = m2.add_parameter("x", s23);
        auto r = m2.add_instruction(make_op("relu"), x);
        m2.add_return({r});
    }
    EXPECT_EQ(m1, m2) << m1;
}

TEST(pass_dead_code_elimination, removes_unused_literals_but_keeps_parameters)
{
    migraphx::module m1;
    {
        auto x = m1.add_parameter("x", s23);
        m1.add_parameter("unused", s23);
        m1.add_literal(migraphx::literal{shape{shape::float_type, {2}}, {1.0f, 2.0f}});
        auto l = m1.add_literal(migraphx::literal{s23, {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f}});
        auto a = m1.add_instruction(make_op("add"), x, l);
        m1.add_return({a});
    }
    run_dce(m1);
    migraphx::module m2;
    {
        auto x = m2.add_parameter("x", s23);
        m2.add_parameter("unused", s23);
        auto l = m2.add_literal(migraphx::literal{s23, {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f}});
        auto a = m2.add_instruction(make_op("add"), x, l);
        m2.add_return({a});
    }
    EXPECT_EQ(m1, m2) << m1;
}

TEST(pass_dead_code_elimination, keeps_the_last_instruction_without_return)
{
    migraphx::module m1;
    {
        auto x = m1.add_parameter("x", s23);
        m1.add_instruction(make_op("neg"), x);
        auto r = m1.add_instruction(make_op("relu"), x);
        m1.add_instruction(make_op("abs"), r); // unused, but the module's output
    }
    run_dce(m1);
    migraphx::module m2;
    {
        auto x = m2.add_parameter("x", s23);
        auto r = m2.add_instruction(make_op("relu"), x);
        m2.add_instruction(make_op("abs"), r);
    }
    EXPECT_EQ(m1, m2) << m1;
}

TEST(pass_dead_code_elimination, keeps_side_effects_and_their_inputs)
{
    migraphx::module m1;
    {
        auto x = m1.add_parameter("x", s23);
        auto n = m1.add_instruction(make_op("neg"), x);
        m1.add_instruction(dce_test_side_effect{}, n);
        m1.add_instruction(make_op("abs"), x);
        auto r = m1.add_instruction(make_op("relu"), x);
        m1.add_return({r});
    }
    run_dce(m1);
    migraphx::module m2;
    {
        auto x = m2.add_parameter("x", s23);
        auto n = m2.add_instruction(make_op("neg"), x);
        m2.add_instruction(dce_test_side_effect{}, n);
        auto r = m2.add_instruction(make_op("relu"), x);
        m2.add_return({r});
    }
    EXPECT_EQ(m1, m2) << m1;
}

TEST(pass_dead_code_elimination, nothing_to_remove_leaves_module_unchanged)
{
    auto build = [](migraphx::module& m) {
        auto x = m.add_parameter("x", s23);
        auto y = m.add_parameter("y", s23);
        auto a = m.add_instruction(make_op("add"), x, y);
        auto b = m.add_instruction(make_op("mul"), a, y);
        m.add_return({a, b});
    };
    migraphx::module m1, m2;
    build(m1);
    build(m2);
    run_dce(m1);
    EXPECT_EQ(m1, m2) << m1;
    migraphx::module empty;
    EXPECT_NO_THROW(run_dce(empty));
    EXPECT_TRUE(empty.empty());
}

TEST(pass_dead_code_elimination, results_are_unchanged)
{
    migraphx::program p1;
    {
        auto* mm = p1.get_main_module();
        auto x   = mm->add_parameter("x", s23);
        auto l   = mm->add_literal(migraphx::literal{s23, {1.0f, -2.0f, 3.0f, -4.0f, 5.0f, -6.0f}});
        mm->add_instruction(make_op("exp"), l);
        auto a = mm->add_instruction(make_op("add"), x, l);
        mm->add_instruction(make_op("neg"), a);
        auto r = mm->add_instruction(make_op("relu"), a);
        mm->add_return({r});
    }
    migraphx::program p2 = p1;
    run_dce(*p2.get_main_module());
    EXPECT_EQ(p2.get_main_module()->size(), 5);
    std::vector<float> xv = {0.5f, 0.5f, -4.0f, 5.0f, 0.0f, 7.0f};
    migraphx::parameter_map params{{"x", migraphx::argument{s23, xv.data()}}};
    auto r1 = p1.eval(params).back().to_vector<float>();
    auto r2 = p2.eval(params).back().to_vector<float>();
    EXPECT_EQ(r1, r2);
    EXPECT_EQ(r2, (std::vector<float>{1.5f, 0.0f, 0.0f, 1.0f, 5.0f, 1.0f}));
}
