// Concat, gather and pad kernel sources (no device needed): NVRTC compiles each for sm_90.
// Results against ref: gpu_kernels_test.cpp.
#include <gtest/gtest.h>
#ifdef MIGRAPHX_HAVE_GPU
#include "targets/gpu/codegen.hpp"
#include "targets/gpu/kernel_compiler.hpp"

using migraphx::shape;
namespace gpu = migraphx::gpu;

TEST(gpu_codegen_data, concat_gather_pad_compile)
{
    auto c = gpu::generate_concat(
        1, {shape{shape::float_type, {2, 3, 5}}, shape{shape::float_type, {2, 4, 5}, {20, 1, 4}}}, shape{shape::float_type, {2, 7, 5}});
    EXPECT_EQ(c.name, "concat_kernel");
    EXPECT_EQ(c.elements, 70u);
    EXPECT_NE(c.source.find("(d1 - 3u)"), std::string::npos) << c.source;
    EXPECT_NO_THROW(gpu::compile_cuda(c.source, c.name, 9, 0)) << c.source;

    auto g = gpu::generate_gather(0, shape{shape::half_type, {100, 16}}, shape{shape::int64_type, {2, 5}},
                                  shape{shape::half_type, {2, 5, 16}});
    ASSERT_TRUE(g.has_value());
    EXPECT_NE(g->source.find("k += 100ll"), std::string::npos) << g->source;
    EXPECT_NO_THROW(gpu::compile_cuda(g->source, g->name, 9, 0)) << g->source;
    EXPECT_FALSE(gpu::generate_gather(0, shape{shape::float_type, {4}}, shape{shape::float_type, {2}},
                                      shape{shape::float_type, {2}}));

    for(std::int64_t mode : {0, 1, 2})
    {
        auto p = gpu::generate_pad({1, -1, 2, 3}, mode, 0x3fc00000, shape{shape::float_type, {4, 6}},
                                   shape{shape::float_type, {7, 8}});
        EXPECT_EQ(p.name, "pad_kernel");
        EXPECT_NO_THROW(gpu::compile_cuda(p.source, p.name, 9, 0)) << p.source;
    }
}
// An embedding table's rows are copied 16 bytes a thread (a thread a vector launched), with the
// element loop kept for pointers that are not 16-byte aligned; rows that are no whole vectors, or
// a data tensor whose rows are not packed, keep the element kernel.
TEST(gpu_codegen_data, gather_of_whole_vector_rows_copies_vectors)
{
    auto g = gpu::generate_gather(0, shape{shape::half_type, {30522, 768}}, shape{shape::int64_type, {64, 128}},
                                  shape{shape::half_type, {64, 128, 768}});
    ASSERT_TRUE(g.has_value());
    EXPECT_NE(g->source.find("reinterpret_cast<uint4*>(y)[q] = *reinterpret_cast<const uint4*>(x0 + ("),
              std::string::npos)
        << g->source;
    EXPECT_NE(g->source.find("y[i] = x0["), std::string::npos) << "the element loop stays";
    EXPECT_EQ(g->elements, 64u * 128 * 768 / 8);
    EXPECT_NO_THROW(gpu::compile_cuda(g->source, g->name, 9, 0)) << g->source;
    auto rows12 = gpu::generate_gather(0, shape{shape::half_type, {100, 12}}, shape{shape::int64_type, {5}},
                                       shape{shape::half_type, {5, 12}});
    ASSERT_TRUE(rows12.has_value());
    EXPECT_EQ(rows12->source.find("uint4"), std::string::npos);
    EXPECT_EQ(rows12->elements, 60u);
    auto transposed = gpu::generate_gather(0, shape{shape::half_type, {100, 16}, {1, 100}},
                                           shape{shape::int64_type, {5}}, shape{shape::half_type, {5, 16}});
    ASSERT_TRUE(transposed.has_value());
    EXPECT_EQ(transposed->source.find("uint4"), std::string::npos);
}

TEST(gpu_codegen_data, channel_pad_into_nhwc_is_one_thread_a_pixel)
{
    using migraphx::shape;
    namespace gpu = migraphx::gpu;
    // 3 NCHW channels padded with zeros to 8 in an NHWC buffer (layout_nhwc's stem padding)
    shape in{shape::half_type, {2, 3, 5, 7}};
    shape out{shape::half_type, {2, 8, 5, 7}, {280, 1, 56, 8}};
    auto k = gpu::generate_pad({0, 0, 0, 0, 0, 5, 0, 0}, 0, 0, in, out);
    EXPECT_EQ(k.elements, 2u * 5 * 7);
    EXPECT_NE(k.source.find("uint4"), std::string::npos) << k.source; // 8 halves: one 16-byte store
    EXPECT_NO_THROW(gpu::compile_cuda(k.source, k.name, 9, 0)) << k.source;
    // 6 channels of 2 bytes: no whole vector, element stores
    auto k6 = gpu::generate_pad({0, 0, 0, 0, 0, 3, 0, 0}, 0, 0, in, shape{shape::half_type, {2, 6, 5, 7}, {210, 1, 42, 6}});
    EXPECT_EQ(k6.elements, 2u * 5 * 7);
    EXPECT_EQ(k6.source.find("uint4*"), std::string::npos) << k6.source;
    EXPECT_NO_THROW(gpu::compile_cuda(k6.source, k6.name, 9, 0)) << k6.source;
    // padding H too, a standard output or reflect mode: one thread an element, as before
    auto kh = gpu::generate_pad({0, 0, 1, 0, 0, 5, 1, 0}, 0, 0, in, shape{shape::half_type, {2, 8, 7, 7}, {392, 1, 56, 8}});
    EXPECT_EQ(kh.elements, 2u * 8 * 7 * 7);
    auto ks = gpu::generate_pad({0, 0, 0, 0, 0, 5, 0, 0}, 0, 0, in, shape{shape::half_type, {2, 8, 5, 7}});
    EXPECT_EQ(ks.elements, 2u * 8 * 5 * 7);
    auto kr = gpu::generate_pad({0, 0, 0, 0, 0, 2, 0, 0}, 1, 0, in, shape{shape::half_type, {2, 5, 5, 7}, {175, 1, 35, 5}});
    EXPECT_EQ(kr.elements, 2u * 5 * 5 * 7);
}
#else
TEST(gpu_codegen_data, skipped) { GTEST_SKIP() << "built without CUDA"; }
#endif
