// The cpu target end to end: each lowering and fusion gives ref's results.
#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include "cpu_test_util.hpp"

using migraphx::make_op;
using migraphx::shape;

namespace {

migraphx::instruction_ref conv(migraphx::module& m, migraphx::instruction_ref x, std::size_t k, std::size_t c,
                               std::size_t kernel, std::size_t pad, std::size_t stride = 1, std::int64_t group = 1)
{
    auto w = m.add_literal(migraphx::generate_literal(shape{shape::float_type, {k, c / group, kernel, kernel}}, k + c));
    return m.add_instruction(make_op("convolution",
                                     {{"padding", std::vector<std::size_t>{pad, pad}},
                                      {"stride", std::vector<std::size_t>{stride, stride}},
                                      {"group", group}}),
                             x, w);
}

migraphx::instruction_ref channel_bias(migraphx::module& m, migraphx::instruction_ref y)
{
    auto k = y->get_shape().lens()[1];
    auto b = m.add_literal(migraphx::generate_literal(shape{shape::float_type, {k}}, 7));
    auto bb = m.add_instruction(make_op("broadcast", {{"axis", 1}, {"out_lens", y->get_shape().lens()}}), b);
    return m.add_instruction(make_op("add"), y, bb);
}

} // namespace

TEST(cpu_target, registered_by_name)
{
    MIGX_REQUIRE_CPU();
    EXPECT_EQ(migraphx::get_target("cpu").name(), "cpu");
}

TEST(cpu_target, conv_bias_relu_is_one_dnnl_op)
{
    MIGX_REQUIRE_CPU();
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{shape::float_type, {1, 16, 10, 10}});
    auto r  = m->add_instruction(make_op("relu"), channel_bias(*m, conv(*m, x, 16, 16, 3, 1)));
    m->add_return({r});
    auto cpu = migx_test::expect_cpu_matches_ref(p);
    auto names = migx_test::op_names(*cpu.get_main_module());
    EXPECT_EQ(std::count(names.begin(), names.end(), "dnnl::convolution"), 1);
    EXPECT_EQ(std::count(names.begin(), names.end(), "relu"), 0);
    EXPECT_EQ(std::count(names.begin(), names.end(), "add"), 0);
}

TEST(cpu_target, residual_block_in_blocked_layout)
{
    MIGX_REQUIRE_CPU();
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{shape::float_type, {2, 16, 12, 12}});
    auto a  = m->add_instruction(make_op("relu"), channel_bias(*m, conv(*m, x, 16, 16, 3, 1)));
    auto b  = channel_bias(*m, conv(*m, a, 16, 16, 3, 1));
    auto r  = m->add_instruction(make_op("relu"), m->add_instruction(make_op("add"), b, a));
    auto pl = m->add_instruction(
        make_op("pooling", {{"mode", "max"}, {"lengths", std::vector<std::size_t>{3, 3}},
                            {"stride", std::vector<std::size_t>{2, 2}}, {"padding", std::vector<std::size_t>{1, 1}}}),
        r);
    m->add_return({pl});
    auto cpu   = migx_test::expect_cpu_matches_ref(p);
    auto names = migx_test::op_names(*cpu.get_main_module());
    // one reorder in (x has 16 channels), two convolutions, the pool, one reorder out
    EXPECT_EQ(std::count(names.begin(), names.end(), "dnnl::convolution"), 2);
    EXPECT_EQ(std::count(names.begin(), names.end(), "dnnl::reorder"), 2);
    EXPECT_EQ(std::count(names.begin(), names.end(), "add"), 0);
}

TEST(cpu_target, first_layer_three_channels_stride_two)
{
    MIGX_REQUIRE_CPU();
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{shape::float_type, {1, 3, 33, 33}});
    auto c  = m->add_instruction(make_op("relu"), conv(*m, x, 16, 3, 7, 3, 2));
    m->add_return({c});
    migx_test::expect_cpu_matches_ref(p);
}

TEST(cpu_target, depthwise_and_clip)
{
    MIGX_REQUIRE_CPU();
    migraphx::program p;
    auto* m  = p.get_main_module();
    auto x   = m->add_parameter("x", shape{shape::float_type, {1, 32, 14, 14}});
    auto c   = channel_bias(*m, conv(*m, x, 32, 32, 3, 1, 2, 32));
    auto lo  = m->add_instruction(make_op("multibroadcast", {{"out_lens", c->get_shape().lens()}}),
                                 m->add_literal(migraphx::literal{0.0f}));
    auto hi  = m->add_instruction(make_op("multibroadcast", {{"out_lens", c->get_shape().lens()}}),
                                 m->add_literal(migraphx::literal{6.0f}));
    auto r   = m->add_instruction(make_op("clip"), c, lo, hi);
    m->add_return({r});
    auto cpu   = migx_test::expect_cpu_matches_ref(p);
    auto names = migx_test::op_names(*cpu.get_main_module());
    EXPECT_EQ(std::count(names.begin(), names.end(), "clip"), 0);
}

TEST(cpu_target, average_pool_ceil_mode_and_global)
{
    MIGX_REQUIRE_CPU();
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{shape::float_type, {1, 5, 9, 9}});
    auto a  = m->add_instruction(make_op("pooling", {{"mode", "average"}, {"lengths", std::vector<std::size_t>{3, 3}},
                                                     {"stride", std::vector<std::size_t>{2, 2}},
                                                     {"padding", std::vector<std::size_t>{1, 1}}, {"ceil_mode", true}}),
                                 x);
    auto g = m->add_instruction(make_op("pooling", {{"mode", "average"}, {"global", true}}), x);
    m->add_return({a, g});
    migx_test::expect_cpu_matches_ref(p);
}

TEST(cpu_target, gemm_with_bias_and_batched_matmul)
{
    MIGX_REQUIRE_CPU();
    migraphx::program p;
    auto* m = p.get_main_module();
    auto a  = m->add_parameter("a", shape{shape::float_type, {2, 8, 32}});
    auto w  = m->add_literal(migraphx::generate_literal(shape{shape::float_type, {32, 24}}, 3));
    auto wb = m->add_instruction(make_op("multibroadcast", {{"out_lens", std::vector<std::size_t>{2, 32, 24}}}), w);
    auto d  = m->add_instruction(make_op("dot"), a, wb);
    auto b  = m->add_literal(migraphx::generate_literal(shape{shape::float_type, {24}}, 4));
    auto bb = m->add_instruction(make_op("multibroadcast", {{"out_lens", d->get_shape().lens()}}), b);
    auto y  = m->add_instruction(make_op("add"), d, bb);
    auto q  = m->add_parameter("q", shape{shape::float_type, {2, 24, 8}});
    auto s  = m->add_instruction(make_op("dot"), y, q); // both inputs computed
    m->add_return({y, s});
    auto cpu   = migx_test::expect_cpu_matches_ref(p, 1e-4, 1e-4);
    auto names = migx_test::op_names(*cpu.get_main_module());
    // oneDNN's matmul, or the cpu target's own GEMM where the CPU has AVX2/FMA
    EXPECT_EQ(std::count(names.begin(), names.end(), "dnnl::matmul") +
                  std::count(names.begin(), names.end(), "cpu::gemm"),
              2);
}

TEST(cpu_target, transposed_input_to_matmul)
{
    MIGX_REQUIRE_CPU();
    migraphx::program p;
    auto* m = p.get_main_module();
    auto a  = m->add_parameter("a", shape{shape::float_type, {16, 8}});
    auto at = m->add_instruction(make_op("transpose", {{"permutation", std::vector<std::int64_t>{1, 0}}}), a);
    auto b  = m->add_parameter("b", shape{shape::float_type, {16, 4}});
    m->add_return({m->add_instruction(make_op("dot"), at, b)});
    migx_test::expect_cpu_matches_ref(p);
}

TEST(cpu_target, other_types_fall_back_to_reference_ops)
{
    MIGX_REQUIRE_CPU();
    migraphx::program p;
    auto* m = p.get_main_module();
    auto a  = m->add_parameter("a", shape{shape::int32_type, {4, 3}});
    auto b  = m->add_parameter("b", shape{shape::int32_type, {3, 2}});
    m->add_return({m->add_instruction(make_op("dot"), a, b)});
    migx_test::expect_cpu_matches_ref(p, 0, 0);
}

// Edge cases a conformance probe found: each must give ref's result, not throw or read garbage.
TEST(cpu_target, edge_cases_match_ref)
{
    MIGX_REQUIRE_CPU();
    {
        // clip with min > max after a convolution: not a oneDNN post-op
        migraphx::program p;
        auto* m = p.get_main_module();
        auto x  = m->add_parameter("x", shape{shape::float_type, {1, 8, 4, 4}});
        auto c  = conv(*m, x, 8, 8, 1, 0);
        auto lo = m->add_instruction(make_op("multibroadcast", {{"out_lens", c->get_shape().lens()}}),
                                     m->add_literal(migraphx::literal{0.5f}));
        auto hi = m->add_instruction(make_op("multibroadcast", {{"out_lens", c->get_shape().lens()}}),
                                     m->add_literal(migraphx::literal{0.2f}));
        m->add_return({m->add_instruction(make_op("clip"), c, lo, hi)});
        migx_test::expect_cpu_matches_ref(p);
    }
    {
        // K = 0 matmul and a reduction over an empty axis: zeros, as ref
        migraphx::program p;
        auto* m = p.get_main_module();
        auto a  = m->add_parameter("a", shape{shape::float_type, {3, 0}});
        auto b  = m->add_parameter("b", shape{shape::float_type, {0, 4}});
        auto r  = m->add_instruction(make_op("reduce_sum", {{"axes", std::vector<std::int64_t>{1}}}), a);
        m->add_return({m->add_instruction(make_op("dot"), a, b), r});
        migx_test::expect_cpu_matches_ref(p, 0, 0);
    }
}

TEST(cpu_target, exp_near_float_max_and_relu_of_nan)
{
    MIGX_REQUIRE_CPU();
    migraphx::program p;
    auto* m = p.get_main_module();
    std::vector<float> v{88.5f, 88.7f, 89.0f, -100.0f, 0.0f, 1e-8f, std::nanf("")};
    auto x = m->add_literal(migraphx::literal{shape{shape::float_type, {v.size()}}, v});
    auto y = m->add_parameter("y", shape{shape::float_type, {v.size()}});
    auto s = m->add_instruction(make_op("add"), x, y); // keep it from being constant-folded
    m->add_return({m->add_instruction(make_op("exp"), s), m->add_instruction(make_op("relu"), s),
                   m->add_instruction(make_op("tanh"), s)});
    auto cpu = p;
    cpu.compile(migraphx::get_target("cpu"));
    std::vector<float> zeros(v.size(), 0.0f);
    auto r = cpu.eval({{"y", migraphx::argument{shape{shape::float_type, {v.size()}}, zeros.data()}}});
    auto e = r[0].to_vector<float>();
    EXPECT_NEAR(e[0] / std::exp(88.5f), 1.0f, 1e-5);
    EXPECT_NEAR(e[1] / std::exp(88.7f), 1.0f, 1e-5);
    EXPECT_TRUE(std::isinf(e[2]));
    EXPECT_LT(e[3], 1e-37f);
    auto rl = r[1].to_vector<float>();
    EXPECT_TRUE(std::isnan(rl[6]));
    auto t = r[2].to_vector<float>();
    EXPECT_NEAR(t[5], 1e-8f, 1e-14f);
}
