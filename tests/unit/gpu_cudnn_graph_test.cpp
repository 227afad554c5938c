// The cuDNN backend graph path of gpu::convolution / gpu::conv_bias_relu (cudnn_graph.hpp):
// the graph's description and the engine names need no device; the device tests run programs
// whose convolutions take the graph path (MIGRAPHX_CUDNN_GRAPH_FORCE=1) against ref, save and
// load them, and turn the path off (MIGRAPHX_DISABLE_CUDNN_GRAPH=1).
#include <gtest/gtest.h>
#ifdef MIGRAPHX_HAVE_GPU
#include "gpu_test_util.hpp"
#include "scoped_env.hpp"
#include "serialize_test_util.hpp"
#include "targets/gpu/cudnn_graph_spec.hpp"
#include <migraphx/half.hpp>
#include <migraphx/instruction.hpp>
#include <migraphx/literal.hpp>
#include <migraphx/load_save.hpp>
#include <migraphx/make_op.hpp>
#include <cstdlib>
#include <cmath>
#include <limits>
#include <random>
#include <sstream>

using migraphx::make_op;
using migraphx::shape;
namespace dnn = migraphx::gpu::dnn;

namespace {

std::vector<std::int64_t> i64(std::initializer_list<std::int64_t> v) { return v; }

/// NHWC half shapes as layout_nhwc gives them: lens N, C, H, W, strides of N, H, W, C.
shape nhwc(std::size_t n, std::size_t c, std::size_t h, std::size_t w)
{
    return shape{shape::half_type, {n, c, h, w}, {h * w * c, 1, w * c, c}};
}

} // namespace

TEST(gpu_cudnn_graph, conv_bias_residual_relu_spec)
{
    auto x = nhwc(2, 8, 10, 10), w = nhwc(16, 8, 3, 3), y = nhwc(2, 16, 5, 5);
    auto s = dnn::make_conv_spec(x, w, y, {1, 1, 1, 1}, {2, 2}, {1, 1}, true, true, true);
    EXPECT_EQ(s.x.dims, i64({2, 8, 10, 10}));
    EXPECT_EQ(s.x.strides, i64({800, 1, 80, 8}));
    EXPECT_EQ(s.w.strides, i64({72, 1, 24, 8})); // KRSC
    EXPECT_EQ(s.y.uid, dnn::uid_y);
    EXPECT_EQ(s.y.type, shape::half_type);
    EXPECT_FALSE(s.y.is_virtual);
    EXPECT_EQ(s.pre_pad, i64({1, 1}));
    EXPECT_EQ(s.post_pad, i64({1, 1}));
    EXPECT_EQ(s.stride, i64({2, 2}));
    EXPECT_EQ(s.dilation, i64({1, 1}));
    // bias: K contiguous values, broadcast over the rest
    EXPECT_EQ(s.bias.uid, dnn::uid_bias);
    EXPECT_EQ(s.bias.dims, i64({1, 16, 1, 1}));
    EXPECT_EQ(s.bias.strides, i64({16, 1, 16, 16}));
    // z: y's shape and layout
    EXPECT_EQ(s.z.uid, dnn::uid_z);
    EXPECT_EQ(s.z.dims, s.y.dims);
    EXPECT_EQ(s.z.strides, s.y.strides);
    // conv -> v100 (float) -> +bias -> v101 -> +z -> v102 -> relu -> y
    ASSERT_EQ(s.virtuals.size(), 3u);
    for(const auto& v : s.virtuals)
    {
        EXPECT_TRUE(v.is_virtual);
        EXPECT_EQ(v.type, shape::float_type);
        EXPECT_EQ(v.dims, s.y.dims);
    }
    EXPECT_EQ(s.conv_out, s.virtuals[0]);
    ASSERT_EQ(s.nodes.size(), 3u);
    EXPECT_EQ(s.nodes[0].mode, dnn::pointwise::add);
    EXPECT_EQ(s.nodes[0].a, s.conv_out.uid);
    EXPECT_EQ(s.nodes[0].b, dnn::uid_bias);
    EXPECT_EQ(s.nodes[0].out, s.virtuals[1].uid);
    EXPECT_EQ(s.nodes[1].mode, dnn::pointwise::add);
    EXPECT_EQ(s.nodes[1].a, s.virtuals[1].uid);
    EXPECT_EQ(s.nodes[1].b, dnn::uid_z);
    EXPECT_EQ(s.nodes[1].out, s.virtuals[2].uid);
    EXPECT_EQ(s.nodes[2].mode, dnn::pointwise::relu);
    EXPECT_EQ(s.nodes[2].a, s.virtuals[2].uid);
    EXPECT_LT(s.nodes[2].b, 0);
    EXPECT_EQ(s.nodes[2].out, dnn::uid_y);
    EXPECT_EQ(s.uids(), i64({dnn::uid_x, dnn::uid_w, dnn::uid_y, dnn::uid_bias, dnn::uid_z}));
}

TEST(gpu_cudnn_graph, plain_and_partial_epilogues)
{
    auto x = nhwc(1, 8, 6, 6), w = nhwc(4, 8, 1, 1), y = nhwc(1, 4, 6, 6);
    auto plain = dnn::make_conv_spec(x, w, y, {0, 0, 0, 0}, {1, 1}, {1, 1}, false, false, false);
    EXPECT_TRUE(plain.nodes.empty());
    EXPECT_TRUE(plain.virtuals.empty());
    EXPECT_EQ(plain.conv_out, plain.y); // the convolution writes y itself
    EXPECT_EQ(plain.uids(), i64({dnn::uid_x, dnn::uid_w, dnn::uid_y}));

    auto bias_relu = dnn::make_conv_spec(x, w, y, {0, 0, 0, 0}, {1, 1}, {1, 1}, true, false, true);
    ASSERT_EQ(bias_relu.nodes.size(), 2u);
    EXPECT_EQ(bias_relu.nodes[0].b, dnn::uid_bias);
    EXPECT_EQ(bias_relu.nodes[1].mode, dnn::pointwise::relu);
    EXPECT_EQ(bias_relu.nodes[1].out, dnn::uid_y);
    EXPECT_EQ(bias_relu.uids(), i64({dnn::uid_x, dnn::uid_w, dnn::uid_y, dnn::uid_bias}));

    auto bias_only = dnn::make_conv_spec(x, w, y, {0, 0, 0, 0}, {1, 1}, {1, 1}, true, false, false);
    ASSERT_EQ(bias_only.nodes.size(), 1u);
    EXPECT_EQ(bias_only.nodes[0].out, dnn::uid_y);
    EXPECT_EQ(bias_only.virtuals.size(), 1u);
}

TEST(gpu_cudnn_graph, int8_graph_scales_the_int32_sums)
{
    auto as = [](shape s, shape::type_t t) { return shape{t, s.lens(), s.strides()}; };
    auto x = as(nhwc(2, 16, 6, 6), shape::int8_type), w = as(nhwc(32, 16, 3, 3), shape::int8_type);
    auto y = as(nhwc(2, 32, 6, 6), shape::int8_type);
    auto s = dnn::make_int8_conv_spec(x, w, y, {1, 1, 1, 1}, {1, 1}, {1, 1}, true, false, true);
    EXPECT_EQ(s.x.type, shape::int8_type);
    EXPECT_EQ(s.conv_out.type, shape::int32_type);
    EXPECT_TRUE(s.conv_out.is_virtual);
    ASSERT_EQ(s.nodes.size(), 3u); // * scale, + bias, relu
    EXPECT_EQ(s.nodes[0].mode, dnn::pointwise::mul);
    EXPECT_EQ(s.nodes[0].a, s.conv_out.uid);
    EXPECT_EQ(s.nodes[0].b, dnn::uid_scale);
    EXPECT_EQ(s.nodes[1].b, dnn::uid_bias);
    EXPECT_EQ(s.nodes[2].mode, dnn::pointwise::relu);
    EXPECT_EQ(s.nodes[2].out, dnn::uid_y);
    EXPECT_EQ(s.scale.dims, i64({1, 32, 1, 1}));
    EXPECT_EQ(s.scale.type, shape::float_type);
    EXPECT_EQ(s.uids(), i64({dnn::uid_x, dnn::uid_w, dnn::uid_y, dnn::uid_bias, dnn::uid_scale}));
    // a residual of the result's type (half) and the plain scaled sum
    auto yh  = as(y, shape::half_type);
    auto res = dnn::make_int8_conv_spec(x, w, yh, {1, 1, 1, 1}, {1, 1}, {1, 1}, false, true, false);
    ASSERT_EQ(res.nodes.size(), 2u);
    EXPECT_EQ(res.z.type, shape::half_type);
    EXPECT_EQ(res.uids(), i64({dnn::uid_x, dnn::uid_w, dnn::uid_y, dnn::uid_z, dnn::uid_scale}));
    // an int8 residual times its scale: its own multiply, then the add
    auto zs = dnn::make_int8_conv_spec(x, w, y, {1, 1, 1, 1}, {1, 1}, {1, 1}, false, true, true, &y, true);
    ASSERT_EQ(zs.nodes.size(), 4u); // * scale, z * zscale, + z', relu
    EXPECT_EQ(zs.z.type, shape::int8_type);
    EXPECT_EQ(zs.nodes[1].mode, dnn::pointwise::mul);
    EXPECT_EQ(zs.nodes[1].a, dnn::uid_z);
    EXPECT_EQ(zs.nodes[1].b, dnn::uid_zscale);
    EXPECT_EQ(zs.nodes[2].b, zs.nodes[1].out);
    EXPECT_EQ(zs.uids(), i64({dnn::uid_x, dnn::uid_w, dnn::uid_y, dnn::uid_z, dnn::uid_scale, dnn::uid_zscale}));
    auto plain = dnn::make_int8_conv_spec(x, w, y, {1, 1, 1, 1}, {1, 1}, {1, 1}, false, false, false);
    ASSERT_EQ(plain.nodes.size(), 1u);
    EXPECT_EQ(plain.nodes[0].out, dnn::uid_y);
    EXPECT_THROW(dnn::make_int8_conv_spec(as(x, shape::half_type), w, y, {1, 1, 1, 1}, {1, 1}, {1, 1}, false, false, false),
                 std::invalid_argument);
}

TEST(gpu_cudnn_graph, one_d_padded_to_two_d_and_three_d_kept)
{
    shape x{shape::float_type, {2, 4, 9}}, w{shape::float_type, {6, 2, 3}}, y{shape::float_type, {2, 6, 4}};
    auto s = dnn::make_conv_spec(x, w, y, {2, 2}, {2}, {3}, false, false, false);
    EXPECT_EQ(s.x.dims, i64({2, 4, 9, 1}));
    EXPECT_EQ(s.x.strides, i64({36, 9, 1, 1}));
    EXPECT_EQ(s.w.dims, i64({6, 2, 3, 1})); // grouped: C/group in the weights
    EXPECT_EQ(s.pre_pad, i64({2, 0}));
    EXPECT_EQ(s.post_pad, i64({2, 0}));
    EXPECT_EQ(s.stride, i64({2, 1}));
    EXPECT_EQ(s.dilation, i64({3, 1}));
    EXPECT_EQ(s.y.type, shape::float_type);

    shape x3{shape::half_type, {1, 2, 4, 4, 4}}, w3{shape::half_type, {3, 2, 1, 1, 1}}, y3{shape::half_type, {1, 3, 4, 4, 4}};
    auto s3 = dnn::make_conv_spec(x3, w3, y3, {0, 0, 0, 0, 0, 0}, {1, 1, 1}, {1, 1, 1}, false, false, false);
    EXPECT_EQ(s3.x.dims.size(), 5u);
    EXPECT_EQ(s3.stride.size(), 3u);
}

TEST(gpu_cudnn_graph, what_the_graph_cannot_describe_throws)
{
    shape xi{shape::int8_type, {1, 4, 4, 4}}, wi{shape::int8_type, {4, 4, 1, 1}};
    EXPECT_THROW(dnn::make_conv_spec(xi, wi, xi, {0, 0, 0, 0}, {1, 1}, {1, 1}, false, false, false),
                 std::invalid_argument);
    auto x = nhwc(1, 4, 4, 4), w = nhwc(4, 4, 1, 1);
    EXPECT_THROW(dnn::make_conv_spec(x, w, x, {0, 0}, {1, 1}, {1, 1}, false, false, false), std::invalid_argument);
    shape wf{shape::float_type, {4, 4, 1, 1}};
    EXPECT_THROW(dnn::make_conv_spec(x, wf, x, {0, 0, 0, 0}, {1, 1}, {1, 1}, false, false, false),
                 std::invalid_argument);
}

TEST(gpu_cudnn_graph, engine_choice_names)
{
    dnn::engine_choice c;
    c.index = 12;
    EXPECT_EQ(c.str(), "12");
    c.knobs = {{3, 1}, {7, 0}, {10, -1}};
    EXPECT_EQ(c.str(), "12|3:1|7:0|10:-1");
    auto back = dnn::engine_choice::parse(c.str());
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(*back, c);
    auto sorted = dnn::engine_choice::parse("5|9:2|1:4");
    ASSERT_TRUE(sorted.has_value());
    EXPECT_EQ(sorted->index, 5);
    EXPECT_EQ(sorted->knobs, (std::vector<std::pair<std::int64_t, std::int64_t>>{{1, 4}, {9, 2}}));
    EXPECT_TRUE(dnn::engine_choice::parse("0").has_value());
    for(const char* bad : {"", "x", "-1", "12|", "12|3", "12|3:", "12|3:1|", "12:3=1", "12|3:1x", "1 2", "12|-:1",
                           "123456789012345678901234"})
        EXPECT_FALSE(dnn::engine_choice::parse(bad).has_value()) << bad;
}

// The search's trace names an engine's numerical notes (Winograd and FFT engines round otherwise).
TEST(gpu_cudnn_graph, numerical_notes_named_in_cudnn_order)
{
    EXPECT_EQ(dnn::numerical_notes_text({}), "");
    EXPECT_EQ(dnn::numerical_notes_text({0, 6}), "tensor core, winograd 4x4");
    EXPECT_EQ(dnn::numerical_notes_text({3, 2, 9}), "fft, reduced precision reduction, strict nan propagation");
    EXPECT_EQ(dnn::numerical_notes_text({10, -1}), "note 10, note -1");
}

TEST(gpu_cudnn_graph, fastest_ignores_failures)
{
    EXPECT_EQ(dnn::fastest({}), -1);
    EXPECT_EQ(dnn::fastest({std::nullopt, std::nullopt}), -1);
    EXPECT_EQ(dnn::fastest({0.5, std::nullopt, 0.25, 0.3}), 2);
    EXPECT_EQ(dnn::fastest({std::nullopt, 0.7}), 1);
    EXPECT_EQ(dnn::fastest({0.2, 0.2}), 0); // the first of equals
}

TEST(gpu_cudnn_graph, half_close_compares_results)
{
    auto bits = [](std::initializer_list<float> v) {
        std::vector<std::uint16_t> r;
        for(float f : v)
            r.push_back(migraphx::half(f).bits);
        return r;
    };
    auto want = bits({10.0f, -20.0f, 0.5f, 0.0f});
    EXPECT_TRUE(dnn::half_close(want.data(), want.data(), want.size()));
    auto near = bits({10.25f, -20.0f, 0.5f, 0.125f}); // within 2% of the largest magnitude (20)
    EXPECT_TRUE(dnn::half_close(near.data(), want.data(), want.size()));
    auto far = bits({10.0f, -20.0f, 2.0f, 0.0f});
    EXPECT_FALSE(dnn::half_close(far.data(), want.data(), want.size()));
    auto zeros = bits({0.0f, 0.0f, 0.0f, 0.0f});
    EXPECT_FALSE(dnn::half_close(zeros.data(), want.data(), want.size()));
    auto nan = want;
    nan[1]   = 0x7e00;
    EXPECT_FALSE(dnn::half_close(nan.data(), want.data(), want.size()));
    EXPECT_TRUE(dnn::half_close(nan.data(), nan.data(), nan.size()));
}

// ---- on a device -------------------------------------------------------------------------------

namespace {

/// Sets an environment variable for a scope.
using migx_test::scoped_env;

/// Uniform values in [-scale, scale] (weights scaled by their fan-in keep a chain of half
/// convolutions well conditioned, so that ref and gpu agree within half's rounding).
migraphx::instruction_ref lit(migraphx::module* m, const shape& s, unsigned long seed, float scale)
{
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> dist(-scale, scale);
    std::vector<float> v(s.elements());
    for(auto& x : v)
        x = dist(gen);
    return m->add_literal(migraphx::literal{s, v});
}

/// ResNet's bottleneck in small, half: 1x1, 3x3 (stride 1 and 2), 1x1 + residual, each + bias +
/// relu; a plain convolution at the end (its result is the output).
migraphx::program bottleneck(std::size_t batch)
{
    migraphx::program p;
    auto* m = p.get_main_module();
    auto t  = shape::half_type;
    auto in = m->add_parameter("x", shape{t, {batch, 16, 12, 12}});
    auto fan_in = [](std::size_t n) { return static_cast<float>(1.7 / std::sqrt(static_cast<double>(n))); };
    auto bias = [&](migraphx::instruction_ref c, unsigned long seed) {
        auto k = c->get_shape().lens()[1];
        return m->add_instruction(make_op("broadcast", {{"axis", 1}, {"out_lens", c->get_shape().lens()}}),
                                  lit(m, shape{t, {k}}, seed, 0.25f));
    };
    auto cbr = [&](migraphx::instruction_ref x, std::size_t k, std::size_t r, std::size_t stride, unsigned long seed) {
        auto c = m->add_instruction(
            make_op("convolution", {{"padding", {r / 2, r / 2}}, {"stride", {stride, stride}}}),
            x,
            lit(m, shape{t, {k, x->get_shape().lens()[1], r, r}}, seed, fan_in(x->get_shape().lens()[1] * r * r)));
        return m->add_instruction(make_op("relu"), m->add_instruction(make_op("add"), c, bias(c, seed + 100)));
    };
    auto c0 = cbr(in, 32, 1, 1, 1);
    auto c1 = cbr(c0, 16, 3, 1, 2);
    auto c2 = m->add_instruction(make_op("convolution"), c1, lit(m, shape{t, {32, 16, 1, 1}}, 3, fan_in(16)));
    auto r2 = m->add_instruction(
        make_op("relu"), m->add_instruction(make_op("add"), m->add_instruction(make_op("add"), c2, bias(c2, 4)), c0));
    auto c3 = cbr(r2, 32, 3, 2, 5);
    auto c4 = m->add_instruction(make_op("convolution"), c3, lit(m, shape{t, {8, 32, 1, 1}}, 6, fan_in(32)));
    m->add_return({c4});
    return p;
}

/// The engine attribute of each convolution op of the main module, in order.
std::vector<std::string> engines(const migraphx::program& p)
{
    std::vector<std::string> r;
    for(const auto& ins : *p.get_main_module())
        if(ins.name() == "gpu::convolution" or ins.name() == "gpu::conv_bias_relu")
            r.push_back(ins.get_operator().to_value().at("engine").get_string());
    return r;
}

} // namespace

TEST(gpu_cudnn_graph, forced_graph_plans_match_ref_and_survive_save_load)
{
    MIGX_REQUIRE_GPU();
    scoped_env force("MIGRAPHX_CUDNN_GRAPH_FORCE", "1");
    scoped_env cudnn_1x1("MIGRAPHX_DISABLE_CONV_GEMM", "1"); // every convolution through cuDNN's graphs
    for(std::size_t batch : {1, 3})
    {
        auto p = bottleneck(batch);
        auto g = migx_test::expect_gpu_matches_ref(p, migx_test::fresh_params(p), 2e-2, 2e-2);
        auto e = engines(g);
        ASSERT_GE(e.size(), 5u);
        std::size_t fused = 0;
        for(const auto& ins : *g.get_main_module())
            fused += ins.name() == "gpu::conv_bias_relu" ? 1 : 0;
        EXPECT_EQ(fused, 4u) << "the three bias+relu blocks and the residual one";
        for(const auto& s : e)
        {
            EXPECT_FALSE(s.empty()) << "no engine configuration ran a convolution of batch " << batch;
            EXPECT_TRUE(migraphx::gpu::dnn::engine_choice::parse(s).has_value()) << s;
        }
        auto params = migx_test::params_for(g);
        auto want   = g.eval(params);
        auto q      = migraphx::load_buffer(migraphx::save_buffer(g));
        EXPECT_EQ(engines(q), e) << "a loaded program runs the saved engines";
        migx_test::expect_bitwise_equal(q.eval(params), want);
        migx_test::expect_bitwise_equal(q.eval(params), want); // replayed
    }
}

TEST(gpu_cudnn_graph, disabled_graph_runs_the_legacy_calls)
{
    MIGX_REQUIRE_GPU();
    migraphx::program g;
    {
        scoped_env force("MIGRAPHX_CUDNN_GRAPH_FORCE", "1");
        auto p = bottleneck(2);
        g      = migx_test::expect_gpu_matches_ref(p, migx_test::fresh_params(p), 2e-2, 2e-2);
    }
    auto params = migx_test::params_for(g);
    auto want   = g.eval(params);
    for(const auto& s : engines(g))
        EXPECT_FALSE(s.empty());
    scoped_env off("MIGRAPHX_DISABLE_CUDNN_GRAPH", "1");
    {
        auto p = bottleneck(2);
        auto h = migx_test::expect_gpu_matches_ref(p, migx_test::fresh_params(p), 2e-2, 2e-2);
        for(const auto& s : engines(h))
            EXPECT_EQ(s, "");
    }
    // A saved program with engines, loaded with the graph API off: the legacy algorithms it
    // also saved (close to, not the same bits as, the engines' results).
    auto q = migraphx::load_buffer(migraphx::save_buffer(g));
    for(const auto& s : engines(q))
        EXPECT_EQ(s, "");
    auto got = q.eval(params);
    ASSERT_EQ(got.size(), want.size());
    for(std::size_t i = 0; i < got.size(); i++)
        migx_test::expect_close(got[i], want[i], 2e-2, 2e-2, "legacy after load");
}

TEST(gpu_cudnn_graph, unknown_saved_engine_falls_back_to_the_legacy_algorithm)
{
    MIGX_REQUIRE_GPU();
    migraphx::program g;
    {
        scoped_env force("MIGRAPHX_CUDNN_GRAPH_FORCE", "1");
        auto p = bottleneck(1);
        g      = migx_test::expect_gpu_matches_ref(p, migx_test::fresh_params(p), 2e-2, 2e-2);
    }
    auto params = migx_test::params_for(g);
    auto want   = g.eval(params);
    // An engine index no cuDNN has: the plan cannot be rebuilt, the saved legacy algorithm runs.
    auto q = g;
    for(auto ins = q.get_main_module()->begin(); ins != q.get_main_module()->end(); ++ins)
    {
        if(ins->name() != "gpu::conv_bias_relu" and ins->name() != "gpu::convolution")
            continue;
        auto val      = ins->get_operator().to_value();
        val["engine"] = std::string("999999|1:2");
        q.get_main_module()->replace_instruction(ins, make_op(ins->name(), val), ins->inputs());
    }
    // The plans are built on finalize's deferred thread, after the op was stored: the refusal
    // shows in MIGRAPHX_TRACE_CUDNN; the op's field keeps the saved name, but it prints and saves
    // the legacy call it runs (engine=).
    migraphx::program r;
    {
        scoped_env trace("MIGRAPHX_TRACE_CUDNN", "1");
        testing::internal::CaptureStderr();
        r        = migraphx::load_buffer(migraphx::save_buffer(q));
        auto err = testing::internal::GetCapturedStderr();
        EXPECT_NE(err.find("engine 999999|1:2 cannot be rebuilt"), std::string::npos) << err;
    }
    for(const auto& s : engines(r))
        EXPECT_EQ(s, "999999|1:2");
    std::ostringstream printed;
    printed << r;
    EXPECT_EQ(printed.str().find("999999"), std::string::npos) << printed.str();
    auto resaved = migraphx::load_buffer(migraphx::save_buffer(r));
    for(const auto& s : engines(resaved))
        EXPECT_EQ(s, "") << "a re-save keeps the engine that runs";
    auto got = r.eval(params);
    ASSERT_EQ(got.size(), want.size());
    for(std::size_t i = 0; i < got.size(); i++)
        migx_test::expect_close(got[i], want[i], 2e-2, 2e-2, "legacy after an unknown engine");
}

#else
TEST(gpu_cudnn_graph, skipped) { GTEST_SKIP() << "built without CUDA"; }
#endif
