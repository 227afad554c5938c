#include <migraphx/make_op.hpp>
#include <migraphx/argument.hpp>
#include <gtest/gtest.h>
#include <numeric>

namespace {
using migraphx::shape;
using ivec = std::vector<std::int64_t>;
using lvec = std::vector<std::size_t>;
migraphx::operation make_squeeze(ivec axes) { return migraphx::make_op("squeeze", {{"axes", axes}}); }
migraphx::operation make_unsqueeze(ivec axes, ivec steps = {})
{
    return migraphx::make_op("unsqueeze", {{"axes", axes}, {"steps", steps}});
}
} // namespace

TEST(ops_squeeze, shape_rules)
{
    shape s{shape::float_type, {1, 3, 1, 2}};
    EXPECT_EQ(make_squeeze({}).compute_shape({s}), (shape{shape::float_type, {3, 2}}));
    EXPECT_EQ(make_squeeze({2}).compute_shape({s}), (shape{shape::float_type, {1, 3, 2}}));
    EXPECT_EQ(make_squeeze({-4}).compute_shape({s}), (shape{shape::float_type, {3, 1, 2}}));
    EXPECT_EQ(make_squeeze({}).compute_shape({shape{shape::float_type, {1, 1}}}).ndim(), 0u);
    // Strides of the kept dims are kept.
    EXPECT_EQ(make_squeeze({1}).compute_shape({shape{shape::float_type, {3, 1, 2}, {1, 7, 3}}}),
              (shape{shape::float_type, {3, 2}, {1, 3}}));
    EXPECT_EQ(make_squeeze({}).output_alias({s}), 0);
}

TEST(ops_squeeze, bad_axes_throw)
{
    shape s{shape::float_type, {1, 3, 1, 2}};
    EXPECT_THROW(make_squeeze({1}).compute_shape({s}), migraphx::exception);
    EXPECT_THROW(make_squeeze({4}).compute_shape({s}), migraphx::exception);
    EXPECT_THROW(make_squeeze({-5}).compute_shape({s}), migraphx::exception);
}

TEST(ops_unsqueeze, shape_rules)
{
    shape s{shape::float_type, {3, 2}};
    EXPECT_EQ(make_unsqueeze({0}).compute_shape({s}), (shape{shape::float_type, {1, 3, 2}, {6, 2, 1}}));
    EXPECT_EQ(make_unsqueeze({1}).compute_shape({s}), (shape{shape::float_type, {3, 1, 2}, {2, 2, 1}}));
    EXPECT_EQ(make_unsqueeze({2}).compute_shape({s}), (shape{shape::float_type, {3, 2, 1}, {2, 1, 1}}));
    EXPECT_EQ(make_unsqueeze({-1}).compute_shape({s}), (shape{shape::float_type, {3, 2, 1}, {2, 1, 1}}));
    EXPECT_EQ(make_unsqueeze({0, 3}).compute_shape({s}).lens(), (lvec{1, 3, 2, 1}));
    EXPECT_TRUE(make_unsqueeze({0, 3}).compute_shape({s}).standard());
    // A transposed input keeps its strides.
    EXPECT_EQ(make_unsqueeze({0}).compute_shape({shape{shape::float_type, {3, 2}, {1, 3}}}),
              (shape{shape::float_type, {1, 3, 2}, {3, 1, 3}}));
    // steps split the following dim: {6, 4} -> {2, 3, 4}.
    EXPECT_EQ(make_unsqueeze({0}, {2}).compute_shape({shape{shape::float_type, {6, 4}}}),
              (shape{shape::float_type, {2, 3, 4}, {12, 4, 1}}));
    EXPECT_EQ(make_unsqueeze({0}).output_alias({s}), 0);
}

TEST(ops_unsqueeze, bad_axes_throw)
{
    shape s{shape::float_type, {3, 2}};
    EXPECT_THROW(make_unsqueeze({3}).compute_shape({s}), migraphx::exception);
    EXPECT_THROW(make_unsqueeze({0, 0}).compute_shape({s}), migraphx::exception);
    EXPECT_THROW(make_unsqueeze({0}, {4}).compute_shape({s}), migraphx::exception);
    EXPECT_THROW(make_unsqueeze({0}, {0}).compute_shape({s}), migraphx::exception);
    EXPECT_THROW(make_unsqueeze({0}, {1, 1}).compute_shape({s}), migraphx::exception);
}

TEST(ops_squeeze, compute_is_view)
{
    std::vector<float> x(6);
    std::iota(x.begin(), x.end(), 0.0f);
    migraphx::argument in{shape{shape::float_type, {1, 3, 2}}, x.data()};
    auto sq  = make_squeeze({0});
    auto sqs = sq.compute_shape({in.get_shape()});
    auto r   = sq.compute(sqs, {in});
    EXPECT_EQ(r.data(), in.data());
    EXPECT_EQ(r.to_vector<float>(), x);
    auto un  = make_unsqueeze({2});
    auto uns = un.compute_shape({sqs});
    auto r2  = un.compute(uns, {r});
    EXPECT_EQ(r2.data(), in.data());
    EXPECT_EQ(r2.get_shape().lens(), (lvec{3, 2, 1}));
    EXPECT_EQ(r2.to_vector<float>(), x);
}
