#include <migraphx/quantization.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/ref/target.hpp>
#include "quantize_test_util.hpp"
#include "scoped_env.hpp"
#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>
#include <sstream>

namespace {

using migraphx::make_op;
using migraphx::shape;
using migx_quantize_test::cosine;
using migx_quantize_test::count;
using migx_quantize_test::text;
using migx_quantize_test::values;

// x {1, 4, 6, 6} -> conv (8 filters 3x3, pad 1) -> relu -> conv (4 filters 1x1) -> return
migraphx::program conv_net()
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto x   = mm->add_parameter("x", shape{shape::float_type, {1, 4, 6, 6}});
    auto w1  = mm->add_literal(migraphx::literal{shape{shape::float_type, {8, 4, 3, 3}}, values(288, -0.5f, 0.5f, 1)});
    auto w2  = mm->add_literal(migraphx::literal{shape{shape::float_type, {4, 8, 1, 1}}, values(32, -1.0f, 1.0f, 2)});
    auto c1  = mm->add_instruction(make_op("convolution", {{"padding", {1, 1}}}), x, w1);
    auto r   = mm->add_instruction(make_op("relu"), c1);
    auto c2  = mm->add_instruction(make_op("convolution"), r, w2);
    mm->add_return({c2});
    return p;
}

// a {2, 3, 16} x b {2, 16, 5} (b constant)
migraphx::program gemm_net()
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto a   = mm->add_parameter("a", shape{shape::float_type, {2, 3, 16}});
    auto b   = mm->add_literal(migraphx::literal{shape{shape::float_type, {2, 16, 5}}, values(160, -1.0f, 1.0f, 3)});
    auto d   = mm->add_instruction(make_op("dot"), a, b);
    mm->add_return({d});
    return p;
}

migraphx::parameter_map one_input(const std::string& name, const shape& s, unsigned seed, std::vector<float>& keep)
{
    keep = values(s.elements(), -1.0f, 1.0f, seed);
    return {{name, migraphx::argument{s, keep.data()}}};
}

/// Three calibration maps and one other evaluation map of conv_net's input x {1, 4, 6, 6}
/// (seeds first, first + 1, first + 2; 99), with the values they point at.
struct conv_inputs
{
    std::vector<std::vector<float>> keep = std::vector<std::vector<float>>(4);
    std::vector<migraphx::parameter_map> calibration;
    migraphx::parameter_map eval;
    explicit conv_inputs(unsigned first)
    {
        shape s{shape::float_type, {1, 4, 6, 6}};
        for(unsigned i = 0; i < 3; i++)
            calibration.push_back(one_input("x", s, first + i, keep[i]));
        eval = one_input("x", s, 99, keep[3]);
    }
};

/// The cosine similarity of p's and q's last outputs on `in`, both compiled for ref.
double ref_cosine(migraphx::program p, migraphx::program q, const migraphx::parameter_map& in)
{
    p.compile(migraphx::ref::target{});
    q.compile(migraphx::ref::target{});
    return cosine(p.eval(in).back().to_vector<float>(), q.eval(in).back().to_vector<float>());
}

TEST(quantize_int8, rewrites_convolutions)
{
    auto p = conv_net();
    std::vector<float> keep;
    auto cal = one_input("x", shape{shape::float_type, {1, 4, 6, 6}}, 7, keep);
    migraphx::quantize_int8_report report;
    migraphx::quantize_int8_options o;
    o.report = &report;
    migraphx::quantize_int8(p, migraphx::ref::target{}, {cal}, o);
    EXPECT_EQ(report.quantized, 2u);
    EXPECT_EQ(report.kept_float, 0u);
    EXPECT_EQ(report.checks, 1u) << "one check: the fully quantized program passes";
    EXPECT_GE(report.check_cosine, 0.995);
    EXPECT_EQ(report.unsigned_inputs, 1u) << "the relu output";
    EXPECT_EQ(count(p, "convolution"), 0u) << text(p);
    EXPECT_EQ(count(p, "quant_convolution"), 2u) << text(p);
    EXPECT_EQ(count(p, "quantizelinear"), 2u) << text(p);
    EXPECT_EQ(count(p, "dequantizelinear"), 2u) << text(p);
    EXPECT_EQ(count(p, "quantize_capture"), 0u) << "calibration leaves no capture behind";
    const auto& m = *p.get_main_module();
    for(auto ins = m.begin(); ins != m.end(); ++ins)
        if(ins->name() == "quant_convolution")
        {
            EXPECT_EQ(ins->get_shape().type(), shape::int32_type);
            EXPECT_EQ(ins->inputs()[1]->name(), "@literal") << "weights are quantized at rewrite time";
            EXPECT_EQ(ins->inputs()[1]->get_shape().type(), shape::int8_type);
        }
    EXPECT_EQ(p.get_output_shapes().front().type(), shape::float_type);
}

TEST(quantize_int8, convolution_results_agree)
{
    auto p = conv_net();
    auto q = p;
    conv_inputs in(10);
    migraphx::quantize_int8(q, migraphx::ref::target{}, in.calibration);
    EXPECT_GT(ref_cosine(p, q, in.eval), 0.999);
}

TEST(quantize_int8, half_programs_quantize_from_float_and_keep_half)
{
    // quantize_fp16, then quantize_int8: the int8 ops take float-quantized inputs and their
    // dequantized results go back to half; the program's outputs stay float
    auto p = conv_net();
    auto q = p;
    migraphx::quantize_fp16(q);
    conv_inputs in(10);
    migraphx::quantize_int8(q, migraphx::ref::target{}, in.calibration);
    EXPECT_EQ(count(q, "convolution"), 0u) << text(q);
    EXPECT_GT(count(q, "quant_convolution"), 0u);
    EXPECT_EQ(q.get_output_shapes().back().type(), shape::float_type);
    EXPECT_GT(ref_cosine(p, q, in.eval), 0.999);
}

TEST(quantize_int8, int8_residuals_read_the_quantized_value)
{
    // y = conv(x) + x: with int8_residuals the add reads x's int8 quantization, dequantized
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto x   = mm->add_parameter("x", shape{shape::float_type, {1, 4, 6, 6}});
    auto w   = mm->add_literal(migraphx::literal{shape{shape::float_type, {4, 4, 3, 3}}, values(144, -0.3f, 0.3f, 3)});
    auto c   = mm->add_instruction(make_op("convolution", {{"padding", {1, 1}}}), x, w);
    mm->add_return({mm->add_instruction(make_op("add"), c, x)});
    conv_inputs in(20);
    migraphx::quantize_int8_options o;
    o.int8_residuals = true;
    o.min_cosine     = 0;
    auto q = p;
    migraphx::quantize_int8(q, migraphx::ref::target{}, in.calibration, o);
    auto* qm = q.get_main_module();
    auto add = std::prev(qm->end(), 2); // before @return
    ASSERT_EQ(add->name(), "add") << text(q);
    auto reads_dequantized = std::any_of(add->inputs().begin(), add->inputs().end(), [](auto a) {
        return a->name() == "dequantizelinear" and a->inputs()[0]->name() == "quantizelinear";
    });
    EXPECT_TRUE(reads_dequantized) << text(q);
    EXPECT_GT(ref_cosine(p, q, in.eval), 0.999);
}

TEST(quantize_int8, gemm_results_agree)
{
    auto p = gemm_net();
    auto q = p;
    std::vector<float> k1, k2;
    auto s   = shape{shape::float_type, {2, 3, 16}};
    auto cal = one_input("a", s, 5, k1);
    migraphx::quantize_int8(q, migraphx::ref::target{}, {cal});
    EXPECT_EQ(count(q, "quant_dot"), 1u) << text(q);
    p.compile(migraphx::ref::target{});
    q.compile(migraphx::ref::target{});
    auto in = one_input("a", s, 6, k2);
    auto a  = p.eval(in).back().to_vector<float>();
    auto b  = q.eval(in).back().to_vector<float>();
    EXPECT_GT(cosine(a, b), 0.999);
    for(std::size_t i = 0; i < a.size(); i++)
        EXPECT_NEAR(a[i], b[i], 0.1) << i;
}

TEST(quantize_int8, calibration_sets_the_scale)
{
    // With inputs in [-1, 1], the activation scale is about 1/127, not the default 1.
    auto p = gemm_net();
    std::vector<float> k;
    auto cal = one_input("a", shape{shape::float_type, {2, 3, 16}}, 5, k);
    migraphx::quantize_int8_options o;
    o.calibration_method = "max";
    migraphx::quantize_int8(p, migraphx::ref::target{}, {cal}, o);
    const auto& m = *p.get_main_module();
    bool found    = false;
    for(auto ins = m.begin(); ins != m.end(); ++ins)
        if(ins->name() == "quantizelinear")
        {
            auto sc = ins->inputs()[1];
            while(sc->name() != "@literal")
                sc = sc->inputs().front();
            auto s = sc->get_literal().to_vector<float>().front();
            EXPECT_GT(s, 0.9f / 127);
            EXPECT_LE(s, 1.0f / 127 + 1e-6f);
            found = true;
        }
    EXPECT_TRUE(found) << text(p);
}

TEST(quantize_int8, time_quantize_names_each_phase)
{
    migx_test::scoped_env on("MIGRAPHX_TIME_QUANTIZE", "1");
    auto p = gemm_net();
    std::vector<float> k;
    auto cal = one_input("a", shape{shape::float_type, {2, 3, 16}}, 5, k);
    migraphx::quantize_int8_options o;
    o.min_cosine = 1.5; // unreachable: the check runs (and warns)
    testing::internal::CaptureStderr();
    migraphx::quantize_int8(p, migraphx::ref::target{}, {cal}, o);
    auto err = testing::internal::GetCapturedStderr();
    for(const char* phase : {"quantize_int8: calibration compile (", "quantize_int8: calibration runs, ranges (1 maps): ",
                             "quantize_int8: calibration runs, histograms: ", "quantize_int8: thresholds (mse): ",
                             "quantize_int8: check with 0 kept in float: rewrite and compile: ", "quantize_int8: rewrite: "})
        EXPECT_NE(err.find(phase), std::string::npos) << phase << " in:\n" << err;
}

TEST(quantize_int8, without_calibration_uses_default_range)
{
    auto p = gemm_net();
    testing::internal::CaptureStderr();
    migraphx::quantize_int8(p, migraphx::ref::target{}, {});
    auto err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("no calibration data"), std::string::npos) << err;
    EXPECT_EQ(count(p, "quant_dot"), 1u);
}

TEST(quantize_int8, bad_calibration_maps_throw)
{
    std::vector<float> k;
    auto p = conv_net();
    // missing input
    EXPECT_THROW(migraphx::quantize_int8(p, migraphx::ref::target{}, {migraphx::parameter_map{}}), migraphx::exception);
    // the messages name the map and the input, and give both shapes
    auto message = [&](const std::vector<migraphx::parameter_map>& maps) -> std::string {
        try
        {
            migraphx::quantize_int8(p, migraphx::ref::target{}, maps);
        }
        catch(const migraphx::exception& e)
        {
            return e.what();
        }
        return "no exception";
    };
    auto missing = message({migraphx::parameter_map{}});
    EXPECT_NE(missing.find("map 0"), std::string::npos) << missing;
    EXPECT_NE(missing.find("missing the model input 'x'"), std::string::npos) << missing;
    EXPECT_NE(missing.find("{1, 4, 6, 6}"), std::string::npos) << missing;
    // wrong shape, in the second map
    auto good = one_input("x", shape{shape::float_type, {1, 4, 6, 6}}, 2, k);
    std::vector<float> k2;
    auto bad   = one_input("x", shape{shape::float_type, {1, 4, 5, 6}}, 1, k2);
    auto wrong = message({good, bad});
    EXPECT_NE(wrong.find("map 1"), std::string::npos) << wrong;
    EXPECT_NE(wrong.find("'x'"), std::string::npos) << wrong;
    EXPECT_NE(wrong.find("{1, 4, 5, 6}"), std::string::npos) << wrong;
    EXPECT_NE(wrong.find("{1, 4, 6, 6}"), std::string::npos) << wrong;
    // wrong type
    std::vector<double> d(144);
    migraphx::parameter_map dbl{{"x", migraphx::argument{shape{shape::double_type, {1, 4, 6, 6}}, d.data()}}};
    EXPECT_THROW(migraphx::quantize_int8(p, migraphx::ref::target{}, {dbl}), migraphx::exception);
    // an unknown name
    auto extra = one_input("x", shape{shape::float_type, {1, 4, 6, 6}}, 1, k);
    extra["y"] = extra["x"];
    EXPECT_THROW(migraphx::quantize_int8(p, migraphx::ref::target{}, {extra}), migraphx::exception);
    auto unknown = message({extra});
    EXPECT_NE(unknown.find("'y' is not an input"), std::string::npos) << unknown;
    // an argument without data
    migraphx::parameter_map empty{{"x", migraphx::argument{shape{shape::float_type, {1, 4, 6, 6}}, nullptr}}};
    auto nodata = message({empty});
    EXPECT_NE(nodata.find("'x' has no data"), std::string::npos) << nodata;
    // bad options
    migraphx::quantize_int8_options o;
    o.calibration_method = "median";
    EXPECT_THROW(migraphx::quantize_int8(p, migraphx::ref::target{}, {good}, o), migraphx::exception);
    o.calibration_method = "percentile:0";
    EXPECT_THROW(migraphx::quantize_int8(p, migraphx::ref::target{}, {good}, o), migraphx::exception);
    o.calibration_method = "percentile:abc";
    EXPECT_THROW(migraphx::quantize_int8(p, migraphx::ref::target{}, {good}, o), migraphx::exception);
    o.calibration_method = "mse";
    o.max_float_fraction = 1.5;
    EXPECT_THROW(migraphx::quantize_int8(p, migraphx::ref::target{}, {good}, o), migraphx::exception);
    // nothing was rewritten by the failed calls
    EXPECT_EQ(count(p, "convolution"), 2u);
    EXPECT_THROW(migraphx::quantize_int8(p, migraphx::ref::target{}, {}, {"relu"}), migraphx::exception);
}


// value of the scalar literal behind a (multi)broadcast
float scalar_behind(migraphx::instruction_ref x)
{
    while(x->name() != "@literal")
        x = x->inputs().front();
    return x->get_literal().to_vector<float>().front();
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

TEST(quantize_int8, relu_outputs_are_uint8_with_twice_the_resolution)
{
    auto p = conv_net();
    std::vector<float> keep;
    auto cal = one_input("x", shape{shape::float_type, {1, 4, 6, 6}}, 7, keep);
    auto signed_p = p;
    migraphx::quantize_int8_options o;
    o.calibration_method = "max";
    o.min_cosine         = 0;
    migraphx::quantize_int8(p, migraphx::ref::target{}, {cal}, o);
    o.unsigned_activations = false;
    migraphx::quantize_int8(signed_p, migraphx::ref::target{}, {cal}, o);
    auto qs = find_all(p, "quantizelinear");
    ASSERT_EQ(qs.size(), 2u) << text(p);
    // the parameter is signed; the relu output is uint8 with scale max/255
    EXPECT_EQ(qs[0]->inputs()[0]->name(), "@param");
    EXPECT_EQ(qs[0]->get_shape().type(), shape::int8_type);
    EXPECT_EQ(qs[1]->inputs()[0]->name(), "relu");
    EXPECT_EQ(qs[1]->get_shape().type(), shape::uint8_type);
    auto ss = find_all(signed_p, "quantizelinear");
    ASSERT_EQ(ss.size(), 2u);
    EXPECT_EQ(ss[1]->get_shape().type(), shape::int8_type);
    EXPECT_NEAR(scalar_behind(qs[1]->inputs()[1]) * 255, scalar_behind(ss[1]->inputs()[1]) * 127, 1e-6)
        << "same range, 255 steps instead of 127";
}

TEST(quantize_int8, nonnegative_through_pooling_and_views)
{
    // clip(0, 6) -> maxpool -> conv : uint8; clip(-1, 6) -> conv : int8
    for(float lo : {0.0f, -1.0f})
    {
        migraphx::program p;
        auto* mm = p.get_main_module();
        auto x   = mm->add_parameter("x", shape{shape::float_type, {1, 2, 6, 6}});
        auto l   = mm->add_literal(lo);
        auto h   = mm->add_literal(6.0f);
        auto lb  = mm->add_instruction(make_op("multibroadcast", {{"out_lens", {1, 2, 6, 6}}}), l);
        auto hb  = mm->add_instruction(make_op("multibroadcast", {{"out_lens", {1, 2, 6, 6}}}), h);
        auto c   = mm->add_instruction(make_op("clip"), x, lb, hb);
        auto mp  = mm->add_instruction(
            make_op("pooling", {{"mode", "max"}, {"lengths", {2, 2}}, {"stride", {2, 2}}, {"padding", {0, 0}}}), c);
        auto w = mm->add_literal(migraphx::literal{shape{shape::float_type, {3, 2, 1, 1}}, values(6, -1.0f, 1.0f, 4)});
        mm->add_return({mm->add_instruction(make_op("convolution"), mp, w)});
        std::vector<float> k;
        auto cal = one_input("x", shape{shape::float_type, {1, 2, 6, 6}}, 3, k);
        migraphx::quantize_int8_options o;
        o.min_cosine = 0;
        migraphx::quantize_int8(p, migraphx::ref::target{}, {cal}, o);
        auto qs = find_all(p, "quantizelinear");
        ASSERT_EQ(qs.size(), 1u) << text(p);
        EXPECT_EQ(qs[0]->get_shape().type(), lo >= 0 ? shape::uint8_type : shape::int8_type) << text(p);
        // the quantize moved before the max pooling (same values, int8 pooling)
        EXPECT_EQ(qs[0]->inputs()[0]->name(), "clip") << text(p);
        auto pools = find_all(p, "pooling");
        ASSERT_EQ(pools.size(), 1u);
        EXPECT_EQ(pools[0]->get_shape().type(), qs[0]->get_shape().type());
    }
}

TEST(quantize_int8, quantize_before_max_pooling_keeps_the_values)
{
    // conv -> relu -> maxpool -> conv on ref: the program with the moved quantize gives the
    // same result as quantizing after the pooling would (pooling commutes with rounding).
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto x   = mm->add_parameter("x", shape{shape::float_type, {1, 3, 8, 8}});
    auto w1  = mm->add_literal(migraphx::literal{shape{shape::float_type, {4, 3, 3, 3}}, values(108, -0.5f, 0.5f, 8)});
    auto r   = mm->add_instruction(make_op("relu"), mm->add_instruction(make_op("convolution", {{"padding", {1, 1}}}), x, w1));
    auto mp  = mm->add_instruction(
        make_op("pooling", {{"mode", "max"}, {"lengths", {3, 3}}, {"stride", {2, 2}}, {"padding", {1, 1}}}), r);
    auto w2 = mm->add_literal(migraphx::literal{shape{shape::float_type, {2, 4, 1, 1}}, values(8, -1.0f, 1.0f, 9)});
    mm->add_return({mm->add_instruction(make_op("convolution"), mp, w2)});
    std::vector<float> k1, k2;
    auto cal = one_input("x", shape{shape::float_type, {1, 3, 8, 8}}, 3, k1);
    auto q   = p;
    migraphx::quantize_int8_options o;
    o.min_cosine = 0;
    migraphx::quantize_int8(q, migraphx::ref::target{}, {cal}, o);
    auto pools = find_all(q, "pooling");
    ASSERT_EQ(pools.size(), 1u);
    EXPECT_EQ(pools[0]->get_shape().type(), shape::uint8_type) << text(q);
    // reference: the same quantized program with the pooling moved back after the quantize
    auto back = q;
    auto* bm  = back.get_main_module();
    auto bp   = find_all(back, "pooling").front();
    auto ql   = bp->inputs().front();
    auto fpool = bm->insert_instruction(bp, bp->get_operator(), {ql->inputs()[0]});
    auto sb   = bm->insert_instruction(bp, make_op("multibroadcast", {{"out_lens", fpool->get_shape().lens()}}),
                                     ql->inputs()[1]->inputs()[0]);
    auto zb   = bm->insert_instruction(bp, make_op("multibroadcast", {{"out_lens", fpool->get_shape().lens()}}),
                                     ql->inputs()[2]->inputs()[0]);
    bm->replace_instruction(bp, make_op("quantizelinear"), {fpool, sb, zb});
    q.compile(migraphx::ref::target{});
    back.compile(migraphx::ref::target{});
    auto in = one_input("x", shape{shape::float_type, {1, 3, 8, 8}}, 4, k2);
    EXPECT_EQ(q.eval(in).back().to_vector<float>(), back.eval(in).back().to_vector<float>());
}

TEST(quantize_int8, bias_correction_removes_the_mean_shift)
{
    // a (all positive, mean 0.5) x b: rounding b shifts every output column by
    // sum_k mean(a_k) * dB[k, n]; the dequantize zero point takes it out.
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto a   = mm->add_parameter("a", shape{shape::float_type, {64, 256}});
    auto b   = mm->add_literal(migraphx::literal{shape{shape::float_type, {256, 8}}, values(2048, -1.0f, 1.0f, 21)});
    mm->add_return({mm->add_instruction(make_op("dot"), a, b)});
    std::vector<float> ka = values(64 * 256, 0.0f, 1.0f, 22);
    migraphx::parameter_map in{{"a", migraphx::argument{shape{shape::float_type, {64, 256}}, ka.data()}}};
    auto f = p;
    f.compile(migraphx::ref::target{});
    auto want = f.eval(in).back().to_vector<float>();
    auto mean_shift = [&](bool correct) {
        auto q = p;
        migraphx::quantize_int8_options o;
        o.bias_correction    = correct;
        o.min_cosine         = 0;
        o.calibration_method = "max";
        migraphx::quantize_int8(q, migraphx::ref::target{}, {in}, o);
        EXPECT_EQ(find_all(q, "dequantizelinear").front()->inputs().size(), correct ? 3u : 2u) << text(q);
        q.compile(migraphx::ref::target{});
        auto got = q.eval(in).back().to_vector<float>();
        double worst = 0;
        for(std::size_t n = 0; n < 8; n++)
        {
            double d = 0;
            for(std::size_t m = 0; m < 64; m++)
                d += got[m * 8 + n] - want[m * 8 + n];
            worst = std::max(worst, std::abs(d / 64));
        }
        return worst;
    };
    auto without = mean_shift(false);
    auto with    = mean_shift(true);
    EXPECT_GT(without, 1e-3);
    EXPECT_LT(with, without / 3) << with << " vs " << without;
}

TEST(quantize_int8, accuracy_check_keeps_the_first_ops_in_float)
{
    // An unreachable bar keeps the largest allowed share (the first ops in program order) in
    // float and warns; a low bar keeps none.
    auto build = [] {
        migraphx::program p;
        auto* mm = p.get_main_module();
        auto x   = mm->add_parameter("x", shape{shape::float_type, {1, 4, 6, 6}});
        for(unsigned i = 0; i < 4; i++)
        {
            auto w = mm->add_literal(
                migraphx::literal{shape{shape::float_type, {4, 4, 3, 3}}, values(144, -0.4f, 0.4f, 30 + i)});
            x = mm->add_instruction(make_op("relu"), mm->add_instruction(make_op("convolution", {{"padding", {1, 1}}}), x, w));
        }
        mm->add_return({x});
        return p;
    };
    std::vector<std::vector<float>> keep(3);
    std::vector<migraphx::parameter_map> cal;
    for(unsigned i = 0; i < 3; i++)
        cal.push_back(one_input("x", shape{shape::float_type, {1, 4, 6, 6}}, 40 + i, keep[i]));
    auto p = build();
    migraphx::quantize_int8_report report;
    migraphx::quantize_int8_options o;
    o.report     = &report;
    o.min_cosine = 1.5; // never met
    testing::internal::CaptureStderr();
    migraphx::quantize_int8(p, migraphx::ref::target{}, cal, o);
    auto err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("2 of 4 operations kept in float"), std::string::npos) << err;
    EXPECT_EQ(report.kept_float, 2u);
    EXPECT_EQ(report.quantized, 2u);
    EXPECT_EQ(report.checks, 2u) << "all quantized, then the most allowed in float";
    auto convs = find_all(p, "convolution");
    auto quants = find_all(p, "quant_convolution");
    ASSERT_EQ(convs.size(), 2u);
    ASSERT_EQ(quants.size(), 2u);
    const auto& m = *p.get_main_module();
    EXPECT_LT(std::distance(m.begin(), convs.back()), std::distance(m.begin(), quants.front()))
        << "the float ones come first\n" << text(p);

    auto q = build();
    o.min_cosine = 0.5;
    migraphx::quantize_int8(q, migraphx::ref::target{}, cal, o);
    EXPECT_EQ(report.kept_float, 0u);
    EXPECT_EQ(report.checks, 1u);
    EXPECT_EQ(count(q, "quant_convolution"), 4u);

    // with the check off nothing is compiled for it
    auto r = build();
    o.min_cosine = 0;
    migraphx::quantize_int8(r, migraphx::ref::target{}, cal, o);
    EXPECT_EQ(report.checks, 0u);
    EXPECT_EQ(report.check_cosine, -1);
}

TEST(quantize_int8, accuracy_check_bisects_to_the_fewest_float_ops)
{
    // A bar between the all-int8 cosine and the all-float one: the result keeps k ops in
    // float where k - 1 would miss the bar, and the program meets it on the check maps.
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto x   = mm->add_parameter("x", shape{shape::float_type, {1, 8, 6, 6}});
    for(unsigned i = 0; i < 8; i++)
    {
        auto w = mm->add_literal(
            migraphx::literal{shape{shape::float_type, {8, 8, 3, 3}}, values(576, -0.25f, 0.25f, 50 + i)});
        x = mm->add_instruction(make_op("relu"), mm->add_instruction(make_op("convolution", {{"padding", {1, 1}}}), x, w));
    }
    mm->add_return({x});
    std::vector<std::vector<float>> keep(2);
    std::vector<migraphx::parameter_map> cal;
    for(unsigned i = 0; i < 2; i++)
        cal.push_back(one_input("x", shape{shape::float_type, {1, 8, 6, 6}}, 60 + i, keep[i]));
    auto f = p;
    f.compile(migraphx::ref::target{});
    auto cos_of = [&](const migraphx::program& q) {
        double worst = 1;
        for(const auto& c : cal)
            worst = std::min(worst, cosine(f.eval(c).back().to_vector<float>(), q.eval(c).back().to_vector<float>()));
        return worst;
    };
    migraphx::quantize_int8_report report;
    migraphx::quantize_int8_options o;
    o.report             = &report;
    o.min_cosine         = 0;
    o.max_float_fraction = 1;
    auto all = p;
    migraphx::quantize_int8(all, migraphx::ref::target{}, cal, o);
    all.compile(migraphx::ref::target{});
    double c0 = cos_of(all);
    ASSERT_LT(c0, 0.99999) << "the test needs some int8 error";
    o.min_cosine = 1 - (1 - c0) / 4; // needs some ops in float
    auto q       = p;
    migraphx::quantize_int8(q, migraphx::ref::target{}, cal, o);
    EXPECT_GT(report.kept_float, 0u);
    EXPECT_LT(report.kept_float, 8u);
    EXPECT_GE(report.check_cosine, o.min_cosine);
    q.compile(migraphx::ref::target{});
    EXPECT_NEAR(cos_of(q), report.check_cosine, 1e-9) << "the check measured the program it returned";
    // one float op fewer misses the bar: capped at k - 1, the check warns and falls short
    std::size_t k        = report.kept_float;
    auto fewer           = p;
    o.max_float_fraction = static_cast<double>(k - 1) / 8 + 1e-9;
    testing::internal::CaptureStderr();
    migraphx::quantize_int8(fewer, migraphx::ref::target{}, cal, o);
    auto err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(report.kept_float, k - 1);
    if(k > 1)
    {
        EXPECT_LT(report.check_cosine, o.min_cosine);
        EXPECT_NE(err.find("warning"), std::string::npos) << err;
    }
}

} // namespace
