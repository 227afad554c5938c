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

TEST(ops_clip, shape_rules)
{
    auto clip = migraphx::make_op("clip");
    EXPECT_EQ(str(clip), "clip");
    EXPECT_TRUE(clip.attributes().at("pointwise").get_bool());
    shape s{shape::float_type, {2, 3}};
    shape t{shape::float_type, {2, 3}, {1, 2}};
    shape sc{shape::float_type, {2, 3}, {0, 0}};
    EXPECT_EQ(clip.compute_shape({t, sc, sc}), s);
    EXPECT_THROW(clip.compute_shape({s, s}), migraphx::exception);
    EXPECT_THROW(clip.compute_shape({s, s, shape{shape::half_type, {2, 3}}}), migraphx::exception);
    EXPECT_THROW(clip.compute_shape({s, s, vec_shape(shape::float_type, 1)}), migraphx::exception);
}

TEST(ops_clip, broadcast_bounds)
{
    shape x{shape::float_type, {2, 3}};
    shape sc{shape::float_type, {2, 3}, {0, 0}};
    auto r = run_op(migraphx::make_op("clip"), {raw(x, {-2, 0.5, 3, qnan, 1, 0}), raw(sc, {0}), raw(sc, {1})});
    EXPECT_EQ(r.get_shape(), x);
    expect_near(r.to_vector<double>(), {0, 0.5, 1, qnan, 1, 0});
}

TEST(ops_clip, per_element_bounds_transposed_half_int)
{
    // x reads {-5 5 / -1 1} through strides {1, 2}; bounds per column.
    auto x  = raw(shape{shape::half_type, {2, 2}, {1, 2}}, {-5, -1, 5, 1});
    auto lo = raw(shape{shape::half_type, {2, 2}, {0, 1}}, {-2, 0});
    auto hi = raw(shape{shape::half_type, {2, 2}, {0, 1}}, {2, 0.5});
    auto r  = run_op(migraphx::make_op("clip"), {x, lo, hi});
    EXPECT_EQ(r.get_shape(), (shape{shape::half_type, {2, 2}}));
    expect_near(r.to_vector<double>(), {-2, 0.5, -1, 0.5});
    shape i = vec_shape(shape::int32_type, 4);
    auto ri = run_op(migraphx::make_op("clip"), {raw(i, {-7, 3, 9, 4}), raw(i, {0, 0, 0, 5}), raw(i, {5, 5, 5, 6})});
    EXPECT_EQ(ri.to_vector<int>(), (std::vector<int>{0, 3, 5, 5}));
}
