#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/ref/target.hpp>
#include <gtest/gtest.h>
#include <limits>
#include <numeric>
#include <sstream>

namespace {
using migraphx::shape;
using ivec = std::vector<std::int64_t>;
using lvec = std::vector<std::size_t>;

migraphx::operation make_slice(ivec axes, ivec starts, ivec ends)
{
    return migraphx::make_op("slice", {{"axes", axes}, {"starts", starts}, {"ends", ends}});
}
std::vector<float> iota(std::size_t n)
{
    std::vector<float> v(n);
    std::iota(v.begin(), v.end(), 0.0f);
    return v;
}
} // namespace

TEST(ops_slice, spec_example_shape_and_view)
{
    auto op = make_slice({2, 3}, {0, 2}, {4, 5});
    std::ostringstream ss;
    ss << op;
    EXPECT_EQ(ss.str(), "slice[axes={2, 3},starts={0, 2},ends={4, 5}]");
    auto x = iota(24);
    migraphx::argument in{shape{shape::float_type, {1, 1, 4, 6}}, x.data()};
    auto out = op.compute_shape({in.get_shape()});
    EXPECT_EQ(out, (shape{shape::float_type, {1, 1, 4, 3}, {24, 24, 6, 1}}));
    EXPECT_EQ(op.output_alias({in.get_shape()}), 0);
    auto r = op.compute(out, {in});
    EXPECT_EQ(r.data(), in.data() + 2 * sizeof(float));
    EXPECT_EQ(r.to_vector<float>(), (std::vector<float>{2, 3, 4, 8, 9, 10, 14, 15, 16, 20, 21, 22}));
}

TEST(ops_slice, negative_and_clamped_bounds)
{
    shape s{shape::float_type, {2, 5}};
    constexpr auto big   = std::numeric_limits<std::int64_t>::max();
    constexpr auto small = std::numeric_limits<std::int64_t>::min();
    EXPECT_EQ(make_slice({1}, {-3}, {big}).compute_shape({s}).lens(), (lvec{2, 3}));
    EXPECT_EQ(make_slice({-1}, {small}, {-1}).compute_shape({s}).lens(), (lvec{2, 4}));
    EXPECT_EQ(make_slice({0}, {1}, {100}).compute_shape({s}).lens(), (lvec{1, 5}));
    EXPECT_EQ(make_slice({1}, {4}, {2}).compute_shape({s}).lens(), (lvec{2, 0}));
    EXPECT_EQ(make_slice({1}, {-100}, {-4}).compute_shape({s}).lens(), (lvec{2, 1}));

    auto x = iota(10);
    migraphx::argument in{s, x.data()};
    auto op  = make_slice({0, 1}, {-1, -3}, {big, -1});
    auto out = op.compute_shape({s});
    EXPECT_EQ(out, (shape{shape::float_type, {1, 2}, {5, 1}}));
    auto r = op.compute(out, {in});
    EXPECT_EQ(r.data(), in.data() + 7 * sizeof(float));
    EXPECT_EQ(r.to_vector<float>(), (std::vector<float>{7, 8}));
    // compute's own offset arithmetic (it no longer goes through the checked ranges): a start
    // clamped to 0, and an empty slice starting at its clamped start
    for(auto [o, at] : {std::pair{make_slice({1}, {-100}, {-4}), 0}, std::pair{make_slice({1}, {4}, {2}), 4},
                        std::pair{make_slice({-1, 0}, {2, 1}, {big, 2}), 7}})
        EXPECT_EQ(o.compute(o.compute_shape({s}), {in}).data(), in.data() + at * sizeof(float)) << o;
}

TEST(ops_slice, bad_attributes_throw)
{
    shape s{shape::float_type, {2, 5}};
    EXPECT_THROW(make_slice({0, 1}, {0}, {1, 1}).compute_shape({s}), migraphx::exception);
    EXPECT_THROW(make_slice({2}, {0}, {1}).compute_shape({s}), migraphx::exception);
    EXPECT_THROW(make_slice({0, 0}, {0, 0}, {1, 1}).compute_shape({s}), migraphx::exception);
    EXPECT_THROW(make_slice({0}, {0}, {1}).compute_shape({s, s}), migraphx::exception);
}

TEST(ops_slice, slice_of_transpose)
{
    auto x = iota(6); // {2,3}
    migraphx::argument in{shape{shape::float_type, {2, 3}}, x.data()};
    auto t  = migraphx::make_op("transpose", {{"permutation", ivec{1, 0}}});
    auto ts = t.compute_shape({in.get_shape()});
    auto tr = t.compute(ts, {in});
    auto op  = make_slice({0}, {1}, {3});
    auto out = op.compute_shape({ts});
    EXPECT_EQ(out, (shape{shape::float_type, {2, 2}, {1, 3}}));
    auto r = op.compute(out, {tr});
    EXPECT_EQ(r.data(), in.data() + sizeof(float));
    EXPECT_EQ(r.to_vector<float>(), (std::vector<float>{1, 4, 2, 5}));
}

TEST(ops_slice, spec_program_slice_contiguous_flatten)
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto x   = mm->add_literal(migraphx::literal{shape{shape::float_type, {1, 1, 4, 6}}, iota(24)});
    auto sl  = mm->add_instruction(migraphx::make_json_op("slice", "{axes:[2,3],starts:[0,2],ends:[4,5]}"), x);
    auto c   = mm->add_instruction(migraphx::make_op("contiguous"), sl);
    auto f   = mm->add_instruction(migraphx::make_op("flatten"), c);
    mm->add_return({f});
    EXPECT_EQ(sl->get_shape(), (shape{shape::float_type, {1, 1, 4, 3}, {24, 24, 6, 1}}));
    EXPECT_EQ(c->get_shape(), (shape{shape::float_type, {1, 1, 4, 3}, {12, 12, 3, 1}}));
    EXPECT_EQ(f->get_shape(), (shape{shape::float_type, {1, 12}, {12, 1}}));
    p.compile(migraphx::ref::target{});
    auto r = p.eval({}).back();
    EXPECT_EQ(r.get_shape(), (shape{shape::float_type, {1, 12}}));
    EXPECT_EQ(r.to_vector<float>(), (std::vector<float>{2, 3, 4, 8, 9, 10, 14, 15, 16, 20, 21, 22}));
}
