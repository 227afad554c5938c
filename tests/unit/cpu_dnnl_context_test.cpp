// The cpu target's layout helpers and thread count; oneDNN primitives run from several threads
// at once (each execution's own scratchpad) and from copies of a compiled program (one engine).
#include "cpu_test_util.hpp"
#ifdef MIGRAPHX_HAVE_CPU
#include "scoped_env.hpp"
#include "targets/cpu/dnnl_context.hpp"
#include <migraphx/generate.hpp>
#include <migraphx/make_op.hpp>
#include <algorithm>
#include <cstdlib>
#include <thread>
#include <vector>

using migraphx::shape;

TEST(cpu_dnnl_context, blocked_shape_round_trips)
{
    auto b = migraphx::cpu::blocked_shape(shape::float_type, {2, 16, 5, 7}, 8);
    EXPECT_EQ(b.lens(), (std::vector<std::size_t>{2, 2, 5, 7, 8}));
    EXPECT_EQ(migraphx::cpu::logical_lens(b, "blocked8"), (std::vector<std::size_t>{2, 16, 5, 7}));
    EXPECT_EQ(migraphx::cpu::logical_lens(b, "plain"), b.lens());
    EXPECT_THROW(migraphx::cpu::blocked_shape(shape::float_type, {2, 12, 5, 7}, 8), migraphx::exception);
    auto b16 = migraphx::cpu::layout_shape(shape::float_type, {2, 32, 5, 7}, "blocked16");
    EXPECT_EQ(b16.lens(), (std::vector<std::size_t>{2, 2, 5, 7, 16}));
    EXPECT_EQ(migraphx::cpu::logical_lens(b16, "blocked16"), (std::vector<std::size_t>{2, 32, 5, 7}));
    EXPECT_THROW(migraphx::cpu::logical_lens(b16, "blocked8"), migraphx::exception); // last dim 16, not 8
    EXPECT_THROW(migraphx::cpu::blocked_shape(shape::float_type, {2, 24, 5, 7}, 16), migraphx::exception);
    EXPECT_EQ(migraphx::cpu::to_dnnl_md(b16, "blocked16").get_size(), b16.bytes());
    EXPECT_THROW(migraphx::cpu::layout_block("blocked4"), migraphx::exception);
}

TEST(cpu_dnnl_context, nhwc_shape_round_trips)
{
    auto s = migraphx::cpu::layout_shape(shape::float_type, {2, 24, 5, 7}, "nhwc");
    EXPECT_EQ(s.lens(), (std::vector<std::size_t>{2, 5, 7, 24}));
    EXPECT_EQ(migraphx::cpu::logical_lens(s, "nhwc"), (std::vector<std::size_t>{2, 24, 5, 7}));
    EXPECT_EQ(migraphx::cpu::layout_block("nhwc"), 0u);
    auto md = migraphx::cpu::to_dnnl_md(s, "nhwc");
    EXPECT_EQ(md.get_size(), s.bytes());
    // the channel of a pixel is the innermost dim: oneDNN's nhwc strides
    EXPECT_EQ(md, dnnl::memory::desc({2, 24, 5, 7}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::nhwc));
    auto s3 = migraphx::cpu::layout_shape(shape::float_type, {1, 3, 10}, "nhwc");
    EXPECT_EQ(s3.lens(), (std::vector<std::size_t>{1, 10, 3}));
    EXPECT_THROW(migraphx::cpu::layout_shape(shape::float_type, {4, 3}, "nhwc"), migraphx::exception);
    EXPECT_THROW(migraphx::cpu::logical_lens(shape{shape::float_type, {4, 3}}, "nhwc"), migraphx::exception);
}

TEST(cpu_dnnl_context, layout_follows_the_isa_unless_set)
{
    bool avx512 = dnnl::get_effective_cpu_isa() >= dnnl::cpu_isa::avx512_core;
    migx_test::scoped_env no_layout("MIGRAPHX_CPU_LAYOUT", nullptr);
    {
        migx_test::scoped_env e("MIGRAPHX_CPU_BLOCK", nullptr);
        EXPECT_EQ(migraphx::cpu::preferred_layout(), avx512 ? "nhwc" : "blocked8");
    }
    {
        migx_test::scoped_env e("MIGRAPHX_CPU_BLOCK", "8");
        EXPECT_EQ(migraphx::cpu::preferred_layout(), "blocked8");
    }
    {
        migx_test::scoped_env e("MIGRAPHX_CPU_BLOCK", "16");
        EXPECT_EQ(migraphx::cpu::preferred_layout(), "blocked16");
    }
    {
        migx_test::scoped_env e("MIGRAPHX_CPU_BLOCK", "12");
        EXPECT_THROW(migraphx::cpu::preferred_layout(), migraphx::exception);
    }
    for(const char* l : {"nhwc", "blocked8", "blocked16"})
    {
        migx_test::scoped_env e("MIGRAPHX_CPU_LAYOUT", l);
        migx_test::scoped_env b("MIGRAPHX_CPU_BLOCK", "8"); // the newer name wins
        EXPECT_EQ(migraphx::cpu::preferred_layout(), l);
    }
    {
        migx_test::scoped_env e("MIGRAPHX_CPU_LAYOUT", "nchw");
        EXPECT_THROW(migraphx::cpu::preferred_layout(), migraphx::exception);
    }
}

TEST(cpu_dnnl_context, plain_md_keeps_strides)
{
    shape t{shape::float_type, {2, 3}, {1, 2}};
    auto md = migraphx::cpu::to_dnnl_md(t, "plain");
    EXPECT_EQ(md.get_size(), 6 * sizeof(float));
    EXPECT_THROW(migraphx::cpu::to_dnnl_type(shape::double_type), migraphx::exception);
}

TEST(cpu_dnnl_context, tensors_reordered_into_and_out_of_a_primitives_layout)
{
    auto ctx = migraphx::get_target("cpu").get_context();
    auto& c  = migraphx::cpu::get_dnnl_context(ctx);
    shape s{shape::float_type, {2, 3, 4, 5}};
    std::vector<float> xs(s.elements());
    for(std::size_t i = 0; i < xs.size(); i++)
        xs[i] = static_cast<float>(i);
    migraphx::argument x{s, xs.data()};
    dnnl::memory::desc nhwc{{2, 3, 4, 5}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::nhwc};
    auto nchw_at = [](std::size_t n, std::size_t ch, std::size_t h, std::size_t w) { return ((n * 3 + ch) * 4 + h) * 5 + w; };
    auto nhwc_at = [](std::size_t n, std::size_t ch, std::size_t h, std::size_t w) { return ((n * 4 + h) * 5 + w) * 3 + ch; };

    // Already in the wanted layout: x's own memory, nothing kept.
    migraphx::argument keep;
    auto same = migraphx::cpu::input_in(migraphx::cpu::to_dnnl_md(s, "plain"), x, c, keep);
    EXPECT_TRUE(keep.empty());
    EXPECT_EQ(same.get_data_handle(), static_cast<void*>(x.data()));

    // Another layout: a reordered copy that `keep` owns.
    auto in = migraphx::cpu::input_in(nhwc, x, c, keep);
    ASSERT_FALSE(keep.empty());
    EXPECT_NE(in.get_data_handle(), static_cast<void*>(x.data()));
    const auto* got = static_cast<const float*>(in.get_data_handle());
    std::size_t bad = 0;
    for(std::size_t n = 0; n < 2; n++)
        for(std::size_t ch = 0; ch < 3; ch++)
            for(std::size_t h = 0; h < 4; h++)
                for(std::size_t w = 0; w < 5; w++)
                    bad += got[nhwc_at(n, ch, h, w)] != xs[nchw_at(n, ch, h, w)] ? 1 : 0;
    EXPECT_EQ(bad, 0u);

    // A result in NCHW from a primitive writing NHWC: written into the kept block, then reordered.
    migraphx::argument r{s};
    migraphx::argument out_keep;
    auto out = migraphx::cpu::output_in(nhwc, r, c, out_keep);
    ASSERT_FALSE(out_keep.empty());
    auto* o = static_cast<float*>(out.get_data_handle());
    for(std::size_t n = 0; n < 2; n++)
        for(std::size_t ch = 0; ch < 3; ch++)
            for(std::size_t h = 0; h < 4; h++)
                for(std::size_t w = 0; w < 5; w++)
                    o[nhwc_at(n, ch, h, w)] = static_cast<float>(nchw_at(n, ch, h, w)) + 0.5f;
    migraphx::cpu::output_done(out, r, out_keep, c);
    auto rv = r.to_vector<float>();
    for(std::size_t i = 0; i < rv.size(); i++)
        bad += rv[i] != static_cast<float>(i) + 0.5f ? 1 : 0;
    EXPECT_EQ(bad, 0u);
}

TEST(cpu_dnnl_context, thread_count_from_environment)
{
    setenv("MIGRAPHX_CPU_THREADS", "3", 1);
    EXPECT_EQ(migraphx::cpu::cpu_thread_count(), 3);
    unsetenv("MIGRAPHX_CPU_THREADS");
    EXPECT_GE(migraphx::cpu::cpu_thread_count(), 1);
}

TEST(cpu_dnnl_context, unknown_post_op_is_an_error)
{
    EXPECT_THROW(migraphx::cpu::make_post_ops({"frobnicate"}, {0}, {0}), migraphx::exception);
}

TEST(cpu_dnnl_context, threaded_copy_copies_every_byte)
{
    migx_test::scoped_env threads("MIGRAPHX_CPU_THREADS", "3");
    // sizes below, at and past the point where the copy is split, unaligned ones, and empty
    for(std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{4099}, std::size_t{256} << 10,
                         (std::size_t{3} << 20) + 37})
    {
        std::vector<unsigned char> src(n), dst(n + 1, 0xee);
        for(std::size_t i = 0; i < n; i++)
            src[i] = static_cast<unsigned char>(i * 131 + 7);
        migraphx::cpu::copy_threaded(dst.data(), src.data(), n);
        EXPECT_TRUE(std::equal(src.begin(), src.end(), dst.begin())) << n;
        EXPECT_EQ(dst[n], 0xee) << n; // nothing written past the end
    }
}
namespace {

/// A convolution and a max pooling of an NCHW input (both use oneDNN scratchpads there).
migraphx::program conv_pool()
{
    using migraphx::make_op;
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{shape::float_type, {1, 16, 12, 12}});
    auto w  = m->add_literal(migraphx::generate_literal(shape{shape::float_type, {16, 16, 3, 3}}, 1));
    auto c  = m->add_instruction(make_op("convolution", {{"padding", {1, 1}}}), x, w);
    auto pl = make_op("pooling", {{"mode", "max"}, {"lengths", {2, 2}}, {"stride", {2, 2}}, {"padding", {0, 0}}});
    m->add_return({m->add_instruction(pl, c), m->add_instruction(pl, x)});
    p.compile(migraphx::get_target("cpu"));
    return p;
}

std::vector<std::vector<float>> outputs(migraphx::program& p, const migraphx::parameter_map& params)
{
    std::vector<std::vector<float>> r;
    for(const auto& a : p.eval(params))
        r.push_back(a.to_vector<float>());
    return r;
}

} // namespace

TEST(cpu_dnnl_context, primitives_take_the_callers_scratchpad)
{
    EXPECT_EQ(migraphx::cpu::user_scratchpad().get_scratchpad_mode(), dnnl::scratchpad_mode::user);
}

// Before each execution had its own scratchpad, 4 threads running one program gave wrong
// results in 5 of 200 runs (a shared library scratchpad).
TEST(cpu_dnnl_context, one_program_from_several_threads_gives_the_single_thread_results)
{
    MIGX_REQUIRE_CPU();
    auto p = conv_pool();
    std::vector<migraphx::parameter_map> in(4);
    std::vector<std::vector<std::vector<float>>> want(4);
    for(std::size_t t = 0; t < in.size(); t++)
    {
        in[t]["x"] = migraphx::generate_argument(shape{shape::float_type, {1, 16, 12, 12}}, 10 + t);
        want[t]    = outputs(p, in[t]);
    }
    std::vector<int> wrong(in.size(), 0);
    std::vector<std::thread> threads;
    for(std::size_t t = 0; t < in.size(); t++)
        threads.emplace_back([&, t] {
            for(int i = 0; i < 100; i++)
                wrong[t] += outputs(p, in[t]) != want[t];
        });
    for(auto& th : threads)
        th.join();
    for(std::size_t t = 0; t < in.size(); t++)
        EXPECT_EQ(wrong[t], 0) << "thread " << t;
}

// A copy of a compiled program gets a context of its own; its primitives were made on the
// original's engine, so every context shares the process's one engine.
TEST(cpu_dnnl_context, a_copy_of_a_compiled_program_runs)
{
    MIGX_REQUIRE_CPU();
    auto p = conv_pool();
    migraphx::parameter_map in{{"x", migraphx::generate_argument(shape{shape::float_type, {1, 16, 12, 12}}, 3)}};
    auto q = p;
    EXPECT_EQ(outputs(q, in), outputs(p, in));
}
#else
TEST(cpu_dnnl_context, not_built) { GTEST_SKIP() << "this build has no cpu target"; }
#endif
