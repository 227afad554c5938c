#include <migraphx/make_op.hpp>
#include <migraphx/module.hpp>
#include <migraphx/program.hpp>
#include <gtest/gtest.h>
#include <cmath>
#include <sstream>
#include "passes/dead_code_elimination.hpp"
#include "passes/fuse_pointwise.hpp"
#include "passes/pass_manager.hpp"

using migraphx::literal;
using migraphx::make_op;
using migraphx::shape;

namespace {

const shape s23{shape::float_type, {2, 3}};

void fuse(migraphx::program& p) { migraphx::run_passes(p, {migraphx::fuse_pointwise{}}); }

std::string text(const migraphx::program& p)
{
    std::ostringstream ss;
    ss << p;
    return ss.str();
}

std::size_t count(const migraphx::module& m, const std::string& name)
{
    std::size_t n = 0;
    for(auto it = m.begin(); it != m.end(); ++it)
        n += it->name() == name ? 1 : 0;
    return n;
}

/// Runs p before and after fuse_pointwise on generated inputs; the results must agree exactly
/// (the fused module computes the same ops in the same types).
void expect_same_results(const migraphx::program& before)
{
    migraphx::program after = before;
    fuse(after);
    after.get_main_module()->validate();
    migraphx::parameter_map params;
    unsigned long seed = 1;
    for(const auto& [name, s] : before.get_parameter_shapes())
        params.emplace(name, migraphx::generate_argument(s, seed++));
    auto r1 = before.eval(params);
    auto r2 = after.eval(params);
    ASSERT_EQ(r1.size(), r2.size());
    for(std::size_t i = 0; i < r1.size(); i++)
    {
        EXPECT_EQ(r1[i].get_shape(), r2[i].get_shape());
        auto v1 = r1[i].to_vector<double>();
        auto v2 = r2[i].to_vector<double>();
        ASSERT_EQ(v1.size(), v2.size());
        for(std::size_t k = 0; k < v1.size(); k++)
        {
            bool both_nan = std::isnan(v1[k]) and std::isnan(v2[k]);
            EXPECT_TRUE(both_nan or v1[k] == v2[k]) << "output " << i << " element " << k << ": " << v1[k]
                                                    << " vs " << v2[k];
        }
    }
}

} // namespace

TEST(pass_fuse_pointwise, chain_becomes_one_instruction_with_a_sub_module)
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    {
        auto x = mm->add_parameter("x", s23);
        auto y = mm->add_parameter("y", s23);
        auto a = mm->add_instruction(make_op("add"), x, y);
        auto r = mm->add_instruction(make_op("relu"), a);
        auto m = mm->add_instruction(make_op("mul"), r, y);
        mm->add_return({m});
    }
    expect_same_results(p);
    fuse(p);
    EXPECT_EQ(text(p), R"(module: "main"
y = @param:y -> float_type, {2, 3}, {3, 1}
x = @param:x -> float_type, {2, 3}, {3, 1}
main:@2 = pointwise(x,y), [main:pointwise0] -> float_type, {2, 3}, {3, 1}
main:@3 = @return(main:@2)

module: "main:pointwise0"
x1 = @param:x1 -> float_type, {2, 3}, {3, 1}
x0 = @param:x0 -> float_type, {2, 3}, {3, 1}
main:pointwise0:@2 = add(x0,x1) -> float_type, {2, 3}, {3, 1}
main:pointwise0:@3 = relu(main:pointwise0:@2) -> float_type, {2, 3}, {3, 1}
main:pointwise0:@4 = mul(main:pointwise0:@3,x1) -> float_type, {2, 3}, {3, 1}
main:pointwise0:@5 = @return(main:pointwise0:@4)

)");
}

TEST(pass_fuse_pointwise, single_op_is_wrapped_too)
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto x   = mm->add_parameter("x", s23);
    mm->add_return({mm->add_instruction(make_op("sigmoid"), x)});
    expect_same_results(p);
    fuse(p);
    EXPECT_EQ(text(p), R"(module: "main"
x = @param:x -> float_type, {2, 3}, {3, 1}
main:@1 = pointwise(x), [main:pointwise0] -> float_type, {2, 3}, {3, 1}
main:@2 = @return(main:@1)

module: "main:pointwise0"
x0 = @param:x0 -> float_type, {2, 3}, {3, 1}
main:pointwise0:@1 = sigmoid(x0) -> float_type, {2, 3}, {3, 1}
main:pointwise0:@2 = @return(main:pointwise0:@1)

)");
}

TEST(pass_fuse_pointwise, views_stay_inputs_and_scalar_literals_become_constants)
{
    // add(x, transpose(y)) * multibroadcast(2) + broadcast(b): the transpose and the per-column
    // broadcast stay outside as inputs (with their strides); the broadcast scalar literal moves
    // inside with its broadcast, and both leave main.
    migraphx::program p;
    auto* mm = p.get_main_module();
    {
        auto x   = mm->add_parameter("x", s23);
        auto y   = mm->add_parameter("y", shape{shape::float_type, {3, 2}});
        auto b   = mm->add_parameter("b", shape{shape::float_type, {3}});
        auto two = mm->add_literal(literal{2.0f});
        auto t   = mm->add_instruction(make_op("transpose", {{"permutation", {1, 0}}}), y);
        auto a   = mm->add_instruction(make_op("add"), x, t);
        auto tb  = mm->add_instruction(make_op("multibroadcast", {{"out_lens", {2, 3}}}), two);
        auto m   = mm->add_instruction(make_op("mul"), a, tb);
        auto bb  = mm->add_instruction(make_op("broadcast", {{"axis", 1}, {"out_lens", {2, 3}}}), b);
        mm->add_return({mm->add_instruction(make_op("add"), m, bb)});
    }
    expect_same_results(p);
    fuse(p);
    EXPECT_EQ(text(p), R"(module: "main"
b = @param:b -> float_type, {3}, {1}
y = @param:y -> float_type, {3, 2}, {2, 1}
x = @param:x -> float_type, {2, 3}, {3, 1}
main:@3 = transpose[permutation={1, 0}](y) -> float_type, {2, 3}, {1, 2}
main:@4 = broadcast[axis=1,out_lens={2, 3}](b) -> float_type, {2, 3}, {0, 1}
main:@5 = pointwise(x,main:@3,main:@4), [main:pointwise0] -> float_type, {2, 3}, {3, 1}
main:@6 = @return(main:@5)

module: "main:pointwise0"
main:pointwise0:@0 = @literal{2} -> float_type, {}, {}
x2 = @param:x2 -> float_type, {2, 3}, {3, 1}
x1 = @param:x1 -> float_type, {2, 3}, {3, 1}
x0 = @param:x0 -> float_type, {2, 3}, {3, 1}
main:pointwise0:@4 = multibroadcast[out_lens={2, 3}](main:pointwise0:@0) -> float_type, {2, 3}, {0, 0}
main:pointwise0:@5 = add(x0,x1) -> float_type, {2, 3}, {3, 1}
main:pointwise0:@6 = mul(main:pointwise0:@5,main:pointwise0:@4) -> float_type, {2, 3}, {3, 1}
main:pointwise0:@7 = add(main:pointwise0:@6,x2) -> float_type, {2, 3}, {3, 1}
main:pointwise0:@8 = @return(main:pointwise0:@7)

)");
}

TEST(pass_fuse_pointwise, shared_scalar_literal_stays_for_its_other_users)
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    {
        auto x   = mm->add_parameter("x", s23);
        auto two = mm->add_literal(literal{shape{shape::float_type, {1}}, {2.0f}});
        auto tb  = mm->add_instruction(make_op("multibroadcast", {{"out_lens", {2, 3}}}), two);
        auto m   = mm->add_instruction(make_op("mul"), x, tb);
        auto s   = mm->add_instruction(make_op("softmax", {{"axis", 1}}), tb); // not pointwise
        mm->add_return({m, s});
    }
    expect_same_results(p);
    fuse(p);
    const auto* mm2 = p.get_main_module();
    EXPECT_EQ(count(*mm2, "multibroadcast"), 1u);
    EXPECT_EQ(count(*mm2, "@literal"), 1u);
    EXPECT_EQ(count(*mm2, "pointwise"), 1u);
    EXPECT_EQ(count(*p.get_module("main:pointwise0"), "@literal"), 1u);
    EXPECT_EQ(count(*p.get_module("main:pointwise0"), "@param"), 1u);
}

TEST(pass_fuse_pointwise, producer_used_outside_the_chain_ends_its_own_chain)
{
    // a = exp(x) is also returned, so it cannot disappear into the chain that uses it.
    migraphx::program p;
    auto* mm = p.get_main_module();
    {
        auto x = mm->add_parameter("x", s23);
        auto a = mm->add_instruction(make_op("exp"), x);
        auto b = mm->add_instruction(make_op("neg"), a);
        auto c = mm->add_instruction(make_op("abs"), b);
        mm->add_return({a, c});
    }
    expect_same_results(p);
    fuse(p);
    EXPECT_EQ(text(p), R"(module: "main"
x = @param:x -> float_type, {2, 3}, {3, 1}
main:@1 = pointwise(x), [main:pointwise0] -> float_type, {2, 3}, {3, 1}
main:@2 = pointwise(main:@1), [main:pointwise1] -> float_type, {2, 3}, {3, 1}
main:@3 = @return(main:@1,main:@2)

module: "main:pointwise0"
x0 = @param:x0 -> float_type, {2, 3}, {3, 1}
main:pointwise0:@1 = exp(x0) -> float_type, {2, 3}, {3, 1}
main:pointwise0:@2 = @return(main:pointwise0:@1)

module: "main:pointwise1"
x0 = @param:x0 -> float_type, {2, 3}, {3, 1}
main:pointwise1:@1 = neg(x0) -> float_type, {2, 3}, {3, 1}
main:pointwise1:@2 = abs(main:pointwise1:@1) -> float_type, {2, 3}, {3, 1}
main:pointwise1:@3 = @return(main:pointwise1:@2)

)");
}

TEST(pass_fuse_pointwise, producer_whose_users_are_all_in_the_chain_joins_it)
{
    // a feeds both b and c; b and c end in one chain, so a joins too: one instruction.
    migraphx::program p;
    auto* mm = p.get_main_module();
    {
        auto x = mm->add_parameter("x", s23);
        auto a = mm->add_instruction(make_op("exp"), x);
        auto b = mm->add_instruction(make_op("relu"), a);
        auto c = mm->add_instruction(make_op("add"), a, b);
        mm->add_return({c});
    }
    expect_same_results(p);
    fuse(p);
    const auto* mm2 = p.get_main_module();
    EXPECT_EQ(count(*mm2, "pointwise"), 1u) << p;
    EXPECT_EQ(mm2->size(), 3u) << p;
    const auto* pm = p.get_module("main:pointwise0");
    EXPECT_EQ(count(*pm, "exp") + count(*pm, "relu") + count(*pm, "add"), 3u);
}

TEST(pass_fuse_pointwise, producer_reaching_the_chain_through_another_op_stays_out)
{
    // c = add(a, softmax(a)): fusing a into c's chain would need softmax inside the fused op.
    migraphx::program p;
    auto* mm = p.get_main_module();
    {
        auto x = mm->add_parameter("x", s23);
        auto a = mm->add_instruction(make_op("exp"), x);
        auto s = mm->add_instruction(make_op("softmax", {{"axis", 1}}), a);
        auto c = mm->add_instruction(make_op("add"), a, s);
        mm->add_return({c});
    }
    expect_same_results(p);
    fuse(p);
    const auto* mm2 = p.get_main_module();
    EXPECT_EQ(count(*mm2, "pointwise"), 2u) << p;
    EXPECT_EQ(count(*mm2, "softmax"), 1u) << p;
}

TEST(pass_fuse_pointwise, non_pointwise_ops_split_chains)
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    {
        auto x = mm->add_parameter("x", s23);
        auto w = mm->add_parameter("w", shape{shape::float_type, {3, 3}});
        auto a = mm->add_instruction(make_op("tanh"), x);
        auto b = mm->add_instruction(make_op("sqrt"), mm->add_instruction(make_op("abs"), a));
        auto d = mm->add_instruction(make_op("dot"), b, w);
        auto e = mm->add_instruction(make_op("sub"), d, x);
        mm->add_return({mm->add_instruction(make_op("neg"), e)});
    }
    expect_same_results(p);
    fuse(p);
    EXPECT_EQ(count(*p.get_main_module(), "pointwise"), 2u) << p;
    EXPECT_EQ(count(*p.get_module("main:pointwise0"), "@param"), 1u);
    EXPECT_EQ(p.get_module("main:pointwise0")->size(), 5u); // x0, tanh, abs, sqrt, @return
    EXPECT_EQ(count(*p.get_module("main:pointwise1"), "@param"), 2u);
    EXPECT_EQ(p.get_module("main:pointwise1")->size(), 5u); // x0, x1, sub, neg, @return
}

TEST(pass_fuse_pointwise, types_change_inside_a_chain)
{
    // where(greater(x, y), convert(int), clip(...)): bool and int intermediates, float result.
    migraphx::program p;
    auto* mm = p.get_main_module();
    {
        auto x  = mm->add_parameter("x", s23);
        auto y  = mm->add_parameter("y", s23);
        auto lo = mm->add_instruction(make_op("multibroadcast", {{"out_lens", {2, 3}}}),
                                      mm->add_literal(literal{-0.5f}));
        auto hi = mm->add_instruction(make_op("multibroadcast", {{"out_lens", {2, 3}}}),
                                      mm->add_literal(literal{0.5f}));
        auto g  = mm->add_instruction(make_op("greater"), x, y);
        auto i  = mm->add_instruction(make_op("convert", {{"target_type", shape::int32_type}}), x);
        auto f  = mm->add_instruction(make_op("convert", {{"target_type", shape::float_type}}), i);
        auto c  = mm->add_instruction(make_op("clip"), y, lo, hi);
        mm->add_return({mm->add_instruction(make_op("where"), g, f, c)});
    }
    expect_same_results(p);
    fuse(p);
    const auto* mm2 = p.get_main_module();
    EXPECT_EQ(count(*mm2, "pointwise"), 1u) << p;
    EXPECT_EQ(count(*mm2, "@literal"), 0u) << p;
    const auto* pm = p.get_module("main:pointwise0");
    EXPECT_EQ(count(*pm, "@param"), 2u);
    EXPECT_EQ(count(*pm, "@literal"), 2u);
    EXPECT_EQ(pm->get_output_shapes().front().type(), shape::float_type);
}

TEST(pass_fuse_pointwise, half_and_integer_chains)
{
    for(auto t : {shape::half_type, shape::int32_type})
    {
        migraphx::program p;
        auto* mm = p.get_main_module();
        shape s{t, {4, 5}};
        auto x = mm->add_parameter("x", s);
        auto y = mm->add_parameter("y", s);
        auto a = mm->add_instruction(make_op("mul"), x, y);
        auto b = mm->add_instruction(make_op("max"), a, x);
        mm->add_return({mm->add_instruction(make_op("sub"), b, y)});
        expect_same_results(p);
    }
}

TEST(pass_fuse_pointwise, chain_over_all_constant_inputs_is_left_alone)
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto one = mm->add_instruction(make_op("multibroadcast", {{"out_lens", {2, 3}}}), mm->add_literal(literal{1.0f}));
    auto two = mm->add_instruction(make_op("multibroadcast", {{"out_lens", {2, 3}}}), mm->add_literal(literal{2.0f}));
    mm->add_return({mm->add_instruction(make_op("add"), one, two)});
    auto before = text(p);
    fuse(p);
    EXPECT_EQ(text(p), before);
}

TEST(pass_fuse_pointwise, running_twice_changes_nothing_more)
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto x   = mm->add_parameter("x", s23);
    auto a   = mm->add_instruction(make_op("exp"), x);
    auto s   = mm->add_instruction(make_op("softmax", {{"axis", 1}}), a);
    mm->add_return({mm->add_instruction(make_op("log"), s)});
    fuse(p);
    auto once = text(p);
    EXPECT_EQ(p.get_modules().size(), 3u);
    fuse(p);
    EXPECT_EQ(text(p), once);
}

TEST(pass_fuse_pointwise, module_names_skip_taken_ones)
{
    migraphx::program p;
    p.create_module("main:pointwise0"); // e.g. left by someone else
    auto* mm = p.get_main_module();
    auto x   = mm->add_parameter("x", s23);
    mm->add_return({mm->add_instruction(make_op("exp"), x)});
    migraphx::fuse_pointwise{&p}.apply(*mm);
    auto ins = std::prev(mm->get_return());
    ASSERT_EQ(ins->name(), "pointwise");
    EXPECT_EQ(ins->module_inputs().front()->name(), "main:pointwise1");
}

TEST(pass_fuse_pointwise, fuses_inside_if_branches_reading_outer_values)
{
    migraphx::program p;
    auto* mm  = p.get_main_module();
    auto c    = mm->add_parameter("c", shape{shape::bool_type, {1}});
    auto x    = mm->add_parameter("x", s23);
    auto* thn = p.create_module("then_mod");
    auto* els = p.create_module("else_mod");
    auto e    = thn->add_instruction(make_op("exp"), x);
    thn->add_return({thn->add_instruction(make_op("add"), e, x)});
    els->add_return({els->add_instruction(make_op("neg"), x)});
    mm->add_return({mm->add_instruction(make_op("if"), {c}, {thn, els})});
    migraphx::program before = p;
    fuse(p);
    EXPECT_EQ(count(*p.get_module("then_mod"), "pointwise"), 1u) << p;
    EXPECT_EQ(count(*p.get_module("else_mod"), "pointwise"), 1u) << p;
    EXPECT_EQ(p.get_module("then_mod:pointwise0")->get_parameter_names().size(), 1u);
    for(bool cond : {true, false})
    {
        bool cv = cond;
        migraphx::parameter_map params{{"c", migraphx::argument{shape{shape::bool_type, {1}}, &cv}},
                                       {"x", migraphx::generate_argument(s23, 3)}};
        EXPECT_EQ(before.eval(params).front().to_vector<float>(), p.eval(params).front().to_vector<float>());
    }
}

TEST(pass_fuse_pointwise, needs_a_program)
{
    migraphx::module m;
    auto x = m.add_parameter("x", s23);
    m.add_return({m.add_instruction(make_op("exp"), x)});
    EXPECT_THROW(migraphx::run_passes(m, {migraphx::fuse_pointwise{}}), migraphx::exception);
    migraphx::program other;
    EXPECT_THROW(migraphx::fuse_pointwise{&other}.apply(m), migraphx::exception);
}

TEST(pass_fuse_pointwise, larger_graph_gives_the_same_results)
{
    // Several chains, shared producers, strided and broadcast inputs, a reduction in between.
    migraphx::program p;
    auto* mm = p.get_main_module();
    shape s{shape::float_type, {3, 4, 5}};
    auto x  = mm->add_parameter("x", s);
    auto y  = mm->add_parameter("y", shape{shape::float_type, {5, 4, 3}});
    auto b  = mm->add_parameter("b", shape{shape::float_type, {4}});
    auto yt = mm->add_instruction(make_op("transpose", {{"permutation", {2, 1, 0}}}), y);
    auto bb = mm->add_instruction(make_op("broadcast", {{"axis", 1}, {"out_lens", {3, 4, 5}}}), b);
    auto h  = mm->add_instruction(make_op("multibroadcast", {{"out_lens", {3, 4, 5}}}), mm->add_literal(literal{0.5f}));
    auto a  = mm->add_instruction(make_op("add"), x, yt);
    auto g  = mm->add_instruction(make_op("mul"), a, h);
    auto t  = mm->add_instruction(make_op("tanh"), g);
    auto u  = mm->add_instruction(make_op("mul"), t, bb);
    auto r  = mm->add_instruction(make_op("reduce_sum", {{"axes", {2}}}), u);
    auto rb = mm->add_instruction(make_op("multibroadcast", {{"out_lens", {3, 4, 5}}}), r);
    auto d  = mm->add_instruction(make_op("div"), u, rb);
    auto v  = mm->add_instruction(make_op("sigmoid"), d);
    auto w  = mm->add_instruction(make_op("pow"), v, h);
    mm->add_return({w, t});
    expect_same_results(p);
    fuse(p);
    EXPECT_EQ(count(*p.get_main_module(), "pointwise"), 3u) << p;
}
