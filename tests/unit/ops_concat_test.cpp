#include <migraphx/make_op.hpp>
#include <migraphx/argument.hpp>
#include <gtest/gtest.h>

namespace {
using migraphx::shape;
using lvec = std::vector<std::size_t>;
migraphx::operation make_concat(std::int64_t axis) { return migraphx::make_op("concat", {{"axis", axis}}); }
} // namespace

TEST(ops_concat, shape_rules)
{
    shape a{shape::float_type, {2, 1}};
    shape b{shape::float_type, {2, 2}, {1, 2}}; // transposed
    EXPECT_EQ(make_concat(1).compute_shape({a, b}), (shape{shape::float_type, {2, 3}}));
    EXPECT_EQ(make_concat(-1).compute_shape({a, b, a}), (shape{shape::float_type, {2, 4}}));
    EXPECT_EQ(make_concat(0).compute_shape({b, b}), (shape{shape::float_type, {4, 2}}));
    EXPECT_EQ(make_concat(0).output_alias({a}), -1);
}

TEST(ops_concat, bad_shapes_throw)
{
    shape a{shape::float_type, {2, 1}};
    EXPECT_THROW(make_concat(0).compute_shape({a, shape{shape::float_type, {2, 2}}}), migraphx::exception);
    EXPECT_THROW(make_concat(1).compute_shape({a, shape{shape::half_type, {2, 2}}}), migraphx::exception);
    EXPECT_THROW(make_concat(1).compute_shape({a, shape{shape::float_type, {2, 2, 1}}}), migraphx::exception);
    EXPECT_THROW(make_concat(2).compute_shape({a, a}), migraphx::exception);
    EXPECT_THROW(make_concat(0).compute_shape({}), migraphx::exception);
}

TEST(ops_concat, compute_with_strided_inputs)
{
    std::vector<float> x{10, 20};
    std::vector<float> y{1, 2, 3, 4}; // read transposed: [[1, 3], [2, 4]]
    migraphx::argument a{shape{shape::float_type, {2, 1}}, x.data()};
    migraphx::argument b{shape{shape::float_type, {2, 2}, {1, 2}}, y.data()};
    auto op  = make_concat(1);
    auto out = op.compute_shape({a.get_shape(), b.get_shape()});
    auto r   = op.compute(out, {a, b});
    EXPECT_EQ(r.get_shape(), (shape{shape::float_type, {2, 3}}));
    EXPECT_EQ(r.to_vector<float>(), (std::vector<float>{10, 1, 3, 20, 2, 4}));

    auto op0  = make_concat(0);
    auto out0 = op0.compute_shape({b.get_shape(), b.get_shape()});
    EXPECT_EQ(op0.compute(out0, {b, b}).to_vector<float>(), (std::vector<float>{1, 3, 2, 4, 1, 3, 2, 4}));
}

TEST(ops_concat, compute_broadcast_int64)
{
    std::vector<std::int64_t> x{7};
    std::vector<std::int64_t> y{1, 2};
    migraphx::argument a{shape{shape::int64_type, {2, 2}, {0, 0}}, x.data()};
    migraphx::argument b{shape{shape::int64_type, {1, 2}}, y.data()};
    auto op  = make_concat(0);
    auto out = op.compute_shape({a.get_shape(), b.get_shape()});
    EXPECT_EQ(op.compute(out, {a, b}).to_vector<std::int64_t>(), (std::vector<std::int64_t>{7, 7, 7, 7, 1, 2}));
}
