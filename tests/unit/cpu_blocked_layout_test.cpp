// cpu::blocked_layout before/after: chains move into nChw8c (channels-last nhwc on AVX-512, or
// nChw16c when asked for) with one reorder in and one out.
#include <migraphx/make_op.hpp>
#include <cmath>
#include <functional>
#include <utility>
#include <migraphx/program.hpp>
#include "cpu_test_util.hpp"
#ifdef MIGRAPHX_HAVE_CPU
#include "passes/dead_code_elimination.hpp"
#include "passes/pass_manager.hpp"
#include "targets/cpu/blocked_layout.hpp"
#include "targets/cpu/dnnl_context.hpp"
#include "targets/cpu/dnnl_ops.hpp"
#include "targets/cpu/lower_dnnl.hpp"
#include <oneapi/dnnl/dnnl.hpp>
#endif
#include "scoped_env.hpp"

using migraphx::make_op;
using migraphx::shape;

namespace {
#ifdef MIGRAPHX_HAVE_CPU
// Whether oneDNN has real convolution kernels for the layout on this machine: nChw16c's are
// AVX-512 only (elsewhere its convolutions are reference loops, and the pass leaves a module in
// plain layout: no reorders at all).
bool convolutions_run_in(const std::string& layout)
{
    return layout != "blocked16" or dnnl::get_effective_cpu_isa() >= dnnl::cpu_isa::avx512_core;
}
#endif

migraphx::program two_convs_and_add(std::size_t channels, std::size_t size = 6)
{
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{shape::float_type, {1, channels, size, size}});
    // weights scaled by 1/sqrt(fan-in): activations stay O(1) at any channel count, so fp32 sums
    // compare with ref's double ones at one tolerance
    shape ws{shape::float_type, {channels, channels, 3, 3}};
    auto wv = migraphx::generate_literal(ws, 1).to_vector<float>();
    for(auto& x : wv)
        x /= std::sqrt(static_cast<float>(9 * channels));
    auto w = m->add_literal(migraphx::literal{ws, wv});
    auto pad = std::vector<std::size_t>{1, 1};
    auto c1 = m->add_instruction(make_op("convolution", {{"padding", pad}}), x, w);
    auto c2 = m->add_instruction(make_op("convolution", {{"padding", pad}}), c1, w);
    auto e  = m->add_instruction(make_op("neg"), c1); // elementwise, not a post-op: runs blocked
    m->add_return({m->add_instruction(make_op("mul"), c2, e)});
    return p;
}
} // namespace

#ifdef MIGRAPHX_HAVE_CPU
TEST(cpu_blocked_layout, chain_runs_blocked_between_two_reorders)
{
    migx_test::scoped_env block("MIGRAPHX_CPU_BLOCK", "8");
    auto p  = two_convs_and_add(8);
    auto& m = *p.get_main_module();
    migraphx::run_passes(m, {migraphx::cpu::lower_dnnl{}, migraphx::dead_code_elimination{}});
    EXPECT_EQ(migx_test::op_names(m),
              (std::vector<std::string>{"dnnl::convolution", "dnnl::convolution", "neg", "mul", "@return"}));
    migraphx::run_passes(m, {migraphx::cpu::blocked_layout{}, migraphx::dead_code_elimination{}});
    EXPECT_EQ(migx_test::op_names(m),
              (std::vector<std::string>{"dnnl::reorder", "dnnl::convolution", "dnnl::convolution", "neg", "mul",
                                        "dnnl::reorder", "@return"}));
    auto ret = std::prev(m.end());
    EXPECT_EQ(ret->inputs().front()->get_shape().lens(), (std::vector<std::size_t>{1, 8, 6, 6}));
    EXPECT_EQ(ret->inputs().front()->inputs().front()->get_shape().lens(),
              (std::vector<std::size_t>{1, 1, 6, 6, 8}));
}

namespace {
/// The blocked shape the chain's last value has before the reorder out (empty: none).
std::vector<std::size_t> blocked_result_lens(std::size_t channels)
{
    auto p  = two_convs_and_add(channels);
    auto& m = *p.get_main_module();
    migraphx::run_passes(m, {migraphx::cpu::lower_dnnl{}, migraphx::cpu::blocked_layout{},
                             migraphx::dead_code_elimination{}});
    auto ret = std::prev(m.end());
    if(ret->inputs().front()->name() != "dnnl::reorder")
        return {};
    return ret->inputs().front()->inputs().front()->get_shape().lens();
}
} // namespace

TEST(cpu_blocked_layout, channels_last_on_avx512)
{
    if(dnnl::get_effective_cpu_isa() < dnnl::cpu_isa::avx512_core)
        GTEST_SKIP() << "no AVX-512: oneDNN has no brgemm (nhwc) convolutions here";
    migx_test::scoped_env block("MIGRAPHX_CPU_BLOCK", nullptr); // the machine's choice
    migx_test::scoped_env layout("MIGRAPHX_CPU_LAYOUT", nullptr);
    // any channel count: MobileNetV2's 24 and 144 too
    for(std::size_t c : {8, 16, 24, 32})
        EXPECT_EQ(blocked_result_lens(c), (std::vector<std::size_t>{1, 6, 6, c}));
}

TEST(cpu_blocked_layout, sixteen_channel_blocks_when_asked_for)
{
    if(dnnl::get_effective_cpu_isa() < dnnl::cpu_isa::avx512_core)
        GTEST_SKIP() << "no AVX-512: oneDNN has no fast nChw16c kernels here";
    migx_test::scoped_env block("MIGRAPHX_CPU_BLOCK", "16");
    EXPECT_EQ(blocked_result_lens(16), (std::vector<std::size_t>{1, 1, 6, 6, 16}));
    EXPECT_EQ(blocked_result_lens(32), (std::vector<std::size_t>{1, 2, 6, 6, 16}));
    // channels of 8s but not 16s stay plain (why channels-last is the AVX-512 default)
    EXPECT_EQ(blocked_result_lens(8), (std::vector<std::size_t>{}));
    EXPECT_EQ(blocked_result_lens(24), (std::vector<std::size_t>{}));
}

namespace {
/// The algorithms of the convolutions of two_convs_and_add(channels, size) after the layout pass.
std::vector<std::string> conv_algos(std::size_t channels, std::size_t size = 6)
{
    auto p  = two_convs_and_add(channels, size);
    auto& m = *p.get_main_module();
    migraphx::run_passes(m, {migraphx::cpu::lower_dnnl{}, migraphx::cpu::blocked_layout{},
                             migraphx::dead_code_elimination{}});
    std::vector<std::string> r;
    for(auto ins = m.begin(); ins != m.end(); ++ins)
        if(ins->name() == "dnnl::convolution")
            r.push_back(ins->get_operator().to_value().at("algo").get_string() + " " +
                        ins->get_operator().to_value().at("dst_layout").get_string());
    return r;
}
/// oneDNN's Winograd kernel for two_convs_and_add(channels, size)'s first convolution: which one
/// (F(2x2,3x3) "wino_2x3" or F(4x4,3x3) "wino_4x3") depends on the machine's caches, not only the
/// image size (a 28x28 image: 4x3 on a 2-core Zen 4, 2x3 on a Sapphire Rapids Xeon).
std::string winograd_kernel(std::size_t channels, std::size_t size)
{
    migx_test::scoped_env all("MIGRAPHX_CPU_WINOGRAD", "all");
    migx_test::scoped_env block("MIGRAPHX_CPU_LAYOUT", "blocked16");
    auto p  = two_convs_and_add(channels, size);
    auto& m = *p.get_main_module();
    migraphx::run_passes(m, {migraphx::cpu::lower_dnnl{}, migraphx::cpu::blocked_layout{},
                             migraphx::dead_code_elimination{}});
    migraphx::context ctx = migraphx::cpu::dnnl_context{};
    for(auto ins = m.begin(); ins != m.end(); ++ins)
        if(ins->name() == "dnnl::convolution")
            return ins->get_operator().any_cast<migraphx::cpu::dnnl_convolution>()->impl(
                ctx, {ins->inputs()[0]->get_shape(), ins->inputs()[1]->get_shape()});
    return "";
}
} // namespace

TEST(cpu_blocked_layout, winograd_f2x2_by_default_f4x4_when_asked_for)
{
    if(dnnl::get_effective_cpu_isa() < dnnl::cpu_isa::avx512_core)
        GTEST_SKIP() << "no AVX-512: oneDNN has no Winograd kernels here";
    migx_test::scoped_env block("MIGRAPHX_CPU_LAYOUT", "blocked16"); // Winograd's layout
    const std::vector<std::string> direct = {"direct blocked16", "direct blocked16"};
    const std::vector<std::string> wino   = {"winograd blocked16", "winograd blocked16"};
    {
        migx_test::scoped_env unset("MIGRAPHX_CPU_WINOGRAD", nullptr);
        EXPECT_EQ(conv_algos(64), wino);        // a small image: oneDNN's F(2x2,3x3) kernel
        // F(4x4,3x3) rounds more: direct instead, where oneDNN picks it
        bool f4x4 = winograd_kernel(128, 28).find("wino_4x3") != std::string::npos;
        EXPECT_EQ(conv_algos(128, 28), f4x4 ? direct : wino) << winograd_kernel(128, 28);
        EXPECT_EQ(conv_algos(32), direct);      // under 64 channels
    }
    {
        migx_test::scoped_env all("MIGRAPHX_CPU_WINOGRAD", "all");
        EXPECT_EQ(conv_algos(64), wino);
        EXPECT_EQ(conv_algos(128, 28), wino);
    }
    {
        migx_test::scoped_env off("MIGRAPHX_CPU_WINOGRAD", "off");
        EXPECT_EQ(conv_algos(64), direct);
    }
    {
        migx_test::scoped_env bad("MIGRAPHX_CPU_WINOGRAD", "yes please");
        EXPECT_THROW(conv_algos(64), migraphx::exception);
    }
    migx_test::expect_cpu_matches_ref(two_convs_and_add(64), 1e-4, 1e-4);
}

TEST(cpu_blocked_layout, blocks_where_every_convolution_fits_them_and_winograd_runs)
{
    if(dnnl::get_effective_cpu_isa() < dnnl::cpu_isa::avx512_core)
        GTEST_SKIP() << "no AVX-512: the choice is between AVX-512 kernels";
    migx_test::scoped_env layout("MIGRAPHX_CPU_LAYOUT", nullptr);
    migx_test::scoped_env block("MIGRAPHX_CPU_BLOCK", nullptr);
    migx_test::scoped_env wino("MIGRAPHX_CPU_WINOGRAD", nullptr);
    EXPECT_EQ(conv_algos(64), (std::vector<std::string>{"winograd blocked16", "winograd blocked16"}));
    // no Winograd (under 64 channels; F(4x4,3x3) only; Winograd off): channels-last
    EXPECT_EQ(conv_algos(32), (std::vector<std::string>{"direct nhwc", "direct nhwc"}));
    if(winograd_kernel(128, 28).find("wino_4x3") != std::string::npos) // see winograd_kernel
        EXPECT_EQ(conv_algos(128, 28), (std::vector<std::string>{"direct nhwc", "direct nhwc"}));
    else
        EXPECT_EQ(conv_algos(128, 28), (std::vector<std::string>{"winograd blocked16", "winograd blocked16"}));
    {
        migx_test::scoped_env off("MIGRAPHX_CPU_WINOGRAD", "off");
        EXPECT_EQ(conv_algos(64), (std::vector<std::string>{"direct nhwc", "direct nhwc"}));
    }
    // one convolution whose channels do not fit 16-channel blocks (MobileNetV2's 24): channels-last
    migraphx::program p;
    auto* m  = p.get_main_module();
    auto x   = m->add_parameter("x", shape{shape::float_type, {1, 64, 6, 6}});
    auto w64 = m->add_literal(migraphx::generate_literal(shape{shape::float_type, {64, 64, 3, 3}}, 1));
    auto w24 = m->add_literal(migraphx::generate_literal(shape{shape::float_type, {24, 64, 1, 1}}, 2));
    auto c1  = m->add_instruction(make_op("convolution", {{"padding", {1, 1}}}), x, w64);
    m->add_return({m->add_instruction(make_op("convolution"), c1, w24)});
    migraphx::run_passes(*m, {migraphx::cpu::lower_dnnl{}, migraphx::cpu::blocked_layout{},
                              migraphx::dead_code_elimination{}});
    for(auto ins = m->begin(); ins != m->end(); ++ins)
        if(ins->name() == "dnnl::convolution")
        {
            EXPECT_EQ(ins->get_operator().to_value().at("dst_layout").get_string(), "nhwc");
        }
}

TEST(cpu_blocked_layout, channels_not_divisible_by_eight_stay_plain)
{
    migx_test::scoped_env block("MIGRAPHX_CPU_BLOCK", "8");
    auto p  = two_convs_and_add(6);
    auto& m = *p.get_main_module();
    migraphx::run_passes(m, {migraphx::cpu::lower_dnnl{}, migraphx::cpu::blocked_layout{},
                             migraphx::dead_code_elimination{}});
    auto names = migx_test::op_names(m);
    EXPECT_EQ(std::count(names.begin(), names.end(), "dnnl::reorder"), 0);
}

// A pooling of a plain input (no convolution before it) moves into the layout, between two
// reorders, where oneDNN's plain kernel is not a jit one and the layout's is (MTCNN's 2x2 max pool:
// simple_nchw took 1 ms); where oneDNN's plain kernel is a jit one it stays.
TEST(cpu_blocked_layout, plain_pooling_moves_where_only_the_layout_has_a_jit_kernel)
{
    bool any_moved = false;
    for(auto [layout, channels] : {std::pair{"nhwc", 10}, std::pair{"nhwc", 16}, std::pair{"blocked8", 16},
                                   std::pair{"blocked16", 16}, std::pair{"blocked16", 10}})
    {
        migx_test::scoped_env e("MIGRAPHX_CPU_LAYOUT", layout);
        std::vector<std::size_t> lens{1, static_cast<std::size_t>(channels), 118, 158}; // MTCNN P-Net's first pool
        migraphx::module m;
        auto x = m.add_parameter("x", shape{shape::float_type, lens});
        m.add_return({m.add_instruction(make_op("pooling", {{"mode", "max"}, {"lengths", {2, 2}}, {"stride", {2, 2}},
                                                            {"padding", {0, 0}}, {"ceil_mode", true}}),
                                        x)});
        migraphx::run_passes(m, {migraphx::cpu::lower_dnnl{}, migraphx::dead_code_elimination{}});
        auto pool = *std::prev(m.end(), 2)->get_operator().any_cast<migraphx::cpu::dnnl_pooling>();
        migraphx::context ctx = migraphx::cpu::dnnl_context{};
        auto plain_impl       = pool.impl(ctx, {x->get_shape()});
        std::string layout_impl = "(channels do not fit)";
        std::size_t block       = std::string(layout) == "nhwc" ? 1 : std::string(layout) == "blocked8" ? 8 : 16;
        if(channels % block == 0)
        {
            auto cand   = pool;
            cand.layout = layout;
            layout_impl = cand.impl(ctx, {migraphx::cpu::layout_shape(shape::float_type, lens, layout)});
        }
        bool moves = plain_impl.rfind("jit", 0) != 0 and layout_impl.rfind("jit", 0) == 0;
        any_moved  = any_moved or moves;
        migraphx::run_passes(m, {migraphx::cpu::blocked_layout{&ctx}, migraphx::dead_code_elimination{}});
        auto names = migx_test::op_names(m);
        SCOPED_TRACE(std::string(layout) + " " + std::to_string(channels) + ": plain " + plain_impl +
                     ", in the layout " + layout_impl);
        EXPECT_EQ(std::count(names.begin(), names.end(), "dnnl::reorder"), moves ? 2 : 0);
    }
    if(not any_moved)
        GTEST_SKIP() << "oneDNN here has a jit kernel for every plain pooling (or none for the layouts): nothing moves";
}
#endif

namespace {
// conv -> x * per-channel constant -> conv, and an SE block's scale: conv -> global average ->
// sigmoid -> broadcast over the image -> times the conv's result -> conv.
migraphx::program channel_scaled_convs(std::size_t channels, bool squeeze_excite)
{
    migraphx::program p;
    auto* m = p.get_main_module();
    std::vector<std::size_t> lens{1, channels, 7, 7};
    auto x  = m->add_parameter("x", shape{shape::float_type, lens});
    shape ws{shape::float_type, {channels, channels, 1, 1}};
    auto wv = migraphx::generate_literal(ws, 1).to_vector<float>();
    for(auto& v : wv)
        v /= std::sqrt(static_cast<float>(channels));
    auto w  = m->add_literal(migraphx::literal{ws, wv});
    auto c1 = m->add_instruction(make_op("convolution"), x, w);
    migraphx::instruction_ref scale;
    if(squeeze_excite)
    {
        auto g = m->add_instruction(make_op("pooling", {{"mode", "average"}, {"global", true}}), c1);
        scale  = m->add_instruction(make_op("multibroadcast", {{"out_lens", lens}}), m->add_instruction(make_op("sigmoid"), g));
    }
    else
        scale = m->add_instruction(make_op("broadcast", {{"axis", 1}, {"out_lens", lens}}),
                                   m->add_literal(migraphx::generate_literal(shape{shape::float_type, {channels}}, 3)));
    auto s = m->add_instruction(make_op("mul"), c1, scale);
    m->add_return({m->add_instruction(make_op("convolution"), s, w)});
    return p;
}
} // namespace

#ifdef MIGRAPHX_HAVE_CPU
// The product with a per-channel broadcast stays in the layout: one reorder in, one out (before
// this, the chain left the layout for the product: four).
TEST(cpu_blocked_layout, per_channel_broadcasts_stay_in_the_layout)
{
    for(const char* layout : {"nhwc", "blocked8", "blocked16"})
        for(bool se : {false, true})
        {
            migx_test::scoped_env e("MIGRAPHX_CPU_LAYOUT", layout);
            auto p  = channel_scaled_convs(16, se);
            auto& m = *p.get_main_module();
            migraphx::context ctx = migraphx::cpu::dnnl_context{};
            migraphx::run_passes(m, {migraphx::cpu::lower_dnnl{}, migraphx::cpu::blocked_layout{&ctx},
                                     migraphx::dead_code_elimination{}});
            auto names = migx_test::op_names(m);
            SCOPED_TRACE(std::string(layout) + (se ? ", SE" : ", constant"));
            // the SE branch's pooled [1, C, 1, 1] goes back to plain for the sigmoid: one more
            auto want = not convolutions_run_in(layout) ? 0 : se ? 3 : 2;
            EXPECT_EQ(std::count(names.begin(), names.end(), "dnnl::reorder"), want) << m;
        }
}
#endif

namespace {
// DenseNet's pattern: x -> conv -> concat(x', conv) -> per-channel scale -> conv, with x' = a conv
// of x so that both parts exist in the layout.
migraphx::program dense_concat(std::size_t channels)
{
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{shape::float_type, {1, channels, 5, 5}});
    auto conv = [&](migraphx::instruction_ref in, std::size_t cin, std::size_t cout, int seed) {
        shape ws{shape::float_type, {cout, cin, 1, 1}};
        auto wv = migraphx::generate_literal(ws, seed).to_vector<float>();
        for(auto& v : wv)
            v /= std::sqrt(static_cast<float>(cin));
        return m->add_instruction(make_op("convolution"), in, m->add_literal(migraphx::literal{ws, wv}));
    };
    auto a   = conv(x, channels, channels, 1);
    auto b   = conv(a, channels, channels, 2);
    auto cat = m->add_instruction(make_op("concat", {{"axis", 1}}), a, b);
    auto sc  = m->add_instruction(make_op("broadcast", {{"axis", 1}, {"out_lens", cat->get_shape().lens()}}),
                                  m->add_literal(migraphx::generate_literal(shape{shape::float_type, {2 * channels}}, 3)));
    auto r   = m->add_instruction(make_op("relu"), m->add_instruction(make_op("mul"), cat, sc));
    m->add_return({conv(r, 2 * channels, channels, 4)});
    return p;
}
} // namespace

#ifdef MIGRAPHX_HAVE_CPU
namespace {
/// cpu::lower_dnnl, then cpu::blocked_layout with ctx (the layout MIGRAPHX_CPU_LAYOUT forces).
void lower_and_lay_out(migraphx::module& m, migraphx::context& ctx)
{
    migraphx::run_passes(m, {migraphx::cpu::lower_dnnl{}, migraphx::cpu::blocked_layout{&ctx},
                             migraphx::dead_code_elimination{}});
}
} // namespace

// The concatenation of two values in the layout stays there (before: both went back to plain
// for it and the result into the layout again: 4 reorders where there are 2).
TEST(cpu_blocked_layout, channel_concat_stays_in_the_layout)
{
    for(const char* layout : {"nhwc", "blocked8", "blocked16"})
    {
        migx_test::scoped_env e("MIGRAPHX_CPU_LAYOUT", layout);
        auto p  = dense_concat(16);
        auto& m = *p.get_main_module();
        migraphx::context ctx = migraphx::cpu::dnnl_context{};
        lower_and_lay_out(m, ctx);
        auto names = migx_test::op_names(m);
        EXPECT_EQ(std::count(names.begin(), names.end(), "dnnl::reorder"), convolutions_run_in(layout) ? 2 : 0)
            << layout << m;
    }
}
#endif

namespace {
/// make(channels) for 8, 16 and 10 channels (10: not a multiple of any block) in each forced
/// layout, the cpu result against ref.
void matches_ref_in_every_layout(const std::function<migraphx::program(std::size_t)>& make)
{
    for(const char* layout : {"blocked8", "blocked16", "nhwc"})
    {
        migx_test::scoped_env e("MIGRAPHX_CPU_LAYOUT", layout);
        for(std::size_t channels : {8, 16, 10})
            migx_test::expect_cpu_matches_ref(make(channels), 1e-5, 1e-5);
    }
}
} // namespace

TEST(cpu_blocked_layout, channel_concat_matches_ref)
{
    MIGX_REQUIRE_CPU();
    matches_ref_in_every_layout(dense_concat);
}

TEST(cpu_blocked_layout, per_channel_broadcasts_match_ref)
{
    MIGX_REQUIRE_CPU();
    for(const char* layout : {"blocked8", "blocked16", "nhwc"})
    {
        migx_test::scoped_env e("MIGRAPHX_CPU_LAYOUT", layout);
        for(bool se : {false, true})
            for(std::size_t channels : {10, 16})
                migx_test::expect_cpu_matches_ref(channel_scaled_convs(channels, se), 1e-5, 1e-5);
    }
}

TEST(cpu_blocked_layout, plain_pooling_results_match_ref)
{
    MIGX_REQUIRE_CPU();
    for(const char* layout : {"blocked8", "blocked16", "nhwc"})
    {
        migx_test::scoped_env e("MIGRAPHX_CPU_LAYOUT", layout);
        for(const char* mode : {"max", "average"})
        {
            migraphx::program p;
            auto* m = p.get_main_module();
            auto x  = m->add_parameter("x", shape{shape::float_type, {1, 16, 13, 11}});
            m->add_return({m->add_instruction(make_op("pooling", {{"mode", mode}, {"lengths", {3, 3}}, {"stride", {2, 2}},
                                                                  {"padding", {1, 1}}, {"ceil_mode", true}}),
                                              x)});
            migx_test::expect_cpu_matches_ref(p, 1e-6, 1e-6);
        }
    }
}

TEST(cpu_blocked_layout, results_match_ref)
{
    MIGX_REQUIRE_CPU();
    for(const char* layout : {"blocked8", "blocked16", "nhwc"})
    {
        migx_test::scoped_env e("MIGRAPHX_CPU_LAYOUT", layout);
        for(std::size_t channels : {6, 8, 16, 32})
            migx_test::expect_cpu_matches_ref(two_convs_and_add(channels), 1e-4, 1e-4);
    }
}

namespace {
/// A decoder step as UNet has it: conv, ConvTranspose 2x2 stride 2, concat with a skip, conv.
migraphx::program decoder(std::size_t channels)
{
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{shape::float_type, {1, channels, 4, 4}});
    auto s  = m->add_parameter("skip", shape{shape::float_type, {1, channels, 8, 8}});
    auto lit = [&](std::vector<std::size_t> lens, int seed, float fan_in) {
        shape ws{shape::float_type, std::move(lens)};
        auto wv = migraphx::generate_literal(ws, seed).to_vector<float>();
        for(auto& v : wv)
            v /= std::sqrt(fan_in);
        return m->add_literal(migraphx::literal{ws, wv});
    };
    auto f   = static_cast<float>(channels);
    auto pad = std::vector<std::size_t>{1, 1};
    auto a   = m->add_instruction(make_op("convolution", {{"padding", pad}}), x, lit({channels, channels, 3, 3}, 1, 9 * f));
    auto s1  = m->add_instruction(make_op("convolution", {{"padding", pad}}), s, lit({channels, channels, 3, 3}, 2, 9 * f));
    auto up  = m->add_instruction(make_op("convolution_backwards", {{"stride", std::vector<std::size_t>{2, 2}}}), a,
                                 lit({channels, channels, 2, 2}, 3, 4 * f));
    auto cat = m->add_instruction(make_op("concat", {{"axis", 1}}), up, s1);
    m->add_return({m->add_instruction(make_op("convolution", {{"padding", pad}}), cat,
                                      lit({channels, 2 * channels, 3, 3}, 4, 18 * f))});
    return p;
}
} // namespace

#ifdef MIGRAPHX_HAVE_CPU
// Before: the deconvolution took its input back to plain and the concat ran in plain (3 reorders
// more than the two in and one out). After: it runs in the layout where its input is there and
// oneDNN has a real (non-reference) kernel for it in that layout; else it stays plain.
TEST(cpu_blocked_layout, deconvolution_of_a_value_in_the_layout_stays_there)
{
    for(const char* layout : {"nhwc", "blocked8", "blocked16"})
    {
        migx_test::scoped_env e("MIGRAPHX_CPU_LAYOUT", layout);
        auto p  = decoder(16);
        auto& m = *p.get_main_module();
        migraphx::context ctx = migraphx::cpu::dnnl_context{};
        lower_and_lay_out(m, ctx);
        // what oneDNN runs for the decoder's deconvolution in this layout
        migraphx::cpu::dnnl_deconvolution cand;
        cand.padding    = {0, 0, 0, 0};
        cand.stride     = {2, 2};
        cand.dilation   = {1, 1};
        cand.src_layout = cand.dst_layout = layout;
        std::string kernel = "ref";
        try
        {
            kernel = cand.impl(ctx, {migraphx::cpu::layout_shape(shape::float_type, {1, 16, 4, 4}, layout),
                                     shape{shape::float_type, {16, 16, 2, 2}}});
        }
        catch(const std::exception&) // no kernel for the layout at all
        {
        }
        bool expect_moved = kernel.rfind("ref", 0) != 0;
        auto deconv = std::find_if(m.begin(), m.end(), [](const auto& i) { return i.name() == "dnnl::deconvolution"; });
        ASSERT_NE(deconv, m.end());
        auto src   = deconv->get_operator().to_value().at("src_layout").to<std::string>();
        auto names = migx_test::op_names(m);
        if(not convolutions_run_in(layout))
        {
            EXPECT_EQ(src, "plain") << m;
            EXPECT_EQ(std::count(names.begin(), names.end(), "dnnl::reorder"), 0) << layout << m;
            continue;
        }
        EXPECT_EQ(src, expect_moved ? layout : "plain") << kernel << m;
        EXPECT_EQ(std::count(names.begin(), names.end(), "dnnl::reorder"), expect_moved ? 3 : 6) << layout << m;
    }
}
#endif

namespace {
/// conv -> 2x linear upsampling along W then H (cpu::lerp each) -> conv, as UNet's decoder.
migraphx::program upsampling(std::size_t channels)
{
    migraphx::program p;
    auto* m   = p.get_main_module();
    auto x    = m->add_parameter("x", shape{shape::float_type, {1, channels, 6, 5}});
    auto conv = [&](migraphx::instruction_ref in, unsigned seed) {
        auto w = m->add_literal(migraphx::generate_literal(shape{shape::float_type, {channels, channels, 3, 3}}, seed));
        return m->add_instruction(make_op("convolution", {{"padding", {1, 1}}}), in, w);
    };
    auto lerp = [&](migraphx::instruction_ref in, std::int64_t axis) {
        auto len = in->get_shape().lens()[static_cast<std::size_t>(axis)];
        std::vector<std::int64_t> i0, i1;
        std::vector<float> w0, w1;
        for(std::size_t j = 0; j < 2 * len; j++)
        {
            i0.push_back(static_cast<std::int64_t>(j / 2));
            i1.push_back(static_cast<std::int64_t>(std::min(j / 2 + 1, len - 1)));
            w1.push_back(j % 2 == 0 ? 0.25f : 0.75f);
            w0.push_back(1 - w1.back());
        }
        auto v = [&](auto data, shape::type_t t) {
            return m->add_literal(migraphx::literal{shape{t, {2 * len}}, data});
        };
        return m->add_instruction(make_op("cpu::lerp", {{"axis", axis}}), in, v(i0, shape::int64_type),
                                  v(w0, shape::float_type), v(i1, shape::int64_type), v(w1, shape::float_type));
    };
    auto up = lerp(lerp(conv(x, 1), 3), 2);
    m->add_return({conv(m->add_instruction(make_op("relu"), up), 2)});
    return p;
}
} // namespace

#ifdef MIGRAPHX_HAVE_CPU
// Before: the upsampling went back to plain and into the layout again (4 reorders); after, the
// one in and the one out.
TEST(cpu_blocked_layout, an_upsampling_between_convolutions_stays_in_the_layout)
{
    for(const char* layout : {"nhwc", "blocked8", "blocked16"})
    {
        migx_test::scoped_env e("MIGRAPHX_CPU_LAYOUT", layout);
        auto p  = upsampling(16);
        auto& m = *p.get_main_module();
        migraphx::context ctx = migraphx::cpu::dnnl_context{};
        lower_and_lay_out(m, ctx);
        auto names = migx_test::op_names(m);
        EXPECT_EQ(std::count(names.begin(), names.end(), "dnnl::reorder"), convolutions_run_in(layout) ? 2 : 0)
            << layout << m;
        EXPECT_EQ(std::count(names.begin(), names.end(), "cpu::lerp"), 2) << layout << m;
    }
}
#endif

TEST(cpu_blocked_layout, an_upsampling_in_the_layout_matches_ref)
{
    MIGX_REQUIRE_CPU();
    matches_ref_in_every_layout(upsampling);
}

TEST(cpu_blocked_layout, deconvolution_in_the_layout_matches_ref)
{
    MIGX_REQUIRE_CPU();
    matches_ref_in_every_layout(decoder);
}

namespace {
// Two ShuffleNetV2 units as exported: concat of two branches, the shuffle (reshape to
// {N, 2, C, H, W}, transpose, contiguous, reshape back), split in halves; the second half
// through a convolution, concatenated with the first and shuffled again, the result whole into
// a last convolution.
migraphx::program shuffle_units(std::size_t channels)
{
    migraphx::program p;
    auto* m  = p.get_main_module();
    auto x   = m->add_parameter("x", shape{shape::float_type, {1, channels, 5, 4}});
    auto conv = [&](migraphx::instruction_ref in, std::size_t cin, std::size_t cout, unsigned seed) {
        shape ws{shape::float_type, {cout, cin, 1, 1}};
        auto wv = migraphx::generate_literal(ws, seed).to_vector<float>();
        for(auto& v : wv)
            v /= std::sqrt(static_cast<float>(cin));
        return m->add_instruction(make_op("relu"), m->add_instruction(make_op("convolution"), in,
                                                                      m->add_literal(migraphx::literal{ws, wv})));
    };
    auto shuffle = [&](migraphx::instruction_ref a, migraphx::instruction_ref b) {
        auto cat = m->add_instruction(make_op("concat", {{"axis", 1}}), a, b);
        auto r   = m->add_instruction(make_op("reshape", {{"dims", {1, 2, channels, 5, 4}}}), cat);
        auto t   = m->add_instruction(make_op("transpose", {{"permutation", {0, 2, 1, 3, 4}}}), r);
        auto c   = m->add_instruction(make_op("contiguous"), t);
        return m->add_instruction(make_op("reshape", {{"dims", {1, 2 * channels, 5, 4}}}), c);
    };
    auto half = [&](migraphx::instruction_ref s, std::size_t k) {
        return m->add_instruction(
            make_op("slice", {{"axes", {1}}, {"starts", {k * channels}}, {"ends", {(k + 1) * channels}}}), s);
    };
    auto s1 = shuffle(conv(x, channels, channels, 1), conv(x, channels, channels, 2));
    auto s2 = shuffle(half(s1, 0), conv(half(s1, 1), channels, channels, 3));
    m->add_return({conv(s2, 2 * channels, channels, 4)});
    return p;
}
} // namespace

#ifdef MIGRAPHX_HAVE_CPU
// Before: each shuffle went back to plain for the concat, the shuffle's copy and the slices, and
// into the layout again for the convolutions (8 reorders, 2 concats, 2 copies). After, in nhwc:
// the one reorder in and the one out, each shuffle one cpu::channel_shuffle that takes the concat
// in. In the blocked layouts it stays as it was (the op is for channels-last only).
TEST(cpu_blocked_layout, a_channel_shuffle_stays_in_the_channels_last_layout)
{
    for(const char* layout : {"nhwc", "blocked8"})
    {
        migx_test::scoped_env e("MIGRAPHX_CPU_LAYOUT", layout);
        auto p  = shuffle_units(16);
        auto& m = *p.get_main_module();
        migraphx::context ctx = migraphx::cpu::dnnl_context{};
        lower_and_lay_out(m, ctx);
        auto names = migx_test::op_names(m);
        auto count = [&](const char* n) { return std::count(names.begin(), names.end(), n); };
        SCOPED_TRACE(layout);
        if(std::string(layout) == "nhwc")
        {
            EXPECT_EQ(count("cpu::channel_shuffle"), 2) << m;
            EXPECT_EQ(count("dnnl::reorder"), 2) << m;
            std::vector<std::size_t> splits; // the first is only split, the second used whole
            for(auto it = m.begin(); it != m.end(); ++it)
                if(it->name() == "cpu::channel_shuffle")
                    splits.push_back(it->get_operator().to_value().at("splits").to<std::size_t>());
            EXPECT_EQ(splits, (std::vector<std::size_t>{2, 1})) << m;
            EXPECT_EQ(count("concat"), 0) << m;
        }
        else
        {
            EXPECT_EQ(count("cpu::channel_shuffle"), 0) << m;
            EXPECT_GT(count("dnnl::reorder"), 2) << m;
        }
    }
}

// A shuffle whose result is also used whole (here: returned beside its halves' use) is not split.
// Its halves are then plain slices, so the second shuffle, whose concat takes one, stays plain.
TEST(cpu_blocked_layout, a_shuffle_used_whole_is_not_split)
{
    migx_test::scoped_env e("MIGRAPHX_CPU_LAYOUT", "nhwc");
    auto p  = shuffle_units(8);
    auto& m = *p.get_main_module();
    std::vector<migraphx::instruction_ref> shuffles;
    for(auto it = m.begin(); it != m.end(); ++it)
        if(it->name() == "reshape" and it->get_shape().lens().size() == 4)
            shuffles.push_back(it);
    auto ret = std::prev(m.end());
    m.replace_return({ret->inputs().front(), shuffles.front()});
    migraphx::context ctx = migraphx::cpu::dnnl_context{};
    lower_and_lay_out(m, ctx);
    std::vector<std::size_t> splits;
    for(auto it = m.begin(); it != m.end(); ++it)
        if(it->name() == "cpu::channel_shuffle")
            splits.push_back(it->get_operator().to_value().at("splits").to<std::size_t>());
    EXPECT_EQ(splits, (std::vector<std::size_t>{1})) << m;
}
#endif

TEST(cpu_blocked_layout, a_channel_shuffle_matches_ref)
{
    MIGX_REQUIRE_CPU();
    matches_ref_in_every_layout(shuffle_units);
}
