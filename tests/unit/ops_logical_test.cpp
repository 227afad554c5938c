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

TEST(ops_logical, shape_rules)
{
    shape b{shape::bool_type, {2, 2}};
    shape f{shape::float_type, {2, 2}};
    for(const auto* name : {"logical_and", "logical_or", "logical_xor"})
    {
        auto op = migraphx::make_op(name);
        EXPECT_EQ(str(op), name);
        EXPECT_TRUE(op.attributes().at("pointwise").get_bool());
        EXPECT_EQ(op.compute_shape({b, b}), b);
        EXPECT_THROW(op.compute_shape({f, f}), migraphx::exception) << name;
        EXPECT_THROW(op.compute_shape({b, f}), migraphx::exception) << name;
        EXPECT_THROW(op.compute_shape({b, vec_shape(shape::bool_type, 4)}), migraphx::exception) << name;
        // compute refuses what compute_shape refuses.
        EXPECT_THROW(op.compute(f, {raw(f, {1, 2, 3, 4}), raw(f, {1, 2, 3, 4})}), migraphx::exception) << name;
    }
    auto band = migraphx::make_op("bitwise_and");
    shape i{shape::int32_type, {2, 2}};
    EXPECT_EQ(band.compute_shape({i, i}), i);
    EXPECT_EQ(band.compute_shape({b, b}), b);
    EXPECT_THROW(band.compute_shape({f, f}), migraphx::exception);
    EXPECT_THROW(band.compute_shape({i, shape{shape::int64_type, {2, 2}}}), migraphx::exception);
}

TEST(ops_logical, truth_tables_with_strides)
{
    // a reads {0 0 / 1 1} through a transpose of memory {0 1 0 1}; b is {0 1} broadcast.
    auto a = raw(shape{shape::bool_type, {2, 2}, {1, 2}}, {0, 1, 0, 1});
    auto b = raw(shape{shape::bool_type, {2, 2}, {0, 1}}, {0, 1});
    auto r = run_op(migraphx::make_op("logical_and"), {a, b});
    EXPECT_EQ(r.get_shape(), (shape{shape::bool_type, {2, 2}}));
    EXPECT_EQ(r.to_vector<int>(), (ivec{0, 0, 0, 1}));
    EXPECT_EQ(run_op(migraphx::make_op("logical_or"), {a, b}).to_vector<int>(), (ivec{0, 1, 1, 1}));
    EXPECT_EQ(run_op(migraphx::make_op("logical_xor"), {a, b}).to_vector<int>(), (ivec{0, 1, 1, 0}));
    EXPECT_EQ(run_op(migraphx::make_op("bitwise_and"), {a, b}).to_vector<int>(), (ivec{0, 0, 0, 1}));
}

TEST(ops_logical, bitwise_and_integers)
{
    shape i = vec_shape(shape::int32_type, 3);
    EXPECT_EQ(run_op(migraphx::make_op("bitwise_and"), {raw(i, {12, -1, 7}), raw(i, {10, 5, 0})}).to_vector<int>(),
              (ivec{8, 5, 0}));
    shape u = vec_shape(shape::uint8_type, 2);
    EXPECT_EQ(run_op(migraphx::make_op("bitwise_and"), {raw(u, {255, 0xf0}), raw(u, {0x0f, 0x3c})}).to_vector<int>(),
              (ivec{0x0f, 0x30}));
}
