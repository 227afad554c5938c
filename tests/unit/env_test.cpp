// src/ir/env.hpp: reading switches and levels from the environment. A switch that is off by
// default is on at a positive level (env_enabled); one that is on by default is off when set to
// anything else (env_disabled: =0, =off), never when unset.
#include "ir/env.hpp"
#include "scoped_env.hpp"
#include <gtest/gtest.h>

namespace {
constexpr const char* var = "MIGX_ENV_TEST_SWITCH";
}

TEST(env, unset_is_empty_level_zero_neither_enabled_nor_disabled)
{
    migx_test::scoped_env unset{var, nullptr};
    EXPECT_EQ(migraphx::env_string(var), "");
    EXPECT_EQ(migraphx::env_level(var), 0);
    EXPECT_FALSE(migraphx::env_enabled(var));
    EXPECT_FALSE(migraphx::env_disabled(var));
}

TEST(env, numbers_and_words_give_levels)
{
    for(auto [text, level] : {std::pair{"1", 1L}, {"3", 3L}, {"0", 0L}, {"-1", -1L}, {"on", 1L}, {"true", 1L},
                              {"yes", 1L}, {"off", 0L}, {"no", 0L}, {"maybe", 0L}})
    {
        migx_test::scoped_env set{var, text};
        EXPECT_EQ(migraphx::env_level(var), level) << text;
        EXPECT_EQ(migraphx::env_enabled(var), level > 0) << text;
        EXPECT_EQ(migraphx::env_disabled(var), level <= 0) << text; // set, and not on
    }
}
