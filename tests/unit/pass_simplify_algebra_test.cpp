#include <migraphx/make_op.hpp>
#include <migraphx/module.hpp>
#include <migraphx/program.hpp>
#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>
#include "passes/dead_code_elimination.hpp"
#include "passes/pass_manager.hpp"
#include "passes/propagate_constant.hpp"
#include "passes/simplify_algebra.hpp"

using migraphx::literal;
using migraphx::make_op;
using migraphx::shape;

namespace {

void run_algebra(migraphx::module& m)
{
    migraphx::run_passes(m, {migraphx::simplify_algebra{}, migraphx::dead_code_elimination{}});
}
void run_algebra_and_fold(migraphx::module& m)
{
    migraphx::run_passes(m,
                         {migraphx::simplify_algebra{},
                          migraphx::propagate_constant{},
                          migraphx::dead_code_elimination{}});
}

const shape s3{shape::float_type, {3}};
const shape s23{shape::float_type, {2, 3}};

migraphx::operation bcast3() { return make_op("multibroadcast", {{"out_lens", {2, 3}}}); }

// Evaluates before and after `passes` with input x (and w if the program has it).
void expect_close_results(const std::function<void(migraphx::module&)>& build,
                          const std::function<void(migraphx::module&)>& passes,
                          const shape& xs)
{
    migraphx::program p1;
    build(*p1.get_main_module());
    migraphx::program p2 = p1;
    passes(*p2.get_main_module());
    auto x = migraphx::generate_argument(xs, 7);
    migraphx::parameter_map params{{"x", x}};
    auto r1 = p1.eval(params).back().to_vector<float>();
    auto r2 = p2.eval(params).back().to_vector<float>();
    ASSERT_EQ(r1.size(), r2.size());
    for(std::size_t i = 0; i < r1.size(); i++)
        EXPECT_NEAR(r1[i], r2[i], 1e-4 * (1 + std::fabs(r1[i]))) << i;
}

// batch_norm_inference(x) with epsilon 1 and per-channel scale {4, 3}, bias {0.5, 1}, mean {1, 2},
// variance {3, 8}: factor scale / sqrt(var + 1) = {2, 1}.
migraphx::instruction_ref add_two_channel_batch_norm(migraphx::module& m, migraphx::instruction_ref x)
{
    const shape cs{shape::float_type, {2}};
    auto scale = m.add_literal(literal{cs, {4.0f, 3.0f}});
    auto bias  = m.add_literal(literal{cs, {0.5f, 1.0f}});
    auto mean  = m.add_literal(literal{cs, {1.0f, 2.0f}});
    auto var   = m.add_literal(literal{cs, {3.0f, 8.0f}});
    return m.add_instruction(make_op("batch_norm_inference", {{"epsilon", 1.0f}}), x, scale, bias, mean, var);
}

} // namespace

TEST(pass_simplify_algebra, batch_norm_folds_into_convolution)
{
    const shape xs{shape::float_type, {1, 1, 2, 2}};
    const shape ws{shape::float_type, {2, 1, 1, 1}};
    const shape cs{shape::float_type, {2}};
    migraphx::module m1;
    {
        auto x     = m1.add_parameter("x", xs);
        auto w    = m1.add_literal(literal{ws, {1.0f, 2.0f}});
        auto conv = m1.add_instruction(make_op("convolution"), x, w);
        m1.add_return({add_two_channel_batch_norm(m1, conv)});
    }
    run_algebra(m1);
    // factor = scale / sqrt(var + 1) = {2, 1}; weights {2, 2}; bias - mean * factor = {-1.5, -1}.
    migraphx::module m2;
    {
        auto x    = m2.add_parameter("x", xs);
        auto w    = m2.add_literal(literal{ws, {2.0f, 2.0f}});
        auto b    = m2.add_literal(literal{cs, {-1.5f, -1.0f}});
        auto conv = m2.add_instruction(make_op("convolution"), x, w);
        auto bb   = m2.add_instruction(make_op("broadcast", {{"axis", 1}, {"out_lens", {1, 2, 2, 2}}}), b);
        auto add  = m2.add_instruction(make_op("add"), conv, bb);
        m2.add_return({add});
    }
    EXPECT_EQ(m1, m2) << m1;
}

TEST(pass_simplify_algebra, batch_norm_fold_keeps_results)
{
    auto build = [](migraphx::module& m) {
        auto x     = m.add_parameter("x", shape{shape::float_type, {2, 3, 5, 5}});
        auto w     = m.add_literal(migraphx::generate_literal(shape{shape::float_type, {4, 3, 3, 3}}, 1));
        auto cs    = shape{shape::float_type, {4}};
        auto scale = m.add_literal(literal{cs, {0.5f, 1.5f, -2.0f, 1.0f}});
        auto bias  = m.add_literal(literal{cs, {0.1f, -0.2f, 0.3f, 0.0f}});
        auto mean  = m.add_literal(literal{cs, {0.2f, 0.0f, -0.4f, 1.0f}});
        auto var   = m.add_literal(literal{cs, {1.0f, 0.5f, 2.0f, 0.25f}});
        auto conv  = m.add_instruction(
            make_op("convolution", {{"padding", {1, 1}}, {"stride", {2, 2}}}), x, w);
        auto bn = m.add_instruction(make_op("batch_norm_inference"), conv, scale, bias, mean, var);
        m.add_return({bn});
    };
    expect_close_results(build, run_algebra, shape{shape::float_type, {2, 3, 5, 5}});
    migraphx::module m;
    build(m);
    run_algebra(m);
    for(auto& ins : m)
        EXPECT_NE(ins.name(), "batch_norm_inference");
}

TEST(pass_simplify_algebra, batch_norm_after_convolution_with_bias_folds)
{
    const shape xs{shape::float_type, {1, 1, 2, 2}};
    const shape ws{shape::float_type, {2, 1, 1, 1}};
    const shape cs{shape::float_type, {2}};
    auto build = [&](migraphx::module& m) {
        auto x     = m.add_parameter("x", xs);
        auto w     = m.add_literal(literal{ws, {1.0f, 2.0f}});
        auto cb    = m.add_literal(literal{cs, {0.5f, -1.0f}});
        auto conv  = m.add_instruction(make_op("convolution"), x, w);
        auto bb    = m.add_instruction(make_op("broadcast", {{"axis", 1}, {"out_lens", {1, 2, 2, 2}}}), cb);
        auto y     = m.add_instruction(make_op("add"), conv, bb);
        m.add_return({add_two_channel_batch_norm(m, y)});
    };
    migraphx::module m1;
    build(m1);
    run_algebra(m1);
    // factor {2, 1}; shift = bias - (mean - conv_bias) * factor = {0.5 - 0.5 * 2, 1 - 3 * 1}.
    migraphx::module m2;
    {
        auto x    = m2.add_parameter("x", xs);
        auto w    = m2.add_literal(literal{ws, {2.0f, 2.0f}});
        auto b    = m2.add_literal(literal{cs, {-0.5f, -2.0f}});
        auto conv = m2.add_instruction(make_op("convolution"), x, w);
        auto bb   = m2.add_instruction(make_op("broadcast", {{"axis", 1}, {"out_lens", {1, 2, 2, 2}}}), b);
        auto add  = m2.add_instruction(make_op("add"), conv, bb);
        m2.add_return({add});
    }
    EXPECT_EQ(m1, m2) << m1;
    expect_close_results(build, run_algebra, xs);
}

TEST(pass_simplify_algebra, batch_norm_not_folded_without_literals_or_shared_conv)
{
    auto build = [](migraphx::module& m, bool shared) {
        const shape cs{shape::float_type, {2}};
        auto x     = m.add_parameter("x", shape{shape::float_type, {1, 1, 2, 2}});
        auto w     = m.add_literal(literal{shape{shape::float_type, {2, 1, 1, 1}}, {1.0f, 2.0f}});
        auto scale = shared ? m.add_literal(literal{cs, {1.0f, 1.0f}}) : m.add_parameter("scale", cs);
        auto bias  = m.add_literal(literal{cs, {0.0f, 0.0f}});
        auto conv  = m.add_instruction(make_op("convolution"), x, w);
        auto bn    = m.add_instruction(make_op("batch_norm_inference"), conv, scale, bias, bias, scale);
        if(shared)
            m.add_return({bn, conv});
        else
            m.add_return({bn});
    };
    // Parameters as the scale: nothing changes.
    migraphx::module m1, m2;
    build(m1, false);
    build(m2, false);
    run_algebra(m1);
    EXPECT_EQ(m1, m2) << m1;
    // A convolution whose result is also returned keeps its weights; the batch norm becomes a
    // scale and shift of its result instead.
    migraphx::module m3;
    build(m3, true);
    run_algebra(m3);
    std::vector<std::string> names;
    for(auto& ins : m3)
        names.push_back(ins.name());
    EXPECT_EQ(std::count(names.begin(), names.end(), "batch_norm_inference"), 0) << m3;
    EXPECT_EQ(std::count(names.begin(), names.end(), "mul"), 1) << m3;
    for(auto& ins : m3)
    {
        if(ins.name() == "convolution")
        {
            EXPECT_EQ(ins.inputs()[1]->get_literal().to_vector<float>(), (std::vector<float>{1.0f, 2.0f}));
        }
    }
}

// A batch norm no convolution takes (DenseNet: after a concat, before the ReLU): a per-channel
// multiply and add, with f = scale / sqrt(var + eps) and bias - mean * f as literals.
TEST(pass_simplify_algebra, batch_norm_without_a_convolution_becomes_scale_and_shift)
{
    const shape xs{shape::float_type, {1, 2, 2, 2}};
    const shape cs{shape::float_type, {2}};
    auto build = [&](migraphx::module& m) {
        auto x     = m.add_parameter("x", xs);
        auto r     = m.add_instruction(make_op("relu"), x);
        m.add_return({add_two_channel_batch_norm(m, r)});
    };
    migraphx::module m1;
    build(m1);
    run_algebra(m1);
    // f = {4 / 2, 3 / 3} = {2, 1}; shift = {0.5 - 1 * 2, 1 - 2 * 1} = {-1.5, -1}.
    migraphx::module m2;
    {
        auto x   = m2.add_parameter("x", xs);
        auto r   = m2.add_instruction(make_op("relu"), x);
        auto bc  = make_op("broadcast", {{"axis", 1}, {"out_lens", {1, 2, 2, 2}}});
        auto f   = m2.add_instruction(bc, m2.add_literal(literal{cs, {2.0f, 1.0f}}));
        auto mul = m2.add_instruction(make_op("mul"), r, f);
        auto sh  = m2.add_instruction(bc, m2.add_literal(literal{cs, {-1.5f, -1.0f}}));
        m2.add_return({m2.add_instruction(make_op("add"), mul, sh)});
    }
    EXPECT_EQ(m1, m2) << m1;
    expect_close_results(build, run_algebra, xs);
}

// Per-activation mode (bn_mode 0) and a 2-d input keep the reference op and the same results.
TEST(pass_simplify_algebra, batch_norm_scale_and_shift_results_and_limits)
{
    auto build = [](migraphx::module& m, std::int64_t mode, const shape& xs) {
        auto x  = m.add_parameter("x", xs);
        auto n  = mode == 1 ? xs.lens()[1] : xs.elements() / xs.lens()[0];
        auto cs = shape{shape::float_type, {n}};
        auto p  = [&](int seed) { return m.add_literal(migraphx::generate_literal(cs, seed)); };
        auto v   = migraphx::generate_literal(cs, 4).to_vector<float>();
        for(auto& e : v)
            e = std::fabs(e) + 0.1f;
        auto var = m.add_literal(literal{cs, v});
        auto bn  = m.add_instruction(make_op("batch_norm_inference", {{"bn_mode", mode}}), x, p(1), p(2), p(3), var);
        m.add_return({bn});
    };
    for(auto xs : {shape{shape::float_type, {2, 5}}, shape{shape::float_type, {2, 3, 4, 5}},
                   shape{shape::float_type, {1, 4, 3, 2, 2}}})
    {
        auto spatial = [&](migraphx::module& m) { build(m, 1, xs); };
        expect_close_results(spatial, run_algebra_and_fold, xs);
        migraphx::module m;
        build(m, 1, xs);
        run_algebra_and_fold(m);
        for(auto& ins : m)
            EXPECT_NE(ins.name(), "batch_norm_inference") << xs;
    }
    migraphx::module m1, m2;
    build(m1, 0, shape{shape::float_type, {2, 3, 4}});
    build(m2, 0, shape{shape::float_type, {2, 3, 4}});
    run_algebra(m1);
    EXPECT_EQ(m1, m2) << m1;
}

TEST(pass_simplify_algebra, double_add_of_constants_combines)
{
    migraphx::module m1;
    {
        auto x  = m1.add_parameter("x", s3);
        auto c1 = m1.add_literal(literal{s3, {1.0f, 2.0f, 3.0f}});
        auto c2 = m1.add_literal(literal{s3, {10.0f, 20.0f, 30.0f}});
        auto a1 = m1.add_instruction(make_op("add"), c1, x);
        auto a2 = m1.add_instruction(make_op("add"), c2, a1);
        m1.add_return({a2});
    }
    run_algebra_and_fold(m1);
    migraphx::module m2;
    {
        auto x = m2.add_parameter("x", s3);
        auto c = m2.add_literal(literal{s3, {11.0f, 22.0f, 33.0f}});
        auto a = m2.add_instruction(make_op("add"), x, c);
        m2.add_return({a});
    }
    EXPECT_EQ(m1, m2) << m1;
}

TEST(pass_simplify_algebra, triple_mul_of_broadcast_constants_combines_small)
{
    auto build = [](migraphx::module& m) {
        auto x  = m.add_parameter("x", s23);
        auto c1 = m.add_literal(literal{s3, {1.0f, 2.0f, 3.0f}});
        auto c2 = m.add_literal(literal{s3, {2.0f, 2.0f, 2.0f}});
        auto c3 = m.add_literal(literal{s3, {0.5f, 1.0f, -1.0f}});
        auto a1 = m.add_instruction(make_op("mul"), x, m.add_instruction(bcast3(), c1));
        auto a2 = m.add_instruction(make_op("mul"), a1, m.add_instruction(bcast3(), c2));
        auto a3 = m.add_instruction(make_op("mul"), m.add_instruction(bcast3(), c3), a2);
        m.add_return({a3});
    };
    migraphx::module m1;
    build(m1);
    run_algebra_and_fold(m1);
    migraphx::module m2;
    {
        auto x = m2.add_parameter("x", s23);
        auto c = m2.add_literal(literal{s3, {1.0f, 4.0f, -6.0f}});
        auto b = m2.add_instruction(bcast3(), c);
        auto a = m2.add_instruction(make_op("mul"), x, b);
        m2.add_return({a});
    }
    EXPECT_EQ(m1, m2) << m1;
    expect_close_results(build, run_algebra_and_fold, s23);
}

TEST(pass_simplify_algebra, double_add_not_combined_when_inner_is_shared)
{
    auto build = [](migraphx::module& m) {
        auto x  = m.add_parameter("x", s3);
        auto c1 = m.add_literal(literal{s3, {1.0f, 2.0f, 3.0f}});
        auto c2 = m.add_literal(literal{s3, {10.0f, 20.0f, 30.0f}});
        auto a1 = m.add_instruction(make_op("add"), x, c1);
        auto a2 = m.add_instruction(make_op("add"), a1, c2);
        auto s  = m.add_instruction(make_op("sub"), a1, c2); // sub is not reassociated
        auto s2 = m.add_instruction(make_op("sub"), s, c1);
        m.add_return({a2, s2});
    };
    migraphx::module m1, m2;
    build(m1);
    build(m2);
    run_algebra_and_fold(m1);
    EXPECT_EQ(m1, m2) << m1;
}

TEST(pass_simplify_algebra, neutral_constants_are_removed)
{
    migraphx::module m1;
    {
        auto x    = m1.add_parameter("x", s23);
        auto zero = m1.add_instruction(bcast3(), m1.add_literal(literal{s3, {0.0f, 0.0f, 0.0f}}));
        auto one  = m1.add_literal(literal{s23, {1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f}});
        auto a    = m1.add_instruction(make_op("add"), zero, x);
        auto b    = m1.add_instruction(make_op("mul"), a, one);
        auto c    = m1.add_instruction(make_op("sub"), b, zero);
        auto d    = m1.add_instruction(make_op("div"), c, one);
        auto e    = m1.add_instruction(make_op("sub"), zero, d); // 0 - x stays
        auto f    = m1.add_instruction(make_op("div"), one, e);  // 1 / x stays
        m1.add_return({f});
    }
    run_algebra(m1);
    migraphx::module m2;
    {
        auto x    = m2.add_parameter("x", s23);
        auto zero = m2.add_instruction(bcast3(), m2.add_literal(literal{s3, {0.0f, 0.0f, 0.0f}}));
        auto one  = m2.add_literal(literal{s23, {1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f}});
        auto e    = m2.add_instruction(make_op("sub"), zero, x);
        auto f    = m2.add_instruction(make_op("div"), one, e);
        m2.add_return({f});
    }
    EXPECT_EQ(m1, m2) << m1;
}

TEST(pass_simplify_algebra, per_channel_mul_folds_into_convolution)
{
    const shape xs{shape::float_type, {1, 2, 3, 3}};
    auto build = [&](migraphx::module& m) {
        auto x    = m.add_parameter("x", xs);
        auto w    = m.add_literal(migraphx::generate_literal(shape{shape::float_type, {3, 2, 2, 2}}, 3));
        auto conv = m.add_instruction(make_op("convolution"), x, w);
        auto c    = m.add_literal(literal{shape{shape::float_type, {3, 1, 1}}, {2.0f, -1.0f, 0.5f}});
        auto cb   = m.add_instruction(make_op("multibroadcast", {{"out_lens", {1, 3, 2, 2}}}), c);
        auto r    = m.add_instruction(make_op("mul"), cb, conv);
        m.add_return({r});
    };
    migraphx::module m1;
    build(m1);
    run_algebra(m1);
    ASSERT_EQ(m1.size(), 4) << m1; // weights, x, convolution, @return
    auto conv = std::prev(m1.end())->inputs().front();
    EXPECT_EQ(conv->name(), "convolution");
    auto w0 = migraphx::generate_literal(shape{shape::float_type, {3, 2, 2, 2}}, 3).to_vector<float>();
    auto w1 = conv->inputs()[1]->get_literal().to_vector<float>();
    ASSERT_EQ(w1.size(), 24);
    EXPECT_FLOAT_EQ(w1[0], 2.0f * w0[0]);
    EXPECT_FLOAT_EQ(w1[8], -1.0f * w0[8]);
    EXPECT_FLOAT_EQ(w1[23], 0.5f * w0[23]);
    expect_close_results(build, run_algebra, xs);
}

TEST(pass_simplify_algebra, mul_that_varies_along_other_dims_is_not_folded)
{
    auto build = [](migraphx::module& m) {
        auto x    = m.add_parameter("x", shape{shape::float_type, {1, 1, 2, 2}});
        auto w    = m.add_literal(literal{shape{shape::float_type, {2, 1, 1, 1}}, {1.0f, 2.0f}});
        auto conv = m.add_instruction(make_op("convolution"), x, w);
        auto c    = m.add_literal(literal{shape{shape::float_type, {2}}, {2.0f, 3.0f}});
        auto cb   = m.add_instruction(make_op("multibroadcast", {{"out_lens", {1, 2, 2, 2}}}), c);
        auto r    = m.add_instruction(make_op("mul"), conv, cb);
        m.add_return({r});
    };
    migraphx::module m1, m2;
    build(m1);
    build(m2);
    run_algebra(m1);
    EXPECT_EQ(m1, m2) << m1;
}

TEST(pass_simplify_algebra, scale_after_bias_moves_into_the_convolution)
{
    // mul(add(conv(x, w), broadcast(b)), c) -> add(conv(x, w * c), broadcast(b * c)).
    const shape xs{shape::float_type, {1, 1, 2, 2}};
    const shape ws{shape::float_type, {2, 1, 1, 1}};
    const shape cs{shape::float_type, {2}};
    auto build = [&](migraphx::module& m) {
        auto x    = m.add_parameter("x", xs);
        auto w    = m.add_literal(literal{ws, {1.0f, 2.0f}});
        auto b    = m.add_literal(literal{cs, {0.5f, -1.0f}});
        auto c    = m.add_literal(literal{shape{shape::float_type, {2, 1, 1}}, {3.0f, -2.0f}});
        auto conv = m.add_instruction(make_op("convolution"), x, w);
        auto bb   = m.add_instruction(make_op("broadcast", {{"axis", 1}, {"out_lens", {1, 2, 2, 2}}}), b);
        auto y    = m.add_instruction(make_op("add"), conv, bb);
        auto cb   = m.add_instruction(make_op("multibroadcast", {{"out_lens", {1, 2, 2, 2}}}), c);
        auto r    = m.add_instruction(make_op("mul"), y, cb);
        m.add_return({r});
    };
    migraphx::module m1;
    build(m1);
    run_algebra(m1);
    migraphx::module m2;
    {
        auto x    = m2.add_parameter("x", xs);
        auto bc   = m2.add_literal(literal{cs, {1.5f, 2.0f}});
        auto w    = m2.add_literal(literal{ws, {3.0f, -4.0f}});
        auto conv = m2.add_instruction(make_op("convolution"), x, w);
        auto bb   = m2.add_instruction(make_op("broadcast", {{"axis", 1}, {"out_lens", {1, 2, 2, 2}}}), bc);
        auto r    = m2.add_instruction(make_op("add"), conv, bb);
        m2.add_return({r});
    }
    EXPECT_EQ(m1, m2) << m1;
    expect_close_results(build, run_algebra, xs);
}

TEST(pass_simplify_algebra, mul_of_add_with_a_parameter_moves_the_constant_out)
{
    auto build = [](migraphx::module& m) {
        auto x  = m.add_parameter("x", s23);
        auto c1 = m.add_literal(literal{s3, {1.0f, 2.0f, 3.0f}});
        auto c2 = m.add_literal(literal{s3, {2.0f, -1.0f, 0.5f}});
        auto a  = m.add_instruction(make_op("add"), x, m.add_instruction(bcast3(), c1));
        auto r  = m.add_instruction(make_op("mul"), m.add_instruction(bcast3(), c2), a);
        m.add_return({r});
    };
    migraphx::module m1;
    build(m1);
    run_algebra_and_fold(m1);
    migraphx::module m2;
    {
        auto x  = m2.add_parameter("x", s23);
        auto c2 = m2.add_literal(literal{s3, {2.0f, -1.0f, 0.5f}});
        auto p  = m2.add_literal(literal{s3, {2.0f, -2.0f, 1.5f}});
        auto b2 = m2.add_instruction(bcast3(), c2);
        auto s  = m2.add_instruction(make_op("mul"), x, b2);
        auto bp = m2.add_instruction(bcast3(), p);
        auto r  = m2.add_instruction(make_op("add"), s, bp);
        m2.add_return({r});
    }
    EXPECT_EQ(m1, m2) << m1;
    expect_close_results(build, run_algebra_and_fold, s23);
}

TEST(pass_simplify_algebra, neutral_logical_constants_are_removed)
{
    // An exporter's attention mask: and(every query row allowed (all true), the padding row of
    // keys broadcast over the rows) -> the padding row's broadcast (a view of [1, 4]); or with
    // all false likewise. A returned and keeps its packed result.
    auto row_of = [](migraphx::module& m, migraphx::instruction_ref x) {
        return m.add_instruction(make_op("multibroadcast", {{"out_lens", {4, 4}}}), x);
    };
    migraphx::module m1;
    {
        auto keys = m1.add_parameter("keys", shape{shape::bool_type, {1, 4}});
        auto rows = m1.add_literal(literal{shape{shape::bool_type, {4, 1}}, {1, 1, 1, 1}});
        auto none = m1.add_literal(literal{shape{shape::bool_type, {4, 1}}, {0, 0, 0, 0}});
        auto a    = m1.add_instruction(make_op("logical_and"), row_of(m1, rows), row_of(m1, keys));
        auto o    = m1.add_instruction(make_op("logical_or"), a, row_of(m1, none));
        auto kept = m1.add_instruction(make_op("logical_and"), row_of(m1, keys), row_of(m1, rows));
        auto n    = m1.add_instruction(make_op("not"), o);
        m1.add_return({n, kept});
    }
    run_algebra(m1);
    std::size_t ands = 0, ors = 0;
    for(const auto& ins : m1)
    {
        ands += ins.name() == "logical_and" ? 1 : 0;
        ors += ins.name() == "logical_or" ? 1 : 0;
        if(ins.name() == "not")
        {
            EXPECT_EQ(ins.inputs().front()->name(), "multibroadcast") << m1;
            EXPECT_EQ(ins.inputs().front()->get_shape().strides()[0], 0u) << "the keys' row, broadcast";
        }
    }
    EXPECT_EQ(ands, 1u) << "the returned one stays" << m1;
    EXPECT_EQ(ors, 0u) << m1;
}
