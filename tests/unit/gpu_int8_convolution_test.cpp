// gpu::int8_convolution (int8_convolution.cpp): its inputs are checked before anything runs;
// on the device, the op gpu::fuse_int8 makes runs as cuDNN int8 graphs (the programs of
// gpu_fuse_int8_test.cpp are compared with ref there) and a saved program keeps its engine.
#include "gpu_test_util.hpp"
#ifdef MIGRAPHX_HAVE_GPU
#include "targets/gpu/gpu_ops.hpp"
#include <migraphx/errors.hpp>
#include <migraphx/load_save.hpp>
#include <migraphx/literal.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/quantization.hpp>
#include <migraphx/ref/target.hpp>
#include <gtest/gtest.h>
#include <random>

using migraphx::shape;

namespace {

shape nhwc(shape::type_t t, std::size_t n, std::size_t c, std::size_t h, std::size_t w)
{
    return shape{t, {n, c, h, w}, {h * w * c, 1, w * c, c}};
}

/// x {2, 16, 6, 6} -> conv 3x3 (32 filters) + bias -> relu, quantized for the gpu (int8
/// activations, no accuracy check).
migraphx::program quantized_conv()
{
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{shape::float_type, {2, 16, 6, 6}});
    std::mt19937 gen(3);
    std::normal_distribution<float> d(0.0f, 0.1f);
    std::vector<float> wv(32 * 16 * 9), bv(32);
    for(auto& v : wv)
        v = d(gen);
    for(auto& v : bv)
        v = d(gen);
    auto w = m->add_literal(migraphx::literal{shape{shape::float_type, {32, 16, 3, 3}}, wv});
    auto c = m->add_instruction(migraphx::make_op("convolution", {{"padding", {1, 1}}}), x, w);
    auto b = m->add_instruction(migraphx::make_op("broadcast", {{"axis", 1}, {"out_lens", c->get_shape().lens()}}),
                                m->add_literal(migraphx::literal{shape{shape::float_type, {32}}, bv}));
    m->add_return({m->add_instruction(migraphx::make_op("relu"), m->add_instruction(migraphx::make_op("add"), c, b))});
    std::vector<migraphx::parameter_map> cal{migx_test::fresh_params(p), migx_test::fresh_params(p)};
    migraphx::quantize_int8_options o;
    o.unsigned_activations = false;
    o.min_cosine           = 0;
    migraphx::quantize_int8(p, migraphx::ref::target{}, cal, o);
    return p;
}

} // namespace

TEST(gpu_int8_convolution, inputs_are_counted)
{
    migraphx::gpu::int8_convolution op;
    op.padding  = {1, 1, 1, 1};
    op.stride   = {1, 1};
    op.dilation = {1, 1};
    op.scales   = {1.0f};
    op.bias     = true;
    auto x = nhwc(shape::int8_type, 1, 16, 4, 4), w = nhwc(shape::int8_type, 16, 16, 3, 3);
    auto y = nhwc(shape::int8_type, 1, 16, 4, 4);
    shape b{shape::float_type, {16}};
    EXPECT_EQ(op.compute_shape({x, w, b, y}), y); // the output buffer's shape
    EXPECT_THROW(op.compute_shape({x, w, y}), migraphx::exception); // the bias is missing
    op.residual = true;
    EXPECT_THROW(op.compute_shape({x, w, b, y}), migraphx::exception); // and now z
}

TEST(gpu_int8_convolution, saved_programs_keep_their_engine)
{
    MIGX_REQUIRE_GPU();
    auto p = quantized_conv();
    auto g = migx_test::expect_gpu_matches_ref(p, 0.05, 0.05);
    auto text = migx_test::text(g);
    ASSERT_EQ(migx_test::occurrences(text, "gpu::int8_convolution"), 1u) << text;
    auto at = text.find("engine=", text.find("gpu::int8_convolution"));
    ASSERT_NE(at, std::string::npos);
    EXPECT_NE(text.substr(at, 8), "engine=,") << "finalize names the engine it chose";
    auto loaded = migraphx::load_buffer(migraphx::save_buffer(g));
    auto params = migx_test::fresh_params(p);
    auto a      = g.eval(params).front().to_vector<float>();
    auto b      = loaded.eval(params).front().to_vector<float>();
    EXPECT_EQ(a, b) << "the loaded program runs the same engine: the same bits";
}

#endif
