// rewrite_rnn: rnn, gru and lstm ops unrolled into dots and elementwise ops. Before: the op
// (its reference compute); after: no recurrent op left, the same values (ref eval of both).
#include <migraphx/instruction.hpp>
#include <migraphx/literal.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/ref/target.hpp>
#include <gtest/gtest.h>
#include <cmath>
#include <string>
#include "passes/dead_code_elimination.hpp"
#include "passes/pass_manager.hpp"
#include "passes/rewrite_rnn.hpp"
#include "rnn_test_util.hpp"

using migx_test::make_rnn_program;
using migx_test::rnn_case;
using migx_test::rnn_params;

namespace {

std::size_t count_recurrent(const migraphx::module& m)
{
    std::size_t n = 0;
    for(auto it = m.begin(); it != m.end(); ++it)
        n += it->name() == "rnn" or it->name() == "gru" or it->name() == "lstm" ? 1 : 0;
    return n;
}

std::vector<migraphx::argument> run(migraphx::program p, const migraphx::parameter_map& params)
{
    p.compile(migraphx::ref::target{});
    auto r = p.eval(params);
    for(auto& a : r)
        a = a.copy();
    return r;
}

/// The op and its unrolling agree, and nothing recurrent is left.
void expect_unrolled_matches(const rnn_case& c)
{
    auto before = make_rnn_program(c);
    auto after  = before;
    migraphx::run_passes(*after.get_main_module(), {migraphx::rewrite_rnn{}, migraphx::dead_code_elimination{}});
    EXPECT_EQ(count_recurrent(*before.get_main_module()), 1u);
    EXPECT_EQ(count_recurrent(*after.get_main_module()), 0u);
    auto params = rnn_params(before, c);
    auto a      = run(before, params);
    auto b      = run(after, params);
    ASSERT_EQ(a.size(), b.size());
    for(std::size_t i = 0; i < a.size(); i++)
    {
        auto va = a[i].to_vector<float>();
        auto vb = b[i].to_vector<float>();
        ASSERT_EQ(va.size(), vb.size());
        for(std::size_t j = 0; j < va.size(); j++)
            ASSERT_NEAR(va[j], vb[j], 2e-5) << c.op << " output " << i << " element " << j;
    }
}

} // namespace

TEST(rewrite_rnn, lstm_forward_reverse_and_bidirectional)
{
    for(std::string dir : {"forward", "reverse", "bidirectional"})
    {
        rnn_case c;
        c.attrs = {{"direction", dir}};
        c.dirs  = dir == "bidirectional" ? 2 : 1;
        expect_unrolled_matches(c);
    }
}

TEST(rewrite_rnn, lstm_with_states_peepholes_clip_and_coupled_gates)
{
    rnn_case c;
    c.peepholes = true;
    c.h0        = true;
    c.c0        = true;
    c.lens      = "full";
    c.attrs     = {{"direction", "bidirectional"}, {"clip", 0.5f}, {"input_forget", 1}};
    c.dirs      = 2;
    expect_unrolled_matches(c);
}

TEST(rewrite_rnn, lstm_without_bias_and_other_activations)
{
    rnn_case c;
    c.bias  = false;
    c.attrs = {{"actv_funcs", {"hardsigmoid(0.3,0.4)", "leakyrelu(0.1)", "scaledtanh(1.5,0.5)"}}};
    expect_unrolled_matches(c);
}

TEST(rewrite_rnn, gru_before_and_after_reset)
{
    for(int lbr : {0, 1})
    {
        rnn_case c;
        c.op     = "gru";
        c.h0     = true;
        c.dirs   = 2;
        c.attrs  = {{"direction", "bidirectional"}, {"linear_before_reset", lbr}};
        expect_unrolled_matches(c);
    }
}

TEST(rewrite_rnn, rnn_with_each_activation)
{
    for(std::string f : {"tanh", "sigmoid", "relu", "affine(0.5,0.1)", "elu(0.7)", "softsign", "softplus",
                         "thresholdedrelu(0.2)"})
    {
        rnn_case c;
        c.op    = "rnn";
        c.attrs = {{"actv_funcs", {f}}};
        expect_unrolled_matches(c);
    }
}

TEST(rewrite_rnn, rows_that_stop_early_keep_the_op)
{
    for(std::string lens : {"short", "param"})
    {
        rnn_case c;
        c.lens = lens;
        auto p = make_rnn_program(c);
        migraphx::run_passes(*p.get_main_module(), {migraphx::rewrite_rnn{}, migraphx::dead_code_elimination{}});
        EXPECT_EQ(count_recurrent(*p.get_main_module()), 1u) << lens;
    }
}

TEST(rewrite_rnn, ops_a_target_keeps_are_left)
{
    auto p = make_rnn_program(rnn_case{});
    migraphx::rewrite_rnn keep_lstm{[](migraphx::instruction_ref ins) { return ins->name() == "lstm"; }};
    migraphx::run_passes(*p.get_main_module(), {keep_lstm, migraphx::dead_code_elimination{}});
    EXPECT_EQ(count_recurrent(*p.get_main_module()), 1u);
}
