// Reduction, softmax and pooling kernel sources (no device needed): NVRTC compiles each for sm_90,
// and the group size follows the row length. Results against ref: gpu_kernels_test.cpp.
#include <gtest/gtest.h>
#ifdef MIGRAPHX_HAVE_GPU
#include "targets/gpu/codegen.hpp"
#include "targets/gpu/kernel_compiler.hpp"

using migraphx::shape;
namespace gpu = migraphx::gpu;

namespace {
void expect_compiles(const gpu::kernel_source& k)
{
    EXPECT_NO_THROW(gpu::compile_cuda(k.source, k.name, 9, 0)) << k.source;
}
} // namespace

TEST(gpu_codegen_reduce, reduce_kinds_and_group_sizes)
{
    for(std::string kind : {"sum", "mean", "max", "min", "prod"})
    {
        auto k = gpu::generate_reduce(kind, shape{shape::float_type, {4, 64, 9}}, shape{shape::float_type, {4, 1, 9}});
        ASSERT_TRUE(k.has_value()) << kind;
        EXPECT_EQ(k->name, "reduce_" + kind + "_kernel");
        EXPECT_EQ(k->elements, 36u * 32); // 64 per row: a warp per output
        expect_compiles(*k);
    }
    auto small = gpu::generate_reduce("sum", shape{shape::half_type, {8, 3}}, shape{shape::half_type, {8, 1}});
    ASSERT_TRUE(small.has_value());
    EXPECT_EQ(small->elements, 8u); // a thread per output
    expect_compiles(*small);
    auto big = gpu::generate_reduce("max", shape{shape::float_type, {3, 50, 40}}, shape{shape::float_type, {1, 1, 1}});
    ASSERT_TRUE(big.has_value());
    EXPECT_EQ(big->elements, 256u); // a block per output
    expect_compiles(*big);
    EXPECT_FALSE(gpu::generate_reduce("sum", shape{shape::int32_type, {4}}, shape{shape::int32_type, {1}}));
    EXPECT_FALSE(gpu::generate_reduce("median", shape{shape::float_type, {4}}, shape{shape::float_type, {1}}));
}

TEST(gpu_codegen_reduce, softmax_strided_input)
{
    shape in{shape::float_type, {6, 40}, {1, 6}};
    auto k = gpu::generate_softmax(false, 0, in, shape{shape::float_type, {6, 40}});
    ASSERT_TRUE(k.has_value());
    EXPECT_EQ(k->name, "softmax_kernel");
    EXPECT_EQ(k->elements, 40u); // rows of 6: a thread each
    expect_compiles(*k);
    // A transposed input whose row dims merge differently from the output's: one row digit set
    // must address both (this failed to compile once).
    auto t = gpu::generate_softmax(true, 1, shape{shape::float_type, {3, 9, 4}, {36, 1, 9}},
                                   shape{shape::float_type, {3, 9, 4}});
    ASSERT_TRUE(t.has_value());
    EXPECT_NE(t->source.find("obase = (o0 * 36u + o1 * 1u)"), std::string::npos) << t->source;
    expect_compiles(*t);
    auto l = gpu::generate_softmax(true, 1, shape{shape::half_type, {4, 3000}}, shape{shape::half_type, {4, 3000}});
    ASSERT_TRUE(l.has_value());
    EXPECT_EQ(l->elements, 4u * 256);
    expect_compiles(*l);
}

TEST(gpu_codegen_reduce, pooling_modes)
{
    gpu::pooling_window w{"max", {3, 3}, {2, 2}, {1, 1}, 2};
    auto k = gpu::generate_pooling(w, shape{shape::float_type, {2, 8, 17, 17}}, shape{shape::float_type, {2, 8, 9, 9}});
    ASSERT_TRUE(k.has_value());
    EXPECT_EQ(k->name, "max_pooling_kernel");
    expect_compiles(*k);
    w.mode = "lpnorm";
    w.lp_order = 3;
    auto l = gpu::generate_pooling(w, shape{shape::half_type, {2, 8, 17, 17}}, shape{shape::half_type, {2, 8, 9, 9}});
    ASSERT_TRUE(l.has_value());
    expect_compiles(*l);
    gpu::pooling_window g{"average", {7, 7}, {1, 1}, {0, 0}, 2};
    auto a = gpu::generate_pooling(g, shape{shape::float_type, {2, 16, 7, 7}}, shape{shape::float_type, {2, 16, 1, 1}});
    ASSERT_TRUE(a.has_value());
    EXPECT_EQ(a->elements, 32u * 32);
    expect_compiles(*a);
    w.mode = "median";
    EXPECT_FALSE(gpu::generate_pooling(w, shape{shape::float_type, {2, 8, 17, 17}}, shape{shape::float_type, {2, 8, 9, 9}}));
}
#else
TEST(gpu_codegen_reduce, skipped) { GTEST_SKIP() << "built without CUDA"; }
#endif
