#include <migraphx/make_op.hpp>
#include <migraphx/argument.hpp>
#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>

#include "ops_test_util.hpp"

using namespace migx_ops_test; // NOLINT: the shared test helpers
using migraphx::shape;

TEST(ops_where, shape_rules)
{
    auto where = migraphx::make_op("where");
    EXPECT_EQ(str(where), "where");
    EXPECT_TRUE(where.attributes().at("pointwise").get_bool());
    shape c{shape::bool_type, {2, 3}};
    shape x{shape::float_type, {2, 3}, {1, 2}};
    EXPECT_EQ(where.compute_shape({c, x, x}), (shape{shape::float_type, {2, 3}}));
    EXPECT_EQ(where.compute_shape({c, shape{shape::int64_type, {2, 3}}, shape{shape::int64_type, {2, 3}}}),
              (shape{shape::int64_type, {2, 3}}));
    EXPECT_THROW(where.compute_shape({c, x}), migraphx::exception);
    EXPECT_THROW(where.compute_shape({shape{shape::float_type, {2, 3}}, x, x}), migraphx::exception);
    EXPECT_THROW(where.compute_shape({c, x, shape{shape::half_type, {2, 3}}}), migraphx::exception);
    EXPECT_THROW(where.compute_shape({c, x, shape{shape::float_type, {3, 2}}}), migraphx::exception);
    EXPECT_THROW(where.compute_shape({shape{shape::bool_type, {2, 2}}, x, x}), migraphx::exception);
}

TEST(ops_where, strided_inputs)
{
    // cond broadcast per row {1 0 1}; x transposed (reads 0 2 4 / 1 3 5); y a broadcast scalar.
    auto c = raw(shape{shape::bool_type, {2, 3}, {0, 1}}, {1, 0, 1});
    auto x = raw(shape{shape::float_type, {2, 3}, {1, 2}}, {0, 1, 2, 3, 4, 5});
    auto y = raw(shape{shape::float_type, {2, 3}, {0, 0}}, {-1});
    auto r = run_op(migraphx::make_op("where"), {c, x, y});
    EXPECT_EQ(r.get_shape(), (shape{shape::float_type, {2, 3}}));
    expect_near(r.to_vector<double>(), {0, -1, 4, 1, -1, 5});
}

TEST(ops_where, half_and_int)
{
    shape cs = vec_shape(shape::bool_type, 3);
    auto c  = raw(cs, {0, 1, 0});
    shape h = vec_shape(shape::half_type, 3);
    auto rh = run_op(migraphx::make_op("where"), {c, raw(h, {1.5, 2.5, 3.5}), raw(h, {-1, -2, -3})});
    EXPECT_EQ(rh.get_shape(), h);
    expect_near(rh.to_vector<double>(), {-1, 2.5, -3});
    shape i = vec_shape(shape::int32_type, 3);
    auto ri = run_op(migraphx::make_op("where"), {c, raw(i, {7, 8, 9}), raw(i, {0, 0, 0})});
    EXPECT_EQ(ri.to_vector<int>(), (std::vector<int>{0, 8, 0}));
}
