// gpu::fuse_int8: quantize_int8's convolution chains become int8_convolution ops (requantized to
// int8 where the next op is an int8 convolution, float/half where a residual or another op reads
// them); every quantize op left becomes float arithmetic. Before/after on ref, what lowering
// makes of it without a device, and on the device against ref.
#include "gpu_test_util.hpp"
#ifdef MIGRAPHX_HAVE_GPU
#include "scoped_env.hpp"
#include "targets/gpu/fuse_int8.hpp"
#include <migraphx/instruction.hpp>
#include <migraphx/literal.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/quantization.hpp>
#include <migraphx/ref/target.hpp>
#include <gtest/gtest.h>
#include <cmath>
#include <random>

using migraphx::make_op;
using migraphx::shape;
using migx_test::random_values;

namespace {

/// a = relu(conv3x3(x) + b1) (only conv2 reads it), r = relu(conv1x1(a) + b2 + x) (a residual),
/// y = conv1x1(r) + b3 (no activation): C channels in and through, 16 out.
migraphx::program block(std::size_t c = 32)
{
    migraphx::program p;
    auto* m = p.get_main_module();
    shape xs{shape::float_type, {2, c, 8, 8}};
    auto x    = m->add_parameter("x", xs);
    auto conv = [&](migraphx::instruction_ref in, std::size_t k, std::size_t r, unsigned seed) {
        std::size_t cin = in->get_shape().lens()[1];
        auto w = m->add_literal(migraphx::literal{shape{shape::float_type, {k, cin, r, r}},
                                                  random_values(k * cin * r * r, seed, 1.0f / static_cast<float>(r * std::sqrt(cin)))});
        auto y = m->add_instruction(make_op("convolution", {{"padding", {r / 2, r / 2}}}), in, w);
        auto b = m->add_literal(migraphx::literal{shape{shape::float_type, {k}}, random_values(k, seed + 100, 0.1f)});
        return m->add_instruction(make_op("add"), y,
                                  m->add_instruction(make_op("broadcast", {{"axis", 1}, {"out_lens", y->get_shape().lens()}}), b));
    };
    auto a = m->add_instruction(make_op("relu"), conv(x, c, 3, 1));
    auto r = m->add_instruction(make_op("relu"), m->add_instruction(make_op("add"), conv(a, c, 1, 2), x));
    m->add_return({conv(r, 16, 1, 3)});
    return p;
}

std::vector<migraphx::parameter_map> calibration(const migraphx::program& p, std::size_t n)
{
    std::vector<migraphx::parameter_map> maps;
    for(std::size_t i = 0; i < n; i++)
    {
        migraphx::parameter_map m;
        for(const auto& [name, s] : p.get_parameter_shapes())
        {
            auto v = random_values(s.elements(), 50 + static_cast<unsigned>(i), 1.0f);
            m[name] = migraphx::literal{shape{shape::float_type, s.lens()}, v}.get_argument();
        }
        maps.push_back(m);
    }
    return maps;
}

/// p quantized as for the gpu (int8 activations), without the accuracy check.
migraphx::program quantized(migraphx::program p, bool half = false, bool int8_residuals = false)
{
    auto cal = calibration(p, 4);
    if(half)
        migraphx::quantize_fp16(p);
    migraphx::quantize_int8_options o;
    o.unsigned_activations = false;
    o.min_cosine           = 0;
    o.int8_residuals       = int8_residuals;
    migraphx::quantize_int8(p, migraphx::ref::target{}, cal, o);
    return p;
}

std::vector<migraphx::instruction_ref> named(const migraphx::program& p, const std::string& n)
{
    std::vector<migraphx::instruction_ref> r;
    auto* m = p.get_main_module();
    for(auto it = m->begin(); it != m->end(); ++it)
        if(it->name() == n)
            r.push_back(it);
    return r;
}

std::size_t quantize_ops(const migraphx::program& p)
{
    return named(p, "quantizelinear").size() + named(p, "dequantizelinear").size() +
           named(p, "quant_convolution").size() + named(p, "quant_dot").size();
}

migraphx::value attrs(migraphx::instruction_ref i) { return i->get_operator().to_value(); }

/// Runs p on ref with the calibration-like input of seed 99.
migraphx::argument run_ref(migraphx::program p)
{
    p.compile(migraphx::ref::target{});
    return p.eval(calibration(p, 1).front()).front();
}

/// The largest |a - b| over max |b|.
double relative_difference(const migraphx::argument& a, const migraphx::argument& b)
{
    auto x = a.to_vector<double>(), y = b.to_vector<double>();
    double d = 0, s = 0;
    for(std::size_t i = 0; i < x.size(); i++)
    {
        d = std::max(d, std::fabs(x[i] - y[i]));
        s = std::max(s, std::fabs(y[i]));
    }
    return d / s;
}

} // namespace

TEST(gpu_fuse_int8, resnet_block_chains_fuse)
{
    auto before = quantized(block());
    ASSERT_EQ(named(before, "quant_convolution").size(), 3u);
    auto after = before;
    migraphx::gpu::fuse_int8{}.apply(*after.get_main_module());
    auto convs = named(after, "int8_convolution");
    ASSERT_EQ(convs.size(), 3u);
    EXPECT_EQ(quantize_ops(after), 0u) << after;
    // conv1 only feeds conv2: requantized, relu, int8 out
    EXPECT_EQ(attrs(convs[0]).at("out_type").to<shape::type_t>(), shape::int8_type);
    EXPECT_TRUE(attrs(convs[0]).at("relu").to<bool>());
    // conv2: the residual x and relu folded, float out (conv3 and nothing else reads it, but a
    // residual result is not requantized)
    EXPECT_TRUE(attrs(convs[1]).at("residual").to<bool>());
    EXPECT_TRUE(attrs(convs[1]).at("relu").to<bool>());
    EXPECT_EQ(attrs(convs[1]).at("out_type").to<shape::type_t>(), shape::float_type);
    // conv3: bias, no activation, the program's output
    EXPECT_TRUE(attrs(convs[2]).at("bias").to<bool>());
    EXPECT_FALSE(attrs(convs[2]).at("relu").to<bool>());
    EXPECT_LT(relative_difference(run_ref(after), run_ref(before)), 1e-2);
}

TEST(gpu_fuse_int8, half_program_fuses_with_half_results)
{
    auto before = quantized(block(), true);
    auto after  = before;
    migraphx::gpu::fuse_int8{}.apply(*after.get_main_module());
    auto convs = named(after, "int8_convolution");
    ASSERT_EQ(convs.size(), 3u) << after;
    EXPECT_EQ(attrs(convs[0]).at("out_type").to<shape::type_t>(), shape::int8_type);
    EXPECT_EQ(attrs(convs[1]).at("out_type").to<shape::type_t>(), shape::half_type);
    EXPECT_EQ(quantize_ops(after), 0u);
    EXPECT_LT(relative_difference(run_ref(after), run_ref(before)), 2e-2);
}

TEST(gpu_fuse_int8, int8_residuals_fold_as_scaled_int8_inputs)
{
    auto before = quantized(block(), true, true);
    auto after  = before;
    migraphx::gpu::fuse_int8{}.apply(*after.get_main_module());
    auto convs = named(after, "int8_convolution");
    ASSERT_EQ(convs.size(), 3u) << after;
    EXPECT_EQ(quantize_ops(after), 0u) << after;
    // conv2's residual is x's int8 quantization times its scale, and with it conv2's result is
    // requantized for conv3: the block passes int8 only
    auto z = convs[1]->inputs().back();
    EXPECT_EQ(z->get_shape().type(), shape::int8_type);
    EXPECT_TRUE(attrs(convs[1]).at("residual").to<bool>());
    EXPECT_NE(attrs(convs[1]).at("z_scale").to<float>(), 1.0f);
    EXPECT_EQ(attrs(convs[1]).at("out_type").to<shape::type_t>(), shape::int8_type);
    EXPECT_EQ(convs[2]->inputs().front(), convs[1]);
    EXPECT_LT(relative_difference(run_ref(after), run_ref(before)), 2e-2);
}

TEST(gpu_fuse_int8, without_fusion_the_float_arithmetic_is_exact)
{
    migx_test::scoped_env off("MIGRAPHX_DISABLE_INT8_FUSION", "1");
    auto before = quantized(block());
    auto after  = before;
    migraphx::gpu::fuse_int8{}.apply(*after.get_main_module());
    EXPECT_TRUE(named(after, "int8_convolution").empty());
    EXPECT_EQ(quantize_ops(after), 0u);
    EXPECT_EQ(named(after, "convolution").size(), 3u);
    auto a = run_ref(after), b = run_ref(before);
    EXPECT_EQ(a.to_vector<float>(), b.to_vector<float>());
}

TEST(gpu_fuse_int8, dots_and_unfit_convolutions_become_float_arithmetic)
{
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{shape::float_type, {2, 3, 8, 8}});
    auto w  = m->add_literal(migraphx::literal{shape{shape::float_type, {8, 3, 3, 3}}, random_values(216, 4, 0.3f)});
    auto c  = m->add_instruction(make_op("convolution"), x, w); // 3 channels: no int8 kernel
    auto f  = m->add_instruction(make_op("reshape", {{"dims", {2, 288}}}), c);
    auto d  = m->add_literal(migraphx::literal{shape{shape::float_type, {288, 5}}, random_values(1440, 5, 0.1f)});
    m->add_return({m->add_instruction(make_op("dot"), f, d)});
    auto before = quantized(p);
    ASSERT_EQ(named(before, "quant_dot").size(), 1u);
    auto after = before;
    migraphx::gpu::fuse_int8{}.apply(*after.get_main_module());
    EXPECT_TRUE(named(after, "int8_convolution").empty());
    EXPECT_EQ(quantize_ops(after), 0u);
    EXPECT_EQ(run_ref(after).to_vector<float>(), run_ref(before).to_vector<float>());
}

/// Constant weights {k, n} (random, seeded) broadcast over `batch`: a linear layer's b.
migraphx::instruction_ref batched_weights(migraphx::module& m, std::size_t batch, std::size_t k, std::size_t n,
                                          unsigned seed)
{
    auto w = m.add_literal(migraphx::literal{shape{shape::float_type, {k, n}}, random_values(k * n, seed, 0.2f)});
    return m.add_instruction(make_op("multibroadcast", {{"out_lens", {batch, k, n}}}), w);
}

TEST(gpu_fuse_int8, signed_dots_that_fit_stay_int8_for_cublaslt)
{
    // a BERT-like linear layer [2, 6, 32] x [32, 8]: K and N multiples of 4
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{shape::float_type, {2, 6, 32}});
    auto wb = batched_weights(*m, 2, 32, 8, 6);
    m->add_return({m->add_instruction(make_op("dot"), x, wb)});
    auto before = quantized(p);
    ASSERT_EQ(named(before, "quant_dot").size(), 1u);
    auto after = before;
    migraphx::gpu::fuse_int8{}.apply(*after.get_main_module());
    EXPECT_EQ(named(after, "quant_dot").size(), 1u);
    EXPECT_EQ(quantize_ops(after), 1u); // the quantize and dequantize ops became float arithmetic
    EXPECT_EQ(run_ref(after).to_vector<float>(), run_ref(before).to_vector<float>());
    // MIGRAPHX_DISABLE_INT8_FUSION=1: no int8 kernels, the product in float too
    migx_test::scoped_env off("MIGRAPHX_DISABLE_INT8_FUSION", "1");
    auto plain = before;
    migraphx::gpu::fuse_int8{}.apply(*plain.get_main_module());
    EXPECT_EQ(quantize_ops(plain), 0u);
    EXPECT_EQ(run_ref(plain).to_vector<float>(), run_ref(before).to_vector<float>());
}

TEST(gpu_fuse_int8, gpu_quantizes_products_by_weights_not_attention)
{
    // x Wq, x Wk (constant weights) and softmax-less attention (q k^T) q: quantize_int8 for the
    // gpu (no calibration: no run, no device) quantizes the two weight products only
    migraphx::program p;
    auto* m  = p.get_main_module();
    auto x   = m->add_parameter("x", shape{shape::float_type, {2, 8, 32}});
    auto q  = m->add_instruction(make_op("dot"), x, batched_weights(*m, 2, 32, 32, 1));
    auto k  = m->add_instruction(make_op("dot"), x, batched_weights(*m, 2, 32, 32, 2));
    auto kt = m->add_instruction(make_op("transpose", {{"permutation", {0, 2, 1}}}), k);
    auto s  = m->add_instruction(make_op("dot"), q, kt);
    m->add_return({m->add_instruction(make_op("dot"), s, q)});
    auto before = p;
    struct named_gpu : migraphx::ref::target // quantize_int8's gpu rules go by the target's name
    {
        std::string name() const { return "gpu"; }
    };
    migraphx::quantize_int8(p, named_gpu{}, {});
    EXPECT_EQ(named(before, "dot").size(), 4u);
    EXPECT_EQ(named(p, "quant_dot").size(), 2u);
    EXPECT_EQ(named(p, "dot").size(), 2u);
}

TEST(gpu_fuse_int8, int8_dots_match_ref_on_the_device)
{
    MIGX_REQUIRE_GPU();
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{shape::float_type, {2, 6, 32}});
    auto wb = batched_weights(*m, 2, 32, 8, 6);
    auto b  = m->add_literal(migraphx::literal{shape{shape::float_type, {8}}, random_values(8, 7, 0.1f)});
    auto d  = m->add_instruction(make_op("dot"), x, wb);
    auto y  = m->add_instruction(make_op("add"), d, m->add_instruction(make_op("multibroadcast", {{"out_lens", {2, 6, 8}}}), b));
    m->add_return({m->add_instruction(make_op("relu"), y)});
    for(bool half : {false, true})
    {
        auto q = quantized(p, half);
        double tol = half ? 1e-2 : 1e-4; // half: one rounding of the fused epilogue vs ref's several
        auto t     = migx_test::text(migx_test::expect_gpu_matches_ref(q, tol, tol));
        EXPECT_NE(t.find("gpu::gemm"), std::string::npos) << t;
    }
}

TEST(gpu_fuse_int8, lowering_runs_everything_on_the_device)
{
    auto text = migx_test::lowered_for_gpu(quantized(block(), true));
    EXPECT_EQ(migx_test::occurrences(text, "gpu::int8_convolution"), 3u) << text;
    EXPECT_EQ(migx_test::occurrences(text, "gpu::ref::"), 0u) << text;
}

TEST(gpu_fuse_int8, int8_convolutions_match_ref_on_the_device)
{
    MIGX_REQUIRE_GPU();
    for(int variant = 0; variant < 3; variant++) // float, half, half with int8 residuals
    {
        auto p = quantized(block(), variant > 0, variant == 2);
        // ref runs the unfused quantize ops; a requantized value may round the other way where
        // cuDNN's float epilogue differs from ref's in the last bit (half: in half's)
        migx_test::expect_gpu_matches_ref(p, 0.05, 0.05);
    }
}

#endif
