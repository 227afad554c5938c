#include <migraphx/quantization.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/ref/target.hpp>
#include "quantize_test_util.hpp"
#include <gtest/gtest.h>
#ifdef MIGRAPHX_HAVE_CPU
#include <migraphx/cpu/target.hpp>
#endif
#include <algorithm>
#include <cmath>
#include <sstream>

namespace {

using migraphx::fp8e4m3fn;
using migx_quantize_test::cosine;
using migx_quantize_test::count;
using migx_quantize_test::text;
using migx_quantize_test::values;
using migraphx::make_op;
using migraphx::shape;

float abs_max(const std::vector<float>& v)
{
    float m = 0;
    for(auto x : v)
        m = std::max(m, std::abs(x));
    return m;
}

const std::vector<float>& weights_ab() // b of gemm_net, {16, 5}
{
    static const auto w = values(80, -1.5f, 1.5f, 3);
    return w;
}

// a {3, 16} x b {16, 5} (b constant)
migraphx::program gemm_net()
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto a   = mm->add_parameter("a", shape{shape::float_type, {3, 16}});
    auto b   = mm->add_literal(migraphx::literal{shape{shape::float_type, {16, 5}}, weights_ab()});
    mm->add_return({mm->add_instruction(make_op("dot"), a, b)});
    return p;
}

std::vector<float> eval_ref(migraphx::program p, const migraphx::parameter_map& in)
{
    p.compile(migraphx::ref::target{});
    return p.eval(in).back().to_vector<float>();
}

} // namespace

TEST(quantize_fp8, dot_reads_both_operands_through_e4m3_with_per_tensor_scales)
{
    auto av = values(48, -3.0f, 3.0f, 11);
    shape as{shape::float_type, {3, 16}};
    migraphx::parameter_map in{{"a", migraphx::argument{as, av.data()}}};
    auto p = gemm_net();
    migraphx::quantize_fp8_report report;
    migraphx::quantize_fp8_options o;
    o.report = &report;
    migraphx::quantize_fp8(p, migraphx::ref::target{}, {in}, o);
    EXPECT_EQ(report.quantized, 1u);
    EXPECT_EQ(count(p, "quantizelinear"), 1u) << text(p);
    EXPECT_EQ(count(p, "dequantizelinear"), 2u) << text(p);
    EXPECT_EQ(count(p, "quantize_capture"), 0u) << text(p);
    const auto& m = *p.get_main_module();
    bool fp8_weights = false;
    for(auto ins = m.begin(); ins != m.end(); ++ins)
        if(ins->name() == "@literal" and ins->get_shape().type() == shape::fp8e4m3fn_type and
           ins->get_shape().lens() == std::vector<std::size_t>{16, 5})
            fp8_weights = true;
    EXPECT_TRUE(fp8_weights) << "the weights are stored as e4m3: " << text(p);

    // the same numbers by hand: each operand rounded to e4m3 at range / 448, the product in double
    float sa = abs_max(av) / 448.0f, sb = abs_max(weights_ab()) / 448.0f;
    auto got = eval_ref(p, in);
    ASSERT_EQ(got.size(), 15u);
    for(std::size_t i = 0; i < 3; i++)
        for(std::size_t j = 0; j < 5; j++)
        {
            double want = 0;
            for(std::size_t k = 0; k < 16; k++)
                want += double(float(fp8e4m3fn(av[i * 16 + k] / sa)) * sa) *
                        double(float(fp8e4m3fn(weights_ab()[k * 5 + j] / sb)) * sb);
            EXPECT_NEAR(got[i * 5 + j], want, 1e-5 * (1 + std::abs(want))) << i << "," << j;
        }
    auto exact = eval_ref(gemm_net(), in);
    EXPECT_GT(cosine(got, exact), 0.99);
    EXPECT_LT(cosine(got, exact), 1.0 - 1e-7) << "e4m3 rounding must show";
}

TEST(quantize_fp8, values_beyond_the_calibrated_range_saturate)
{
    auto cal = values(48, -1.0f, 1.0f, 5);
    auto big = cal;
    big[0]   = 100.0f; // 100x the calibrated range
    shape as{shape::float_type, {3, 16}};
    auto p = gemm_net();
    migraphx::quantize_fp8(p, migraphx::ref::target{}, {{{"a", migraphx::argument{as, cal.data()}}}});
    auto got    = eval_ref(p, {{"a", migraphx::argument{as, big.data()}}});
    float sa    = abs_max(cal) / 448.0f;
    float sb    = abs_max(weights_ab()) / 448.0f;
    double want = 0;
    for(std::size_t k = 0; k < 16; k++)
        want += double(float(fp8e4m3fn(big[k] / sa)) * sa) * double(float(fp8e4m3fn(weights_ab()[k * 5] / sb)) * sb);
    EXPECT_NEAR(got[0], want, 1e-5 * (1 + std::abs(want)));
    EXPECT_NEAR(float(fp8e4m3fn(big[0] / sa)) * sa, abs_max(cal), 1e-6) << "clipped at the calibrated range";
}

TEST(quantize_fp8, products_of_two_activations_are_left_alone_and_a_shared_input_is_cast_once)
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto x   = mm->add_parameter("x", shape{shape::float_type, {4, 8}});
    auto y   = mm->add_parameter("y", shape{shape::float_type, {8, 4}});
    auto w1  = mm->add_literal(migraphx::literal{shape{shape::float_type, {8, 8}}, values(64, -1, 1, 1)});
    auto w2  = mm->add_literal(migraphx::literal{shape{shape::float_type, {8, 8}}, values(64, -1, 1, 2)});
    auto d1  = mm->add_instruction(make_op("dot"), x, w1);
    auto d2  = mm->add_instruction(make_op("dot"), x, w2);
    auto xy  = mm->add_instruction(make_op("dot"), x, y);
    mm->add_return({d1, d2, xy});
    auto xv = values(32, -1, 1, 3), yv = values(32, -1, 1, 4);
    migraphx::parameter_map in{{"x", migraphx::argument{shape{shape::float_type, {4, 8}}, xv.data()}},
                               {"y", migraphx::argument{shape{shape::float_type, {8, 4}}, yv.data()}}};
    migraphx::quantize_fp8_report report;
    migraphx::quantize_fp8_options o;
    o.report = &report;
    migraphx::quantize_fp8(p, migraphx::ref::target{}, {in}, o);
    EXPECT_EQ(report.quantized, 2u);
    EXPECT_EQ(count(p, "quantizelinear"), 1u) << "x is cast once for both products: " << text(p);
    EXPECT_EQ(count(p, "dequantizelinear"), 3u) << text(p);
    const auto& m = *p.get_main_module();
    for(auto ins = m.begin(); ins != m.end(); ++ins)
        if(ins->name() == "dot" and ins->inputs()[1]->name() == "@param")
            EXPECT_EQ(ins->inputs()[0]->name(), "@param") << "x * y keeps its float operands";
}

TEST(quantize_fp8, products_of_one_input_share_one_weight_scale)
{
    // Q, K and V of a transformer: one activation, weights of one shape -> one weight scale (the
    // largest), so that a target can run them as one product; other shapes keep their own
    migraphx::program p;
    auto* mm = p.get_main_module();
    shape xs{shape::float_type, {4, 8}};
    auto x   = mm->add_parameter("x", xs);
    auto wq  = values(64, -1, 1, 1), wk = values(64, -4, 4, 2), wo = values(32, -0.5f, 0.5f, 3);
    auto d1  = mm->add_instruction(make_op("dot"), x, mm->add_literal(migraphx::literal{shape{shape::float_type, {8, 8}}, wq}));
    auto d2  = mm->add_instruction(make_op("dot"), x, mm->add_literal(migraphx::literal{shape{shape::float_type, {8, 8}}, wk}));
    auto d3  = mm->add_instruction(make_op("dot"), x, mm->add_literal(migraphx::literal{shape{shape::float_type, {8, 4}}, wo}));
    mm->add_return({d1, d2, d3});
    auto xv = values(32, -1, 1, 4);
    migraphx::parameter_map in{{"x", migraphx::argument{xs, xv.data()}}};
    migraphx::quantize_fp8(p, migraphx::ref::target{}, {in});
    // each product's weight scale: dequantizelinear(fp8 literal, multibroadcast(scale literal))
    std::vector<float> scales;
    const auto& m = *p.get_main_module();
    for(auto ins = m.begin(); ins != m.end(); ++ins)
    {
        if(ins->name() != "dot")
            continue;
        auto dq = ins->inputs()[1];
        ASSERT_EQ(dq->name(), "dequantizelinear") << text(p);
        ASSERT_EQ(dq->inputs()[0]->name(), "@literal") << text(p);
        scales.push_back(dq->inputs()[1]->inputs()[0]->get_literal().to_vector<float>().at(0));
    }
    ASSERT_EQ(scales.size(), 3u);
    EXPECT_FLOAT_EQ(scales[0], abs_max(wk) / 448.0f) << "Q's weights at K's (larger) range";
    EXPECT_FLOAT_EQ(scales[1], abs_max(wk) / 448.0f);
    EXPECT_FLOAT_EQ(scales[2], abs_max(wo) / 448.0f) << "another shape: its own scale";
    // Q's product by hand at the shared scale
    float sx = abs_max(xv) / 448.0f, sw = scales[0];
    migraphx::program q = p;
    q.compile(migraphx::ref::target{});
    auto qv = q.eval(in).front().to_vector<float>(); // Q's product, the first result
    ASSERT_EQ(qv.size(), 32u);
    for(std::size_t i = 0; i < 4; i++)
        for(std::size_t j = 0; j < 8; j++)
        {
            double want = 0;
            for(std::size_t k = 0; k < 8; k++)
                want += double(float(fp8e4m3fn(xv[i * 8 + k] / sx)) * sx) * double(float(fp8e4m3fn(wq[k * 8 + j] / sw)) * sw);
            EXPECT_NEAR(qv[i * 8 + j], want, 1e-5 * (1 + std::abs(want))) << i << "," << j;
        }
}

TEST(quantize_fp8, convolutions_and_a_half_program)
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto x   = mm->add_parameter("x", shape{shape::float_type, {1, 4, 6, 6}});
    auto w   = mm->add_literal(migraphx::literal{shape{shape::float_type, {8, 4, 3, 3}}, values(288, -0.5f, 0.5f, 1)});
    auto c   = mm->add_instruction(make_op("convolution", {{"padding", {1, 1}}}), x, w);
    mm->add_return({mm->add_instruction(make_op("relu"), c)});
    auto xv = values(144, -1, 1, 9);
    migraphx::parameter_map in{{"x", migraphx::argument{shape{shape::float_type, {1, 4, 6, 6}}, xv.data()}}};
    auto exact = eval_ref(p, in);

    auto q = p;
    migraphx::quantize_fp8(q, migraphx::ref::target{}, {in});
    EXPECT_EQ(count(q, "quantizelinear"), 1u) << text(q);
    EXPECT_GT(cosine(eval_ref(q, in), exact), 0.995);

    // quantize_fp16 first: the scales and the dequantized operands are half, the product too
    auto h = p;
    migraphx::quantize_fp16(h);
    migraphx::quantize_fp8(h, migraphx::ref::target{}, {in}, std::vector<std::string>{"convolution"});
    const auto& hm = *h.get_main_module();
    for(auto ins = hm.begin(); ins != hm.end(); ++ins)
        if(ins->name() == "dequantizelinear")
            EXPECT_EQ(ins->get_shape().type(), shape::half_type) << text(h);
    EXPECT_EQ(count(h, "quantizelinear"), 1u) << text(h);
    EXPECT_GT(cosine(eval_ref(h, in), exact), 0.995);
}

TEST(quantize_fp8, without_calibration_uses_scale_one)
{
    auto p = gemm_net();
    testing::internal::CaptureStderr();
    migraphx::quantize_fp8(p, migraphx::ref::target{}, {});
    auto err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("no calibration data"), std::string::npos) << err;
    EXPECT_EQ(count(p, "quantizelinear"), 1u);
    auto av = values(48, -3.0f, 3.0f, 11);
    auto got = eval_ref(p, {{"a", migraphx::argument{shape{shape::float_type, {3, 16}}, av.data()}}});
    double want = 0;
    float sb    = abs_max(weights_ab()) / 448.0f;
    for(std::size_t k = 0; k < 16; k++)
        want += double(float(fp8e4m3fn(av[k]))) * double(float(fp8e4m3fn(weights_ab()[k * 5] / sb)) * sb);
    EXPECT_NEAR(got[0], want, 1e-5 * (1 + std::abs(want)));
}

TEST(quantize_fp8, percentile_calibration_clips_the_rare_large_values)
{
    auto av = values(48, -1.0f, 1.0f, 2);
    av[7]   = 40.0f; // one outlier
    shape as{shape::float_type, {3, 16}};
    migraphx::parameter_map in{{"a", migraphx::argument{as, av.data()}}};
    auto p = gemm_net();
    migraphx::quantize_fp8_options o;
    o.calibration_method = "percentile:90";
    migraphx::quantize_fp8(p, migraphx::ref::target{}, {in}, o);
    auto got = eval_ref(p, in);
    // with the max method the outlier would pass unclipped; here row 0 loses most of it
    auto exact  = eval_ref(gemm_net(), in);
    double lost = 0;
    for(std::size_t j = 0; j < 5; j++)
        lost = std::max(lost, double(std::abs(got[j] - exact[j])));
    EXPECT_GT(lost, 1.0);
}

TEST(quantize_fp8, bad_requests_are_named)
{
    auto av = values(48, -1.0f, 1.0f, 2);
    migraphx::parameter_map in{{"a", migraphx::argument{shape{shape::float_type, {3, 16}}, av.data()}}};
    auto expect_error = [&](auto&& f, const std::string& words) {
        try
        {
            f();
            ADD_FAILURE() << "no exception; wanted one naming '" << words << "'";
        }
        catch(const migraphx::exception& e)
        {
            EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
        }
    };
    auto p = gemm_net();
    expect_error([&] { migraphx::quantize_fp8(p, migraphx::ref::target{}, {in}, {"relu"}); }, "relu");
    migraphx::quantize_fp8_options mse;
    mse.calibration_method = "mse";
    expect_error([&] { migraphx::quantize_fp8(p, migraphx::ref::target{}, {in}, mse); }, "mse");
    migraphx::quantize_fp8_options pct;
    pct.calibration_method = "percentile:abc";
    expect_error([&] { migraphx::quantize_fp8(p, migraphx::ref::target{}, {in}, pct); }, "percentile");
    migraphx::parameter_map wrong{{"b", migraphx::argument{shape{shape::float_type, {3, 16}}, av.data()}}};
    expect_error([&] { migraphx::quantize_fp8(p, migraphx::ref::target{}, {wrong}); }, "a");
    EXPECT_EQ(count(p, "quantizelinear"), 0u) << "a refused request leaves the program as it was";
    auto compiled = gemm_net();
    compiled.compile(migraphx::ref::target{});
    expect_error([&] { migraphx::quantize_fp8(compiled, migraphx::ref::target{}, {in}); }, "already compiled");
}

#ifdef MIGRAPHX_HAVE_CPU
TEST(quantize_fp8, cpu_runs_the_rewritten_program_as_ref_does)
{
    auto av = values(48, -3.0f, 3.0f, 11);
    migraphx::parameter_map in{{"a", migraphx::argument{shape{shape::float_type, {3, 16}}, av.data()}}};
    auto p = gemm_net();
    migraphx::quantize_fp8(p, migraphx::cpu::target{}, {in});
    auto want = eval_ref(p, in);
    p.compile(migraphx::cpu::target{});
    auto got = p.eval(in).back().to_vector<float>();
    ASSERT_EQ(got.size(), want.size());
    for(std::size_t i = 0; i < got.size(); i++)
        EXPECT_NEAR(got[i], want[i], 1e-5 * (1 + std::abs(want[i]))) << i;
}
#endif

TEST(quantize_fp8, batched_weights_are_stored_once_under_their_broadcast)
{
    // a linear layer over [2, 4, 16] as the ONNX parser makes it (weights broadcast over the
    // batch), in half: quantize_fp16's convert sits above the broadcast
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto x   = mm->add_parameter("x", shape{shape::float_type, {2, 4, 16}});
    auto w   = mm->add_literal(migraphx::literal{shape{shape::float_type, {16, 8}}, values(128, -1, 1, 6)});
    auto wb  = mm->add_instruction(make_op("multibroadcast", {{"out_lens", {2, 16, 8}}}), w);
    mm->add_return({mm->add_instruction(make_op("dot"), x, wb)});
    auto xv = values(128, -1, 1, 7);
    migraphx::parameter_map in{{"x", migraphx::argument{shape{shape::float_type, {2, 4, 16}}, xv.data()}}};
    auto exact = eval_ref(p, in);
    migraphx::quantize_fp16(p);
    migraphx::quantize_fp8(p, migraphx::ref::target{}, {in});
    const auto& m = *p.get_main_module();
    std::size_t fp8_literals = 0;
    for(auto ins = m.begin(); ins != m.end(); ++ins)
        if(ins->name() == "@literal" and ins->get_shape().type() == shape::fp8e4m3fn_type and
           ins->get_shape().elements() > 1)
        {
            fp8_literals++;
            EXPECT_EQ(ins->get_shape().lens(), (std::vector<std::size_t>{16, 8})) << text(p);
        }
    EXPECT_EQ(fp8_literals, 1u) << text(p);
    EXPECT_GT(cosine(eval_ref(p, in), exact), 0.99);
}
