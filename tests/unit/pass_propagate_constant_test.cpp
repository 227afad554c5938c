#include <migraphx/make_op.hpp>
#include <migraphx/module.hpp>
#include <migraphx/program.hpp>
#include <gtest/gtest.h>
#include "passes/dead_code_elimination.hpp"
#include "passes/pass_manager.hpp"
#include "passes/propagate_constant.hpp"

using migraphx::literal;
using migraphx::make_op;
using migraphx::shape;

namespace {

void run_fold(migraphx::module& m)
{
    migraphx::run_passes(m, {migraphx::propagate_constant{}, migraphx::dead_code_elimination{}});
}

struct fold_test_side_effect
{
    std::string name() const { return "fold_test_side_effect"; }
    migraphx::value attributes() const { return {{"side_effects", true}}; }
    shape compute_shape(const std::vector<shape>& inputs) const { return inputs.front(); }
    migraphx::argument compute(const shape&, const std::vector<migraphx::argument>& args) const
    {
        return args.front();
    }
};

const shape s3{shape::float_type, {3}};
const shape s23{shape::float_type, {2, 3}};

} // namespace

TEST(pass_propagate_constant, folds_an_op_of_literals)
{
    migraphx::module m1;
    {
        auto x  = m1.add_parameter("x", s3);
        auto l1 = m1.add_literal(literal{s3, {1.0f, 2.0f, 3.0f}});
        auto l2 = m1.add_literal(literal{s3, {10.0f, 20.0f, 30.0f}});
        auto c  = m1.add_instruction(make_op("add"), l1, l2);
        auto r  = m1.add_instruction(make_op("mul"), x, c);
        m1.add_return({r});
    }
    run_fold(m1);
    migraphx::module m2;
    {
        auto x = m2.add_parameter("x", s3);
        auto c = m2.add_literal(literal{s3, {11.0f, 22.0f, 33.0f}});
        auto r = m2.add_instruction(make_op("mul"), x, c);
        m2.add_return({r});
    }
    EXPECT_EQ(m1, m2) << m1;
}

TEST(pass_propagate_constant, folds_a_chain_into_one_literal)
{
    migraphx::module m1;
    {
        auto x  = m1.add_parameter("x", s3);
        auto l1 = m1.add_literal(literal{s3, {1.0f, -2.0f, 3.0f}});
        auto l2 = m1.add_literal(literal{s3, {2.0f, 1.0f, 1.0f}});
        auto a  = m1.add_instruction(make_op("sub"), l1, l2);
        auto b  = m1.add_instruction(make_op("neg"), a);
        auto c  = m1.add_instruction(make_op("relu"), b);
        auto r  = m1.add_instruction(make_op("add"), x, c);
        m1.add_return({r});
    }
    run_fold(m1);
    migraphx::module m2;
    {
        auto x = m2.add_parameter("x", s3);
        auto c = m2.add_literal(literal{s3, {1.0f, 3.0f, 0.0f}});
        auto r = m2.add_instruction(make_op("add"), x, c);
        m2.add_return({r});
    }
    EXPECT_EQ(m1, m2) << m1;
}

TEST(pass_propagate_constant, keeps_a_broadcast_literal_as_a_view)
{
    auto build = [](migraphx::module& m) {
        auto x = m.add_parameter("x", s23);
        auto l = m.add_literal(literal{s3, {1.0f, 2.0f, 3.0f}});
        auto b = m.add_instruction(make_op("multibroadcast", {{"out_lens", {2, 3}}}), l);
        auto c = m.add_instruction(make_op("contiguous"), b);
        auto r = m.add_instruction(make_op("add"), x, b);
        m.add_return({r, c});
    };
    migraphx::module m1, m2;
    build(m1);
    build(m2);
    run_fold(m1);
    EXPECT_EQ(m1, m2) << m1;
}

TEST(pass_propagate_constant, folds_a_non_view_op_of_broadcasts)
{
    migraphx::module m1;
    {
        auto x  = m1.add_parameter("x", s23);
        auto l1 = m1.add_literal(literal{s3, {1.0f, 2.0f, 3.0f}});
        auto l2 = m1.add_literal(literal{shape{shape::float_type, {2, 1}}, {10.0f, 20.0f}});
        auto b1 = m1.add_instruction(make_op("multibroadcast", {{"out_lens", {2, 3}}}), l1);
        auto b2 = m1.add_instruction(make_op("multibroadcast", {{"out_lens", {2, 3}}}), l2);
        auto c  = m1.add_instruction(make_op("add"), b1, b2);
        auto r  = m1.add_instruction(make_op("mul"), x, c);
        m1.add_return({r});
    }
    run_fold(m1);
    migraphx::module m2;
    {
        auto x = m2.add_parameter("x", s23);
        auto c = m2.add_literal(literal{s23, {11.0f, 12.0f, 13.0f, 21.0f, 22.0f, 23.0f}});
        auto r = m2.add_instruction(make_op("mul"), x, c);
        m2.add_return({r});
    }
    EXPECT_EQ(m1, m2) << m1;
}

TEST(pass_propagate_constant, folds_a_transposed_literal_keeping_its_layout)
{
    migraphx::module m1;
    {
        auto x = m1.add_parameter("x", shape{shape::float_type, {3, 2}});
        auto l = m1.add_literal(literal{s23, {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f}});
        auto t = m1.add_instruction(make_op("transpose", {{"permutation", {1, 0}}}), l);
        auto c = m1.add_instruction(make_op("contiguous"), t);
        auto a = m1.add_instruction(make_op("add"), x, t);
        m1.add_return({a, c});
    }
    run_fold(m1);
    migraphx::module m2;
    {
        auto x  = m2.add_parameter("x", shape{shape::float_type, {3, 2}});
        // Values are given in logical order, whatever the strides.
        auto lt = m2.add_literal(
            literal{shape{shape::float_type, {3, 2}, {1, 3}}, {1.0f, 4.0f, 2.0f, 5.0f, 3.0f, 6.0f}});
        auto lc = m2.add_literal(literal{shape{shape::float_type, {3, 2}}, {1.0f, 4.0f, 2.0f, 5.0f, 3.0f, 6.0f}});
        auto a  = m2.add_instruction(make_op("add"), x, lt);
        m2.add_return({a, lc});
    }
    EXPECT_EQ(m1, m2) << m1;
    auto ret = std::prev(m1.end());
    EXPECT_EQ(ret->inputs()[1]->get_literal().to_vector<float>(),
              (std::vector<float>{1.0f, 4.0f, 2.0f, 5.0f, 3.0f, 6.0f}));
}

TEST(pass_propagate_constant, leaves_parameters_and_side_effects)
{
    auto build = [](migraphx::module& m) {
        auto x = m.add_parameter("x", s3);
        auto l = m.add_literal(literal{s3, {1.0f, 2.0f, 3.0f}});
        auto e = m.add_instruction(fold_test_side_effect{}, l);
        auto a = m.add_instruction(make_op("add"), x, l);
        auto n = m.add_instruction(make_op("neg"), a);
        m.add_return({n, e});
    };
    migraphx::module m1, m2;
    build(m1);
    build(m2);
    run_fold(m1);
    EXPECT_EQ(m1, m2) << m1;
}

TEST(pass_propagate_constant, folds_the_output_of_a_module_without_return)
{
    migraphx::module m1;
    {
        auto l = m1.add_literal(literal{s3, {1.0f, -2.0f, 3.0f}});
        m1.add_instruction(make_op("abs"), l);
    }
    run_fold(m1);
    migraphx::module m2;
    m2.add_literal(literal{s3, {1.0f, 2.0f, 3.0f}});
    EXPECT_EQ(m1, m2) << m1;
}

TEST(pass_propagate_constant, integer_and_shape_changing_ops)
{
    migraphx::module m1;
    {
        shape si{shape::int32_type, {2, 2}};
        auto x = m1.add_parameter("x", shape{shape::int32_type, {2}});
        auto l = m1.add_literal(literal{si, {1, 2, 3, 4}});
        auto s = m1.add_instruction(make_op("reduce_sum", {{"axes", {0}}}), l);
        auto q = m1.add_instruction(make_op("squeeze", {{"axes", {0}}}), s);
        auto r = m1.add_instruction(make_op("add"), x, q);
        m1.add_return({r});
    }
    run_fold(m1);
    migraphx::module m2;
    {
        auto x = m2.add_parameter("x", shape{shape::int32_type, {2}});
        auto c = m2.add_literal(literal{shape{shape::int32_type, {2}}, {4, 6}});
        auto r = m2.add_instruction(make_op("add"), x, c);
        m2.add_return({r});
    }
    EXPECT_EQ(m1, m2) << m1;
}

TEST(pass_propagate_constant, results_are_unchanged)
{
    migraphx::program p1;
    {
        auto* mm = p1.get_main_module();
        auto x   = mm->add_parameter("x", s23);
        auto w   = mm->add_literal(literal{shape{shape::float_type, {3, 3}},
                                         {1.0f, 0.5f, -1.0f, 2.0f, 0.0f, 1.0f, -0.5f, 1.5f, 3.0f}});
        auto b   = mm->add_literal(literal{s3, {0.25f, -0.5f, 1.0f}});
        auto wt  = mm->add_instruction(make_op("transpose", {{"permutation", {1, 0}}}), w);
        auto ws  = mm->add_instruction(make_op("mul"), wt, wt);
        auto bb  = mm->add_instruction(make_op("multibroadcast", {{"out_lens", {2, 3}}}), b);
        auto be  = mm->add_instruction(make_op("exp"), bb);
        auto d   = mm->add_instruction(make_op("dot"), x, ws);
        auto r   = mm->add_instruction(make_op("add"), d, be);
        mm->add_return({r});
    }
    migraphx::program p2 = p1;
    run_fold(*p2.get_main_module());
    for(auto& ins : *p2.get_main_module())
        EXPECT_NE(ins.name(), "exp");
    std::vector<float> xv = {0.5f, 0.5f, -4.0f, 5.0f, 0.0f, 7.0f};
    migraphx::parameter_map params{{"x", migraphx::argument{s23, xv.data()}}};
    auto r1 = p1.eval(params).back().to_vector<float>();
    auto r2 = p2.eval(params).back().to_vector<float>();
    ASSERT_EQ(r1.size(), r2.size());
    for(std::size_t i = 0; i < r1.size(); i++)
        EXPECT_FLOAT_EQ(r1[i], r2[i]);
}
