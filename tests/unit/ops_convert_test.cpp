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
migraphx::operation convert_to(shape::type_t t)
{
    return migraphx::make_op("convert", {{"target_type", static_cast<int>(t)}});
}
} // namespace

TEST(ops_convert, attributes_and_shape)
{
    EXPECT_EQ(str(migraphx::make_op("convert")), "convert[target_type=1]");
    auto op = convert_to(shape::int32_type);
    EXPECT_EQ(str(op), "convert[target_type=8]");
    EXPECT_TRUE(op.attributes().at("pointwise").get_bool());
    EXPECT_EQ(op.to_value().at("target_type").to<int>(), static_cast<int>(shape::int32_type));
    EXPECT_EQ(op, convert_to(shape::int32_type));
    EXPECT_NE(op, convert_to(shape::int64_type));
    shape t{shape::float_type, {2, 3}, {1, 2}};
    EXPECT_EQ(op.compute_shape({t}), (shape{shape::int32_type, {2, 3}}));
    EXPECT_EQ(op.output_alias({t}), -1);
    EXPECT_THROW(op.compute_shape({t, t}), migraphx::exception);
    EXPECT_THROW(convert_to(shape::tuple_type).compute_shape({t}), migraphx::exception);
}

TEST(ops_convert, float_to_integers_truncates_and_never_overflows)
{
    auto x = raw(vec_shape(shape::float_type, 7), {1.9, -1.9, qnan, 1e10, -1e10, pinf, -0.5});
    auto r = run_op(convert_to(shape::int32_type), {x});
    EXPECT_EQ(r.get_shape(), (vec_shape(shape::int32_type, 7)));
    EXPECT_EQ(r.to_vector<double>(), (dvec{1, -1, 0, 0, 0, 0, 0}));
    auto u = raw(vec_shape(shape::float_type, 4), {-1, 255.9, 256, -0.9});
    EXPECT_EQ(run_op(convert_to(shape::uint8_type), {u}).to_vector<double>(), (dvec{0, 255, 0, 0}));
    auto d = raw(vec_shape(shape::double_type, 3), {9.2e18, -9.2e18, 1e19});
    EXPECT_EQ(run_op(convert_to(shape::int64_type), {d}).to_vector<double>(), (dvec{9.2e18, -9.2e18, 0}));
}

TEST(ops_convert, to_bool_half_and_between_floats)
{
    auto x = raw(vec_shape(shape::float_type, 4), {0, 0.1, qnan, -3});
    EXPECT_EQ(run_op(convert_to(shape::bool_type), {x}).to_vector<int>(), (std::vector<int>{0, 1, 1, 1}));
    auto h = run_op(convert_to(shape::half_type), {raw(vec_shape(shape::int32_type, 3), {-2, 3, 100000})});
    EXPECT_EQ(h.get_shape(), (vec_shape(shape::half_type, 3)));
    expect_near(h.to_vector<double>(), {-2, 3, pinf});
    auto f = run_op(convert_to(shape::float_type), {raw(vec_shape(shape::half_type, 2), {0.5, -65504})});
    expect_near(f.to_vector<double>(), {0.5, -65504});
    auto big = run_op(convert_to(shape::float_type), {raw(vec_shape(shape::double_type, 3), {1e300, -1e300, 0.25})});
    expect_near(big.to_vector<double>(), {pinf, -pinf, 0.25});
    auto hi = run_op(convert_to(shape::int8_type), {raw(vec_shape(shape::half_type, 2), {-128.5, 300})});
    EXPECT_EQ(hi.to_vector<double>(), (dvec{-128, 0}));
}

TEST(ops_convert, to_and_from_fp8e4m3fn)
{
    // round to nearest even, saturate at +-448 (inf too), NaN stays NaN
    auto q = run_op(convert_to(shape::fp8e4m3fn_type),
                    {raw(vec_shape(shape::float_type, 7), {1.0625, 1.1875, -0.3, 500, -pinf, qnan, 0.001})});
    EXPECT_EQ(q.get_shape(), (vec_shape(shape::fp8e4m3fn_type, 7)));
    auto back = run_op(convert_to(shape::float_type), {q}).to_vector<double>();
    expect_near(std::vector<double>(back.begin(), back.begin() + 5), {1.0, 1.25, -0.3125, 448, -448});
    EXPECT_TRUE(std::isnan(back[5]));
    EXPECT_EQ(back[6], std::ldexp(1.0, -9)); // 0.001 is 0.512 of the smallest subnormal step
    // to integers through float: truncated, NaN to 0; from half and int
    auto i = run_op(convert_to(shape::int8_type), {q});
    EXPECT_EQ(i.to_vector<int>(), (std::vector<int>{1, 1, 0, 0, 0, 0, 0})); // 448 is out of int8: 0
    auto from_half = run_op(convert_to(shape::fp8e4m3fn_type), {raw(vec_shape(shape::half_type, 2), {0.4375, -65504})});
    expect_near(from_half.to_vector<double>(), {0.4375, -448});
    auto from_int = run_op(convert_to(shape::fp8e4m3fn_type), {raw(vec_shape(shape::int32_type, 2), {17, -1000})});
    expect_near(from_int.to_vector<double>(), {16, -448}); // 17 is a tie between 16 and 18: even
}

TEST(ops_convert, integers_wrap_and_strided_input)
{
    auto w = run_op(convert_to(shape::int8_type), {raw(vec_shape(shape::int64_type, 3), {300, -129, 5})});
    EXPECT_EQ(w.to_vector<double>(), (dvec{44, 127, 5}));
    auto b = run_op(convert_to(shape::float_type), {raw(vec_shape(shape::bool_type, 2), {1, 0})});
    expect_near(b.to_vector<double>(), {1, 0});
    // Transposed: memory 0..5 read as 0 2 4 / 1 3 5, scaled by a half.
    auto t = raw(shape{shape::float_type, {2, 3}, {1, 2}}, {0.5, 1.5, 2.5, 3.5, 4.5, 5.5});
    auto r = run_op(convert_to(shape::int16_type), {t});
    EXPECT_TRUE(r.get_shape().standard());
    EXPECT_EQ(r.to_vector<double>(), (dvec{0, 2, 4, 1, 3, 5}));
}
