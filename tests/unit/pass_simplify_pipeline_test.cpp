#include <migraphx/make_op.hpp>
#include <migraphx/module.hpp>
#include <migraphx/program.hpp>
#include <gtest/gtest.h>
#include <cmath>
#include "passes/pass_manager.hpp"
#include "passes/simplify_pipeline.hpp"

using migraphx::literal;
using migraphx::make_op;
using migraphx::shape;

TEST(pass_simplify_pipeline, standard_order_run_twice)
{
    auto passes = migraphx::simplify_passes();
    std::vector<std::string> names;
    for(const auto& p : passes)
        names.push_back(p.name());
    std::vector<std::string> round = {"simplify_reshapes",
                                      "simplify_algebra",
                                      "hoist_broadcasts",
                                      "propagate_constant",
                                      "eliminate_common_subexpression",
                                      "dead_code_elimination"};
    std::vector<std::string> expected = round;
    expected.insert(expected.end(), round.begin(), round.end());
    EXPECT_EQ(names, expected);
}

TEST(pass_simplify_pipeline, cleans_up_a_small_graph)
{
    const shape s3{shape::float_type, {3}};
    const shape s23{shape::float_type, {2, 3}};
    auto bcast = make_op("multibroadcast", {{"out_lens", {2, 3}}});
    migraphx::module m1;
    {
        auto x   = m1.add_parameter("x", s23);
        auto l1  = m1.add_literal(literal{s3, {1.0f, 2.0f, 3.0f}});
        auto l2  = m1.add_literal(literal{shape{shape::float_type, {2, 1}}, {10.0f, 20.0f}});
        auto one = m1.add_literal(literal{s3, {1.0f, 1.0f, 1.0f}});
        auto c   = m1.add_instruction(make_op("add"), m1.add_instruction(bcast, l1), m1.add_instruction(bcast, l2));
        auto y   = m1.add_instruction(make_op("add"), x, c);
        auto t1  = m1.add_instruction(make_op("transpose", {{"permutation", {1, 0}}}), y);
        auto t2  = m1.add_instruction(make_op("transpose", {{"permutation", {1, 0}}}), t1);
        auto a   = m1.add_instruction(make_op("relu"), t2);
        auto b   = m1.add_instruction(make_op("relu"), t2);
        auto s   = m1.add_instruction(make_op("mul"), a, b);
        auto z   = m1.add_instruction(make_op("mul"), s, m1.add_instruction(bcast, one));
        m1.add_instruction(make_op("neg"), z); // unused
        m1.add_return({z});
    }
    migraphx::run_passes(m1, migraphx::simplify_passes());
    migraphx::module m2;
    {
        auto x = m2.add_parameter("x", s23);
        auto c = m2.add_literal(literal{s23, {11.0f, 12.0f, 13.0f, 21.0f, 22.0f, 23.0f}});
        auto y = m2.add_instruction(make_op("add"), x, c);
        auto a = m2.add_instruction(make_op("relu"), y);
        auto s = m2.add_instruction(make_op("mul"), a, a);
        m2.add_return({s});
    }
    EXPECT_EQ(m1, m2) << m1;
}

TEST(pass_simplify_pipeline, conv_batch_norm_network_keeps_results)
{
    const shape xs{shape::float_type, {1, 2, 5, 5}};
    migraphx::program p1;
    {
        auto* mm   = p1.get_main_module();
        auto x     = mm->add_parameter("x", xs);
        auto w     = mm->add_literal(migraphx::generate_literal(shape{shape::float_type, {4, 2, 3, 3}}, 11));
        const shape cs{shape::float_type, {4}};
        auto scale = mm->add_literal(literal{cs, {0.5f, 1.5f, -2.0f, 1.0f}});
        auto bias  = mm->add_literal(literal{cs, {0.1f, -0.2f, 0.3f, 0.0f}});
        auto mean  = mm->add_literal(literal{cs, {0.2f, 0.0f, -0.4f, 1.0f}});
        auto var   = mm->add_literal(literal{cs, {1.0f, 0.5f, 2.0f, 0.25f}});
        auto conv  = mm->add_instruction(make_op("convolution", {{"padding", {1, 1}}}), x, w);
        auto bn    = mm->add_instruction(make_op("batch_norm_inference"), conv, scale, bias, mean, var);
        auto r     = mm->add_instruction(make_op("relu"), bn);
        auto t     = mm->add_instruction(make_op("transpose", {{"permutation", {0, 2, 3, 1}}}), r);
        auto t2    = mm->add_instruction(make_op("transpose", {{"permutation", {0, 3, 1, 2}}}), t);
        auto f     = mm->add_instruction(make_op("reshape", {{"dims", {1, 100}}}), t2);
        auto f2    = mm->add_instruction(make_op("reshape", {{"dims", {100}}}), f);
        auto k     = mm->add_literal(migraphx::generate_literal(shape{shape::float_type, {100}}, 5));
        auto k2    = mm->add_instruction(make_op("exp"), k);
        auto o     = mm->add_instruction(make_op("mul"), f2, k2);
        mm->add_return({o});
    }
    migraphx::program p2 = p1;
    migraphx::run_passes(p2, migraphx::simplify_passes());
    std::vector<std::string> names;
    for(auto& ins : *p2.get_main_module())
        names.push_back(ins.name());
    std::vector<std::string> expected = {"@literal",
                                         "@literal",
                                         "@literal",
                                         "@param",
                                         "convolution",
                                         "broadcast",
                                         "add",
                                         "relu",
                                         "reshape",
                                         "mul",
                                         "@return"};
    EXPECT_EQ(names, expected) << *p2.get_main_module();
    auto xv = migraphx::generate_argument(xs, 3);
    auto r1 = p1.eval({{"x", xv}}).back().to_vector<float>();
    auto r2 = p2.eval({{"x", xv}}).back().to_vector<float>();
    ASSERT_EQ(r1.size(), r2.size());
    for(std::size_t i = 0; i < r1.size(); i++)
        EXPECT_NEAR(r1[i], r2[i], 1e-4 * (1 + std::fabs(r1[i]))) << i;
}
