// quantize_int8 programs on the cpu target: the oneDNN int8 lowering agrees with the reference.
#include <migraphx/quantization.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/ref/target.hpp>
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
    migraphx::quantize_int8(p, migraphx::ref::target{}, {params});
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
#endif
} // namespace
