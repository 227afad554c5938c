// cpu/omp_region.hpp: a region that is not parallel runs once on the calling thread outside any
// OpenMP team (no team of one is started), a parallel one on a team; loops cover every index once
// either way, work-sharing loops inside a serial region included.
#include <gtest/gtest.h>
#ifdef MIGRAPHX_HAVE_CPU
#include "targets/cpu/omp_region.hpp"
#include <atomic>
#include <omp.h>
#include <thread>
#include <vector>

using migraphx::cpu::omp_for;
using migraphx::cpu::omp_region;

TEST(cpu_omp_region, a_serial_region_runs_once_on_the_caller_outside_any_team)
{
    int runs         = 0;
    bool in_parallel = true;
    int level        = -1;
    auto caller      = std::this_thread::get_id();
    std::thread::id ran_on;
    omp_region(false, 2, [&] {
        runs++;
        in_parallel = omp_in_parallel() != 0;
        level       = omp_get_level();
        ran_on      = std::this_thread::get_id();
    });
    EXPECT_EQ(runs, 1);
    EXPECT_FALSE(in_parallel);
    EXPECT_EQ(level, 0); // a team of one would be level 1
    EXPECT_EQ(ran_on, caller);
}

TEST(cpu_omp_region, a_parallel_region_runs_the_body_once_per_team_member)
{
    std::atomic<int> runs{0};
    std::atomic<int> team{0};
    std::atomic<int> level{-1};
    omp_region(true, 2, [&] {
        runs++;
        team  = omp_get_num_threads();
        level = omp_get_level();
    });
    EXPECT_EQ(level.load(), 1);
    EXPECT_GE(team.load(), 1);
    EXPECT_EQ(runs.load(), team.load());
}

TEST(cpu_omp_region, work_shared_loops_cover_every_index_once_serial_or_parallel)
{
    for(bool parallel : {false, true})
    {
        std::vector<std::atomic<int>> seen(1000);
        omp_region(parallel, 2, [&] {
#pragma omp for schedule(static)
            for(int i = 0; i < 1000; i++)
                seen[i]++;
        });
        std::vector<std::atomic<int>> by_for(1000);
        omp_for(parallel, 1000, [&](std::int64_t i) { by_for[i]++; });
        for(int i = 0; i < 1000; i++)
        {
            ASSERT_EQ(seen[i].load(), 1) << "omp_region, parallel=" << parallel << ", index " << i;
            ASSERT_EQ(by_for[i].load(), 1) << "omp_for, parallel=" << parallel << ", index " << i;
        }
    }
}

TEST(cpu_omp_region, an_empty_loop_calls_nothing)
{
    int calls = 0;
    omp_for(false, 0, [&](std::int64_t) { calls++; });
    omp_for(true, 0, [&](std::int64_t) { calls++; });
    EXPECT_EQ(calls, 0);
}
#endif
