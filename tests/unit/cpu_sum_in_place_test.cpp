// cpu::sum_in_place before/after: a residual sum post-op writes into its summand's buffer only where
// nothing else can see that buffer afterwards; compiled programs give the same bits as with every
// summand copied, run after run, and leave their inputs alone.
#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include "cpu_test_util.hpp"
#ifdef MIGRAPHX_HAVE_CPU
#include "targets/cpu/sum_in_place.hpp"
#endif
#include <algorithm>
#include <cstdlib>
#include <unordered_map>

using migraphx::make_op;
using migraphx::shape;

namespace {

const shape act{shape::float_type, {1, 16, 8, 8}};

// A dnnl::convolution with a residual sum (the form cpu::lower_dnnl makes), without running oneDNN:
// the pass only reads the graph.
migraphx::instruction_ref sum_conv(migraphx::module& m, migraphx::instruction_ref x, migraphx::instruction_ref w,
                                   migraphx::instruction_ref summand)
{
    return m.add_instruction(make_op("dnnl::convolution",
                                     {{"padding", {1, 1, 1, 1}},
                                      {"stride", {1, 1}},
                                      {"dilation", {1, 1}},
                                      {"sum", true},
                                      {"post_ops", {"sum"}},
                                      {"post_alpha", {0.0f}},
                                      {"post_beta", {0.0f}}}),
                             x,
                             w,
                             summand);
}

migraphx::instruction_ref plain_conv(migraphx::module& m, migraphx::instruction_ref x, migraphx::instruction_ref w)
{
    return m.add_instruction(
        make_op("dnnl::convolution", {{"padding", {1, 1, 1, 1}}, {"stride", {1, 1}}, {"dilation", {1, 1}}}), x, w);
}

// The sum ops of m, in order: true where the pass made them write in place.
std::vector<bool> in_place_flags(const migraphx::module& m)
{
    std::vector<bool> r;
    for(auto it = m.begin(); it != m.end(); ++it)
    {
        if(it->name() != "dnnl::convolution" and it->name() != "dnnl::matmul")
            continue;
        auto v = it->get_operator().to_value();
        if(v.at("sum").get_bool())
            r.push_back(v.at("sum_in_place").get_bool());
    }
    return r;
}

// p compiled for cpu as it is and with the pass turned off (every summand copied): three runs of
// the first on the same inputs give the second's outputs bit for bit (a summand overwritten while
// something still reads it would change an output or a later run), and the caller's inputs stay.
void expect_runs_match_copying(const migraphx::program& p)
{
    auto in_place = p;
    in_place.compile(migraphx::get_target("cpu"));
    auto copying = p;
    setenv("MIGRAPHX_DISABLE_PASSES", "cpu::sum_in_place", 1);
    copying.compile(migraphx::get_target("cpu"));
    unsetenv("MIGRAPHX_DISABLE_PASSES");
    auto copied = in_place_flags(*copying.get_main_module());
    ASSERT_EQ(std::count(copied.begin(), copied.end(), true), 0);
    auto params = migx_test::generated_params(p);
    std::unordered_map<std::string, std::vector<float>> inputs;
    for(const auto& [name, a] : params)
        inputs[name] = a.to_vector<float>();
    auto want = copying.eval(params);
    for(int run = 0; run < 3; run++)
    {
        auto got = in_place.eval(params);
        ASSERT_EQ(got.size(), want.size());
        for(std::size_t i = 0; i < got.size(); i++)
            EXPECT_EQ(got[i].to_vector<float>(), want[i].to_vector<float>()) << "run " << run << ", output " << i;
    }
    for(const auto& [name, a] : params)
        EXPECT_EQ(a.to_vector<float>(), inputs[name]) << "input " << name << " changed";
}

} // namespace

#ifdef MIGRAPHX_HAVE_CPU

TEST(cpu_sum_in_place, the_last_reader_of_a_computed_summand_writes_into_it)
{
    migraphx::module m;
    auto x  = m.add_parameter("x", act);
    auto w  = m.add_parameter("w", shape{shape::float_type, {16, 16, 3, 3}});
    auto a  = plain_conv(m, x, w);     // the summand: a result of this module
    auto b  = plain_conv(m, a, w);     // reads it first
    auto c  = sum_conv(m, b, w, a);    // its last reader
    auto d  = sum_conv(m, c, w, c);    // reads c twice (as input and summand): must copy
    auto e  = sum_conv(m, d, w, x);    // a parameter: the caller's memory, never written
    auto f  = sum_conv(m, e, w, e);    // again twice
    m.add_return({f});
    EXPECT_EQ(in_place_flags(m), (std::vector<bool>{false, false, false, false}));
    migraphx::cpu::sum_in_place{}.apply(m);
    EXPECT_EQ(in_place_flags(m), (std::vector<bool>{true, false, false, false}));
    // the in-place op's result is a view of its summand
    EXPECT_EQ(migraphx::get_alias_root(c), a);
}

TEST(cpu_sum_in_place, a_summand_read_later_or_through_a_view_or_returned_is_copied)
{
    migraphx::module m;
    auto x     = m.add_parameter("x", act);
    auto w     = m.add_parameter("w", shape{shape::float_type, {16, 16, 3, 3}});
    auto a     = plain_conv(m, x, w);
    auto s1    = sum_conv(m, x, w, a);
    auto later = plain_conv(m, a, w); // a is read after s1
    auto b     = plain_conv(m, x, w);
    auto view  = m.add_instruction(make_op("transpose", {{"permutation", {0, 1, 3, 2}}}), b);
    auto s2    = sum_conv(m, x, w, b); // b is still visible through the transpose, read below
    auto vread = plain_conv(m, view, w);
    auto r     = plain_conv(m, x, w);
    auto s3    = sum_conv(m, x, w, r); // r is returned
    m.add_return({s1, later, s2, vread, s3, r});
    migraphx::cpu::sum_in_place{}.apply(m);
    EXPECT_EQ(in_place_flags(m), (std::vector<bool>{false, false, false}));
}

TEST(cpu_sum_in_place, a_chain_of_residual_blocks_writes_into_one_buffer)
{
    // ResNet's identity blocks: each block's output is the next block's summand, read first by
    // the next block's own convolution. An in-place result may itself be written in place.
    migraphx::module m;
    auto x   = m.add_parameter("x", act);
    auto w   = m.add_parameter("w", shape{shape::float_type, {16, 16, 3, 3}});
    auto cur = plain_conv(m, x, w);
    for(int i = 0; i < 3; i++)
        cur = sum_conv(m, plain_conv(m, cur, w), w, cur);
    m.add_return({cur});
    migraphx::cpu::sum_in_place{}.apply(m);
    EXPECT_EQ(in_place_flags(m), (std::vector<bool>{true, true, true}));
}

#endif

TEST(cpu_sum_in_place, residual_blocks_give_the_copying_bits_run_after_run)
{
    MIGX_REQUIRE_CPU();
    migraphx::program p;
    auto* m  = p.get_main_module();
    auto x   = m->add_parameter("x", act);
    auto w1  = m->add_literal(migraphx::generate_literal(shape{shape::float_type, {16, 16, 3, 3}}, 1));
    auto w2  = m->add_literal(migraphx::generate_literal(shape{shape::float_type, {16, 16, 1, 1}}, 2));
    auto cur = m->add_instruction(make_op("relu"), m->add_instruction(make_op("convolution", {{"padding", {1, 1}}}), x, w1));
    for(int i = 0; i < 3; i++)
    {
        auto y = m->add_instruction(make_op("relu"), m->add_instruction(make_op("convolution", {{"padding", {1, 1}}}), cur, w1));
        auto z = m->add_instruction(make_op("convolution"), y, w2);
        cur    = m->add_instruction(make_op("relu"), m->add_instruction(make_op("add"), z, cur));
    }
    m->add_return({cur});
    expect_runs_match_copying(p);
    auto cpu = p;
    cpu.compile(migraphx::get_target("cpu"));
    auto flags = in_place_flags(*cpu.get_main_module());
    ASSERT_EQ(flags.size(), 3u) << "the residual adds should have become sum post-ops";
    EXPECT_TRUE(std::all_of(flags.begin(), flags.end(), [](bool b) { return b; }));
}

TEST(cpu_sum_in_place, a_summand_that_is_also_returned_or_an_input_stays_intact)
{
    MIGX_REQUIRE_CPU();
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", act);
    auto w  = m->add_literal(migraphx::generate_literal(shape{shape::float_type, {16, 16, 3, 3}}, 1));
    auto a  = m->add_instruction(make_op("convolution", {{"padding", {1, 1}}}), x, w);
    auto s1 = m->add_instruction(make_op("add"), m->add_instruction(make_op("convolution", {{"padding", {1, 1}}}), a, w), a);
    auto s2 = m->add_instruction(make_op("add"), m->add_instruction(make_op("convolution", {{"padding", {1, 1}}}), s1, w), x);
    m->add_return({s2, a}); // a is returned beside the sum that reads it last
    expect_runs_match_copying(p);
    auto cpu = p;
    cpu.compile(migraphx::get_target("cpu"));
    auto flags = in_place_flags(*cpu.get_main_module());
    ASSERT_EQ(flags.size(), 2u);
    EXPECT_FALSE(flags[0]); // its summand is returned
    // (the second may write in place where the layout pass gave x a reordered copy of its own:
    // expect_runs_match_copying checked that x itself is left as it was)
}

TEST(cpu_sum_in_place, matmul_residuals_give_the_copying_bits_run_after_run)
{
    MIGX_REQUIRE_CPU();
    migraphx::program p;
    auto* m  = p.get_main_module();
    shape xs{shape::float_type, {64, 64}};
    auto x   = m->add_parameter("x", xs);
    auto w   = m->add_literal(migraphx::generate_literal(xs, 3));
    auto cur = m->add_instruction(make_op("dot"), x, w);
    for(int i = 0; i < 3; i++)
        cur = m->add_instruction(make_op("add"), m->add_instruction(make_op("dot"), cur, w), cur);
    m->add_return({cur});
    expect_runs_match_copying(p);
}
// The summand is read again after the sum (by another convolution): it must keep its values. (With
// the pass's "last reader" check removed, this test fails.)
TEST(cpu_sum_in_place, a_summand_read_after_the_sum_keeps_its_values)
{
    MIGX_REQUIRE_CPU();
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", act);
    auto w  = m->add_literal(migraphx::generate_literal(shape{shape::float_type, {16, 16, 3, 3}}, 1));
    auto a  = m->add_instruction(make_op("relu"), m->add_instruction(make_op("convolution", {{"padding", {1, 1}}}), x, w));
    auto w2 = m->add_literal(migraphx::generate_literal(shape{shape::float_type, {16, 16, 3, 3}}, 2));
    auto s1 = m->add_instruction(make_op("add"), m->add_instruction(make_op("convolution", {{"padding", {1, 1}}}), x, w2), a);
    auto l  = m->add_instruction(make_op("convolution", {{"padding", {1, 1}}}), a, w);
    m->add_return({m->add_instruction(make_op("add"), s1, l)});
    expect_runs_match_copying(p);
}
