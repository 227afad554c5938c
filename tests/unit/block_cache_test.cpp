// block_cache.hpp: zeroed blocks; large freed blocks are reused (zeroed again) within the limit.
#include "ir/block_cache.hpp"
#include <gtest/gtest.h>
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

using migraphx::allocate_uninitialized;
using migraphx::allocate_zeroed;
using migraphx::block_cache_statistics;
using migraphx::block_cache_threshold;

namespace {
bool all_zero(const char* p, std::size_t n)
{
    return std::all_of(p, p + n, [](char c) { return c == 0; });
}
} // namespace

TEST(block_cache, small_and_empty_blocks_are_zeroed_and_not_kept)
{
    migraphx::clear_block_cache();
    auto before = block_cache_statistics();
    for(std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{1000}, block_cache_threshold - 1})
    {
        auto b = allocate_zeroed(n);
        ASSERT_NE(b.get(), nullptr);
        EXPECT_TRUE(all_zero(b.get(), n)) << n;
        std::memset(b.get(), 0x33, std::max<std::size_t>(n, 1));
    }
    auto after = block_cache_statistics();
    EXPECT_EQ(after.kept_blocks, 0u);
    EXPECT_EQ(after.fresh_large, before.fresh_large) << "small blocks bypass the cache";
}

TEST(block_cache, a_freed_large_block_is_reused_and_zeroed_again)
{
    migraphx::clear_block_cache();
    const std::size_t n = 3 * block_cache_threshold + 17;
    const char* first   = nullptr;
    {
        auto b = allocate_zeroed(n);
        first  = b.get();
        EXPECT_TRUE(all_zero(b.get(), n));
        std::memset(b.get(), 0x7f, n);
    }
    auto s = block_cache_statistics();
    EXPECT_EQ(s.kept_blocks, 1u);
    EXPECT_EQ(s.kept_bytes, n);

    // A somewhat smaller request takes the same block, dirtied before: all zeros again.
    auto b = allocate_zeroed(n - 1000);
    EXPECT_EQ(b.get(), first);
    EXPECT_TRUE(all_zero(b.get(), n - 1000));
    auto t = block_cache_statistics();
    EXPECT_EQ(t.reused, s.reused + 1);
    EXPECT_EQ(t.kept_blocks, 0u);
    b.reset();
    EXPECT_EQ(block_cache_statistics().kept_bytes, n) << "goes back with its whole capacity";
    migraphx::clear_block_cache();
    EXPECT_EQ(block_cache_statistics().kept_blocks, 0u);
}

TEST(block_cache, a_block_more_than_twice_the_request_is_not_used)
{
    migraphx::clear_block_cache();
    allocate_zeroed(8 * block_cache_threshold).reset();
    auto s = block_cache_statistics();
    auto b = allocate_zeroed(2 * block_cache_threshold);
    auto t = block_cache_statistics();
    EXPECT_EQ(t.reused, s.reused);
    EXPECT_EQ(t.fresh_large, s.fresh_large + 1);
    EXPECT_EQ(t.kept_blocks, 1u) << "the big block stays for a request it fits";
    migraphx::clear_block_cache();
}

TEST(block_cache, the_oldest_blocks_give_way_at_the_limit)
{
    if(std::getenv("MIGRAPHX_BLOCK_CACHE_MB") != nullptr)
        GTEST_SKIP() << "needs the default limit (MIGRAPHX_BLOCK_CACHE_MB is set)";
    const std::size_t mb    = std::size_t{1} << 20;
    const std::size_t third = (migraphx::block_cache_default_mb / 3 + 10) * mb; // three exceed the limit
    migraphx::clear_block_cache();
    auto s0 = block_cache_statistics();
    std::vector<const char*> order;
    for(int i = 0; i < 3; i++)
    {
        // distinct sizes, so that none is taken for the next (each within 2x of the others)
        auto b = allocate_zeroed(third + static_cast<std::size_t>(i) * mb);
        order.push_back(b.get());
        b.reset();
        (void)allocate_zeroed(third / 2 - mb); // a smaller one in between: fits no kept block
    }
    auto s1 = block_cache_statistics();
    EXPECT_LE(s1.kept_bytes, migraphx::block_cache_default_mb * mb);
    EXPECT_GE(s1.evicted, s0.evicted + 1);
    // the newest big block is still there: a request its size gets it back
    auto again = allocate_uninitialized(third + 2 * mb);
    EXPECT_EQ(again.get(), order.back());
    again.reset();
    // a block larger than the whole limit is freed at once and evicts nothing
    auto s2 = block_cache_statistics();
    allocate_zeroed((migraphx::block_cache_default_mb + 1) * mb).reset();
    auto s3 = block_cache_statistics();
    EXPECT_EQ(s3.kept_bytes, s2.kept_bytes);
    EXPECT_EQ(s3.evicted, s2.evicted);
    migraphx::clear_block_cache();
}
