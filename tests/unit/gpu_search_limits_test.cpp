// search_limits.hpp: how far the cuDNN engine searches go, by default and under
// compile_options::exhaustive_tune. Pure values, no device.
#include <gtest/gtest.h>
#ifdef MIGRAPHX_HAVE_GPU
#include "targets/gpu/search_limits.hpp"

using migraphx::gpu::convolution_engine_limits;
using migraphx::gpu::engine_search_limits;
using migraphx::gpu::int8_engine_limits;

namespace {
void expect_wider(const engine_search_limits& wide, const engine_search_limits& narrow)
{
    EXPECT_GT(wide.heuristic_configs, narrow.heuristic_configs);
    EXPECT_GT(wide.fallback_configs, narrow.fallback_configs);
    EXPECT_GE(wide.precompiled, narrow.precompiled);
    EXPECT_GT(wide.runtime_compiled, narrow.runtime_compiled);
    EXPECT_GT(wide.budget_ms, narrow.budget_ms);
    EXPECT_NE(wide.text(), narrow.text()) << "the tuning cache must keep the two choices apart";
}
} // namespace

TEST(gpu_search_limits, default_convolution_search_keeps_the_keys_earlier_caches_hold)
{
    // The text the convolution's tuning-cache key carried before the limits had a type.
    EXPECT_EQ(convolution_engine_limits(false).text(), "candidates 24+2, timed 12+2, budget 1500 ms");
}

TEST(gpu_search_limits, exhaustive_search_raises_every_limit)
{
    expect_wider(convolution_engine_limits(true), convolution_engine_limits(false));
    expect_wider(int8_engine_limits(true), int8_engine_limits(false));
}

TEST(gpu_search_limits, int8_tries_more_runtime_compiled_engines_than_half)
{
    // every fused int8 engine compiles at plan time (int8_convolution.cpp)
    EXPECT_GT(int8_engine_limits(false).runtime_compiled, convolution_engine_limits(false).runtime_compiled);
}

#else
TEST(gpu_search_limits, skipped) { GTEST_SKIP() << "built without CUDA"; }
#endif
