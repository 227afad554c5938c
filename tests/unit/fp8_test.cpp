#include <migraphx/fp8.hpp>
#include <gtest/gtest.h>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <vector>

namespace {

using migraphx::fp8e4m3fn;

/// The e4m3fn value of bits b, computed from the format's definition (not from to_float).
double value_of(int b)
{
    int sign = (b >> 7) != 0 ? -1 : 1;
    int e    = (b >> 3) & 15;
    int m    = b & 7;
    if(e == 0)
        return sign * std::ldexp(m, -9);
    return sign * std::ldexp(8 + m, e - 10); // (1 + m/8) * 2^(e-7)
}

/// Round-to-nearest-even by search over every finite e4m3fn value, saturating: the oracle.
std::uint8_t nearest(double x)
{
    if(std::isnan(x))
        return std::signbit(x) ? 0xff : 0x7f;
    int best      = -1;
    double best_d = std::numeric_limits<double>::infinity();
    for(int b = 0; b < 256; b++)
    {
        if((b & 0x7f) == 0x7f)
            continue; // NaN
        if(((b & 0x80) != 0) != std::signbit(x))
            continue; // the sign is kept (x in [-2^-10, 0] rounds to -0); this also keeps huge
                      // |x|, where both signs' distances round to one double, on its own side
        double d = std::abs(value_of(b) - x);
        // ties go to the even mantissa (the even encoding: the last bit is the mantissa's)
        if(d < best_d or (d == best_d and (b & 1) == 0))
        {
            best   = b;
            best_d = d;
        }
    }
    return static_cast<std::uint8_t>(best);
}

} // namespace

TEST(fp8, every_encoding_decodes_to_its_definition_and_round_trips)
{
    for(int b = 0; b < 256; b++)
    {
        float f = fp8e4m3fn::to_float(static_cast<std::uint8_t>(b));
        if((b & 0x7f) == 0x7f)
        {
            EXPECT_TRUE(std::isnan(f)) << b;
            EXPECT_EQ(fp8e4m3fn::from_float(f), b) << "NaN keeps its sign";
            continue;
        }
        EXPECT_EQ(static_cast<double>(f), value_of(b)) << b;
        EXPECT_EQ(fp8e4m3fn::from_float(f), b) << b;
    }
}

TEST(fp8, named_values)
{
    EXPECT_EQ(fp8e4m3fn(1.0f).bits, 0x38);
    EXPECT_EQ(fp8e4m3fn(448.0f).bits, 0x7e);
    EXPECT_EQ(fp8e4m3fn(-448.0f).bits, 0xfe);
    EXPECT_EQ(fp8e4m3fn(std::ldexp(1.0f, -6)).bits, 0x08); // smallest normal
    EXPECT_EQ(fp8e4m3fn(std::ldexp(1.0f, -9)).bits, 0x01); // smallest subnormal
    EXPECT_EQ(static_cast<float>(fp8e4m3fn::from_bits(0x7e)), fp8e4m3fn::max_finite);
    EXPECT_EQ(fp8e4m3fn(-0.0f).bits, 0x80);
}

TEST(fp8, ties_round_to_even)
{
    EXPECT_EQ(fp8e4m3fn(1.0625f).bits, 0x38); // between 1 and 1.125
    EXPECT_EQ(fp8e4m3fn(1.1875f).bits, 0x3a); // between 1.125 and 1.25
    EXPECT_EQ(fp8e4m3fn(std::ldexp(1.0f, -10)).bits, 0x00);       // between 0 and 2^-9
    EXPECT_EQ(fp8e4m3fn(std::ldexp(3.0f, -10)).bits, 0x02);       // between 1 and 2 of 2^-9
    EXPECT_EQ(fp8e4m3fn(std::ldexp(15.0f, -10)).bits, 0x08);      // 7.5 x 2^-9: carries into the normals
    EXPECT_EQ(fp8e4m3fn(464.0f).bits, 0x7e);                      // halfway to the NaN slot: even, 448
}

TEST(fp8, saturates_or_gives_nan_out_of_range)
{
    const float inf = std::numeric_limits<float>::infinity();
    EXPECT_EQ(fp8e4m3fn(465.0f).bits, 0x7e);
    EXPECT_EQ(fp8e4m3fn(1e30f).bits, 0x7e);
    EXPECT_EQ(fp8e4m3fn(inf).bits, 0x7e);
    EXPECT_EQ(fp8e4m3fn(-inf).bits, 0xfe);
    EXPECT_EQ(fp8e4m3fn::from_float(465.0f, false), 0x7f);
    EXPECT_EQ(fp8e4m3fn::from_float(-inf, false), 0xff);
    EXPECT_EQ(fp8e4m3fn::from_float(464.0f, false), 0x7e);
    EXPECT_EQ(fp8e4m3fn(std::numeric_limits<float>::quiet_NaN()).bits, 0x7f);
    EXPECT_EQ(fp8e4m3fn(-std::numeric_limits<float>::quiet_NaN()).bits, 0xff);
}

TEST(fp8, agrees_with_a_search_over_all_values)
{
    // every float between encodings, at the midpoints and just beside them, and a sweep of
    // float subnormals and values far out of range
    std::vector<float> xs;
    for(int b = 0; b < 127; b++)
    {
        double lo = value_of(b), hi = b == 126 ? 480.0 : value_of(b + 1);
        for(double t : {0.0, 0.25, 0.5, 0.75})
        {
            auto f = static_cast<float>(lo + (hi - lo) * t);
            xs.insert(xs.end(), {f, std::nextafter(f, 0.0f), std::nextafter(f, 1e9f)});
        }
    }
    for(int k = -149; k < 128; k++)
        xs.push_back(std::ldexp(1.37f, k));
    unsigned s = 7;
    for(int i = 0; i < 20000; i++)
    {
        s = s * 1664525u + 1013904223u;
        xs.push_back(std::ldexp(static_cast<float>(s >> 8) / static_cast<float>(1u << 24), static_cast<int>(s % 24) - 14));
    }
    for(auto x : xs)
        for(float v : {x, -x})
            ASSERT_EQ(fp8e4m3fn::from_float(v), nearest(v)) << v;
}

TEST(fp8, prints_as_its_value)
{
    std::ostringstream ss;
    ss << fp8e4m3fn(0.75f) << " " << fp8e4m3fn(1000.0f);
    EXPECT_EQ(ss.str(), "0.75 448");
}

TEST(fp8, numeric_limits_give_e4m3s_range)
{
    using L = std::numeric_limits<fp8e4m3fn>;
    static_assert(L::is_specialized and L::is_signed and not L::is_integer and not L::has_infinity);
    EXPECT_EQ(static_cast<float>(L::max()), 448.0f);
    EXPECT_EQ(static_cast<float>(L::lowest()), -448.0f);
    EXPECT_EQ(static_cast<float>(L::min()), std::ldexp(1.0f, -6));
    EXPECT_EQ(static_cast<float>(L::denorm_min()), std::ldexp(1.0f, -9));
    EXPECT_EQ(static_cast<float>(L::epsilon()), 0.125f); // 1.125 - 1
    EXPECT_EQ(static_cast<float>(L::round_error()), 0.5f);
    EXPECT_TRUE(std::isnan(static_cast<float>(L::quiet_NaN())));
}
