#include <migraphx/quantization.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/ref/target.hpp>
#include <gtest/gtest.h>
#include <cmath>
#include <sstream>

namespace {

using migraphx::make_op;
using migraphx::shape;

std::string text(const migraphx::program& p)
{
    std::ostringstream ss;
    ss << p;
    return ss.str();
}

std::size_t count(const migraphx::program& p, const std::string& name)
{
    std::size_t n = 0;
    const auto& m = *p.get_main_module();
    for(auto ins = m.begin(); ins != m.end(); ++ins)
        n += ins->name() == name ? 1 : 0;
    return n;
}

std::vector<float> values(std::size_t n, float lo, float hi, unsigned seed)
{
    std::vector<float> v(n);
    unsigned s = seed;
    for(auto& x : v)
    {
        s = s * 1664525u + 1013904223u;
        x = lo + (hi - lo) * static_cast<float>(s >> 8) / static_cast<float>(1u << 24);
    }
    return v;
}

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

double cosine(const std::vector<float>& a, const std::vector<float>& b)
{
    double ab = 0, aa = 0, bb = 0;
    for(std::size_t i = 0; i < a.size(); i++)
    {
        ab += double(a[i]) * b[i];
        aa += double(a[i]) * a[i];
        bb += double(b[i]) * b[i];
    }
    return ab / std::sqrt(aa * bb);
}

TEST(quantize_int8, rewrites_convolutions)
{
    auto p = conv_net();
    std::vector<float> keep;
    auto cal = one_input("x", shape{shape::float_type, {1, 4, 6, 6}}, 7, keep);
    migraphx::quantize_int8(p, migraphx::ref::target{}, {cal});
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
    std::vector<std::vector<float>> keep(4);
    std::vector<migraphx::parameter_map> cal;
    for(unsigned i = 0; i < 3; i++)
        cal.push_back(one_input("x", shape{shape::float_type, {1, 4, 6, 6}}, 10 + i, keep[i]));
    migraphx::quantize_int8(q, migraphx::ref::target{}, cal);
    p.compile(migraphx::ref::target{});
    q.compile(migraphx::ref::target{});
    auto in = one_input("x", shape{shape::float_type, {1, 4, 6, 6}}, 99, keep[3]);
    auto a  = p.eval(in).back().to_vector<float>();
    auto b  = q.eval(in).back().to_vector<float>();
    EXPECT_GT(cosine(a, b), 0.999);
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
    migraphx::quantize_int8(p, migraphx::ref::target{}, {cal});
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
    // wrong shape
    auto bad = one_input("x", shape{shape::float_type, {1, 4, 5, 6}}, 1, k);
    try
    {
        migraphx::quantize_int8(p, migraphx::ref::target{}, {bad});
        ADD_FAILURE() << "no exception";
    }
    catch(const migraphx::exception& e)
    {
        EXPECT_NE(std::string(e.what()).find("'x'"), std::string::npos) << e.what();
    }
    // wrong type
    std::vector<double> d(144);
    migraphx::parameter_map dbl{{"x", migraphx::argument{shape{shape::double_type, {1, 4, 6, 6}}, d.data()}}};
    EXPECT_THROW(migraphx::quantize_int8(p, migraphx::ref::target{}, {dbl}), migraphx::exception);
    // an unknown name
    auto extra = one_input("x", shape{shape::float_type, {1, 4, 6, 6}}, 1, k);
    extra["y"] = extra["x"];
    EXPECT_THROW(migraphx::quantize_int8(p, migraphx::ref::target{}, {extra}), migraphx::exception);
    // nothing was rewritten by the failed calls
    EXPECT_EQ(count(p, "convolution"), 2u);
    EXPECT_THROW(migraphx::quantize_int8(p, migraphx::ref::target{}, {}, {"relu"}), migraphx::exception);
}

} // namespace
