// What the fused attention generators share (codegen_attention_parts.cpp), no device needed: the
// spec checks, the 16-byte row test, the batch offset and the score code with log2 e folded in.
#include <gtest/gtest.h>
#ifdef MIGRAPHX_HAVE_GPU
#include "targets/gpu/codegen_attention_parts.hpp"

using migraphx::shape;
namespace gpu   = migraphx::gpu;
namespace parts = migraphx::gpu::attention_parts;

namespace {

gpu::attention_spec plain()
{
    gpu::attention_spec a;
    a.q   = shape{shape::half_type, {2, 8, 32}};
    a.kt  = shape{shape::half_type, {2, 32, 9}};
    a.v   = shape{shape::half_type, {2, 9, 48}};
    a.out = shape{shape::half_type, {2, 8, 48}};
    return a;
}

} // namespace

TEST(gpu_codegen_attention_parts, supported_reads_the_sizes_and_refuses_mismatches)
{
    std::size_t m = 0, d = 0, n = 0, dv = 0;
    ASSERT_TRUE(parts::supported(plain(), m, d, n, dv));
    EXPECT_EQ(m, 8u);
    EXPECT_EQ(d, 32u);
    EXPECT_EQ(n, 9u);
    EXPECT_EQ(dv, 48u);
    auto bad = plain();
    bad.v    = shape{shape::half_type, {2, 10, 48}}; // keys differ
    EXPECT_FALSE(parts::supported(bad, m, d, n, dv));
    bad   = plain();
    bad.q = shape{shape::float_type, {2, 8, 32}};
    EXPECT_FALSE(parts::supported(bad, m, d, n, dv));
    bad = plain();
    bad.steps.push_back({"add", true, 0, false}); // a mask operand without a mask
    EXPECT_FALSE(parts::supported(bad, m, d, n, dv));
    bad      = plain();
    bad.mask = shape{shape::half_type, {2, 8, 9}};
    bad.steps.push_back({"max", false, 0, false});
    EXPECT_FALSE(parts::supported(bad, m, d, n, dv));
}

TEST(gpu_codegen_attention_parts, rows_vectorize_needs_unit_inner_stride_and_aligned_rows)
{
    EXPECT_TRUE(parts::rows_vectorize(shape{shape::half_type, {2, 12, 128, 64}, {128 * 2304, 64, 2304, 1}}, 1, 64));
    // K^T: the d axis (second from the end) contiguous
    EXPECT_TRUE(parts::rows_vectorize(shape{shape::half_type, {2, 12, 64, 128}, {128 * 2304, 64, 1, 2304}}, 2, 64));
    EXPECT_FALSE(parts::rows_vectorize(shape{shape::half_type, {2, 12, 64, 128}, {128 * 2304, 64, 1, 2304}}, 1, 128));
    // a row stride of 36 halves is not a multiple of 8
    EXPECT_FALSE(parts::rows_vectorize(shape{shape::half_type, {2, 4, 32}, {144, 36, 1}}, 1, 32));
}

TEST(gpu_codegen_attention_parts, batch_offset_skips_broadcast_and_unit_dims)
{
    shape mask{shape::half_type, {2, 12, 128, 128}, {128, 0, 0, 1}};
    EXPECT_EQ(parts::batch_offset(mask), "(idx_t)0 + b0 * (idx_t)128u");
    shape one{shape::half_type, {1, 3, 4, 4}};
    EXPECT_EQ(parts::batch_offset(one, "d"), "(idx_t)0 + d1 * (idx_t)16u");
}

TEST(gpu_codegen_attention_parts, score_code_folds_log2e_unless_a_constant_is_divided_by_the_score)
{
    auto a  = plain();
    a.scale = 0.5f;
    a.mask  = shape{shape::half_type, {2, 8, 9}};
    a.steps.push_back({"add", true, 0, false});
    const double log2e = 1.4426950408889634;
    auto lit           = [](double x) { return gpu::detail::float_literal(static_cast<float>(x)); };
    auto code          = parts::score_code(a, "  ");
    EXPECT_TRUE(parts::steps_fold_log2e(a));
    // the scale times log2 e, the mask times log2 e, no multiply after the steps
    EXPECT_EQ(code, "  v *= " + lit(0.5 * log2e) + ";\n  v = v + (mv * " + lit(log2e) + ");\n");
    a.steps.push_back({"div", false, 2, true}); // 2 / v
    EXPECT_FALSE(parts::steps_fold_log2e(a));
    EXPECT_EQ(parts::score_code(a, "  "),
              "  v *= " + lit(0.5) + ";\n  v = v + mv;\n  v = " + lit(2) + " / v;\n  v *= " + lit(log2e) + ";\n");
}
#endif
