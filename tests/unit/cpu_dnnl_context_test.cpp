// The cpu target's layout helpers and thread count.
#include "cpu_test_util.hpp"
#ifdef MIGRAPHX_HAVE_CPU
#include "scoped_env.hpp"
#include "targets/cpu/dnnl_context.hpp"
#include <algorithm>
#include <cstdlib>
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
#else
TEST(cpu_dnnl_context, not_built) { GTEST_SKIP() << "this build has no cpu target"; }
#endif
