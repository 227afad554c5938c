#include <migraphx/make_op.hpp>
#include <migraphx/module.hpp>
#include <migraphx/program.hpp>
#include <gtest/gtest.h>
#include <numeric>
#include "passes/dead_code_elimination.hpp"
#include "passes/pass_manager.hpp"
#include "passes/simplify_reshapes.hpp"

using migraphx::make_op;
using migraphx::shape;

namespace {

void run_simplify(migraphx::module& m)
{
    migraphx::run_passes(m, {migraphx::simplify_reshapes{}, migraphx::dead_code_elimination{}});
}

const shape s234{shape::float_type, {2, 3, 4}};

migraphx::operation transpose(std::vector<std::int64_t> perm)
{
    return make_op("transpose", {{"permutation", perm}});
}
migraphx::operation reshape(std::vector<std::int64_t> dims) { return make_op("reshape", {{"dims", dims}}); }

std::vector<float> iota_values(std::size_t n)
{
    std::vector<float> v(n);
    std::iota(v.begin(), v.end(), 0.0f);
    return v;
}

// Evaluates a one-input program before and after the pass and compares the outputs.
void expect_same_results(const std::function<void(migraphx::module&)>& build, const shape& in)
{
    migraphx::program p1;
    build(*p1.get_main_module());
    migraphx::program p2 = p1;
    run_simplify(*p2.get_main_module());
    auto xv = iota_values(in.elements());
    migraphx::parameter_map params{{"x", migraphx::argument{in, xv.data()}}};
    auto r1 = p1.eval(params);
    auto r2 = p2.eval(params);
    ASSERT_EQ(r1.size(), r2.size());
    for(std::size_t i = 0; i < r1.size(); i++)
    {
        EXPECT_EQ(r1[i].get_shape().lens(), r2[i].get_shape().lens());
        EXPECT_EQ(r1[i].to_vector<float>(), r2[i].to_vector<float>());
    }
}

} // namespace

TEST(pass_simplify_reshapes, cancelling_transposes_are_removed)
{
    auto build = [](migraphx::module& m) {
        auto x  = m.add_parameter("x", s234);
        auto t1 = m.add_instruction(transpose({1, 2, 0}), x);
        auto t2 = m.add_instruction(transpose({2, 0, 1}), t1);
        auto r  = m.add_instruction(make_op("relu"), t2);
        m.add_return({r});
    };
    migraphx::module m1;
    build(m1);
    run_simplify(m1);
    migraphx::module m2;
    {
        auto x = m2.add_parameter("x", s234);
        auto r = m2.add_instruction(make_op("relu"), x);
        m2.add_return({r});
    }
    EXPECT_EQ(m1, m2) << m1;
    expect_same_results(build, s234);
}

TEST(pass_simplify_reshapes, transposes_compose_into_one)
{
    auto build = [](migraphx::module& m) {
        auto x  = m.add_parameter("x", s234);
        auto t1 = m.add_instruction(transpose({1, 0, 2}), x);
        auto t2 = m.add_instruction(transpose({0, 2, 1}), t1);
        auto t3 = m.add_instruction(transpose({2, 1, 0}), t2);
        auto r  = m.add_instruction(make_op("contiguous"), t3);
        m.add_return({r});
    };
    migraphx::module m1;
    build(m1);
    run_simplify(m1);
    // {1,0,2} then {0,2,1} is {1,2,0}; then {2,1,0} gives {0,2,1}.
    migraphx::module m2;
    {
        auto x = m2.add_parameter("x", s234);
        auto t = m2.add_instruction(transpose({0, 2, 1}), x);
        auto r = m2.add_instruction(make_op("contiguous"), t);
        m2.add_return({r});
    }
    EXPECT_EQ(m1, m2) << m1;
    expect_same_results(build, s234);
}

TEST(pass_simplify_reshapes, identity_transpose_is_removed)
{
    migraphx::module m1;
    {
        auto x = m1.add_parameter("x", s234);
        auto t = m1.add_instruction(transpose({0, 1, 2}), x);
        m1.add_return({t});
    }
    run_simplify(m1);
    migraphx::module m2;
    {
        auto x = m2.add_parameter("x", s234);
        m2.add_return({x});
    }
    EXPECT_EQ(m1, m2) << m1;
}

TEST(pass_simplify_reshapes, reshape_chain_becomes_one_reshape)
{
    auto build = [](migraphx::module& m) {
        auto x  = m.add_parameter("x", s234);
        auto r1 = m.add_instruction(reshape({6, 4}), x);
        auto r2 = m.add_instruction(reshape({2, 0, -1}), r1);
        auto u  = m.add_instruction(make_op("unsqueeze", {{"axes", {0}}}), r2);
        auto f  = m.add_instruction(make_op("flatten", {{"axis", 2}}), u);
        m.add_return({f});
    };
    migraphx::module m1;
    build(m1);
    run_simplify(m1);
    migraphx::module m2;
    {
        auto x = m2.add_parameter("x", s234);
        auto r = m2.add_instruction(reshape({2, 12}), x);
        m2.add_return({r});
    }
    EXPECT_EQ(m1, m2) << m1;
    expect_same_results(build, s234);
}

TEST(pass_simplify_reshapes, reshape_back_to_the_same_shape_is_removed)
{
    auto build = [](migraphx::module& m) {
        auto x = m.add_parameter("x", s234);
        auto s = m.add_instruction(reshape({24}), x);
        auto r = m.add_instruction(reshape({2, 3, 4}), s);
        auto q = m.add_instruction(make_op("squeeze"), r);     // nothing to squeeze
        auto f = m.add_instruction(make_op("neg"), q);
        m.add_return({f});
    };
    migraphx::module m1;
    build(m1);
    run_simplify(m1);
    migraphx::module m2;
    {
        auto x = m2.add_parameter("x", s234);
        auto f = m2.add_instruction(make_op("neg"), x);
        m2.add_return({f});
    }
    EXPECT_EQ(m1, m2) << m1;
    expect_same_results(build, s234);
}

TEST(pass_simplify_reshapes, reshape_of_a_transposed_input_is_still_merged)
{
    auto build = [](migraphx::module& m) {
        auto x  = m.add_parameter("x", s234);
        auto t  = m.add_instruction(transpose({2, 0, 1}), x);
        auto r1 = m.add_instruction(reshape({4, 6}), t);
        auto r2 = m.add_instruction(reshape({24}), r1);
        m.add_return({r2});
    };
    migraphx::module m1;
    build(m1);
    run_simplify(m1);
    migraphx::module m2;
    {
        auto x = m2.add_parameter("x", s234);
        auto t = m2.add_instruction(transpose({2, 0, 1}), x);
        auto r = m2.add_instruction(reshape({24}), t);
        m2.add_return({r});
    }
    EXPECT_EQ(m1, m2) << m1;
    expect_same_results(build, s234);
}

TEST(pass_simplify_reshapes, views_of_a_transposed_input_are_kept)
{
    // squeeze/unsqueeze keep strides: over a transposed input they are not a reshape.
    auto build = [](migraphx::module& m) {
        auto x = m.add_parameter("x", shape{shape::float_type, {2, 1, 3}});
        auto t = m.add_instruction(transpose({2, 1, 0}), x);
        auto q = m.add_instruction(make_op("squeeze", {{"axes", {1}}}), t);
        auto u = m.add_instruction(make_op("unsqueeze", {{"axes", {0}}}), q);
        m.add_return({u});
    };
    migraphx::module m1, m2;
    build(m1);
    build(m2);
    run_simplify(m1);
    EXPECT_EQ(m1, m2) << m1;
}

TEST(pass_simplify_reshapes, contiguous_of_standard_and_identity_are_removed)
{
    auto build = [](migraphx::module& m) {
        auto x  = m.add_parameter("x", s234);
        auto t  = m.add_instruction(transpose({1, 0, 2}), x);
        auto c1 = m.add_instruction(make_op("contiguous"), t);
        auto c2 = m.add_instruction(make_op("contiguous"), c1);
        auto i  = m.add_instruction(make_op("identity"), c2);
        auto c3 = m.add_instruction(make_op("contiguous"), x);
        auto a  = m.add_instruction(make_op("relu"), c3);
        m.add_return({i, a});
    };
    migraphx::module m1;
    build(m1);
    run_simplify(m1);
    migraphx::module m2;
    {
        auto x  = m2.add_parameter("x", s234);
        auto t  = m2.add_instruction(transpose({1, 0, 2}), x);
        auto c1 = m2.add_instruction(make_op("contiguous"), t);
        auto a  = m2.add_instruction(make_op("relu"), x);
        m2.add_return({c1, a});
    }
    EXPECT_EQ(m1, m2) << m1;
    expect_same_results(build, s234);
}

TEST(pass_simplify_reshapes, multibroadcast_to_the_same_shape_is_removed)
{
    migraphx::module m1;
    {
        auto x = m1.add_parameter("x", s234);
        auto b = m1.add_instruction(make_op("multibroadcast", {{"out_lens", {2, 3, 4}}}), x);
        auto y = m1.add_parameter("y", shape{shape::float_type, {3, 4}});
        auto c = m1.add_instruction(make_op("multibroadcast", {{"out_lens", {2, 3, 4}}}), y);
        auto a = m1.add_instruction(make_op("add"), b, c);
        m1.add_return({a});
    }
    run_simplify(m1);
    migraphx::module m2;
    {
        auto x = m2.add_parameter("x", s234);
        auto y = m2.add_parameter("y", shape{shape::float_type, {3, 4}});
        auto c = m2.add_instruction(make_op("multibroadcast", {{"out_lens", {2, 3, 4}}}), y);
        auto a = m2.add_instruction(make_op("add"), x, c);
        m2.add_return({a});
    }
    EXPECT_EQ(m1, m2) << m1;
}

namespace {
migraphx::operation slice(std::vector<std::int64_t> axes, std::vector<std::int64_t> starts, std::vector<std::int64_t> ends)
{
    return make_op("slice", {{"axes", axes}, {"starts", starts}, {"ends", ends}});
}
const shape s2_3_12{shape::float_type, {2, 3, 12}};
} // namespace

TEST(pass_simplify_reshapes, reshape_of_a_slice_splitting_dims_becomes_views)
{
    // A fused Q/K/V projection [B, S, 3D] split into heads: the middle third, as [B, S, H, D/H].
    for(bool with_contiguous : {false, true})
    {
        auto build = [&](migraphx::module& m) {
            auto x  = m.add_parameter("x", s2_3_12);
            auto sl = m.add_instruction(slice({2}, {4}, {8}), x);
            auto in = with_contiguous ? m.add_instruction(make_op("contiguous"), sl) : sl;
            m.add_return({m.add_instruction(reshape({2, 3, 2, 2}), in)});
        };
        migraphx::module m1;
        build(m1);
        run_simplify(m1);
        migraphx::module m2;
        {
            auto x = m2.add_parameter("x", s2_3_12);
            auto r = m2.add_instruction(reshape({2, 3, 6, 2}), x);
            m2.add_return({m2.add_instruction(slice({2}, {2}, {4}), r)});
        }
        EXPECT_EQ(m1, m2) << m1;
        auto out = std::prev(m1.end())->inputs().front()->get_shape();
        EXPECT_EQ(out.lens(), (std::vector<std::size_t>{2, 3, 2, 2}));
        EXPECT_FALSE(out.standard()) << "a view of x, no copy";
        expect_same_results(build, s2_3_12);
    }
}

TEST(pass_simplify_reshapes, reshape_of_a_slice_on_other_axes_and_negative_bounds)
{
    // Slices on two axes (one with negative bounds), a split of an unsliced axis, a trailing 1.
    shape s{shape::float_type, {4, 6, 8}};
    auto build = [&](migraphx::module& m) {
        auto x  = m.add_parameter("x", s);
        auto sl = m.add_instruction(slice({0, -1}, {1, -4}, {3, 8}), x); // [2, 6, 4]
        m.add_return({m.add_instruction(reshape({2, 2, 3, 2, 2, 1}), sl)});
    };
    migraphx::module m1;
    build(m1);
    run_simplify(m1);
    EXPECT_EQ(m1.begin()->name(), "@param");
    EXPECT_EQ(std::next(m1.begin())->name(), "reshape");
    EXPECT_EQ(std::next(m1.begin(), 2)->name(), "slice");
    expect_same_results(build, s);
}

TEST(pass_simplify_reshapes, reshape_of_a_slice_is_kept_where_views_cannot_express_it)
{
    auto kept = [](const shape& s, const migraphx::operation& sl, std::vector<std::int64_t> dims) {
        auto build = [&](migraphx::module& m) {
            auto x = m.add_parameter("x", s);
            m.add_return({m.add_instruction(reshape(dims), m.add_instruction(sl, x))});
        };
        migraphx::module m1, before;
        build(m1);
        build(before);
        run_simplify(m1);
        EXPECT_EQ(m1, before) << m1;
        expect_same_results(build, s);
    };
    kept(s2_3_12, slice({2}, {3}, {7}), {2, 3, 2, 2}); // start 3 is not a multiple of the inner factor 2
    kept(s2_3_12, slice({2}, {4}, {8}), {2, 12});      // merges dims
    kept(shape{shape::float_type, {2, 3, 9}}, slice({2}, {2}, {6}), {2, 3, 2, 2}); // 9 does not split by 2
    // A transposed (non-standard) source: its reshape would not be a view.
    shape t{shape::float_type, {2, 12, 3}, {36, 1, 12}};
    kept(t, slice({1}, {4}, {8}), {2, 2, 2, 3});
}

// A slice that keeps every element (an unrolled recurrence's step t of a length-1 axis, sliced
// again at [0, 1)) is removed; one that drops elements stays.
TEST(pass_simplify_reshapes, slice_keeping_every_element_is_removed)
{
    migraphx::module m1;
    {
        auto x  = m1.add_parameter("x", s2_3_12);
        auto t  = m1.add_instruction(slice({0}, {1}, {2}), x);      // {1, 3, 12}
        auto t0 = m1.add_instruction(slice({0, 2}, {0, 0}, {1, 12}), t); // every element of t
        auto g  = m1.add_instruction(slice({2}, {4}, {8}), t0);     // a real slice
        m1.add_return({g});
    }
    run_simplify(m1);
    migraphx::module m2;
    {
        auto x = m2.add_parameter("x", s2_3_12);
        auto t = m2.add_instruction(slice({0}, {1}, {2}), x);
        auto g = m2.add_instruction(slice({2}, {4}, {8}), t);
        m2.add_return({g});
    }
    EXPECT_EQ(m1, m2) << m1;
}
