#include <migraphx/make_op.hpp>
#include <migraphx/argument.hpp>
#include <gtest/gtest.h>
#include <numeric>

namespace {
using migraphx::shape;
using ivec = std::vector<std::int64_t>;
using lvec = std::vector<std::size_t>;
migraphx::operation make_step(ivec axes, ivec steps)
{
    return migraphx::make_op("step", {{"axes", axes}, {"steps", steps}});
}
} // namespace

TEST(ops_step, shape_rules)
{
    shape s{shape::float_type, {4, 5}};
    EXPECT_EQ(make_step({1}, {2}).compute_shape({s}), (shape{shape::float_type, {4, 3}, {5, 2}}));
    EXPECT_EQ(make_step({0, 1}, {3, 2}).compute_shape({s}), (shape{shape::float_type, {2, 3}, {15, 2}}));
    EXPECT_EQ(make_step({-1}, {5}).compute_shape({s}), (shape{shape::float_type, {4, 1}, {5, 5}}));
    EXPECT_EQ(make_step({1}, {2}).output_alias({s}), 0);
}

TEST(ops_step, bad_attributes_throw)
{
    shape s{shape::float_type, {4, 5}};
    EXPECT_THROW(make_step({0, 1}, {2}).compute_shape({s}), migraphx::exception);
    EXPECT_THROW(make_step({0}, {0}).compute_shape({s}), migraphx::exception);
    EXPECT_THROW(make_step({0}, {-1}).compute_shape({s}), migraphx::exception);
    EXPECT_THROW(make_step({2}, {1}).compute_shape({s}), migraphx::exception);
}

TEST(ops_step, step_of_slice_is_view)
{
    // ONNX Slice(starts=1, ends=5, steps=2) on axis 1 of a {2, 5}: slice then step.
    std::vector<float> x(10);
    std::iota(x.begin(), x.end(), 0.0f);
    migraphx::argument in{shape{shape::float_type, {2, 5}}, x.data()};
    auto sl  = migraphx::make_op("slice", {{"axes", ivec{1}}, {"starts", ivec{1}}, {"ends", ivec{5}}});
    auto sls = sl.compute_shape({in.get_shape()});
    auto slr = sl.compute(sls, {in});
    auto op  = make_step({1}, {2});
    auto out = op.compute_shape({sls});
    EXPECT_EQ(out, (shape{shape::float_type, {2, 2}, {5, 2}}));
    auto r = op.compute(out, {slr});
    EXPECT_EQ(r.data(), in.data() + sizeof(float));
    EXPECT_EQ(r.to_vector<float>(), (std::vector<float>{1, 3, 6, 8}));
}
