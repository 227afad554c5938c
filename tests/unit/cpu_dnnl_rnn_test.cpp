// cpu::rnn (oneDNN's LSTM, GRU and vanilla RNN primitives) against the reference lstm, gru and rnn
// ops: each direction, biases, peepholes, initial states, weights that are not constants, a size
// that runs on every thread; what oneDNN cannot compute is unrolled instead (rewrite_rnn), and
// still matches.
#include "cpu_test_util.hpp"
#include "rnn_test_util.hpp"
#include <migraphx/instruction.hpp>
#include <migraphx/load_save.hpp>
#include <migraphx/literal.hpp>
#include <migraphx/make_op.hpp>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <thread>

using migx_test::make_rnn_program;
using migx_test::rnn_case;

namespace {

std::size_t count(const migraphx::program& p, const std::string& name)
{
    auto names = migx_test::op_names(*p.get_main_module());
    return static_cast<std::size_t>(std::count(names.begin(), names.end(), name));
}

/// Compiled for cpu, matches ref; returns how many cpu::rnn and recurrent ops the cpu program has.
std::pair<std::size_t, std::size_t> check(const rnn_case& c)
{
    auto cpu = migx_test::expect_cpu_matches_ref(make_rnn_program(c), 1e-4, 1e-5);
    return {count(cpu, "dnnl::rnn"), count(cpu, c.op)};
}

} // namespace

TEST(cpu_dnnl_rnn, lstm_each_direction_runs_on_onednn)
{
    MIGX_REQUIRE_CPU();
    for(std::string dir : {"forward", "reverse", "bidirectional"})
    {
        rnn_case c;
        c.attrs = {{"direction", dir}};
        c.dirs  = dir == "bidirectional" ? 2 : 1;
        EXPECT_EQ(check(c), std::make_pair(std::size_t{1}, std::size_t{0})) << dir;
    }
}

TEST(cpu_dnnl_rnn, lstm_states_peepholes_and_no_bias)
{
    MIGX_REQUIRE_CPU();
    for(int variant = 0; variant < 4; variant++)
    {
        rnn_case c;
        c.attrs     = {{"direction", variant % 2 == 0 ? "bidirectional" : "reverse"}};
        c.dirs      = variant % 2 == 0 ? 2 : 1;
        c.h0        = variant != 1;
        c.c0        = variant >= 2;
        c.peepholes = variant == 3;
        c.bias      = variant != 0;
        EXPECT_EQ(check(c).first, 1u) << "variant " << variant;
    }
}

TEST(cpu_dnnl_rnn, lstm_weights_given_at_run_time)
{
    MIGX_REQUIRE_CPU();
    rnn_case c;
    c.weights_as_params = true;
    c.peepholes         = true;
    c.attrs             = {{"direction", "bidirectional"}};
    c.dirs              = 2;
    EXPECT_EQ(check(c).first, 1u);
}

TEST(cpu_dnnl_rnn, lstm_large_steps_run_on_every_thread)
{
    MIGX_REQUIRE_CPU();
    rnn_case c; // 4 x 256 x 1024 multiply-adds a step: oneDNN's own threading
    c.seq    = 3;
    c.batch  = 4;
    c.input  = 16;
    c.hidden = 256;
    c.dirs   = 2;
    c.attrs  = {{"direction", "bidirectional"}};
    EXPECT_EQ(check(c).first, 1u);
}

TEST(cpu_dnnl_rnn, lstm_what_onednn_cannot_compute_is_unrolled)
{
    MIGX_REQUIRE_CPU();
    for(const migraphx::value& attrs : {migraphx::value{{"clip", 0.5f}}, migraphx::value{{"input_forget", 1}},
                                        migraphx::value{{"actv_funcs", {"hardsigmoid", "tanh", "tanh"}}}})
    {
        rnn_case c;
        c.attrs = attrs;
        EXPECT_EQ(check(c), std::make_pair(std::size_t{0}, std::size_t{0}));
    }
}

TEST(cpu_dnnl_rnn, lstm_can_be_turned_off)
{
    MIGX_REQUIRE_CPU();
    setenv("MIGRAPHX_DISABLE_DNNL_RNN", "1", 1);
    auto r = check(rnn_case{});
    unsetenv("MIGRAPHX_DISABLE_DNNL_RNN");
    EXPECT_EQ(r, std::make_pair(std::size_t{0}, std::size_t{0}));
}

TEST(cpu_dnnl_rnn, lstm_a_saved_program_runs_the_same)
{
    MIGX_REQUIRE_CPU();
    rnn_case c;
    c.peepholes = true;
    c.attrs     = {{"direction", "bidirectional"}};
    c.dirs      = 2;
    auto p      = migx_test::expect_cpu_matches_ref(make_rnn_program(c));
    auto q      = migraphx::load_buffer(migraphx::save_buffer(p));
    EXPECT_EQ(count(q, "dnnl::rnn"), 1u);
    auto params = migx_test::generated_params(p);
    auto a = p.eval(params), b = q.eval(params);
    ASSERT_EQ(a.size(), b.size());
    for(std::size_t i = 0; i < a.size(); i++)
        EXPECT_EQ(a[i].to_vector<float>(), b[i].to_vector<float>()) << "output " << i;
}

TEST(cpu_dnnl_rnn, lstm_runs_from_several_threads_at_once_agree)
{
    MIGX_REQUIRE_CPU();
    rnn_case c;
    c.attrs = {{"direction", "bidirectional"}};
    c.dirs  = 2;
    auto p  = migx_test::expect_cpu_matches_ref(make_rnn_program(c));
    auto params   = migx_test::generated_params(p);
    auto expected = p.eval(params).at(0).to_vector<float>();
    std::vector<int> wrong(4, 0);
    std::vector<std::thread> threads;
    for(std::size_t t = 0; t < wrong.size(); t++)
        threads.emplace_back([&, t] {
            for(int i = 0; i < 20; i++)
                wrong[t] += p.eval(params).at(0).to_vector<float>() == expected ? 0 : 1;
        });
    for(auto& t : threads)
        t.join();
    EXPECT_EQ(wrong, std::vector<int>(4, 0));
}

TEST(cpu_dnnl_rnn, gru_before_and_after_reset_with_states)
{
    MIGX_REQUIRE_CPU();
    for(int lbr : {0, 1})
        for(std::string dir : {"forward", "bidirectional"})
        {
            rnn_case c;
            c.op    = "gru";
            c.h0    = lbr == 1;
            c.attrs = {{"direction", dir}, {"linear_before_reset", lbr}};
            c.dirs  = dir == "bidirectional" ? 2 : 1;
            EXPECT_EQ(check(c), std::make_pair(std::size_t{1}, std::size_t{0})) << "lbr " << lbr << " " << dir;
        }
}

TEST(cpu_dnnl_rnn, vanilla_rnn_with_each_activation_onednn_has)
{
    MIGX_REQUIRE_CPU();
    for(std::string f : {"tanh", "relu", "sigmoid"})
    {
        rnn_case c;
        c.op    = "rnn";
        c.h0    = true;
        c.attrs = {{"direction", "bidirectional"}, {"actv_funcs", {f, "tanh"}}};
        c.dirs  = 2;
        EXPECT_EQ(check(c), std::make_pair(std::size_t{1}, std::size_t{0})) << f;
    }
    rnn_case other; // oneDNN has no softsign cell: unrolled
    other.op    = "rnn";
    other.attrs = {{"actv_funcs", {"softsign"}}};
    EXPECT_EQ(check(other), std::make_pair(std::size_t{0}, std::size_t{0}));
}
