#include <migraphx/half.hpp>
#include <cmath>
#include <gtest/gtest.h>
#include <limits>

using migraphx::half;

TEST(half, exact_values_round_trip)
{
    for(float f : {0.0f, 1.0f, -2.0f, 0.5f, 65504.0f, -65504.0f, 6.103515625e-05f, 5.960464477539063e-08f})
        EXPECT_EQ(static_cast<float>(half(f)), f) << f;
}

TEST(half, rounds_to_nearest_even)
{
    // 1 + 2^-11 is halfway between 1 and the next half (1 + 2^-10): ties go to even (1).
    EXPECT_EQ(static_cast<float>(half(1.0f + std::ldexp(1.0f, -11))), 1.0f);
    EXPECT_EQ(static_cast<float>(half(1.0f + 3 * std::ldexp(1.0f, -11))), 1.0f + std::ldexp(1.0f, -9));
}

TEST(half, overflow_inf_and_nan)
{
    EXPECT_TRUE(std::isinf(static_cast<float>(half(1e6f))));
    EXPECT_TRUE(std::isinf(static_cast<float>(half(std::numeric_limits<float>::infinity()))));
    EXPECT_TRUE(std::isnan(static_cast<float>(half(std::numeric_limits<float>::quiet_NaN()))));
    EXPECT_EQ(static_cast<float>(half(1e-9f)), 0.0f);
}

TEST(half, type_cast)
{
    EXPECT_EQ(migraphx::type_cast<int>(half(3.0f)), 3);
    EXPECT_EQ(static_cast<float>(migraphx::type_cast<half>(std::int64_t{-7})), -7.0f);
}
