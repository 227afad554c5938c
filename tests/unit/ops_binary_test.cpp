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

namespace {
const double imin = std::numeric_limits<std::int32_t>::min();
const double imax = std::numeric_limits<std::int32_t>::max();
dvec binary(const std::string& name, shape::type_t t, const dvec& a, const dvec& b)
{
    shape s = vec_shape(t, a.size());
    auto r = run_op(migraphx::make_op(name), {raw(s, a), raw(s, b)});
    EXPECT_EQ(r.get_shape(), s);
    return r.to_vector<double>();
}
} // namespace

TEST(ops_binary, shape_rules)
{
    auto add = migraphx::make_op("add");
    EXPECT_EQ(str(add), "add");
    EXPECT_TRUE(add.attributes().at("pointwise").get_bool());
    EXPECT_TRUE(add.attributes().at("commutative").get_bool());
    EXPECT_FALSE(migraphx::make_op("sub").attributes().contains("commutative"));
    shape s{shape::float_type, {2, 3}};
    shape t{shape::float_type, {2, 3}, {1, 2}};
    shape b{shape::float_type, {2, 3}, {0, 1}};
    EXPECT_EQ(add.compute_shape({t, b}), s);
    EXPECT_EQ(add.output_alias({s, s}), -1);
    EXPECT_THROW(add.compute_shape({s}), migraphx::exception);
    EXPECT_THROW(add.compute_shape({s, s, s}), migraphx::exception);
    EXPECT_THROW(add.compute_shape({s, shape{shape::half_type, {2, 3}}}), migraphx::exception);
    EXPECT_THROW(add.compute_shape({s, shape{shape::float_type, {3, 2}}}), migraphx::exception);
    EXPECT_THROW(add.compute_shape({s, shape{shape::float_type, {1, 3}}}), migraphx::exception);
    try
    {
        migraphx::make_op("pow").compute_shape({s, shape{shape::float_type, {3, 2}}});
        FAIL() << "expected a throw";
    }
    catch(const migraphx::exception& e)
    {
        std::string msg = e.what();
        EXPECT_NE(msg.find("pow"), std::string::npos) << msg;
        EXPECT_NE(msg.find("{3, 2}"), std::string::npos) << msg;
    }
    for(const auto* name : {"sub", "mul", "div", "pow", "max", "min", "mod", "fmod", "sqdiff", "prelu"})
        EXPECT_EQ(migraphx::make_op(name).compute_shape({t, t}), s) << name;
}

TEST(ops_binary, transposed_plus_broadcast)
{
    // a: memory 0..5 with strides {1, 2} reads 0 2 4 / 1 3 5; b: one row broadcast.
    auto a = raw(shape{shape::float_type, {2, 3}, {1, 2}}, {0, 1, 2, 3, 4, 5});
    auto b = raw(shape{shape::float_type, {2, 3}, {0, 1}}, {10, 20, 30});
    auto r = run_op(migraphx::make_op("add"), {a, b});
    EXPECT_TRUE(r.get_shape().standard());
    expect_near(r.to_vector<double>(), {10, 22, 34, 11, 23, 35});
    expect_near(run_op(migraphx::make_op("sub"), {b, a}).to_vector<double>(), {10, 18, 26, 9, 17, 25});
    // A column broadcast times a transposed input.
    auto c = raw(shape{shape::float_type, {2, 3}, {1, 0}}, {2, 3});
    expect_near(run_op(migraphx::make_op("mul"), {c, a}).to_vector<double>(), {0, 4, 8, 3, 9, 15});
}

TEST(ops_binary, float_arithmetic)
{
    auto f = shape::float_type;
    expect_near(binary("div", f, {1, -3, 1, 0}, {4, 2, 0, 0}), {0.25, -1.5, pinf, qnan});
    expect_near(binary("pow", f, {2, 4, 9, 2}, {3, 0.5, 0.5, -1}), {8, 2, 3, 0.5});
    expect_near(binary("max", f, {1, 5, qnan, 1}, {2, 3, 1, qnan}), {2, 5, qnan, qnan});
    expect_near(binary("min", f, {1, 5, qnan, 1}, {2, 3, 1, qnan}), {1, 3, qnan, qnan});
    expect_near(binary("mod", f, {5, -5, 5, -5, 5.5, 6}, {3, 3, -3, -3, 2, 3}), {2, 1, -1, -2, 1.5, 0});
    expect_near(binary("fmod", f, {5, -5, 5, -5, 5.5}, {3, 3, -3, -3, 2}), {2, -2, 2, -2, 1.5});
    expect_near(binary("sqdiff", f, {1, 5}, {4, 2}), {9, 9});
    expect_near(binary("prelu", f, {-2, 3, -1}, {0.5, 0.5, -2}), {-1, 3, 2});
}

TEST(ops_binary, half_computes_in_float)
{
    auto h = shape::half_type;
    expect_near(binary("add", h, {1.5, 2.25}, {0.25, 1}), {1.75, 3.25});
    expect_near(binary("div", h, {1, 3}, {4, 8}), {0.25, 0.375});
    expect_near(binary("mod", h, {-5, 7}, {3, -2}), {1, -1});
    // 60000 * 2 overflows half: pinf, as a float computation stored in half.
    expect_near(binary("mul", h, {60000, 3}, {2, 0.5}), {pinf, 1.5});
}

TEST(ops_binary, int32_arithmetic_is_defined_for_all_inputs)
{
    auto i = shape::int32_type;
    EXPECT_EQ(binary("add", i, {1, imax}, {2, 1}), (dvec{3, imin}));
    EXPECT_EQ(binary("sub", i, {1, imin}, {2, 1}), (dvec{-1, imax}));
    EXPECT_EQ(binary("mul", i, {-3, 65536}, {4, 65536}), (dvec{-12, 0}));
    EXPECT_EQ(binary("div", i, {7, -7, 7, -7, 5, imin}, {2, 2, -2, -2, 0, -1}), (dvec{3, -3, -3, 3, 0, imin}));
    EXPECT_EQ(binary("mod", i, {5, -5, 5, -5, 5, imin, 6}, {3, 3, -3, -3, 0, -1, 3}), (dvec{2, 1, -1, -2, 0, 0, 0}));
    EXPECT_EQ(binary("fmod", i, {5, -5, 5, -5, 5, imin}, {3, 3, -3, -3, 0, -1}), (dvec{2, -2, 2, -2, 0, 0}));
    EXPECT_EQ(binary("pow", i, {2, 3, -2, 2, 1, -1, 0}, {10, 0, 3, -1, -5, -3, 0}), (dvec{1024, 1, -8, 0, 1, -1, 1}));
    EXPECT_EQ(binary("max", i, {1, -5}, {-1, 3}), (dvec{1, 3}));
    EXPECT_EQ(binary("min", i, {1, -5}, {-1, 3}), (dvec{-1, -5}));
    EXPECT_EQ(binary("sqdiff", i, {1, -3}, {4, 2}), (dvec{9, 25}));
    EXPECT_EQ(binary("prelu", i, {-4, 3}, {2, 2}), (dvec{-8, 3}));
}

TEST(ops_binary, small_integer_types_wrap)
{
    EXPECT_EQ(binary("add", shape::uint8_type, {250, 1}, {10, 2}), (dvec{4, 3}));
    EXPECT_EQ(binary("sub", shape::uint8_type, {1}, {2}), (dvec{255}));
    EXPECT_EQ(binary("mul", shape::int16_type, {300}, {300}), (dvec{24464}));
    EXPECT_EQ(binary("mul", shape::uint16_type, {65535}, {65535}), (dvec{1}));
    EXPECT_EQ(binary("div", shape::int8_type, {-128, 9}, {-1, 0}), (dvec{-128, 0}));
    EXPECT_EQ(binary("mod", shape::uint32_type, {7, 7}, {3, 0}), (dvec{1, 0}));
    EXPECT_EQ(binary("div", shape::int64_type, {-9}, {2}), (dvec{-4}));
}
