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

using migraphx::make_op;
using migraphx::shape;

namespace {

struct rnn_case
{
    std::string op = "lstm";
    migraphx::value attrs;
    std::size_t seq = 3, batch = 2, input = 3, hidden = 4, dirs = 1;
    bool bias = true, states = false, peepholes = false;
    /// sequence_lens: none (absent), "full" (a literal of seq), "short" (a literal with a row of
    /// 1), "param" (a parameter).
    std::string lens = "none";
};

std::size_t gates(const std::string& op) { return op == "rnn" ? 1 : op == "gru" ? 3 : 4; }

migraphx::instruction_ref values(migraphx::module& m, std::vector<std::size_t> lens, float scale, int salt)
{
    shape s{shape::float_type, std::move(lens)};
    std::vector<float> v(s.elements());
    for(std::size_t i = 0; i < v.size(); i++)
        v[i] = scale * std::sin(0.7f * static_cast<float>(i) + static_cast<float>(salt));
    return m.add_literal(migraphx::literal{s, v});
}

/// A program of one recurrent op; it returns every output of the tuple.
migraphx::program make_program(const rnn_case& c)
{
    migraphx::program p;
    auto& m = *p.get_main_module();
    auto g  = gates(c.op);
    auto gh = g * c.hidden;
    auto x  = m.add_parameter("x", shape{shape::float_type, {c.seq, c.batch, c.input}});
    std::vector<migraphx::instruction_ref> in{x, values(m, {c.dirs, gh, c.input}, 0.6f, 1),
                                              values(m, {c.dirs, gh, c.hidden}, 0.5f, 2)};
    bool more = c.lens != "none" or c.states or c.peepholes;
    if(c.bias or more)
        in.push_back(c.bias ? values(m, {c.dirs, 2 * gh}, 0.3f, 3)
                            : m.add_literal(migraphx::literal{shape{shape::float_type, {c.dirs, 2 * gh}}, std::vector<float>(c.dirs * 2 * gh)}));
    if(more)
    {
        shape ls{shape::int32_type, {c.batch}};
        std::vector<std::int32_t> lv(c.batch, static_cast<std::int32_t>(c.seq));
        if(c.lens == "short")
            lv.back() = 1;
        in.push_back(c.lens == "param" ? m.add_parameter("lens", ls) : m.add_literal(migraphx::literal{ls, lv}));
    }
    if(c.states or c.peepholes)
    {
        in.push_back(values(m, {c.dirs, c.batch, c.hidden}, 0.8f, 4));
        if(c.op == "lstm")
            in.push_back(values(m, {c.dirs, c.batch, c.hidden}, 0.9f, 5));
    }
    if(c.peepholes)
        in.push_back(values(m, {c.dirs, 3 * c.hidden}, 0.4f, 6));
    auto attrs = c.attrs;
    attrs["hidden_size"] = c.hidden;
    auto r = m.add_instruction(make_op(c.op, attrs), in);
    std::vector<migraphx::instruction_ref> outs;
    for(std::size_t i = 0; i < (c.op == "lstm" ? 3u : 2u); i++)
        outs.push_back(m.add_instruction(make_op("get_tuple_elem", {{"index", i}}), r));
    m.add_return(outs);
    return p;
}

std::size_t count_recurrent(const migraphx::module& m)
{
    std::size_t n = 0;
    for(auto it = m.begin(); it != m.end(); ++it)
        n += it->name() == "rnn" or it->name() == "gru" or it->name() == "lstm" ? 1 : 0;
    return n;
}

std::vector<migraphx::argument> run(migraphx::program p, const rnn_case& c)
{
    p.compile(migraphx::ref::target{});
    std::vector<float> x(c.seq * c.batch * c.input);
    for(std::size_t i = 0; i < x.size(); i++)
        x[i] = std::cos(0.3f * static_cast<float>(i));
    migraphx::parameter_map params{{"x", migraphx::argument{shape{shape::float_type, {c.seq, c.batch, c.input}}, x.data()}}};
    std::vector<std::int32_t> lens(c.batch, static_cast<std::int32_t>(c.seq));
    if(c.lens == "param")
        params["lens"] = migraphx::argument{shape{shape::int32_type, {c.batch}}, lens.data()};
    auto r = p.eval(params);
    for(auto& a : r)
        a = a.copy();
    return r;
}

/// The op and its unrolling agree, and nothing recurrent is left.
void expect_unrolled_matches(const rnn_case& c)
{
    auto before = make_program(c);
    auto after  = before;
    migraphx::run_passes(*after.get_main_module(), {migraphx::rewrite_rnn{}, migraphx::dead_code_elimination{}});
    EXPECT_EQ(count_recurrent(*before.get_main_module()), 1u);
    EXPECT_EQ(count_recurrent(*after.get_main_module()), 0u);
    auto a = run(before, c);
    auto b = run(after, c);
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
        c.states = true;
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
        auto p = make_program(c);
        migraphx::run_passes(*p.get_main_module(), {migraphx::rewrite_rnn{}, migraphx::dead_code_elimination{}});
        EXPECT_EQ(count_recurrent(*p.get_main_module()), 1u) << lens;
    }
}

TEST(rewrite_rnn, ops_a_target_keeps_are_left)
{
    auto p = make_program(rnn_case{});
    migraphx::rewrite_rnn keep_lstm{[](migraphx::instruction_ref ins) { return ins->name() == "lstm"; }};
    migraphx::run_passes(*p.get_main_module(), {keep_lstm, migraphx::dead_code_elimination{}});
    EXPECT_EQ(count_recurrent(*p.get_main_module()), 1u);
}
