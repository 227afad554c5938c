#include <migraphx/make_op.hpp>
#include <migraphx/argument.hpp>
#include <gtest/gtest.h>
#include <numeric>
#include <sstream>

namespace {
using migraphx::shape;
using ivec = std::vector<std::int64_t>;
using lvec = std::vector<std::size_t>;
migraphx::operation make_transpose(ivec perm) { return migraphx::make_op("transpose", {{"permutation", perm}}); }
} // namespace

TEST(ops_transpose, shape_and_strides)
{
    auto op = make_transpose({1, 0});
    std::ostringstream ss;
    ss << op;
    EXPECT_EQ(ss.str(), "transpose[permutation={1, 0}]");
    EXPECT_EQ(op.compute_shape({shape{shape::float_type, {2, 3}}}), (shape{shape::float_type, {3, 2}, {1, 3}}));
    EXPECT_EQ(make_transpose({2, 0, 1}).compute_shape({shape{shape::int8_type, {2, 3, 4}}}),
              (shape{shape::int8_type, {4, 2, 3}, {1, 12, 4}}));
    // Transposing back restores the standard shape.
    auto t = op.compute_shape({shape{shape::float_type, {2, 3}}});
    EXPECT_EQ(op.compute_shape({t}), (shape{shape::float_type, {2, 3}}));
    EXPECT_TRUE(op.compute_shape({t}).standard());
    EXPECT_EQ(op.output_alias({t}), 0);
}

TEST(ops_transpose, bad_permutation_throws)
{
    shape s{shape::float_type, {2, 3}};
    EXPECT_THROW(make_transpose({0, 0}).compute_shape({s}), migraphx::exception);
    EXPECT_THROW(make_transpose({0}).compute_shape({s}), migraphx::exception);
    EXPECT_THROW(make_transpose({0, 2}).compute_shape({s}), migraphx::exception);
    EXPECT_THROW(make_transpose({-1, 0}).compute_shape({s}), migraphx::exception);
    EXPECT_THROW(make_transpose({1, 0}).compute_shape({s, s}), migraphx::exception);
}

TEST(ops_transpose, compute_is_view)
{
    std::vector<float> x(6);
    std::iota(x.begin(), x.end(), 0.0f);
    migraphx::argument in{shape{shape::float_type, {2, 3}}, x.data()};
    auto op  = make_transpose({1, 0});
    auto out = op.compute_shape({in.get_shape()});
    auto r   = op.compute(out, {in});
    EXPECT_EQ(r.data(), in.data());
    EXPECT_EQ(r.get_shape(), out);
    EXPECT_EQ(r.to_vector<float>(), (std::vector<float>{0, 3, 1, 4, 2, 5}));
    // Writing through the view changes the input.
    r.visit([](auto v) { v[1] = 42; });
    EXPECT_EQ(x[3], 42.0f);
}
