// The Hopper attention kernel's generator (codegen_attention_wgmma.cpp), no device needed: when
// generate_attention picks it (an sm_90 device unless MIGRAPHX_GPU_ATTENTION_WGMMA=0, up to 128 keys,
// Q/K/V within 48 KiB of shared memory), the wgmma shapes it asks for, and that NVRTC compiles its
// variants for sm_90a and refuses it, naming why, for another device. Results against ref on a
// device: gpu_lower_attention_test.cpp (hopper_kernel_matches_ref_on_device); fragment and
// descriptor bookkeeping on the host: tools/gpu/attention_emulate.cpp.
#include <gtest/gtest.h>
#ifdef MIGRAPHX_HAVE_GPU
#include "scoped_env.hpp"
#include "targets/gpu/codegen.hpp"
#include "targets/gpu/kernel_compiler.hpp"
#include <migraphx/errors.hpp>

using migraphx::shape;
namespace gpu = migraphx::gpu;

namespace {

/// BERT-base's heads read in place from [batch, seq, 3 * 768], written to [batch, seq, 768], its
/// padding mask one row a batch; on an sm_90 device.
gpu::attention_spec bert(std::size_t keys = 128)
{
    gpu::attention_spec a;
    a.q     = shape{shape::half_type, {2, 12, 128, 64}, {128 * 2304, 64, 2304, 1}};
    a.kt    = shape{shape::half_type, {2, 12, 64, keys}, {keys * 2304, 64, 1, 2304}};
    a.v     = shape{shape::half_type, {2, 12, keys, 64}, {keys * 2304, 64, 2304, 1}};
    a.out   = shape{shape::half_type, {2, 12, 128, 64}, {128 * 768, 64, 768, 1}};
    a.mask  = shape{shape::half_type, {2, 12, 128, keys}, {keys, 0, 0, 1}};
    a.scale = 0.125f;
    a.steps.push_back({"add", true, 0, false});
    a.sm = 90;
    return a;
}

std::string kernel_of(const gpu::attention_spec& a)
{
    auto k = gpu::generate_attention(a);
    return k ? k->name : "none";
}

} // namespace

TEST(gpu_codegen_attention_wgmma, chosen_on_sm_90_unless_turned_off)
{
    {
        migx_test::scoped_env unset("MIGRAPHX_GPU_ATTENTION_WGMMA", nullptr);
        EXPECT_EQ(kernel_of(bert()), "attention_wgmma_kernel"); // the default
    }
    migx_test::scoped_env on("MIGRAPHX_GPU_ATTENTION_WGMMA", "1");
    EXPECT_EQ(kernel_of(bert()), "attention_wgmma_kernel");
    auto other = bert();
    other.sm   = 80;
    EXPECT_EQ(kernel_of(other), "attention_kernel");
    other.sm = 0; // host tools: no device known
    EXPECT_EQ(kernel_of(other), "attention_kernel");
    migx_test::scoped_env zero("MIGRAPHX_GPU_ATTENTION_WGMMA", "0");
    EXPECT_EQ(kernel_of(bert()), "attention_kernel");
}

TEST(gpu_codegen_attention_wgmma, its_range)
{
    migx_test::scoped_env on("MIGRAPHX_GPU_ATTENTION_WGMMA", "1");
    EXPECT_EQ(kernel_of(bert(129)), "attention_kernel"); // past 128 keys: the online-softmax kernel
    // head size 128 at 128 keys: Q, K and V take 80 KiB
    gpu::attention_spec wide;
    wide.q   = shape{shape::half_type, {2, 128, 128}};
    wide.kt  = shape{shape::half_type, {2, 128, 128}};
    wide.v   = shape{shape::half_type, {2, 128, 128}};
    wide.out = shape{shape::half_type, {2, 128, 128}};
    wide.sm  = 90;
    EXPECT_EQ(kernel_of(wide), "attention_kernel");
    // what the mma.sync kernel refuses, this one does too (D not a multiple of 16)
    auto bad = bert();
    bad.q    = shape{shape::half_type, {2, 12, 128, 40}};
    bad.kt   = shape{shape::half_type, {2, 12, 40, 128}};
    EXPECT_FALSE(gpu::generate_attention_wgmma(bad).has_value());
}

TEST(gpu_codegen_attention_wgmma, wgmma_shapes_follow_keys_and_head_size)
{
    migx_test::scoped_env on("MIGRAPHX_GPU_ATTENTION_WGMMA", "1");
    auto k = gpu::generate_attention(bert());
    ASSERT_TRUE(k.has_value());
    EXPECT_NE(k->source.find("wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16"), std::string::npos);
    EXPECT_NE(k->source.find("wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16"), std::string::npos);
    // 40 keys are padded to 48 (wgmma's k is 16); the padding masked out
    k = gpu::generate_attention(bert(40));
    ASSERT_TRUE(k.has_value());
    EXPECT_NE(k->source.find("m64n48k16"), std::string::npos);
    EXPECT_NE(k->source.find("key < 40 ? v : MIGX_NEG_INF"), std::string::npos);
}

// BERT's 128 rows: two warpgroups a block (K and V read once an item; no static mask array: the
// two-stage kernel copies the row into its buffer, two_stages_unless_one_is_asked); one
// warpgroup (64 rows, one stage) stages it in a static array.
TEST(gpu_codegen_attention_wgmma, two_warpgroups_for_more_than_64_rows)
{
    migx_test::scoped_env on("MIGRAPHX_GPU_ATTENTION_WGMMA", "1");
    auto k = gpu::generate_attention(bert());
    ASSERT_TRUE(k.has_value());
    EXPECT_EQ(k->local, 256u);
    EXPECT_EQ(k->elements, 2u * 12 * 256); // a block an item
    EXPECT_NE(k->source.find("__launch_bounds__(256, 2)"), std::string::npos);
    EXPECT_EQ(k->source.find("__shared__ float ms["), std::string::npos);
    migx_test::scoped_env rows("MIGRAPHX_GPU_ATTENTION_WGMMA_ROWS", "64");
    k = gpu::generate_attention(bert());
    ASSERT_TRUE(k.has_value());
    EXPECT_EQ(k->local, 128u);
    EXPECT_EQ(k->elements, 2u * 12 * 2 * 128); // two blocks an item
    EXPECT_NE(k->source.find("__launch_bounds__(128, 3)"), std::string::npos);
    EXPECT_NE(k->source.find("__shared__ float ms[128];"), std::string::npos);
}

// Head size 64: 128-byte rows in the 128-byte swizzle; other head sizes (and the switch) the
// unswizzled core-matrix layout.
TEST(gpu_codegen_attention_wgmma, swizzled_rows_at_head_size_64)
{
    migx_test::scoped_env on("MIGRAPHX_GPU_ATTENTION_WGMMA", "1");
    auto k = gpu::generate_attention(bert());
    ASSERT_TRUE(k.has_value());
    EXPECT_NE(k->source.find("wgmma_desc_sw128(qw"), std::string::npos);
    EXPECT_NE(k->source.find("wgmma_desc_sw128(vs"), std::string::npos);
    auto narrow = bert();
    narrow.q    = shape{shape::half_type, {2, 12, 128, 32}};
    narrow.kt   = shape{shape::half_type, {2, 12, 32, 128}};
    narrow.v    = shape{shape::half_type, {2, 12, 128, 32}};
    narrow.out  = shape{shape::half_type, {2, 12, 128, 32}};
    k           = gpu::generate_attention(narrow);
    ASSERT_TRUE(k.has_value());
    EXPECT_EQ(k->name, "attention_wgmma_kernel");
    EXPECT_EQ(k->source.find("wgmma_desc_sw128(qw"), std::string::npos);
    migx_test::scoped_env off("MIGRAPHX_GPU_ATTENTION_WGMMA_SWIZZLE", "0");
    k = gpu::generate_attention(bert());
    ASSERT_TRUE(k.has_value());
    EXPECT_EQ(k->source.find("wgmma_desc_sw128(qw"), std::string::npos);
}

// Two stages by default: a persistent grid (2 blocks an SM) whose blocks copy the next item into a
// second buffer of dynamic shared memory while they compute this one; where two buffers a block
// do not fit the blocks an SM (one warpgroup, 3 blocks of BERT's 40 KiB), one stage.
// MIGRAPHX_GPU_ATTENTION_WGMMA_STAGES=1 keeps one.
TEST(gpu_codegen_attention_wgmma, two_stages_unless_one_is_asked)
{
    migx_test::scoped_env on("MIGRAPHX_GPU_ATTENTION_WGMMA", "1");
    {
        migx_test::scoped_env one("MIGRAPHX_GPU_ATTENTION_WGMMA_STAGES", "1");
        auto k = gpu::generate_attention(bert());
        ASSERT_TRUE(k.has_value());
        EXPECT_EQ(k->shared_bytes, 0u);
        EXPECT_EQ(k->blocks_per_sm, 0u);
        EXPECT_EQ(k->source.find("extern __shared__"), std::string::npos);
    }
    migx_test::scoped_env unset("MIGRAPHX_GPU_ATTENTION_WGMMA_STAGES", nullptr);
    auto k = gpu::generate_attention(bert());
    ASSERT_TRUE(k.has_value());
    // two buffers of Q, K, V (48 KiB) and the mask row (256 bytes) in whole KiB, aligned to 1024 at run time
    EXPECT_EQ(k->shared_bytes, 2u * 49 * 1024 + 1024);
    EXPECT_EQ(k->blocks_per_sm, 2u);
    EXPECT_EQ(k->elements, 2u * 12 * 256); // the items; the launch caps the grid at 2 blocks an SM
    EXPECT_NE(k->source.find("extern __shared__ unsigned char migx_dyn[];"), std::string::npos);
    EXPECT_NE(k->source.find("load_item(blk + gridDim.x"), std::string::npos);
    // the next item's copies start once this item's first group is in (and every thread is done
    // with the other buffer); this item's second group then waits behind the next item's two
    auto first = k->source.find("cp_async_wait<1>();"), next = k->source.find("load_item(blk + gridDim.x");
    auto second = k->source.find("cp_async_wait<2>();");
    EXPECT_LT(first, next);
    EXPECT_LT(next, second);
    EXPECT_NE(second, std::string::npos);
    EXPECT_EQ(k->source.find("cp_async_wait<0>();"), std::string::npos);
    // the mask row comes with its item (a cp.async piece each 8 keys) and is read in pairs
    EXPECT_NE(k->source.find("cp_async16(msd + i * 8"), std::string::npos);
    EXPECT_NE(k->source.find("pair_of(msr + j * 8 + t * 2)"), std::string::npos);
    EXPECT_EQ(k->source.find("mb[(idx_t)key"), std::string::npos);
    {
        migx_test::scoped_env place("MIGRAPHX_GPU_ATTENTION_WGMMA_MASK", "place");
        auto in_place = gpu::generate_attention(bert());
        ASSERT_TRUE(in_place.has_value());
        EXPECT_EQ(in_place->shared_bytes, 2u * 48 * 1024 + 1024);
        EXPECT_NE(in_place->source.find("mb[(idx_t)key"), std::string::npos);
    }
    migx_test::scoped_env rows("MIGRAPHX_GPU_ATTENTION_WGMMA_ROWS", "64");
    k = gpu::generate_attention(bert());
    ASSERT_TRUE(k.has_value());
    EXPECT_EQ(k->shared_bytes, 0u);
    EXPECT_NE(k->source.find("cp_async_wait<0>();"), std::string::npos);
}

TEST(gpu_codegen_attention_wgmma, compiles_for_sm_90a_only)
{
    migx_test::scoped_env on("MIGRAPHX_GPU_ATTENTION_WGMMA", "1");
    auto row_mask = bert();
    auto no_mask  = bert(72);
    no_mask.mask.reset();
    no_mask.steps.clear();
    auto full_mask = bert();
    full_mask.mask = shape{shape::float_type, {2, 12, 128, 128}};
    full_mask.nan_to_zero = true;
    for(const char* rows : {"128", "64"})
        for(const char* swizzle : {"1", "0"})
            for(const char* stages : {"1", "2", "2 place"})
        {
            const std::string st_mode = stages;
            migx_test::scoped_env r("MIGRAPHX_GPU_ATTENTION_WGMMA_ROWS", rows);
            migx_test::scoped_env z("MIGRAPHX_GPU_ATTENTION_WGMMA_SWIZZLE", swizzle);
            migx_test::scoped_env st("MIGRAPHX_GPU_ATTENTION_WGMMA_STAGES", st_mode.substr(0, 1).c_str());
            migx_test::scoped_env m("MIGRAPHX_GPU_ATTENTION_WGMMA_MASK", st_mode.size() > 1 ? "place" : nullptr);
            for(const auto& a : {row_mask, no_mask, full_mask})
            {
                auto k = gpu::generate_attention(a);
                ASSERT_TRUE(k.has_value());
                ASSERT_EQ(k->name, "attention_wgmma_kernel");
                EXPECT_NO_THROW(gpu::compile_cuda(k->source, k->name, 9, 0)) << k->source;
            }
        }
    auto k = gpu::generate_attention(row_mask);
    try
    {
        gpu::compile_cuda(k->source, k->name, 8, 0);
        ADD_FAILURE() << "compiled a wgmma kernel for sm_80";
    }
    catch(const migraphx::exception& e)
    {
        EXPECT_NE(std::string(e.what()).find("sm_90a"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("sm_80"), std::string::npos) << e.what();
    }
}
#endif
