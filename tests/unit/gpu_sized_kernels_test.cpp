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
            auto cc = gpu::concat_source(bytes);
            EXPECT_NO_THROW(gpu::compile_cuda(cc.source, cc.name, 9, 0)) << cc.source;
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
    EXPECT_NE(gpu::concat_source(4).name, gpu::concat_source(8).name);
    // the parts' array sizes in the kernel are the host struct's (its layout is passed by value)
    EXPECT_NE(gpu::concat_source(4).source.find("src[" + std::to_string(gpu::concat_parts::max_parts) + "]"),
              std::string::npos);
    EXPECT_NE(gpu::gather_source(4, false, false).name, gpu::gather_source(4, true, false).name);
    EXPECT_NE(gpu::roialign_source(false, true).name, gpu::roialign_source(true, true).name);
    // the 32-bit variant indexes in unsigned int, the wide one in 64 bits
    EXPECT_NE(gpu::scatter_source(8, true, false).source.find("typedef unsigned int idx_t"), std::string::npos);
    EXPECT_NE(gpu::scatter_source(8, true, true).source.find("typedef unsigned long long idx_t"), std::string::npos);
}

// A concat's parts for its one launch: each input's columns of the output rows; a transposed
// (non-standard) input, or more inputs than the launch holds, leave it to a copy an input.
TEST(gpu_sized_kernels, concat_parts_place_each_input_along_the_axis)
{
    using migraphx::shape;
    int a = 0, b = 0, c = 0;
    shape out{shape::float_type, {3, 7, 2}};
    auto d = gpu::concat_parts_for({shape{shape::float_type, {3, 2, 2}}, shape{shape::float_type, {3, 0, 2}},
                                    shape{shape::float_type, {3, 5, 2}}},
                                   {&a, &b, &c}, out, 1);
    ASSERT_TRUE(d.has_value());
    EXPECT_EQ(d->count, 3u);
    EXPECT_EQ(d->outer, 3u);
    EXPECT_EQ(d->row, 14u);
    EXPECT_EQ((std::vector<std::uint64_t>{d->start[0], d->start[1], d->start[2]}), (std::vector<std::uint64_t>{0, 4, 4}));
    EXPECT_EQ((std::vector<std::uint64_t>{d->width[0], d->width[1], d->width[2]}), (std::vector<std::uint64_t>{4, 0, 10}));
    EXPECT_EQ(d->src[2], &c);
    shape transposed{shape::float_type, {3, 2, 2}, {4, 1, 2}};
    EXPECT_FALSE(gpu::concat_parts_for({transposed, shape{shape::float_type, {3, 5, 2}}}, {&a, &b}, out, 1));
    std::vector<shape> many(gpu::concat_parts::max_parts + 1, shape{shape::float_type, {1}});
    std::vector<const void*> src(many.size(), &a);
    EXPECT_FALSE(gpu::concat_parts_for(many, src, shape{shape::float_type, {many.size()}}, 0));
    many.pop_back();
    src.pop_back();
    EXPECT_TRUE(gpu::concat_parts_for(many, src, shape{shape::float_type, {many.size()}}, 0));
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
