#include "ir/parallel_for.hpp"
#include "scoped_env.hpp"
#include <gtest/gtest.h>
#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace {

using migx_test::scoped_env;

TEST(parallel_for, covers_every_index_once)
{
    for(std::size_t n : {0u, 1u, 7u, 1000u, 100003u})
    {
        std::vector<std::atomic<int>> hits(n);
        migraphx::parallel_for(n, 1, [&](std::size_t b, std::size_t e) {
            ASSERT_LE(b, e);
            ASSERT_LE(e, n);
            for(std::size_t i = b; i < e; i++)
                hits[i]++;
        });
        for(std::size_t i = 0; i < n; i++)
            ASSERT_EQ(hits[i].load(), 1) << "index " << i << " of " << n;
    }
}

TEST(parallel_for, work_below_the_grain_runs_on_the_callers_thread_in_one_call)
{
    std::vector<std::pair<std::size_t, std::size_t>> calls;
    auto me = std::this_thread::get_id();
    bool other_thread = false;
    migraphx::parallel_for(50, 100, [&](std::size_t b, std::size_t e) {
        calls.emplace_back(b, e);
        other_thread = other_thread or std::this_thread::get_id() != me;
    });
    ASSERT_EQ(calls.size(), 1u);
    EXPECT_EQ(calls[0], std::make_pair(std::size_t{0}, std::size_t{50}));
    EXPECT_FALSE(other_thread);
    EXPECT_EQ(migraphx::parallel_threads(50, 100), 1u);
}

TEST(parallel_for, threads_never_exceed_the_work_or_the_cores)
{
    auto cores = migraphx::host_thread_count();
    EXPECT_EQ(migraphx::parallel_threads(0, 1), 1u);
    EXPECT_EQ(migraphx::parallel_threads(1, 1), 1u);
    EXPECT_EQ(migraphx::parallel_threads(1000000, 1), cores);
    EXPECT_LE(migraphx::parallel_threads(3, 1), 3u);
    EXPECT_EQ(migraphx::parallel_threads(5, 0), std::min<std::size_t>(cores, 5)); // grain 0 taken as 1
}

TEST(parallel_for, thread_count_follows_the_cpu_targets_setting)
{
    {
        scoped_env e("MIGRAPHX_CPU_THREADS", "3");
        EXPECT_EQ(migraphx::host_thread_count(), 3u);
        EXPECT_EQ(migraphx::parallel_threads(1000000, 1), 3u);
        std::mutex m;
        std::set<std::thread::id> ids;
        migraphx::parallel_for(1000000, 1, [&](std::size_t, std::size_t) {
            std::lock_guard<std::mutex> lock(m);
            ids.insert(std::this_thread::get_id());
        });
        EXPECT_LE(ids.size(), 3u);
    }
    {
        scoped_env e("MIGRAPHX_CPU_THREADS", "0"); // not a count: the next rule decides
        scoped_env o("OMP_NUM_THREADS", "2");
        EXPECT_EQ(migraphx::host_thread_count(), 2u);
    }
}

// The core count is asked of the system once (it read a sysfs file on every call before); the
// variables are still read on every call, so a change between calls counts.
TEST(parallel_for, without_a_setting_every_core_and_a_later_setting_still_counts)
{
    scoped_env a("MIGRAPHX_CPU_THREADS", nullptr);
    scoped_env b("OMP_NUM_THREADS", nullptr);
    auto cores = std::max(1u, std::thread::hardware_concurrency());
    EXPECT_EQ(migraphx::host_thread_count(), cores);
    EXPECT_EQ(migraphx::host_thread_count(), cores);
    {
        scoped_env e("MIGRAPHX_CPU_THREADS", "5");
        EXPECT_EQ(migraphx::host_thread_count(), 5u);
    }
    EXPECT_EQ(migraphx::host_thread_count(), cores);
}

TEST(parallel_for, an_exception_reaches_the_caller_after_all_threads_stop)
{
    std::atomic<int> running{0};
    EXPECT_THROW(migraphx::parallel_for(100000, 1,
                                        [&](std::size_t b, std::size_t) {
                                            running++;
                                            if(b == 0)
                                                throw std::runtime_error("range 0 failed");
                                            running--;
                                        }),
                 std::runtime_error);
    EXPECT_EQ(running.load(), 1); // only the throwing call left it raised: every other call returned
}

} // namespace
