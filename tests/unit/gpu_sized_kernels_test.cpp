// gpu/sized_kernels: the sources of the kernels that take their sizes at launch compile with
// NVRTC (no device needed), and the walks they take describe the tensors as given.
#include <gtest/gtest.h>
#ifdef MIGRAPHX_HAVE_GPU
#include "targets/gpu/kernel_compiler.hpp"
#include "targets/gpu/sized_kernels.hpp"
#include <migraphx/errors.hpp>

namespace gpu = migraphx::gpu;

TEST(gpu_sized_kernels, every_source_compiles)
{
    for(bool wide : {false, true})
    {
        for(std::size_t bytes : {1, 2, 4, 8})
        {
            auto c = gpu::copy_source(bytes, wide);
            EXPECT_NO_THROW(gpu::compile_cuda(c.source, c.name, 9, 0)) << c.source;
            for(bool i64 : {false, true})
            {
                auto g = gpu::gather_source(bytes, i64, wide);
                EXPECT_NO_THROW(gpu::compile_cuda(g.source, g.name, 9, 0)) << g.source;
                auto s = gpu::scatter_source(bytes, i64, wide);
                EXPECT_NO_THROW(gpu::compile_cuda(s.source, s.name, 9, 0)) << s.source;
                auto nd = gpu::gathernd_source(bytes, i64, wide);
                EXPECT_NO_THROW(gpu::compile_cuda(nd.source, nd.name, 9, 0)) << nd.source;
            }
        }
    }
    auto v = gpu::values_source();
    EXPECT_NO_THROW(gpu::compile_cuda(v.source, v.name, 9, 0)) << v.source;
    for(bool half : {false, true})
        for(bool i64 : {false, true})
        {
            auto r = gpu::roialign_source(half, i64);
            EXPECT_NO_THROW(gpu::compile_cuda(r.source, r.name, 9, 0)) << r.source;
        }
    for(bool half : {false, true})
        for(bool largest : {false, true})
        {
            auto t = gpu::topk_source(half, largest);
            EXPECT_NE(t.source.find("keys[4096]"), std::string::npos) << t.source; // sized for the largest k
            EXPECT_NO_THROW(gpu::compile_cuda(t.source, t.name, 9, 0)) << t.source;
        }
    EXPECT_NE(gpu::topk_source(true, true).name, gpu::topk_source(true, false).name);
    for(std::size_t bytes : {1, 2, 4, 8})
    {
        auto nz = gpu::nonzero_source(bytes, false);
        EXPECT_NO_THROW(gpu::compile_cuda(nz.source, nz.name, 9, 0)) << nz.source;
        if(bytes >= 2)
        {
            auto nf = gpu::nonzero_source(bytes, true);
            EXPECT_NE(nf.source.find("~("), std::string::npos) << nf.source; // the sign bit dropped: -0 is zero
            EXPECT_NO_THROW(gpu::compile_cuda(nf.source, nf.name, 9, 0)) << nf.source;
        }
    }
    EXPECT_NE(gpu::gathernd_source(4, true, false).name, gpu::gathernd_source(4, false, false).name);
}

TEST(gpu_sized_kernels, names_tell_the_variants_apart)
{
    EXPECT_NE(gpu::copy_source(4, false).name, gpu::copy_source(4, true).name);
    EXPECT_NE(gpu::copy_source(4, false).name, gpu::copy_source(2, false).name);
    EXPECT_NE(gpu::gather_source(4, false, false).name, gpu::gather_source(4, true, false).name);
    EXPECT_NE(gpu::roialign_source(false, true).name, gpu::roialign_source(true, true).name);
    // the 32-bit variant indexes in unsigned int, the wide one in 64 bits
    EXPECT_NE(gpu::scatter_source(8, true, false).source.find("typedef unsigned int idx_t"), std::string::npos);
    EXPECT_NE(gpu::scatter_source(8, true, true).source.find("typedef unsigned long long idx_t"), std::string::npos);
}

TEST(gpu_sized_kernels, a_walk_holds_lens_and_strides_of_each_tensor)
{
    auto w = gpu::make_walk({5, 3, 2}, {6, 2, 1}, {1, 5, 15});
    EXPECT_EQ(w.rank, 3);
    EXPECT_EQ(w.elements(), 30u);
    EXPECT_EQ(w.lens[1], 3u);
    EXPECT_EQ(w.a[0], 6);
    EXPECT_EQ(w.b[2], 15);
    EXPECT_EQ(w.c[0], 0); // a tensor not given reads offset 0
    EXPECT_EQ(gpu::make_walk({}, {}).elements(), 1u); // a scalar
    EXPECT_THROW(gpu::make_walk(std::vector<std::size_t>(9, 1), {}), migraphx::exception);
}

TEST(gpu_sized_kernels, offsets_past_two_to_the_31_need_the_wide_walk)
{
    EXPECT_FALSE(gpu::wide_walk(1000, 1u << 20));
    EXPECT_TRUE(gpu::wide_walk(1000, 1ull << 31));
    EXPECT_TRUE(gpu::wide_walk(1ull << 31, 10));
}
#else
TEST(gpu_sized_kernels, needs_cuda) { GTEST_SKIP() << "built without CUDA"; }
#endif
