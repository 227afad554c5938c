#include <migraphx/make_op.hpp>
#include <migraphx/argument.hpp>
#include <gtest/gtest.h>
#include <numeric>
#include <sstream>

namespace {
using migraphx::shape;
using lvec = std::vector<std::size_t>;
migraphx::operation make_flatten(std::int64_t axis) { return migraphx::make_op("flatten", {{"axis", axis}}); }
} // namespace

TEST(ops_flatten, shape_rules)
{
    shape s{shape::float_type, {2, 3, 4, 5}};
    std::ostringstream ss;
    ss << migraphx::make_op("flatten");
    EXPECT_EQ(ss.str(), "flatten[axis=1]");
    EXPECT_EQ(migraphx::make_op("flatten").compute_shape({s}), (shape{shape::float_type, {2, 60}}));
    EXPECT_EQ(make_flatten(0).compute_shape({s}), (shape{shape::float_type, {1, 120}}));
    EXPECT_EQ(make_flatten(4).compute_shape({s}), (shape{shape::float_type, {120, 1}}));
    EXPECT_EQ(make_flatten(-1).compute_shape({s}), (shape{shape::float_type, {24, 5}}));
    EXPECT_EQ(make_flatten(2).output_alias({s}), 0);
}

TEST(ops_flatten, bad_inputs_throw)
{
    shape s{shape::float_type, {2, 3, 4, 5}};
    EXPECT_THROW(make_flatten(5).compute_shape({s}), migraphx::exception);
    EXPECT_THROW(make_flatten(-5).compute_shape({s}), migraphx::exception);
    // Not standard: a transposed view must go through contiguous first.
    EXPECT_THROW(make_flatten(1).compute_shape({shape{shape::float_type, {3, 2}, {1, 3}}}), migraphx::exception);
    EXPECT_THROW(make_flatten(1).compute_shape({s, s}), migraphx::exception);
}

TEST(ops_flatten, compute_is_view)
{
    std::vector<float> x(24);
    std::iota(x.begin(), x.end(), 0.0f);
    migraphx::argument in{shape{shape::float_type, {2, 3, 4}}, x.data()};
    auto op  = make_flatten(2);
    auto out = op.compute_shape({in.get_shape()});
    auto r   = op.compute(out, {in});
    EXPECT_EQ(r.data(), in.data());
    EXPECT_EQ(r.get_shape(), (shape{shape::float_type, {6, 4}}));
    EXPECT_EQ(r.to_vector<float>(), x);
}
