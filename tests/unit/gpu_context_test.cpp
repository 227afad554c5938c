// targets/gpu/context: work an op's finalize defers (gpu_context::defer) runs on a thread of its
// own, in order, while the caller goes on; end_finalize waits for it, reserves the largest
// workspace a job asked for and rethrows a job's failure (the jobs after it are dropped).
#include <gtest/gtest.h>
#ifdef MIGRAPHX_HAVE_GPU
#include "gpu_test_util.hpp"
#include "targets/gpu/context.hpp"
#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace {

using migraphx::gpu::gpu_context;

TEST(gpu_context, deferred_jobs_run_in_order_on_another_thread_while_the_caller_goes_on)
{
    MIGX_REQUIRE_GPU();
    gpu_context g;
    std::atomic<bool> release{false};
    std::mutex m;
    std::vector<int> order;
    std::vector<std::size_t> handles;
    std::vector<std::thread::id> threads;
    const int jobs = 16;
    for(int i = 0; i < jobs; i++)
        g.defer([&, i](std::size_t handle_index) {
            while(not release)
                std::this_thread::sleep_for(std::chrono::microseconds(50));
            std::lock_guard<std::mutex> lock(m);
            order.push_back(i);
            handles.push_back(handle_index);
            threads.push_back(std::this_thread::get_id());
            return static_cast<std::size_t>(i == 5 ? 3 << 20 : 1024);
        });
    {
        // defer returned although no job could finish yet: the caller goes on
        std::lock_guard<std::mutex> lock(m);
        EXPECT_TRUE(order.empty());
    }
    release = true;
    g.end_finalize();
    ASSERT_EQ(order.size(), std::size_t(jobs));
    for(int i = 0; i < jobs; i++)
        EXPECT_EQ(order[i], i);
    for(std::size_t i = 0; i < handles.size(); i++)
    {
        EXPECT_EQ(handles[i], 1u) << "not the compiling thread's cuDNN handle (0)";
        EXPECT_NE(threads[i], std::this_thread::get_id());
    }
    EXPECT_GE(g.workspace_size(), std::size_t{3 << 20});
    g.end_finalize(); // nothing left: the jobs do not run again
    EXPECT_EQ(order.size(), std::size_t(jobs));
}

TEST(gpu_context, a_failing_deferred_job_is_rethrown_by_end_finalize_and_the_rest_dropped)
{
    MIGX_REQUIRE_GPU();
    gpu_context g;
    int after = 0;
    g.defer([](std::size_t) -> std::size_t { throw std::runtime_error("plan refused"); });
    g.defer([&](std::size_t) -> std::size_t { return ++after, 0; });
    try
    {
        g.end_finalize();
        FAIL() << "no exception";
    }
    catch(const std::runtime_error& e)
    {
        EXPECT_STREQ(e.what(), "plan refused");
    }
    EXPECT_EQ(after, 0);
    EXPECT_NO_THROW(g.end_finalize());
    // a later finalize defers again on a fresh thread
    g.defer([&](std::size_t) -> std::size_t { return ++after, 0; });
    g.end_finalize();
    EXPECT_EQ(after, 1);
}

TEST(gpu_context, runs_of_one_program_from_several_threads_take_turns)
{
    MIGX_REQUIRE_GPU();
    // A convolution, a product and pointwise work between them: a run's intermediate results
    // live in the program's one scratch buffer, so overlapping runs would overwrite each other's.
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", migraphx::shape{migraphx::shape::half_type, {2, 16, 32, 32}});
    auto w  = m->add_parameter("w", migraphx::shape{migraphx::shape::half_type, {32, 16, 3, 3}});
    auto b  = m->add_parameter("b", migraphx::shape{migraphx::shape::half_type, {2, 32, 1024, 64}});
    auto c  = m->add_instruction(migraphx::make_op("convolution", {{"padding", {1, 1}}}), x, w);
    auto r  = m->add_instruction(migraphx::make_op("relu"), c);
    auto f  = m->add_instruction(migraphx::make_op("reshape", {{"dims", {2, 32, 1, 1024}}}), r);
    auto d  = m->add_instruction(migraphx::make_op("dot"), f, b);
    m->add_return({m->add_instruction(migraphx::make_op("tanh"), d)});
    migraphx::compile_options o;
    o.offload_copy = true;
    p.compile(migraphx::get_target("gpu"), o);
    // Each thread its own inputs, and the results one run alone gives for them.
    const int threads = 4;
    std::vector<migraphx::parameter_map> inputs;
    std::vector<std::vector<migraphx::argument>> want;
    for(int t = 0; t < threads; t++)
    {
        inputs.push_back(migx_test::fresh_params(p));
        want.push_back(p.eval(inputs.back()));
    }
    std::atomic<int> differing{0};
    std::vector<std::thread> pool;
    for(int t = 0; t < threads; t++)
        pool.emplace_back([&, t] {
            for(int i = 0; i < 50; i++)
            {
                auto got = p.eval(inputs[t]);
                if(got.size() != 1 or not(got[0] == want[t][0]))
                    differing++;
            }
        });
    for(auto& th : pool)
        th.join();
    EXPECT_EQ(differing.load(), 0) << "runs from several threads mixed their work";
}

} // namespace
#endif
