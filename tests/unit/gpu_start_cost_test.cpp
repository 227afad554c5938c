// start_cost.hpp: which measured cuDNN algorithm a convolution keeps, counting its first use.
// Pure choices, no device: the fastest unless it starts slowly, then the quickest starter within
// the margin; the environment variable and its errors.
#include <gtest/gtest.h>
#ifdef MIGRAPHX_HAVE_GPU
#include "scoped_env.hpp"
#include "targets/gpu/start_cost.hpp"
#include <migraphx/errors.hpp>

using migraphx::gpu::keep_algorithm;
using migraphx::gpu::start_policy;
using migraphx::gpu::timed_algorithm;
using migx_test::scoped_env;

TEST(gpu_start_cost, fastest_kept_when_it_starts_quickly)
{
    std::vector<timed_algorithm> a{{1.0, 0.1}, {1.01, 0.01}};
    EXPECT_EQ(keep_algorithm(a, start_policy{}), 0u);
}

TEST(gpu_start_cost, quick_starter_within_margin_replaces_slow_starter)
{
    // ResNet-50's 3x3/2 256-channel convolution on an H200: the fastest took 66 ms to start.
    std::vector<timed_algorithm> a{{0.100, 66.0}, {0.103, 0.1}, {0.104, 0.05}};
    EXPECT_EQ(keep_algorithm(a, start_policy{}), 2u);
}

TEST(gpu_start_cost, nothing_outside_the_margin_is_taken)
{
    std::vector<timed_algorithm> a{{0.100, 66.0}, {0.106, 0.1}};
    EXPECT_EQ(keep_algorithm(a, start_policy{}), 0u);
    start_policy wide;
    wide.margin = 0.10;
    EXPECT_EQ(keep_algorithm(a, wide), 1u);
}

TEST(gpu_start_cost, slow_starters_keep_the_quickest)
{
    std::vector<timed_algorithm> a{{1.0, 30.0}, {1.02, 10.0}, {1.03, 20.0}};
    EXPECT_EQ(keep_algorithm(a, start_policy{}), 1u);
}

TEST(gpu_start_cost, equal_starters_keep_the_faster)
{
    std::vector<timed_algorithm> a{{1.0, 30.0}, {1.01, 0.1}, {1.02, 0.1}};
    EXPECT_EQ(keep_algorithm(a, start_policy{}), 1u);
}

TEST(gpu_start_cost, margin_zero_keeps_the_fastest)
{
    std::vector<timed_algorithm> a{{1.0, 66.0}, {1.0, 0.1}};
    EXPECT_EQ(keep_algorithm(a, start_policy{0}), 0u);
    EXPECT_FALSE(start_policy{0}.enabled());
}

TEST(gpu_start_cost, empty_list_throws)
{
    EXPECT_THROW(keep_algorithm({}, start_policy{}), migraphx::exception);
}

TEST(gpu_start_cost, policy_from_env)
{
    {
        scoped_env e("MIGRAPHX_CUDNN_START_MARGIN", nullptr);
        EXPECT_DOUBLE_EQ(start_policy::from_env().margin, 0.05);
    }
    {
        scoped_env e("MIGRAPHX_CUDNN_START_MARGIN", "12.5");
        EXPECT_DOUBLE_EQ(start_policy::from_env().margin, 0.125);
    }
    {
        scoped_env e("MIGRAPHX_CUDNN_START_MARGIN", "0");
        EXPECT_FALSE(start_policy::from_env().enabled());
    }
    for(const char* bad : {"five", "-1", "101", "5%"})
    {
        scoped_env e("MIGRAPHX_CUDNN_START_MARGIN", bad);
        try
        {
            start_policy::from_env();
            ADD_FAILURE() << bad << " was accepted";
        }
        catch(const migraphx::exception& ex)
        {
            EXPECT_NE(std::string(ex.what()).find("MIGRAPHX_CUDNN_START_MARGIN"), std::string::npos) << ex.what();
        }
    }
}

TEST(gpu_start_cost, policy_text_names_the_margin)
{
    start_policy a, b;
    b.margin = 0.1;
    EXPECT_NE(a.str(), b.str());
    EXPECT_NE(a.str().find("5%"), std::string::npos) << a.str();
}
#endif
