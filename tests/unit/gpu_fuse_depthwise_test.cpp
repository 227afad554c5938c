// gpu::fuse_depthwise: MobileNet's "bias + relu6 -> depthwise convolution -> bias + relu6" (after
// fuse_pointwise) becomes one depthwise_activated op, lowered to one generated kernel; what must
// not fuse stays; on the device the kernel matches ref.
#include "gpu_test_util.hpp"
#ifdef MIGRAPHX_HAVE_GPU
#include "targets/gpu/fuse_depthwise.hpp"
#include "passes/dead_code_elimination.hpp"
#include "passes/fuse_pointwise.hpp"
#include "passes/pass_manager.hpp"
#include <migraphx/literal.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <gtest/gtest.h>
#include <cstdlib>
#include <sstream>

using migraphx::make_op;
using migraphx::shape;

namespace {

struct block_case
{
    std::size_t n = 2, c = 16, h = 9, w = 11, k = 3, stride = 1, pad = 1;
    bool pre = true, post = true, pre_bias = true, relu = false;
    bool pre_shared = false; // the activated input also feeds another op
    bool nchw_bias  = false; // biases as {1, C, 1, 1} literals behind multibroadcast (folded constants)
    shape::type_t type = shape::half_type;
};

/// A producer (a parameter), its bias + clip, a depthwise convolution, its bias + clip.
migraphx::program block(const block_case& b)
{
    migraphx::program p;
    auto* m = p.get_main_module();
    auto t  = b.type;
    shape xs{t, {b.n, b.c, b.h, b.w}};
    auto x = m->add_parameter("x", xs);
    std::vector<float> wv(b.c * b.k * b.k), b1(b.c), b2(b.c);
    for(std::size_t i = 0; i < wv.size(); i++)
        wv[i] = static_cast<float>((i * 7) % 11) / 11.0f - 0.4f;
    for(std::size_t i = 0; i < b.c; i++)
        b1[i] = 0.1f * static_cast<float>(i % 5) - 0.2f, b2[i] = 0.05f * static_cast<float>(i % 7) - 0.1f;
    auto act = [&](migraphx::instruction_ref v, const std::vector<float>& bias, bool with_bias) {
        if(with_bias)
        {
            if(b.nchw_bias)
            {
                auto l = m->add_literal(migraphx::literal{shape{t, {1, b.c, 1, 1}}, bias});
                v      = m->add_instruction(make_op("add"), v,
                                       m->add_instruction(make_op("multibroadcast", {{"out_lens", v->get_shape().lens()}}), l));
            }
            else
            {
                auto l = m->add_literal(migraphx::literal{shape{t, {b.c}}, bias});
                v      = m->add_instruction(make_op("add"), v,
                                       m->add_instruction(make_op("broadcast", {{"axis", 1}, {"out_lens", v->get_shape().lens()}}), l));
            }
        }
        if(b.relu)
            return m->add_instruction(make_op("relu"), v);
        auto lo = m->add_instruction(make_op("multibroadcast", {{"out_lens", v->get_shape().lens()}}),
                                     m->add_literal(migraphx::literal{shape{t, {1}}, std::vector<float>{0}}));
        auto hi = m->add_instruction(make_op("multibroadcast", {{"out_lens", v->get_shape().lens()}}),
                                     m->add_literal(migraphx::literal{shape{t, {1}}, std::vector<float>{6}}));
        return m->add_instruction(make_op("clip"), v, lo, hi);
    };
    auto in = b.pre ? act(x, b1, b.pre_bias) : x;
    auto w  = m->add_literal(migraphx::literal{shape{t, {b.c, 1, b.k, b.k}}, wv});
    auto y  = m->add_instruction(make_op("convolution", {{"padding", {b.pad, b.pad, b.pad, b.pad}},
                                                         {"stride", {b.stride, b.stride}},
                                                         {"group", b.c}}),
                                in, w);
    if(b.post)
        y = act(y, b2, true);
    if(b.pre_shared)
        m->add_return({y, m->add_instruction(make_op("neg"), in)});
    else
        m->add_return({y});
    return p;
}

std::string fused(migraphx::program p)
{
    migraphx::run_passes(p, {migraphx::fuse_pointwise{}, migraphx::gpu::fuse_depthwise{}, migraphx::dead_code_elimination{}});
    std::ostringstream ss;
    ss << *p.get_main_module();
    return ss.str();
}

using migx_test::occurrences;

} // namespace

TEST(gpu_fuse_depthwise, mobilenet_block_becomes_one_op)
{
    auto before = fused(block({}));
    EXPECT_EQ(occurrences(before, "depthwise_activated"), 1u) << before;
    EXPECT_EQ(occurrences(before, "convolution"), 0u) << before;
    EXPECT_EQ(occurrences(before, "pointwise"), 0u) << before;
    EXPECT_NE(before.find("pre_bias=1"), std::string::npos) << before;
    EXPECT_NE(before.find("post_clip={0, 6}"), std::string::npos) << before;
}

TEST(gpu_fuse_depthwise, partial_chains_fuse)
{
    block_case no_pre;
    no_pre.pre = false;
    block_case no_post;
    no_post.post = false;
    block_case clip_only; // the expand convolution without a bias: clip alone
    clip_only.pre_bias = false;
    block_case relu;
    relu.relu = true;
    block_case nchw_bias; // ssdlite's folded biases: {1, C, 1, 1}
    nchw_bias.nchw_bias = true;
    for(const auto& b : {no_pre, no_post, clip_only, relu, nchw_bias})
    {
        auto t = fused(block(b));
        EXPECT_EQ(occurrences(t, "depthwise_activated"), 1u) << t;
        EXPECT_EQ(occurrences(t, "convolution"), 0u) << t;
    }
}

TEST(gpu_fuse_depthwise, left_alone)
{
    block_case fp32;
    fp32.type = shape::float_type; // the kernel is half only
    block_case odd_channels;
    odd_channels.c = 12; // not a multiple of 8
    for(const auto& b : {fp32, odd_channels})
    {
        auto t = fused(block(b));
        EXPECT_EQ(occurrences(t, "depthwise_activated"), 0u) << t;
        EXPECT_EQ(occurrences(t, "convolution"), 1u) << t;
    }
    // The activated input feeds another op too: the convolution reads it; only post fuses.
    block_case shared;
    shared.pre_shared = true;
    auto t = fused(block(shared));
    EXPECT_EQ(occurrences(t, "depthwise_activated"), 1u) << t;
    EXPECT_NE(t.find("pre_bias=0"), std::string::npos) << t;
    EXPECT_NE(t.find("pre_clip={}"), std::string::npos) << t;
    setenv("MIGRAPHX_DISABLE_DEPTHWISE_FUSION", "1", 1);
    auto off = fused(block({}));
    unsetenv("MIGRAPHX_DISABLE_DEPTHWISE_FUSION");
    EXPECT_EQ(occurrences(off, "depthwise_activated"), 0u) << off;
}

TEST(gpu_fuse_depthwise, lowers_to_one_kernel)
{
    auto t = migx_test::lowered_for_gpu(block({}));
    EXPECT_EQ(occurrences(t, "symbol_name=depthwise_kernel"), 1u) << t;
    EXPECT_EQ(occurrences(t, "gpu::convolution"), 0u) << t;
}

// On the device against ref (ref runs the unfused ops op by op in half, the kernel sums in float).
TEST(gpu_fuse_depthwise, matches_ref_on_device)
{
    MIGX_REQUIRE_GPU();
    block_case s1;
    block_case s2; // stride 2, odd sizes (a partial group of output pixels)
    s2.stride = 2;
    s2.h      = 13;
    s2.w      = 15;
    block_case k5; // EfficientNet's 5 x 5, pad 2, no pre
    k5.k   = 5;
    k5.pad = 2;
    k5.pre = false;
    block_case wide; // many channels, one pixel group wide
    wide.c = 96;
    wide.w = 3;
    block_case relu;
    relu.relu     = true;
    relu.pre_bias = false;
    block_case nchw_bias;
    nchw_bias.nchw_bias = true;
    for(const auto& b : {s1, s2, k5, wide, relu, nchw_bias})
    {
        auto p = block(b);
        auto g = migx_test::expect_gpu_matches_ref(p, 1e-2, 1e-2);
        std::ostringstream ss;
        ss << g;
        EXPECT_NE(ss.str().find("symbol_name=depthwise_kernel"), std::string::npos) << ss.str();
    }
}

#endif
