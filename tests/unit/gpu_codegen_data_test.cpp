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
#else
TEST(gpu_codegen_data, skipped) { GTEST_SKIP() << "built without CUDA"; }
#endif
