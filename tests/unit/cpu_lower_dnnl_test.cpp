// cpu::lower_dnnl before/after: which chains become one oneDNN op, and which stay as they are.
#include <migraphx/make_op.hpp>
#include <migraphx/target.hpp>
#include <algorithm>
#include <tuple>
#include <migraphx/program.hpp>
#include "cpu_test_util.hpp"
#ifdef MIGRAPHX_HAVE_CPU
#include "passes/dead_code_elimination.hpp"
#include "passes/pass_manager.hpp"
#include "targets/cpu/lower_dnnl.hpp"
#include <oneapi/dnnl/dnnl.hpp>
#endif

using migraphx::make_op;
using migraphx::shape;

#ifdef MIGRAPHX_HAVE_CPU
namespace {

void lower(migraphx::module& m)
{
    migraphx::run_passes(m, {migraphx::cpu::lower_dnnl{}, migraphx::dead_code_elimination{}});
}

migraphx::instruction_ref add_conv(migraphx::module& m, migraphx::instruction_ref x)
{
    auto w = m.add_literal(migraphx::generate_literal(shape{shape::float_type, {8, 8, 1, 1}}, 1));
    return m.add_instruction(make_op("convolution"), x, w);
}

} // namespace

TEST(cpu_lower_dnnl, conv_bias_add_relu_become_one_op)
{
    migraphx::module m;
    auto x  = m.add_parameter("x", shape{shape::float_type, {1, 8, 4, 4}});
    auto y  = m.add_parameter("y", shape{shape::float_type, {1, 8, 4, 4}});
    auto c  = add_conv(m, x);
    auto b  = m.add_literal(migraphx::generate_literal(shape{shape::float_type, {8}}, 2));
    auto bb = m.add_instruction(make_op("broadcast", {{"axis", 1}, {"out_lens", c->get_shape().lens()}}), b);
    auto s  = m.add_instruction(make_op("add"), c, bb);
    auto r  = m.add_instruction(make_op("add"), s, y);
    m.add_return({m.add_instruction(make_op("relu"), r)});
    EXPECT_EQ(migx_test::op_names(m),
              (std::vector<std::string>{"convolution", "broadcast", "add", "add", "relu", "@return"}));
    lower(m);
    EXPECT_EQ(migx_test::op_names(m), (std::vector<std::string>{"dnnl::convolution", "@return"}));
    auto v = std::prev(m.end(), 2)->get_operator().to_value();
    EXPECT_TRUE(v.at("bias").get_bool());
    EXPECT_TRUE(v.at("sum").get_bool());
    EXPECT_EQ(v.at("post_ops").to_vector<std::string>(), (std::vector<std::string>{"sum", "relu"}));
}

TEST(cpu_lower_dnnl, a_result_used_twice_is_not_fused_into)
{
    migraphx::module m;
    auto x = m.add_parameter("x", shape{shape::float_type, {1, 8, 4, 4}});
    auto c = add_conv(m, x);
    auto r = m.add_instruction(make_op("relu"), c);
    m.add_return({r, c});
    lower(m);
    EXPECT_EQ(migx_test::op_names(m), (std::vector<std::string>{"dnnl::convolution", "relu", "@return"}));
}

TEST(cpu_lower_dnnl, integer_and_lpnorm_ops_stay)
{
    migraphx::module m;
    auto a = m.add_parameter("a", shape{shape::int32_type, {2, 2}});
    auto d = m.add_instruction(make_op("dot"), a, a);
    auto x = m.add_parameter("x", shape{shape::float_type, {1, 2, 4, 4}});
    auto p = m.add_instruction(make_op("pooling", {{"mode", "lpnorm"}, {"global", true}}), x);
    m.add_return({d, p});
    lower(m);
    EXPECT_EQ(migx_test::op_names(m), (std::vector<std::string>{"dot", "pooling", "@return"}));
}

// ONNX AveragePool with count_include_pad=1 parses as a zero pad and an unpadded average pool:
// oneDNN's pooling takes the pad as its padding, counted in the average. Not where ceil mode's
// last window reaches past the pad (oneDNN would count those positions too), nor a pad of
// another value.
TEST(cpu_lower_dnnl, zero_pad_before_an_average_pool_folds_into_it)
{
    auto build = [](migraphx::module& m, bool ceil, float value, std::vector<std::size_t> lens) {
        auto x = m.add_parameter("x", shape{shape::float_type, lens});
        auto p = m.add_instruction(make_op("pad", {{"pads", std::vector<std::int64_t>{0, 0, 1, 1, 0, 0, 1, 1}}, {"value", value}}), x);
        m.add_return({m.add_instruction(make_op("pooling", {{"mode", "average"}, {"lengths", {3, 3}}, {"stride", {2, 2}},
                                                            {"padding", {0, 0}}, {"ceil_mode", ceil}}),
                                        p)});
    };
    migraphx::module m;
    build(m, false, 0.0f, {1, 4, 9, 9});
    lower(m);
    EXPECT_EQ(migx_test::op_names(m), (std::vector<std::string>{"dnnl::pooling", "@return"}));
    auto v = std::prev(m.end(), 2)->get_operator().to_value();
    EXPECT_TRUE(v.at("include_padding").get_bool());
    EXPECT_EQ(v.at("padding").to_vector<std::size_t>(), (std::vector<std::size_t>{1, 1, 1, 1}));
    EXPECT_EQ(std::prev(m.end(), 2)->inputs().front()->name(), "@param");
    // 10x10 input padded to 12x12, 3x3 windows of stride 2 in ceil mode: 6 windows, the last
    // reaching position 12, past the pad.
    for(auto [ceil, value, lens] : {std::tuple{true, 0.0f, std::vector<std::size_t>{1, 4, 10, 10}},
                                    std::tuple{false, 1.0f, std::vector<std::size_t>{1, 4, 9, 9}}})
    {
        migraphx::module k;
        build(k, ceil, value, lens);
        lower(k);
        EXPECT_EQ(migx_test::op_names(k), (std::vector<std::string>{"pad", "dnnl::pooling", "@return"}));
    }
}

TEST(cpu_lower_dnnl, folded_pad_pooling_matches_ref)
{
    MIGX_REQUIRE_CPU();
    for(bool ceil : {false, true})
        for(std::size_t size : {9, 10})
        {
            migraphx::program p;
            auto* m = p.get_main_module();
            auto x  = m->add_parameter("x", shape{shape::float_type, {1, 8, size, size + 3}});
            auto pd = m->add_instruction(make_op("pad", {{"pads", std::vector<std::int64_t>{0, 0, 1, 2, 0, 0, 2, 1}}}), x);
            m->add_return({m->add_instruction(make_op("pooling", {{"mode", "average"}, {"lengths", {3, 3}}, {"stride", {2, 2}},
                                                                  {"padding", {0, 0}}, {"ceil_mode", ceil}}),
                                              pd)});
            migx_test::expect_cpu_matches_ref(p, 1e-6, 1e-6);
        }
}

// SiLU as torch exports it (x * sigmoid(x), either operand order) and HardSwish after a
// convolution become its post-ops (EfficientNet's and MobileNetV3's activations: a separate
// pass over the result before).
TEST(cpu_lower_dnnl, swish_and_hardswish_become_post_ops)
{
    for(int form : {0, 1, 2})
    {
        migraphx::module m;
        auto x = m.add_parameter("x", shape{shape::float_type, {1, 8, 4, 4}});
        auto c = add_conv(m, x);
        if(form == 2)
            m.add_return({m.add_instruction(make_op("hardswish"), c)});
        else
        {
            auto sg = m.add_instruction(make_op("sigmoid"), c);
            m.add_return({form == 0 ? m.add_instruction(make_op("mul"), c, sg) : m.add_instruction(make_op("mul"), sg, c)});
        }
        lower(m);
        EXPECT_EQ(migx_test::op_names(m), (std::vector<std::string>{"dnnl::convolution", "@return"})) << form;
        auto v = std::prev(m.end(), 2)->get_operator().to_value();
        EXPECT_EQ(v.at("post_ops").to_vector<std::string>(),
                  (std::vector<std::string>{form == 2 ? "hardswish" : "swish"}));
    }
    // x * sigmoid(y) of another y is not SiLU.
    migraphx::module m;
    auto x  = m.add_parameter("x", shape{shape::float_type, {1, 8, 4, 4}});
    auto y  = m.add_parameter("y", shape{shape::float_type, {1, 8, 4, 4}});
    auto c  = add_conv(m, x);
    auto sg = m.add_instruction(make_op("sigmoid"), y);
    m.add_return({m.add_instruction(make_op("mul"), c, sg), c});
    lower(m);
    EXPECT_EQ(migx_test::op_names(m), (std::vector<std::string>{"dnnl::convolution", "sigmoid", "mul", "@return"}));
}

TEST(cpu_lower_dnnl, swish_and_hardswish_post_ops_match_ref)
{
    MIGX_REQUIRE_CPU();
    for(bool hard : {false, true})
    {
        migraphx::program p;
        auto* m = p.get_main_module();
        auto x  = m->add_parameter("x", shape{shape::float_type, {1, 8, 6, 6}});
        // weights x 4: outputs past hardswish's bends at -3 and 3
        shape ws{shape::float_type, {8, 8, 3, 3}};
        auto wv = migraphx::generate_literal(ws, 1).to_vector<float>();
        for(auto& v : wv)
            v *= 4.0f;
        auto w = m->add_literal(migraphx::literal{ws, wv});
        auto c = m->add_instruction(make_op("convolution", {{"padding", {1, 1}}}), x, w);
        if(hard)
            m->add_return({m->add_instruction(make_op("hardswish"), c)});
        else
            m->add_return({m->add_instruction(make_op("mul"), c, m->add_instruction(make_op("sigmoid"), c))});
        migx_test::expect_cpu_matches_ref(p, 1e-5, 1e-5);
    }
}

namespace {
// torch's sequence-first projection: x [1, S, K] transposed to [S, 1, K] times a weight broadcast
// over the S one-row batches.
migraphx::program seq_first_projection(std::size_t seq, std::size_t k, std::size_t n)
{
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{shape::float_type, {1, seq, k}});
    auto xt = m->add_instruction(make_op("transpose", {{"permutation", std::vector<std::int64_t>{1, 0, 2}}}), x);
    auto w  = m->add_literal(migraphx::generate_literal(shape{shape::float_type, {k, n}}, 1));
    auto wb = m->add_instruction(make_op("multibroadcast", {{"out_lens", std::vector<std::size_t>{seq, k, n}}}), w);
    m->add_return({m->add_instruction(make_op("dot"), xt, wb)});
    return p;
}
} // namespace

// A batch of one-row products by one matrix is one product of all the rows (oneDNN ran ViT's QKV
// projection as 197 matrix-vector products).
TEST(cpu_lower_dnnl, one_row_batches_by_one_matrix_become_one_product)
{
    auto p  = seq_first_projection(5, 8, 12);
    auto& m = *p.get_main_module();
    lower(m);
    EXPECT_EQ(migx_test::op_names(m),
              (std::vector<std::string>{"transpose", "squeeze", "dnnl::matmul", "unsqueeze", "@return"}));
    auto mm = std::prev(m.end(), 3);
    EXPECT_EQ(mm->get_shape().lens(), (std::vector<std::size_t>{5, 12}));
    EXPECT_EQ(std::prev(m.end(), 2)->get_shape().lens(), (std::vector<std::size_t>{5, 1, 12}));
}

TEST(cpu_lower_dnnl, one_row_batches_match_ref)
{
    MIGX_REQUIRE_CPU();
    migx_test::expect_cpu_matches_ref(seq_first_projection(7, 24, 40), 1e-5, 1e-5);
}

TEST(cpu_lower_dnnl, same_upper_padding_becomes_explicit)
{
    migraphx::module m;
    auto x = m.add_parameter("x", shape{shape::float_type, {1, 8, 5, 5}});
    auto w = m.add_literal(migraphx::generate_literal(shape{shape::float_type, {8, 8, 2, 2}}, 1));
    m.add_return({m.add_instruction(make_op("convolution", {{"padding_mode", 2}}), x, w)});
    auto before = std::prev(m.end(), 2)->get_shape();
    lower(m);
    auto after = std::prev(m.end(), 2);
    EXPECT_EQ(after->name(), "dnnl::convolution");
    EXPECT_EQ(after->get_shape(), before);
    EXPECT_EQ(after->get_operator().to_value().at("padding").to_vector<std::size_t>(),
              (std::vector<std::size_t>{0, 0, 1, 1}));
}
#endif

TEST(cpu_lower_dnnl, results_match_ref)
{
    MIGX_REQUIRE_CPU();
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{shape::float_type, {1, 8, 5, 5}});
    auto w  = m->add_literal(migraphx::generate_literal(shape{shape::float_type, {8, 8, 2, 2}}, 1));
    auto c  = m->add_instruction(make_op("convolution", {{"padding_mode", 1}}), x, w);
    m->add_return({m->add_instruction(make_op("sigmoid"), c)});
    migx_test::expect_cpu_matches_ref(p);
}

namespace {
/// conv(x[rows where m > 0.5]): the convolution's input has a data-dependent row count (declared 4)
migraphx::program conv_of_selected_rows()
{
    migraphx::program p;
    auto* m   = p.get_main_module();
    auto x    = m->add_parameter("x", shape{shape::float_type, {4, 8, 5, 5}});
    auto mask = m->add_parameter("m", shape{shape::float_type, {4}});
    auto half = m->add_instruction(make_op("multibroadcast", {{"out_lens", std::vector<std::size_t>{4}}}),
                                   m->add_literal(migraphx::literal{0.5f}));
    auto nz   = m->add_instruction(make_op("nonzero"), m->add_instruction(make_op("greater"), mask, half));
    auto idx  = m->add_instruction(make_op("squeeze", {{"axes", std::vector<std::int64_t>{0}}}), nz);
    auto rows = m->add_instruction(make_op("gather", {{"axis", 0}}), x, idx);
    auto w    = m->add_literal(migraphx::generate_literal(shape{shape::float_type, {8, 8, 3, 3}}, 1));
    m->add_return({m->add_instruction(make_op("relu"), m->add_instruction(make_op("convolution"), rows, w))});
    return p;
}
} // namespace

#ifdef MIGRAPHX_HAVE_CPU
TEST(cpu_lower_dnnl, ops_on_data_dependent_sizes_stay_reference_ops)
{
    // oneDNN primitives are built for the declared 4 rows; the actual count is smaller (a
    // segfault in the reorder before, reading past the gathered rows): the ops stay as they are
    auto p = conv_of_selected_rows();
    auto& m = *p.get_main_module();
    lower(m);
    auto names = migx_test::op_names(m);
    EXPECT_NE(std::find(names.begin(), names.end(), "convolution"), names.end());
    EXPECT_EQ(std::find_if(names.begin(), names.end(), [](const auto& n) { return n.rfind("dnnl::", 0) == 0; }),
              names.end());
}
#endif

TEST(cpu_lower_dnnl, data_dependent_sizes_match_ref)
{
    MIGX_REQUIRE_CPU();
    auto p = conv_of_selected_rows();
    std::vector<float> x(4 * 8 * 5 * 5);
    for(std::size_t i = 0; i < x.size(); i++)
        x[i] = static_cast<float>(i % 7) * 0.25f - 0.5f;
    std::vector<float> mask{0.9f, 0.1f, 0.7f, 0.2f};
    migraphx::parameter_map params{{"x", migraphx::argument{shape{shape::float_type, {4, 8, 5, 5}}, x.data()}},
                                   {"m", migraphx::argument{shape{shape::float_type, {4}}, mask.data()}}};
    auto on = [&](const migraphx::target& t) {
        auto q = p;
        q.compile(t);
        return q.eval(params).at(0);
    };
    auto cpu = on(migraphx::get_target("cpu"));
    auto ref = on(migraphx::ref::target{});
    EXPECT_EQ(cpu.get_shape().lens(), (std::vector<std::size_t>{2, 8, 3, 3}));
    // cpu::lower_actual_sizes runs the convolution on oneDNN (float sums), ref in double
    auto a = ref.to_vector<float>(), b = cpu.to_vector<float>();
    ASSERT_EQ(a.size(), b.size());
    for(std::size_t i = 0; i < a.size(); i++)
        EXPECT_NEAR(b[i], a[i], 1e-5 + 1e-4 * std::abs(a[i])) << "element " << i;
}

namespace {
// x * 0.5 * (1 + erf(x / sqrt(2))) after a gemm or a 1x1 convolution, as torch exports GELU.
migraphx::program gelu_after(bool convolution)
{
    migraphx::program p;
    auto* m = p.get_main_module();
    migraphx::instruction_ref x;
    if(convolution)
    {
        auto a = m->add_parameter("a", shape{shape::float_type, {1, 8, 5, 5}});
        auto w = m->add_literal(migraphx::generate_literal(shape{shape::float_type, {8, 8, 1, 1}}, 3));
        x      = m->add_instruction(make_op("convolution"), a, w);
    }
    else
    {
        auto a = m->add_parameter("a", shape{shape::float_type, {16, 32}});
        auto w = m->add_literal(migraphx::generate_literal(shape{shape::float_type, {32, 24}}, 3));
        x      = m->add_instruction(make_op("dot"), a, w);
    }
    auto cst = [&](float v) {
        return m->add_instruction(make_op("multibroadcast", {{"out_lens", x->get_shape().lens()}}),
                                  m->add_literal(migraphx::literal{v}));
    };
    auto d    = m->add_instruction(make_op("div"), x, cst(1.4142135f));
    auto e    = m->add_instruction(make_op("erf"), d);
    auto one  = m->add_instruction(make_op("add"), e, cst(1.0f));
    auto prod = m->add_instruction(make_op("mul"), x, one);
    m->add_return({m->add_instruction(make_op("mul"), prod, cst(0.5f))});
    return p;
}
} // namespace

TEST(cpu_lower_dnnl, gelu_after_convolution_is_a_post_op)
{
    MIGX_REQUIRE_CPU();
    auto cpu   = migx_test::expect_cpu_matches_ref(gelu_after(true), 1e-4, 1e-5);
    auto names = migx_test::op_names(*cpu.get_main_module());
    EXPECT_EQ(std::count(names.begin(), names.end(), "dnnl::convolution"), 1);
    EXPECT_EQ(std::count(names.begin(), names.end(), "cpu::pointwise"), 0); // the reorders are the layout's
}

#ifdef MIGRAPHX_HAVE_CPU // reads oneDNN's ISA
TEST(cpu_lower_dnnl, gelu_after_gemm_is_the_gemm_kernels_epilogue_or_one_pointwise_kernel)
{
    MIGX_REQUIRE_CPU();
    // oneDNN 2.6's AVX2 matmul runs a GELU post-op slowly: the cpu target's own GEMM (cpu::gemm)
    // applies it to each tile; oneDNN's AVX-512 matmul as a post-op; else one elementwise kernel
    auto cpu    = migx_test::expect_cpu_matches_ref(gelu_after(false), 1e-4, 1e-5);
    auto names  = migx_test::op_names(*cpu.get_main_module());
    bool avx512 = dnnl::get_effective_cpu_isa() >= dnnl::cpu_isa::avx512_core;
    if(names.front() == "cpu::gemm")
        EXPECT_EQ(names, (std::vector<std::string>{"cpu::gemm", "@return"}));
    else if(avx512)
        EXPECT_EQ(names, (std::vector<std::string>{"dnnl::matmul", "@return"}));
    else
        EXPECT_EQ(names, (std::vector<std::string>{"dnnl::matmul", "cpu::pointwise", "@return"}));
}
#endif
