// quantize_int8 programs on the cpu target: the oneDNN int8 lowering agrees with the reference.
#include <migraphx/quantization.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/ref/target.hpp>
#include "quantize_test_util.hpp"
#include <gtest/gtest.h>
#ifdef MIGRAPHX_HAVE_CPU
#include <migraphx/cpu/target.hpp>
#endif
#include <cmath>
#include <sstream>

namespace {
#ifdef MIGRAPHX_HAVE_CPU
using migraphx::make_op;
using migraphx::shape;
using migx_quantize_test::values;
using migx_quantize_test::count;

migraphx::instruction_ref conv_bias(migraphx::module& m, migraphx::instruction_ref x, std::size_t k, std::size_t c,
                                    std::size_t r, unsigned seed, std::size_t group = 1)
{
    auto w = m.add_literal(migraphx::literal{shape{shape::float_type, {k, c / group, r, r}},
                                             values(k * c / group * r * r, -0.3f, 0.3f, seed)});
    auto y = m.add_instruction(
        make_op("convolution", {{"padding", {r / 2, r / 2}}, {"group", group}}), x, w);
    auto b  = m.add_literal(migraphx::literal{shape{shape::float_type, {k}}, values(k, -0.5f, 0.5f, seed + 1)});
    auto bb = m.add_instruction(make_op("broadcast", {{"axis", 1}, {"out_lens", y->get_shape().lens()}}), b);
    return m.add_instruction(make_op("add"), y, bb);
}

// a small residual block: conv-relu-conv(+identity)-relu, a depthwise conv with relu6, a 1x1 conv
migraphx::program block_net()
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto x   = mm->add_parameter("x", shape{shape::float_type, {1, 3, 10, 10}});
    auto a   = mm->add_instruction(make_op("relu"), conv_bias(*mm, x, 16, 3, 3, 1));
    auto b   = mm->add_instruction(make_op("relu"), conv_bias(*mm, a, 16, 16, 3, 3));
    auto c   = conv_bias(*mm, b, 16, 16, 1, 5);
    auto r   = mm->add_instruction(make_op("relu"), mm->add_instruction(make_op("add"), c, a));
    auto lo  = mm->add_literal(0.0f);
    auto hi  = mm->add_literal(6.0f);
    auto dw  = conv_bias(*mm, r, 16, 16, 3, 7, 16);
    auto los = mm->add_instruction(make_op("multibroadcast", {{"out_lens", dw->get_shape().lens()}}), lo);
    auto his = mm->add_instruction(make_op("multibroadcast", {{"out_lens", dw->get_shape().lens()}}), hi);
    auto r6  = mm->add_instruction(make_op("clip"), dw, los, his);
    auto out = conv_bias(*mm, r6, 8, 16, 1, 9);
    mm->add_return({out});
    return p;
}

TEST(quantize_cpu_int8, lowers_to_onednn_int8)
{
    auto p = block_net();
    std::vector<float> in = values(300, -1.0f, 1.0f, 42);
    migraphx::parameter_map params{{"x", migraphx::argument{shape{shape::float_type, {1, 3, 10, 10}}, in.data()}}};
    migraphx::quantize_int8_options o;
    o.min_cosine = 0;
    migraphx::quantize_int8(p, migraphx::ref::target{}, {params}, o);
    auto r = p;
    p.compile(migraphx::cpu::target{});
    r.compile(migraphx::ref::target{});
    std::ostringstream ss;
    ss << p;
    auto text = ss.str();
    EXPECT_EQ(text.find(" = quant_convolution["), std::string::npos) << text;
    EXPECT_NE(text.find(" = dnnl::quant_convolution["), std::string::npos) << text;
    EXPECT_NE(text.find("out_type=4"), std::string::npos) << "uint8 output after relu\n" << text;
    auto a = p.eval(params).back().to_vector<float>();
    auto b = r.eval(params).back().to_vector<float>();
    ASSERT_EQ(a.size(), b.size());
    double maxabs = 0, maxerr = 0;
    for(std::size_t i = 0; i < a.size(); i++)
    {
        maxabs = std::max(maxabs, std::abs(double(b[i])));
        maxerr = std::max(maxerr, std::abs(double(a[i]) - b[i]));
    }
    // same int8 arithmetic; only rounding at requantization may differ by one step
    EXPECT_LT(maxerr, 0.05 * maxabs) << maxerr << " of " << maxabs;
}

std::vector<migraphx::instruction_ref> find_all(const migraphx::program& p, const std::string& name)
{
    std::vector<migraphx::instruction_ref> r;
    const auto& m = *p.get_main_module();
    for(auto ins = m.begin(); ins != m.end(); ++ins)
        if(ins->name() == name)
            r.push_back(ins);
    return r;
}

std::string text_of(const migraphx::program& p)
{
    std::ostringstream ss;
    ss << p;
    return ss.str();
}

/// Largest |a - b| over the largest |b|.
double relative_error(const std::vector<float>& a, const std::vector<float>& b)
{
    double maxabs = 0, maxerr = 0;
    for(std::size_t i = 0; i < a.size() and i < b.size(); i++)
    {
        maxabs = std::max(maxabs, std::abs(double(b[i])));
        maxerr = std::max(maxerr, std::abs(double(a[i]) - b[i]));
    }
    return a.size() == b.size() and maxabs > 0 ? maxerr / maxabs : 1.0;
}

migraphx::quantize_int8_options no_check()
{
    migraphx::quantize_int8_options o;
    o.min_cosine = 0;
    return o;
}

// relu(x) -> conv with large positive weights: uint8 data near 255 times int8 weights at the
// top of their range is where AVX2's vpmaddubsw saturates its int16 pair sums.
migraphx::program saturating_net()
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto x   = mm->add_parameter("x", shape{shape::float_type, {1, 32, 4, 4}});
    auto r   = mm->add_instruction(make_op("relu"), x);
    std::vector<float> wv(8 * 32);
    for(std::size_t i = 0; i < wv.size(); i++)
        wv[i] = (i % 5 == 0) ? -1.0f : 1.0f;
    auto w = mm->add_literal(migraphx::literal{shape{shape::float_type, {8, 32, 1, 1}}, wv});
    mm->add_return({mm->add_instruction(make_op("convolution"), r, w)});
    return p;
}

TEST(quantize_cpu_int8, uint8_data_does_not_saturate)
{
    std::vector<float> big(512, 4.0f); // every value at the top of the range: 255
    migraphx::parameter_map params{{"x", migraphx::argument{shape{shape::float_type, {1, 32, 4, 4}}, big.data()}}};
    // quantized for the cpu target (7-bit weights where the kernel saturates) and for ref
    // (8-bit weights, which the cpu lowering halves there): both exact on cpu
    for(bool for_cpu : {true, false})
    {
        auto p = saturating_net();
        if(for_cpu)
            migraphx::quantize_int8(p, migraphx::cpu::target{}, {params}, no_check());
        else
            migraphx::quantize_int8(p, migraphx::ref::target{}, {params}, no_check());
        auto qs = find_all(p, "quantizelinear");
        ASSERT_EQ(qs.size(), 1u);
        EXPECT_EQ(qs[0]->get_shape().type(), shape::uint8_type);
        auto r = p;
        p.compile(migraphx::cpu::target{});
        r.compile(migraphx::ref::target{});
        EXPECT_EQ(count(p, "dnnl::quant_convolution"), 1u) << text_of(p);
        auto a = p.eval(params).back().to_vector<float>();
        auto b = r.eval(params).back().to_vector<float>();
        // ref computes the same integers exactly; a saturated pair would be off by thousands
        EXPECT_LT(relative_error(a, b), for_cpu ? 1e-6 : 2e-2) << (for_cpu ? "cpu" : "ref") << " quantization";
    }
}

TEST(quantize_cpu_int8, int8_data_convolution_is_exact)
{
    // signed data: oneDNN halves the weights of int8-data convolutions on AVX2; even weights
    // (7-bit values doubled by the lowering) make that exact
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto x   = mm->add_parameter("x", shape{shape::float_type, {1, 16, 5, 5}});
    auto w   = mm->add_literal(
        migraphx::literal{shape{shape::float_type, {8, 16, 3, 3}}, values(8 * 16 * 9, -0.5f, 0.5f, 77)});
    mm->add_return({mm->add_instruction(make_op("convolution", {{"padding", {1, 1}}}), x, w)});
    std::vector<float> in = values(400, -2.0f, 2.0f, 78);
    migraphx::parameter_map params{{"x", migraphx::argument{shape{shape::float_type, {1, 16, 5, 5}}, in.data()}}};
    migraphx::quantize_int8(p, migraphx::cpu::target{}, {params}, no_check());
    auto r = p;
    p.compile(migraphx::cpu::target{});
    r.compile(migraphx::ref::target{});
    EXPECT_EQ(count(p, "dnnl::quant_convolution"), 1u) << text_of(p);
    EXPECT_LT(relative_error(p.eval(params).back().to_vector<float>(), r.eval(params).back().to_vector<float>()),
              1e-6);
}

TEST(quantize_cpu_int8, matmul_with_constant_weights)
{
    // a {2, 6, 48} x b {48, 20} + bias -> relu, bias correction on: one oneDNN int8 matmul
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto a   = mm->add_parameter("a", shape{shape::float_type, {2, 6, 48}});
    auto b   = mm->add_literal(migraphx::literal{shape{shape::float_type, {48, 20}}, values(960, -1.0f, 1.0f, 31)});
    auto bb  = mm->add_instruction(make_op("multibroadcast", {{"out_lens", {2, 48, 20}}}), b);
    auto d   = mm->add_instruction(make_op("dot"), a, bb);
    auto bias = mm->add_literal(migraphx::literal{shape{shape::float_type, {20}}, values(20, -0.5f, 0.5f, 32)});
    auto bbias = mm->add_instruction(make_op("multibroadcast", {{"out_lens", {2, 6, 20}}}), bias);
    mm->add_return({mm->add_instruction(make_op("relu"), mm->add_instruction(make_op("add"), d, bbias))});
    std::vector<float> in = values(576, 0.0f, 1.0f, 33);
    migraphx::parameter_map params{{"a", migraphx::argument{shape{shape::float_type, {2, 6, 48}}, in.data()}}};
    auto f = p;
    migraphx::quantize_int8(p, migraphx::cpu::target{}, {params}, no_check());
    ASSERT_EQ(find_all(p, "dequantizelinear").size(), 1u);
    EXPECT_EQ(find_all(p, "dequantizelinear").front()->inputs().size(), 3u) << "bias correction zero point";
    auto r = p;
    p.compile(migraphx::cpu::target{});
    r.compile(migraphx::ref::target{});
    f.compile(migraphx::ref::target{});
    auto text = text_of(p);
    EXPECT_EQ(count(p, "dnnl::quant_matmul"), 1u) << text;
    EXPECT_EQ(count(p, "quant_dot"), 0u) << text;
    EXPECT_EQ(count(p, "relu"), 0u) << "relu is a post-op\n" << text;
    auto got = p.eval(params).back().to_vector<float>();
    EXPECT_LT(relative_error(got, r.eval(params).back().to_vector<float>()), 1e-5) << "same integers as ref";
    EXPECT_LT(relative_error(got, f.eval(params).back().to_vector<float>()), 3e-2) << "close to float";
}

TEST(quantize_cpu_int8, dot_of_two_activations_runs_in_float_kernels)
{
    // attention-like: both operands computed; the integer product runs exactly in float
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto a   = mm->add_parameter("a", shape{shape::float_type, {1, 2, 8, 16}});
    auto b   = mm->add_parameter("b", shape{shape::float_type, {1, 2, 16, 8}});
    auto sa  = mm->add_instruction(make_op("softmax", {{"axis", 3}}), a);
    mm->add_return({mm->add_instruction(make_op("dot"), sa, b)});
    std::vector<float> va = values(256, -2.0f, 2.0f, 41), vb = values(256, -1.0f, 1.0f, 42);
    migraphx::parameter_map params{{"a", migraphx::argument{shape{shape::float_type, {1, 2, 8, 16}}, va.data()}},
                                   {"b", migraphx::argument{shape{shape::float_type, {1, 2, 16, 8}}, vb.data()}}};
    migraphx::quantize_int8(p, migraphx::cpu::target{}, {params}, no_check());
    auto qs = find_all(p, "quantizelinear");
    ASSERT_EQ(qs.size(), 2u);
    for(auto q : qs)
        EXPECT_EQ(q->get_shape().type(), q->inputs()[0]->name() == "softmax" ? shape::uint8_type : shape::int8_type);
    auto r = p;
    p.compile(migraphx::cpu::target{});
    r.compile(migraphx::ref::target{});
    auto text = text_of(p);
    EXPECT_EQ(count(p, "quant_dot"), 0u) << text;
    EXPECT_EQ(count(p, "quantizelinear"), 0u) << "cpu::quantize instead\n" << text;
    EXPECT_LT(relative_error(p.eval(params).back().to_vector<float>(), r.eval(params).back().to_vector<float>()),
              1e-6);
}

TEST(quantize_cpu_int8, max_pooling_stays_int8)
{
    // conv -> relu -> maxpool -> conv: the first conv writes uint8 (requantize folded in), the
    // pooling runs on uint8, the second conv reads it; equal to ref up to requantize rounding
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto x   = mm->add_parameter("x", shape{shape::float_type, {1, 3, 12, 12}});
    auto c1  = conv_bias(*mm, x, 16, 3, 3, 51);
    auto r   = mm->add_instruction(make_op("relu"), c1);
    auto mp  = mm->add_instruction(
        make_op("pooling", {{"mode", "max"}, {"lengths", {3, 3}}, {"stride", {2, 2}}, {"padding", {1, 1}}}), r);
    mm->add_return({conv_bias(*mm, mp, 8, 16, 1, 53)});
    std::vector<float> in = values(432, -1.0f, 1.0f, 54);
    migraphx::parameter_map params{{"x", migraphx::argument{shape{shape::float_type, {1, 3, 12, 12}}, in.data()}}};
    migraphx::quantize_int8(p, migraphx::cpu::target{}, {params}, no_check());
    auto r2 = p;
    p.compile(migraphx::cpu::target{});
    r2.compile(migraphx::ref::target{});
    auto text = text_of(p);
    EXPECT_EQ(count(p, "dnnl::quant_pooling"), 1u) << text;
    EXPECT_EQ(count(p, "dnnl::quant_convolution"), 2u) << text;
    EXPECT_EQ(count(p, "cpu::quantize"), 1u) << "only the parameter is quantized by itself\n" << text;
    EXPECT_LT(relative_error(p.eval(params).back().to_vector<float>(), r2.eval(params).back().to_vector<float>()),
              2e-2);
}
#endif
} // namespace
