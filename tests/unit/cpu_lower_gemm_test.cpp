// cpu::lower_gemm before/after: dnnl::matmul becomes cpu::gemm with the same fusions; a constant b
// (also seen through views) is packed, a computed one is not; post-ops the kernel lacks stay on
// oneDNN.
#include <algorithm>
#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include "cpu_test_util.hpp"
#ifdef MIGRAPHX_HAVE_CPU
#include "passes/dead_code_elimination.hpp"
#include "passes/pass_manager.hpp"
#include "targets/cpu/gemm_kernel.hpp"
#include "targets/cpu/lower_dnnl.hpp"
#include "targets/cpu/lower_gemm.hpp"
#endif

using migraphx::make_op;
using migraphx::shape;

#ifdef MIGRAPHX_HAVE_CPU
namespace {

void lower(migraphx::module& m)
{
    migraphx::run_passes(m,
                         {migraphx::cpu::lower_dnnl{},
                          migraphx::dead_code_elimination{},
                          migraphx::cpu::lower_gemm{true},
                          migraphx::dead_code_elimination{}});
}

} // namespace

TEST(cpu_lower_gemm, matmul_with_bias_and_sum_becomes_gemm_with_packed_weights)
{
    migraphx::module m;
    auto x  = m.add_parameter("x", shape{shape::float_type, {5, 8}});
    auto r  = m.add_parameter("r", shape{shape::float_type, {5, 20}});
    auto w  = m.add_literal(migraphx::generate_literal(shape{shape::float_type, {20, 8}}, 1));
    auto wt = m.add_instruction(make_op("transpose", {{"permutation", std::vector<std::int64_t>{1, 0}}}), w);
    auto d  = m.add_instruction(make_op("dot"), x, wt);
    auto b  = m.add_literal(migraphx::generate_literal(shape{shape::float_type, {20}}, 2));
    auto bb = m.add_instruction(make_op("multibroadcast", {{"out_lens", d->get_shape().lens()}}), b);
    auto s  = m.add_instruction(make_op("add"), d, bb);
    m.add_return({m.add_instruction(make_op("add"), s, r)});
    lower(m);
    EXPECT_EQ(migx_test::op_names(m), (std::vector<std::string>{"cpu::gemm", "@return"}));
    auto g = std::prev(m.end(), 2);
    auto v = g->get_operator().to_value();
    EXPECT_TRUE(v.at("bias").get_bool());
    EXPECT_TRUE(v.at("sum").get_bool());
    EXPECT_TRUE(v.at("packed_weights").get_bool());
    EXPECT_EQ(v.at("weight_lens").to_vector<std::size_t>(), (std::vector<std::size_t>{8, 20}));
    EXPECT_EQ(v.at("post_ops").to_vector<std::string>(), (std::vector<std::string>{"sum"}));
    // two panels of 16 columns, 8 rows each
    EXPECT_EQ(g->inputs()[1]->get_shape().elements(), 2u * 16 * 8);
    EXPECT_EQ(g->get_shape().lens(), (std::vector<std::size_t>{5, 20}));
}

// An unrolled recurrence multiplies by the same weights at every step: one packed copy for all.
TEST(cpu_lower_gemm, weights_read_by_many_products_are_packed_once)
{
    migraphx::module m;
    auto w  = m.add_literal(migraphx::generate_literal(shape{shape::float_type, {8, 16}}, 1));
    auto h  = m.add_parameter("h", shape{shape::float_type, {1, 8}});
    for(int step = 0; step < 3; step++)
        h = m.add_instruction(make_op("slice", {{"axes", {1}}, {"starts", {0}}, {"ends", {8}}}),
                              m.add_instruction(make_op("dot"), h, w));
    m.add_return({h});
    lower(m);
    std::vector<migraphx::instruction_ref> weights;
    for(auto it = m.begin(); it != m.end(); ++it)
        if(it->name() == "cpu::gemm")
        {
            EXPECT_TRUE(it->get_operator().to_value().at("packed_weights").get_bool());
            weights.push_back(it->inputs()[1]);
        }
    ASSERT_EQ(weights.size(), 3u);
    EXPECT_EQ(weights[0], weights[1]);
    EXPECT_EQ(weights[1], weights[2]);
    EXPECT_EQ(std::count_if(m.begin(), m.end(), [](const auto& i) { return i.name() == "@literal"; }), 1);
}

TEST(cpu_lower_gemm, computed_b_is_not_packed)
{
    migraphx::module m;
    auto x = m.add_parameter("x", shape{shape::float_type, {2, 5, 8}});
    auto y = m.add_parameter("y", shape{shape::float_type, {2, 8, 3}});
    m.add_return({m.add_instruction(make_op("dot"), x, y)});
    lower(m);
    EXPECT_EQ(migx_test::op_names(m), (std::vector<std::string>{"cpu::gemm", "@return"}));
    auto g = std::prev(m.end(), 2);
    EXPECT_FALSE(g->get_operator().to_value().at("packed_weights").get_bool());
    EXPECT_EQ(g->inputs()[1]->name(), "@param");
}

TEST(cpu_lower_gemm, a_post_op_the_kernel_lacks_stays_on_onednn)
{
    migraphx::module m;
    auto x = m.add_parameter("x", shape{shape::float_type, {5, 8}});
    auto w = m.add_literal(migraphx::generate_literal(shape{shape::float_type, {8, 4}}, 1));
    m.add_return({m.add_instruction(
        make_op("dnnl::matmul", {{"post_ops", std::vector<std::string>{"swish"}}, {"post_alpha", std::vector<float>{1}},
                                 {"post_beta", std::vector<float>{0}}}),
        x,
        w)});
    migraphx::run_passes(m, {migraphx::cpu::lower_gemm{true}, migraphx::dead_code_elimination{}});
    EXPECT_EQ(migx_test::op_names(m), (std::vector<std::string>{"dnnl::matmul", "@return"}));
}

TEST(cpu_lower_gemm, gelu_after_a_matmul_is_fused_where_the_kernel_runs)
{
    migraphx::module m;
    auto x   = m.add_parameter("x", shape{shape::float_type, {4, 8}});
    auto w   = m.add_literal(migraphx::generate_literal(shape{shape::float_type, {8, 16}}, 1));
    auto d   = m.add_instruction(make_op("dot"), x, w);
    auto cst = [&](float v) {
        return m.add_instruction(make_op("multibroadcast", {{"out_lens", d->get_shape().lens()}}),
                                 m.add_literal(migraphx::literal{v}));
    };
    auto e   = m.add_instruction(make_op("erf"), m.add_instruction(make_op("div"), d, cst(1.4142135f)));
    auto one = m.add_instruction(make_op("add"), e, cst(1.0f));
    auto h   = m.add_instruction(make_op("mul"), m.add_instruction(make_op("mul"), d, one), cst(0.5f));
    m.add_return({h});
    lower(m);
    if(migraphx::cpu::gemm_best_isa() != migraphx::cpu::gemm_isa::avx2)
    {
        // without the kernel, oneDNN's slow GELU post-op is not used: the elementwise ops stay
        EXPECT_EQ(migx_test::op_names(m).front(), "cpu::gemm");
        EXPECT_GT(migx_test::op_names(m).size(), 2u);
        return;
    }
    EXPECT_EQ(migx_test::op_names(m), (std::vector<std::string>{"cpu::gemm", "@return"}));
    auto v = std::prev(m.end(), 2)->get_operator().to_value();
    EXPECT_EQ(v.at("post_ops").to_vector<std::string>(), (std::vector<std::string>{"gelu_erf"}));
}
#endif
