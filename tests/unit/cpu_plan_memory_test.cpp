// cpu::plan_memory before/after: the cpu target's ops write into views of one scratch buffer a run
// (results that reach @return excepted), and a planned program gives the unplanned one's bits,
// run after run and from several threads at once.
#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include "cpu_test_util.hpp"
#include <algorithm>
#include <cstdlib>
#include <thread>
#include <vector>

using migraphx::make_op;
using migraphx::shape;

namespace {

// conv -> relu -> conv (+ the first's result) -> relu -> max pooling -> a product: a chain of
// planned results, a residual and an output.
migraphx::program small_net()
{
    migraphx::program p;
    auto* m  = p.get_main_module();
    auto x   = m->add_parameter("x", shape{shape::float_type, {1, 16, 12, 12}});
    auto w1  = m->add_literal(migraphx::generate_literal(shape{shape::float_type, {16, 16, 3, 3}}, 1));
    auto w2  = m->add_literal(migraphx::generate_literal(shape{shape::float_type, {16, 16, 3, 3}}, 2));
    auto fc  = m->add_literal(migraphx::generate_literal(shape{shape::float_type, {576, 10}}, 3));
    auto pad = make_op("convolution", {{"padding", {1, 1}}});
    auto a   = m->add_instruction(make_op("relu"), m->add_instruction(pad, x, w1));
    auto b   = m->add_instruction(make_op("add"), m->add_instruction(pad, a, w2), a);
    auto c   = m->add_instruction(make_op("sigmoid"), m->add_instruction(make_op("relu"), b));
    auto pl  = m->add_instruction(
        make_op("pooling", {{"mode", "max"}, {"lengths", {2, 2}}, {"stride", {2, 2}}, {"padding", {0, 0}}}), c);
    auto f = m->add_instruction(make_op("flatten", {{"axis", 1}}), pl);
    m->add_return({m->add_instruction(make_op("dot"), f, fc)});
    return p;
}

migraphx::program compiled(const migraphx::program& p, bool plan)
{
    auto q = p;
    if(not plan)
        setenv("MIGRAPHX_DISABLE_PASSES", "cpu::plan_memory", 1);
    q.compile(migraphx::get_target("cpu"));
    unsetenv("MIGRAPHX_DISABLE_PASSES");
    return q;
}

std::size_t count(const migraphx::program& p, const std::string& name)
{
    const auto& m = *p.get_main_module();
    return std::count_if(m.begin(), m.end(), [&](const auto& ins) { return ins.name() == name; });
}

std::vector<float> first_output(migraphx::program& p, const migraphx::parameter_map& params)
{
    return p.eval(params).front().to_vector<float>();
}

} // namespace

TEST(cpu_plan_memory, results_become_views_of_one_scratch_buffer_outputs_stay_apart)
{
    MIGX_REQUIRE_CPU();
    auto before = compiled(small_net(), false);
    auto after  = compiled(small_net(), true);
    EXPECT_EQ(count(before, "cpu::allocate"), 0u);
    EXPECT_EQ(count(before, "load"), 0u);
    EXPECT_EQ(count(after, "cpu::allocate"), 1u); // the scratch buffer, first
    EXPECT_EQ(after.get_main_module()->begin()->name(), "cpu::allocate");
    EXPECT_GT(count(after, "load"), 2u);
    const auto& m = *after.get_main_module();
    std::size_t planned = 0;
    for(auto it = m.begin(); it != m.end(); ++it)
    {
        auto v = it->get_operator().to_value();
        if(not v.contains("planned") or not v.at("planned").get_bool())
            continue;
        planned++;
        EXPECT_EQ(it->inputs().back()->name(), "load") << it->name();
    }
    EXPECT_GT(planned, 2u);
    // the returned product has memory of its own: the caller keeps it after the run
    auto ret = std::prev(m.end());
    auto out = ret->inputs().front();
    auto v   = out->get_operator().to_value();
    EXPECT_FALSE(v.contains("planned") and v.at("planned").get_bool()) << out->name();
    // the scratch holds fewer bytes than the unplanned run's results together
    EXPECT_LT(after.get_memory_usage(), before.get_memory_usage());
}

TEST(cpu_plan_memory, planned_runs_give_the_unplanned_bits)
{
    MIGX_REQUIRE_CPU();
    auto before = compiled(small_net(), false);
    auto after  = compiled(small_net(), true);
    auto params = migx_test::generated_params(small_net());
    auto want   = first_output(before, params);
    for(int run = 0; run < 3; run++)
        EXPECT_EQ(first_output(after, params), want) << "run " << run;
    // an output of an earlier run is not overwritten by a later one
    auto kept = after.eval(params).front();
    auto other = migx_test::generated_params(small_net());
    other.at("x") = migraphx::generate_argument(other.at("x").get_shape(), 99);
    after.eval(other);
    EXPECT_EQ(kept.to_vector<float>(), want);
}

TEST(cpu_plan_memory, concurrent_runs_each_get_their_own_scratch)
{
    MIGX_REQUIRE_CPU();
    auto p = compiled(small_net(), true);
    std::vector<migraphx::parameter_map> inputs;
    std::vector<std::vector<float>> want;
    auto reference = compiled(small_net(), false);
    for(unsigned long seed = 0; seed < 4; seed++)
    {
        auto params = migx_test::generated_params(small_net());
        params.at("x") = migraphx::generate_argument(params.at("x").get_shape(), seed + 10);
        want.push_back(first_output(reference, params));
        inputs.push_back(params);
    }
    std::vector<std::vector<float>> got(inputs.size());
    std::vector<std::thread> threads;
    for(std::size_t t = 0; t < inputs.size(); t++)
        threads.emplace_back([&, t] {
            for(int i = 0; i < 20; i++)
                got[t] = p.eval(inputs[t]).front().to_vector<float>();
        });
    for(auto& t : threads)
        t.join();
    for(std::size_t t = 0; t < inputs.size(); t++)
        EXPECT_EQ(got[t], want[t]) << "thread " << t;
}
