// half_accuracy.hpp: the searches' known inputs, the accuracy measure against exact values (the
// measure on simulated convolution engines is in gpu_conv_reference_test.cpp), the limit's
// variable, and the choice among candidates offered best first.
#include <gtest/gtest.h>
#ifdef MIGRAPHX_HAVE_GPU
#include "scoped_env.hpp"
#include "targets/gpu/half_accuracy.hpp"
#include <migraphx/errors.hpp>
#include <migraphx/half.hpp>
#include <cmath>
#include <limits>

using migraphx::half;
namespace dnn = migraphx::gpu::dnn;

TEST(gpu_half_accuracy, fill_pattern_repeats_its_period_and_is_what_the_device_gets)
{
    auto small = dnn::fill_pattern::make(10, 0.5f, 2);
    ASSERT_EQ(small.halves.size(), 10u);
    auto big = dnn::fill_pattern::make(1u << 20, 0.5f, 2);
    ASSERT_EQ(big.halves.size(), 65521u);
    for(std::size_t i = 0; i < 10; i++)
    {
        EXPECT_EQ(small.halves[i], big.halves[i]) << "one stream: the period only cuts it";
        EXPECT_EQ(small.values[i], static_cast<float>(half::from_bits(small.halves[i])));
        EXPECT_LE(std::fabs(small.values[i]), 0.5);
    }
    EXPECT_EQ(big.at(65521 + 3), big.at(3));
    EXPECT_EQ(small.at(13), small.at(3));
    EXPECT_NE(dnn::fill_pattern::make(10, 0.5f, 3).halves, small.halves) << "another seed";
}

TEST(gpu_half_accuracy, limit_from_env_and_key_words)
{
    {
        migx_test::scoped_env unset("MIGRAPHX_GPU_ACCURACY_LIMIT", nullptr);
        EXPECT_EQ(dnn::accuracy_limit_from_env(), 2.0);
    }
    {
        migx_test::scoped_env three("MIGRAPHX_GPU_ACCURACY_LIMIT", "3.5");
        EXPECT_EQ(dnn::accuracy_limit_from_env(), 3.5);
    }
    {
        migx_test::scoped_env off("MIGRAPHX_GPU_ACCURACY_LIMIT", "0");
        EXPECT_EQ(dnn::accuracy_limit_from_env(), 0.0);
    }
    for(const char* bad : {"abc", "0.5", "-1", "2x", "inf"})
    {
        migx_test::scoped_env e("MIGRAPHX_GPU_ACCURACY_LIMIT", bad);
        try
        {
            dnn::accuracy_limit_from_env();
            ADD_FAILURE() << bad << " was taken";
        }
        catch(const migraphx::exception& ex)
        {
            EXPECT_NE(std::string(ex.what()).find("MIGRAPHX_GPU_ACCURACY_LIMIT"), std::string::npos) << ex.what();
        }
    }
    EXPECT_EQ(dnn::accuracy_key_words(2), ", accuracy limit 2.00");
    EXPECT_EQ(dnn::accuracy_key_words(0), "");
}

// The search's choice among candidates offered best first: the first within the limit (or not
// checked), measured lazily; where all are over it, the most accurate.
TEST(gpu_half_accuracy, first_accurate_keeps_the_first_within_the_limit_else_the_most_accurate)
{
    auto with = [](std::vector<std::optional<double>> ratios) {
        std::vector<std::size_t> measured;
        auto kept = dnn::first_accurate(
            ratios.size(),
            [&](std::size_t i) -> std::optional<dnn::half_accuracy> {
                measured.push_back(i);
                if(not ratios[i])
                    return std::nullopt;
                dnn::half_accuracy a;
                a.ratio = *ratios[i];
                return a;
            },
            2.0);
        return std::make_pair(kept, measured);
    };
    using v = std::vector<std::size_t>;
    auto [fastest, m1] = with({1.0, 1.0, 5.0});
    EXPECT_EQ(fastest, 0u);
    EXPECT_EQ(m1, v{0}) << "nothing after the one kept is measured";

    auto [second, m2] = with({3.87, 1.36, 1.0});
    EXPECT_EQ(second, 1u) << "the fastest within the limit, not the most accurate";
    EXPECT_EQ(m2, (v{0, 1}));

    auto [unchecked, m3] = with({9.98, std::nullopt, 1.0});
    EXPECT_EQ(unchecked, 1u) << "a candidate that is not checked is kept as before the check";

    auto [least_bad, m4] = with({9.98, 3.87, 4.5, 3.87});
    EXPECT_EQ(least_bad, 1u) << "all over the limit: the most accurate, the first of equals";
    EXPECT_EQ(m4, (v{0, 1, 2, 3}));

    auto [nan_first, m5] = with({std::numeric_limits<double>::infinity(), 2.5});
    EXPECT_EQ(nan_first, 1u);

    EXPECT_FALSE(with({}).first.has_value());
    auto off = dnn::first_accurate(
        2, [](std::size_t) -> std::optional<dnn::half_accuracy> { return dnn::half_accuracy{0, 0, 50.0}; }, 0);
    EXPECT_EQ(off, 0u) << "a limit of 0 keeps the fastest";
}

TEST(gpu_half_accuracy, rounding_and_the_ratio_of_a_result)
{
    dnn::exact_samples r;
    r.offsets = {0, 2, 5};
    r.exact   = {1.0 / 3, -2.0 / 3, 3.3};
    dnn::set_rounding(r, true);
    double sq = 0;
    for(auto v : r.exact)
        sq += std::pow(static_cast<float>(half(static_cast<float>(v))) - v, 2);
    EXPECT_DOUBLE_EQ(r.rounding_rms, std::sqrt(sq / 3));
    std::vector<std::uint16_t> y(6, 0);
    for(std::size_t i = 0; i < 3; i++)
        y[r.offsets[i]] = half(static_cast<float>(r.exact[i])).bits;
    EXPECT_DOUBLE_EQ(dnn::measure_accuracy(r, y.data()).ratio, 1.0) << "rounded once";
    y[2] = half(static_cast<float>(-2.0 / 3 + 0.01)).bits;
    auto off = dnn::measure_accuracy(r, y.data());
    EXPECT_GT(off.ratio, 10.0);
    EXPECT_NEAR(off.max_error, 0.01, 1e-3);
    y[5] = 0x7c00; // infinity
    EXPECT_TRUE(std::isinf(dnn::measure_accuracy(r, y.data()).ratio));

    dnn::set_rounding(r, false);
    EXPECT_EQ(r.rounding_rms, 0.0) << "not a half result: nothing is rounded to half";
    dnn::exact_samples zeros;
    zeros.offsets = {1};
    zeros.exact   = {0.0};
    dnn::set_rounding(zeros, true);
    std::vector<std::uint16_t> z(2, 0);
    EXPECT_EQ(dnn::measure_accuracy(zeros, z.data()).ratio, 1.0) << "exact where rounding is exact";
    z[1] = half(0.5f).bits;
    EXPECT_TRUE(std::isinf(dnn::measure_accuracy(zeros, z.data()).ratio));
}

#else
TEST(gpu_half_accuracy, skipped) { GTEST_SKIP() << "built without CUDA"; }
#endif
