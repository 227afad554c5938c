#include <migraphx/make_op.hpp>
#include <migraphx/module.hpp>
#include <migraphx/program.hpp>
#include <gtest/gtest.h>
#include <numeric>
#include "passes/eliminate_contiguous.hpp"
#include "passes/pass_manager.hpp"

using migraphx::make_op;
using migraphx::shape;

namespace {

void run_ec(migraphx::module& m) { migraphx::run_passes(m, {migraphx::eliminate_contiguous{}}); }

const shape s234{shape::float_type, {2, 3, 4}};

migraphx::operation transpose(std::vector<std::int64_t> perm)
{
    return make_op("transpose", {{"permutation", perm}});
}

void expect_same_results(const std::function<void(migraphx::module&)>& build)
{
    migraphx::program p1;
    build(*p1.get_main_module());
    migraphx::program p2 = p1;
    run_ec(*p2.get_main_module());
    std::vector<float> xv(s234.elements());
    std::iota(xv.begin(), xv.end(), -5.0f);
    migraphx::parameter_map params{{"x", migraphx::argument{s234, xv.data()}}};
    auto r1 = p1.eval(params);
    auto r2 = p2.eval(params);
    ASSERT_EQ(r1.size(), r2.size());
    for(std::size_t i = 0; i < r1.size(); i++)
    {
        EXPECT_EQ(r1[i].get_shape(), r2[i].get_shape());
        EXPECT_EQ(r1[i].to_vector<float>(), r2[i].to_vector<float>());
    }
}

} // namespace

TEST(pass_eliminate_contiguous, pointwise_reads_the_view_directly)
{
    auto build = [](migraphx::module& m) {
        auto x = m.add_parameter("x", s234);
        auto t = m.add_instruction(transpose({2, 0, 1}), x);
        auto c = m.add_instruction(make_op("contiguous"), t);
        auto r = m.add_instruction(make_op("relu"), c);
        m.add_return({r});
    };
    migraphx::module m1;
    build(m1);
    run_ec(m1);
    migraphx::module m2;
    {
        auto x = m2.add_parameter("x", s234);
        auto t = m2.add_instruction(transpose({2, 0, 1}), x);
        auto r = m2.add_instruction(make_op("relu"), t);
        m2.add_return({r});
    }
    EXPECT_EQ(m1, m2) << m1;
    expect_same_results(build);
}

TEST(pass_eliminate_contiguous, kept_where_the_consumer_needs_standard_input)
{
    auto build = [](migraphx::module& m) {
        auto x = m.add_parameter("x", s234);
        auto t = m.add_instruction(transpose({2, 0, 1}), x);
        auto c = m.add_instruction(make_op("contiguous"), t);
        auto f = m.add_instruction(make_op("flatten", {{"axis", 1}}), c);
        m.add_return({f});
    };
    migraphx::module m1, m2;
    build(m1);
    build(m2);
    run_ec(m1);
    EXPECT_EQ(m1, m2) << m1;
}

TEST(pass_eliminate_contiguous, kept_for_return_and_for_downstream_users)
{
    // The contiguous feeds @return (kept) and relu (rewired). An unsqueeze of it would change
    // layout, and the flatten after it needs standard input: that use is kept.
    auto build = [](migraphx::module& m) {
        auto x  = m.add_parameter("x", s234);
        auto t  = m.add_instruction(transpose({1, 0, 2}), x);
        auto c  = m.add_instruction(make_op("contiguous"), t);
        auto r  = m.add_instruction(make_op("relu"), c);
        auto u  = m.add_instruction(make_op("unsqueeze", {{"axes", {0}}}), c);
        auto f  = m.add_instruction(make_op("flatten", {{"axis", 1}}), u);
        m.add_return({c, r, f});
    };
    migraphx::module m1;
    build(m1);
    run_ec(m1);
    migraphx::module m2;
    {
        auto x  = m2.add_parameter("x", s234);
        auto t  = m2.add_instruction(transpose({1, 0, 2}), x);
        auto c  = m2.add_instruction(make_op("contiguous"), t);
        auto r  = m2.add_instruction(make_op("relu"), t);
        auto u  = m2.add_instruction(make_op("unsqueeze", {{"axes", {0}}}), c);
        auto f  = m2.add_instruction(make_op("flatten", {{"axis", 1}}), u);
        m2.add_return({c, r, f});
    }
    EXPECT_EQ(m1, m2) << m1;
    expect_same_results(build);
}

TEST(pass_eliminate_contiguous, view_consumer_whose_users_accept_the_new_layout)
{
    auto build = [](migraphx::module& m) {
        auto x  = m.add_parameter("x", s234);
        auto t  = m.add_instruction(transpose({1, 0, 2}), x);
        auto c  = m.add_instruction(make_op("contiguous"), t);
        auto t2 = m.add_instruction(transpose({0, 2, 1}), c);
        auto y  = m.add_instruction(make_op("exp"), t2);
        m.add_return({y});
    };
    migraphx::module m1;
    build(m1);
    run_ec(m1);
    migraphx::module m2;
    {
        auto x  = m2.add_parameter("x", s234);
        auto t  = m2.add_instruction(transpose({1, 0, 2}), x);
        auto t2 = m2.add_instruction(transpose({0, 2, 1}), t);
        auto y  = m2.add_instruction(make_op("exp"), t2);
        m2.add_return({y});
    }
    EXPECT_EQ(m1, m2) << m1;
    expect_same_results(build);
}

TEST(pass_eliminate_contiguous, binary_op_with_broadcast_input)
{
    auto build = [](migraphx::module& m) {
        auto x = m.add_parameter("x", s234);
        auto l = m.add_literal(migraphx::literal{shape{shape::float_type, {4}}, {1.0f, 2.0f, 3.0f, 4.0f}});
        auto b = m.add_instruction(make_op("multibroadcast", {{"out_lens", {2, 3, 4}}}), l);
        auto c = m.add_instruction(make_op("contiguous"), b);
        auto a = m.add_instruction(make_op("mul"), x, c);
        m.add_return({a});
    };
    migraphx::module m1;
    build(m1);
    run_ec(m1);
    migraphx::module m2;
    {
        auto x = m2.add_parameter("x", s234);
        auto l = m2.add_literal(migraphx::literal{shape{shape::float_type, {4}}, {1.0f, 2.0f, 3.0f, 4.0f}});
        auto b = m2.add_instruction(make_op("multibroadcast", {{"out_lens", {2, 3, 4}}}), l);
        auto a = m2.add_instruction(make_op("mul"), x, b);
        m2.add_return({a});
    }
    EXPECT_EQ(m1, m2) << m1;
    expect_same_results(build);
}
