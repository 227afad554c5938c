// ir/scratch_group: the innermost scope names the group of this thread; scopes nest and end;
// another thread sees its own (none).
#include <gtest/gtest.h>
#include "ir/scratch_group.hpp"
#include <string>
#include <thread>

TEST(scratch_group, scopes_nest_and_belong_to_their_thread)
{
    EXPECT_EQ(migraphx::current_scratch_group(), "");
    {
        migraphx::scratch_group_scope outer("a");
        EXPECT_EQ(migraphx::current_scratch_group(), "a");
        {
            migraphx::scratch_group_scope inner("b");
            EXPECT_EQ(migraphx::current_scratch_group(), "b");
            std::string seen = "?";
            std::thread([&] { seen = migraphx::current_scratch_group(); }).join();
            EXPECT_EQ(seen, "");
        }
        EXPECT_EQ(migraphx::current_scratch_group(), "a");
    }
    EXPECT_EQ(migraphx::current_scratch_group(), "");
}
