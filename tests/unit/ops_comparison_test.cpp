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

using ivec = std::vector<int>;

TEST(ops_comparison, shape_rules)
{
    shape t{shape::float_type, {2, 3}, {1, 2}};
    for(const auto* name : {"equal", "greater", "less"})
    {
        auto op = migraphx::make_op(name);
        EXPECT_EQ(str(op), name);
        EXPECT_TRUE(op.attributes().at("pointwise").get_bool());
        EXPECT_EQ(op.compute_shape({t, t}), (shape{shape::bool_type, {2, 3}})) << name;
        EXPECT_THROW(op.compute_shape({t}), migraphx::exception) << name;
        EXPECT_THROW(op.compute_shape({t, shape{shape::int32_type, {2, 3}}}), migraphx::exception) << name;
        EXPECT_THROW(op.compute_shape({t, shape{shape::float_type, {2, 2}}}), migraphx::exception) << name;
    }
}

TEST(ops_comparison, values)
{
    shape s = vec_shape(shape::float_type, 4);
    auto a = raw(s, {1, 2, 3, qnan});
    auto b = raw(s, {2, 2, 2, qnan});
    auto eq = run_op(migraphx::make_op("equal"), {a, b});
    EXPECT_EQ(eq.get_shape(), (vec_shape(shape::bool_type, 4)));
    EXPECT_EQ(eq.to_vector<int>(), (ivec{0, 1, 0, 0}));
    EXPECT_EQ(run_op(migraphx::make_op("greater"), {a, b}).to_vector<int>(), (ivec{0, 0, 1, 0}));
    EXPECT_EQ(run_op(migraphx::make_op("less"), {a, b}).to_vector<int>(), (ivec{1, 0, 0, 0}));
}

TEST(ops_comparison, strided_half_and_int)
{
    // Transposed {0 2 / 1 3} against a broadcast row {1 2}.
    auto a = raw(shape{shape::half_type, {2, 2}, {1, 2}}, {0, 1, 2, 3});
    auto b = raw(shape{shape::half_type, {2, 2}, {0, 1}}, {1, 2});
    EXPECT_EQ(run_op(migraphx::make_op("equal"), {a, b}).to_vector<int>(), (ivec{0, 1, 1, 0}));
    EXPECT_EQ(run_op(migraphx::make_op("greater"), {a, b}).to_vector<int>(), (ivec{0, 0, 0, 1}));
    EXPECT_EQ(run_op(migraphx::make_op("less"), {a, b}).to_vector<int>(), (ivec{1, 0, 0, 0}));
    shape i = vec_shape(shape::int32_type, 3);
    auto x = raw(i, {-1, 5, std::numeric_limits<std::int32_t>::min()});
    auto y = raw(i, {1, 5, 0});
    EXPECT_EQ(run_op(migraphx::make_op("less"), {x, y}).to_vector<int>(), (ivec{1, 0, 1}));
    EXPECT_EQ(run_op(migraphx::make_op("equal"), {x, y}).to_vector<int>(), (ivec{0, 1, 0}));
}
