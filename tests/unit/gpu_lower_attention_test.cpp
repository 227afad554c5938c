// The fused attention (lower_attention.cpp, codegen_attention.cpp): which programs the gpu
// lowering turns into one attention kernel (checked without a device, on the lowered program),
// and, on a device, the kernel against ref: masks, scales, lengths that are not multiples of the
// kernel's 64-row and 64-key tiles, head sizes 16 to 128, output transposed back in the store.
#include "gpu_test_util.hpp"
#include "scoped_env.hpp"
#include "serialize_test_util.hpp"
#ifdef MIGRAPHX_HAVE_GPU
#include "passes/pass_manager.hpp"
#include "targets/gpu/codegen.hpp"
#include "targets/gpu/context.hpp"
#include "targets/gpu/lowering.hpp"
#include "targets/gpu/kernel_compiler.hpp"
#include "targets/gpu/gpu_ops.hpp"
#include <migraphx/half.hpp>
#include <migraphx/instruction.hpp>
#include <migraphx/literal.hpp>
#include <migraphx/load_save.hpp>
#include <migraphx/make_op.hpp>
#include <cstdlib>
#include <functional>
#include <limits>
#include <sstream>

using migraphx::make_op;
using migraphx::shape;

namespace {

struct attention_case
{
    std::size_t batch = 2, heads = 3, m = 70, n = 70, d = 64, dv = 64;
    shape::type_t type = shape::half_type;
    bool mask          = true;  // an additive [batch, 1, m, n] mask
    bool scale_qk      = true;  // sqrt(scale) on Q and K (torch's SDPA export); else the scores divided
    bool transpose_out = true;  // the result transposed back to [batch, m, heads, dv] and made contiguous
    bool softmax_float = false; // the scores converted to float for the softmax and back
    std::int64_t softmax_axis = 3;
    bool padding_mask = false; // the mask a constant: 0, or half's lowest past each batch's length
    bool inf_mask     = false; // the same with -inf, and batch 1's last rows masked whole (NaN rows)
    bool nan_guard    = false; // where(isnan(p), 0, p) after the softmax (torch's SDPA export)
    bool int_scores   = false; // the scores truncated through int32 (not a convert to skip)
    bool row_mask     = false; // the mask [batch, 1, 1, n], broadcast over the query rows (BERT's)
    bool e4m3_cast    = false; // then quantize_fp8's cast for the next product: e4m3(float(o) / 0.0625)
};

/// A transformer's attention as the ONNX importer and fuse_pointwise leave it: Q, V as
/// [batch, seq, heads, dim] transposed to [batch, heads, seq, dim], K to [batch, heads, dim, seq].
migraphx::program attention(const attention_case& c)
{
    migraphx::program p;
    auto* m = p.get_main_module();
    auto t  = c.type;
    auto q  = m->add_parameter("q", shape{t, {c.batch, c.m, c.heads, c.d}});
    auto k  = m->add_parameter("k", shape{t, {c.batch, c.n, c.heads, c.d}});
    auto v  = m->add_parameter("v", shape{t, {c.batch, c.n, c.heads, c.dv}});
    q       = m->add_instruction(make_op("transpose", {{"permutation", {0, 2, 1, 3}}}), q);
    k       = m->add_instruction(make_op("transpose", {{"permutation", {0, 2, 3, 1}}}), k);
    v       = m->add_instruction(make_op("transpose", {{"permutation", {0, 2, 1, 3}}}), v);
    auto scalar = [&](float f, const shape& like) {
        auto l = m->add_literal(migraphx::literal{shape{t, {1}}, std::vector<float>{f}});
        return m->add_instruction(make_op("multibroadcast", {{"out_lens", like.lens()}}), l);
    };
    float sq = 1.0f / std::sqrt(std::sqrt(static_cast<float>(c.d)));
    if(c.scale_qk)
    {
        q = m->add_instruction(make_op("mul"), q, scalar(sq, q->get_shape()));
        k = m->add_instruction(make_op("mul"), k, scalar(sq, k->get_shape()));
    }
    auto s = m->add_instruction(make_op("dot"), q, k);
    if(not c.scale_qk)
        s = m->add_instruction(make_op("div"), s, scalar(std::sqrt(static_cast<float>(c.d)), s->get_shape()));
    if(c.softmax_float)
        s = m->add_instruction(make_op("convert", {{"target_type", shape::float_type}}), s);
    if(c.int_scores)
        s = m->add_instruction(make_op("convert", {{"target_type", s->get_shape().type()}}),
                               m->add_instruction(make_op("convert", {{"target_type", shape::int32_type}}), s));
    if(c.mask)
    {
        shape ms{s->get_shape().type(), {c.batch, 1, c.row_mask ? 1 : c.m, c.n}};
        auto mk = m->add_parameter("mask", ms);
        if(c.padding_mask or c.inf_mask)
        {
            float low = c.inf_mask ? -std::numeric_limits<float>::infinity() : -65504.0f;
            std::vector<float> mv(ms.elements());
            for(std::size_t i = 0; i < mv.size(); i++)
            {
                auto b = i / (c.m * c.n), row = (i / c.n) % c.m, key = i % c.n;
                bool masked = key >= c.n / (b + 2); // batch 0 keeps half the keys, 1 a third
                masked      = masked or (c.inf_mask and b == 1 and row >= c.m / 2);
                mv[i]       = masked ? low : 0.0f;
            }
            mk = m->add_literal(migraphx::literal{ms, mv});
        }
        s = m->add_instruction(make_op("add"), s, m->add_instruction(make_op("multibroadcast", {{"out_lens", s->get_shape().lens()}}), mk));
    }
    auto pr = m->add_instruction(make_op("softmax", {{"axis", c.softmax_axis}}), s);
    if(c.nan_guard)
        pr = m->add_instruction(make_op("where"), m->add_instruction(make_op("isnan"), pr), scalar(0, pr->get_shape()), pr);
    if(c.softmax_float)
        pr = m->add_instruction(make_op("convert", {{"target_type", t}}), pr);
    auto o = m->add_instruction(make_op("dot"), pr, v);
    if(c.transpose_out)
    {
        o = m->add_instruction(make_op("transpose", {{"permutation", {0, 2, 1, 3}}}), o);
        o = m->add_instruction(make_op("contiguous"), o);
        o = m->add_instruction(make_op("reshape", {{"dims", {c.batch, c.m, c.heads * c.dv}}}), o);
    }
    if(c.e4m3_cast)
    {
        o      = m->add_instruction(make_op("convert", {{"target_type", shape::float_type}}), o);
        auto l = m->add_literal(migraphx::literal{shape{shape::float_type, {1}}, std::vector<float>{0.0625f}});
        o      = m->add_instruction(make_op("div"), o,
                                    m->add_instruction(make_op("multibroadcast", {{"out_lens", o->get_shape().lens()}}), l));
        o      = m->add_instruction(make_op("convert", {{"target_type", shape::fp8e4m3fn_type}}), o);
    }
    m->add_return({o});
    return p;
}

std::string lowered(migraphx::program p) { return migx_test::lowered_for_gpu(std::move(p)); }

using migx_test::occurrences;

} // namespace

TEST(gpu_lower_attention, transformer_attention_becomes_one_kernel)
{
    auto t = lowered(attention({}));
    EXPECT_EQ(occurrences(t, "symbol_name=attention_kernel"), 1u) << t;
    // No products, softmax, scaling or mask kernels and no contiguous copy of the heads remain.
    EXPECT_EQ(occurrences(t, "gpu::gemm"), 0u) << t;
    EXPECT_EQ(occurrences(t, "softmax_kernel"), 0u) << t;
    EXPECT_EQ(occurrences(t, "copy_kernel"), 0u) << t;
    EXPECT_EQ(occurrences(t, "mul_kernel"), 0u) << t;
    EXPECT_EQ(occurrences(t, "add_kernel"), 0u) << t;
}

TEST(gpu_lower_attention, variants_that_fuse)
{
    attention_case div_no_mask;
    div_no_mask.scale_qk = false;
    div_no_mask.mask     = false;
    attention_case float_softmax;
    float_softmax.softmax_float = true;
    attention_case plain_out;
    plain_out.transpose_out = false;
    attention_case wide;
    wide.d = wide.dv = 128;
    attention_case guarded;
    guarded.nan_guard = true;
    for(const auto& c : {div_no_mask, float_softmax, plain_out, wide, guarded})
        EXPECT_EQ(occurrences(lowered(attention(c)), "symbol_name=attention_kernel"), 1u);
}

// quantize_fp8's cast of the result for the next product: the kernel writes e4m3 itself (16 values
// to a store), the Hopper kernel and its fallback alike; no cast kernel remains.
TEST(gpu_lower_attention, a_cast_to_e4m3_after_it_is_the_kernels_store)
{
    migx_test::scoped_env unset("MIGRAPHX_GPU_ATTENTION_WGMMA", nullptr);
    attention_case c;
    c.e4m3_cast = true;
    for(int sm : {0, 90})
    {
        auto t = migx_test::lowered_for_gpu(attention(c), sm);
        EXPECT_EQ(occurrences(t, "gpu::code_object"), 1u) << sm << t;
        EXPECT_EQ(occurrences(t, "symbol_name=attention"), 1u) << sm << t;
        EXPECT_NE(t.find("-> fp8e4m3fn_type, {2, 70, 3, 64}"), std::string::npos) << sm << t;
    }
    auto spec = [](int sm) {
        migraphx::gpu::attention_spec a;
        a.q         = shape{shape::half_type, {2, 3, 70, 64}};
        a.kt        = shape{shape::half_type, {2, 3, 64, 70}};
        a.v         = shape{shape::half_type, {2, 3, 70, 64}};
        a.out       = shape{shape::fp8e4m3fn_type, {2, 3, 70, 64}, {13440, 64, 192, 1}};
        a.out_scale = 16;
        a.sm        = sm;
        return a;
    };
    auto hopper = migraphx::gpu::generate_attention(spec(90));
    ASSERT_TRUE(hopper.has_value());
    EXPECT_EQ(hopper->name, "attention_wgmma_kernel");
    EXPECT_NE(hopper->source.find("migx_fp8* __restrict__ y"), std::string::npos);
    EXPECT_NO_THROW(migraphx::gpu::compile_cuda(hopper->source, hopper->name, 9, 0)) << hopper->source;
    auto any = migraphx::gpu::generate_attention(spec(0));
    ASSERT_TRUE(any.has_value());
    EXPECT_EQ(any->name, "attention_kernel");
    EXPECT_NO_THROW(migraphx::gpu::compile_cuda(any->source, any->name, 8, 0)) << any->source;
    auto bad = spec(90);
    bad.out = shape{shape::half_type, {2, 3, 70, 64}};
    EXPECT_FALSE(migraphx::gpu::generate_attention(bad).has_value()) << "a scale on a half result";
    migx_test::scoped_env off("MIGRAPHX_DISABLE_FP8_OUTPUT", "1");
    auto kept = migx_test::lowered_for_gpu(attention(c), 90);
    EXPECT_EQ(occurrences(kept, "gpu::code_object"), 2u) << "the cast a kernel of its own: " << kept;
}

TEST(gpu_lower_attention, variants_left_alone)
{
    attention_case fp32;
    fp32.type = shape::float_type; // the kernel is half only
    attention_case odd_head;
    odd_head.d = odd_head.dv = 72; // not a multiple of 16
    attention_case big_head;
    big_head.d = big_head.dv = 256;
    attention_case other_axis;
    other_axis.softmax_axis = 2;
    attention_case truncated;
    truncated.int_scores = true;
    for(const auto& c : {fp32, odd_head, big_head, other_axis, truncated})
    {
        auto t = lowered(attention(c));
        EXPECT_EQ(occurrences(t, "attention_kernel"), 0u) << t;
        EXPECT_GE(occurrences(t, "gpu::gemm"), 2u) << t;
    }
}

TEST(gpu_lower_attention, scores_with_another_user_are_not_fused)
{
    auto p  = attention({});
    auto* m = p.get_main_module();
    // Return the softmax too: the kernel never writes it, so the chain must stay.
    migraphx::instruction_ref sm;
    for(auto it = m->begin(); it != m->end(); ++it)
        if(it->name() == "softmax")
            sm = it;
    auto ret = std::prev(m->end());
    auto outs = ret->inputs();
    outs.push_back(sm);
    m->replace_return(outs);
    auto t = lowered(p);
    EXPECT_EQ(occurrences(t, "attention_kernel"), 0u) << t;
}

TEST(gpu_lower_attention, can_be_turned_off)
{
    setenv("MIGRAPHX_DISABLE_ATTENTION_FUSION", "1", 1);
    auto t = lowered(attention({}));
    unsetenv("MIGRAPHX_DISABLE_ATTENTION_FUSION");
    EXPECT_EQ(occurrences(t, "attention_kernel"), 0u) << t;
}

// The device's compute capability reaches the generator through the passes: sm 90 lowers to the
// Hopper kernel unless it is turned off, other devices (and none) to the mma.sync kernel.
TEST(gpu_lower_attention, lowering_for_sm_90_picks_the_hopper_kernel)
{
    migx_test::scoped_env unset("MIGRAPHX_GPU_ATTENTION_WGMMA", nullptr);
    auto t = migx_test::lowered_for_gpu(attention({}), 90);
    EXPECT_EQ(occurrences(t, "symbol_name=attention_wgmma_kernel,"), 1u) << t;
    t = migx_test::lowered_for_gpu(attention({}), 80);
    EXPECT_EQ(occurrences(t, "symbol_name=attention_kernel,"), 1u) << t;
    migx_test::scoped_env off("MIGRAPHX_GPU_ATTENTION_WGMMA", "0");
    t = migx_test::lowered_for_gpu(attention({}), 90);
    EXPECT_EQ(occurrences(t, "symbol_name=attention_kernel,"), 1u) << t;
}

// A Hopper kernel keeps the mma.sync kernel as its fallback, so that a program compiled on an sm_90
// device and saved runs on another: finalize there puts the fallback in its place. (No device here:
// the fallback's source is compiled for sm_80 by NVRTC, and the swap is checked on the op.)
TEST(gpu_lower_attention, hopper_kernel_keeps_a_fallback_for_other_devices)
{
    migx_test::scoped_env unset("MIGRAPHX_GPU_ATTENTION_WGMMA", nullptr);
    auto p = attention({});
    migraphx::run_passes(p, migraphx::gpu::passes_before_device(true, true, 90));
    migraphx::value v;
    for(auto ins : *p.get_main_module())
        if(ins.name() == "gpu::code_object")
            v = ins.get_operator().to_value();
    ASSERT_FALSE(v.is_null()) << p;
    ASSERT_EQ(v.at("symbol_name"), migraphx::value("attention_wgmma_kernel"));
    ASSERT_EQ(v.at("fallback").size(), 1u);
    const auto& f = v.at("fallback").at(0);
    EXPECT_EQ(f.at("symbol_name"), migraphx::value("attention_kernel"));
    EXPECT_NO_THROW(migraphx::gpu::compile_cuda(f.at("source").to<std::string>(), "attention_kernel", 8, 0));

    auto op = migraphx::make_op("gpu::code_object", v); // as a loaded program has it
    EXPECT_EQ(op.to_value(), v);
    auto* c = op.any_cast<migraphx::gpu::code_object>();
    ASSERT_NE(c, nullptr);
    EXPECT_FALSE(c->use_fallback_for(9, 0)); // an sm_90 device runs the Hopper kernel
    EXPECT_EQ(c->symbol_name, "attention_wgmma_kernel");
    EXPECT_TRUE(c->use_fallback_for(8, 0));
    EXPECT_EQ(c->symbol_name, "attention_kernel");
    EXPECT_EQ(c->source, f.at("source").to<std::string>());
    EXPECT_EQ(c->global, f.at("global").to<std::size_t>());
    EXPECT_EQ(c->shared, 0u);
    EXPECT_TRUE(c->fallback.empty());
    EXPECT_TRUE(c->binary.empty());
    EXPECT_FALSE(c->use_fallback_for(8, 0)); // once

    // the mma.sync kernel itself needs none
    migx_test::scoped_env off("MIGRAPHX_GPU_ATTENTION_WGMMA", "0");
    auto q = attention({});
    migraphx::run_passes(q, migraphx::gpu::passes_before_device(true, true, 90));
    for(auto ins : *q.get_main_module())
        if(ins.name() == "gpu::code_object")
            EXPECT_EQ(ins.get_operator().to_value().at("fallback").size(), 0u);
}

TEST(gpu_lower_attention, generator_refuses_what_it_cannot_do)
{
    migraphx::gpu::attention_spec a;
    a.q   = shape{shape::half_type, {2, 8, 32}};
    a.kt  = shape{shape::half_type, {2, 32, 9}};
    a.v   = shape{shape::half_type, {2, 9, 32}};
    a.out = shape{shape::half_type, {2, 8, 32}};
    EXPECT_TRUE(migraphx::gpu::generate_attention(a).has_value());
    auto bad = a;
    bad.kt   = shape{shape::half_type, {2, 16, 9}}; // D differs
    EXPECT_FALSE(migraphx::gpu::generate_attention(bad).has_value());
    bad      = a;
    bad.mask = shape{shape::half_type, {2, 8, 10}}; // not [batch, M, N]
    EXPECT_FALSE(migraphx::gpu::generate_attention(bad).has_value());
    bad = a;
    bad.steps.push_back({"add", true, 0, false}); // a mask step without a mask
    EXPECT_FALSE(migraphx::gpu::generate_attention(bad).has_value());
    bad = a;
    bad.steps.push_back({"pow", false, 2, false});
    EXPECT_FALSE(migraphx::gpu::generate_attention(bad).has_value());
    // head size 128 with a float mask needs more than 48 KB of shared memory; a half mask fits
    migraphx::gpu::attention_spec wide;
    wide.q    = shape{shape::half_type, {2, 8, 128}};
    wide.kt   = shape{shape::half_type, {2, 128, 9}};
    wide.v    = shape{shape::half_type, {2, 9, 128}};
    wide.out  = shape{shape::half_type, {2, 8, 128}};
    wide.mask = shape{shape::half_type, {2, 8, 9}};
    EXPECT_TRUE(migraphx::gpu::generate_attention(wide).has_value());
    wide.mask = shape{shape::float_type, {2, 8, 9}};
    EXPECT_FALSE(migraphx::gpu::generate_attention(wide).has_value());
}

namespace {

/// BERT-base's heads read in place from [batch, seq, 3 * 768] and written to [batch, seq, 768].
migraphx::gpu::attention_spec bert_base_heads()
{
    migraphx::gpu::attention_spec bert;
    bert.q   = shape{shape::half_type, {2, 12, 128, 64}, {128 * 2304, 64, 2304, 1}};
    bert.kt  = shape{shape::half_type, {2, 12, 64, 128}, {128 * 2304, 64, 1, 2304}};
    bert.v   = shape{shape::half_type, {2, 12, 128, 64}, {128 * 2304, 64, 2304, 1}};
    bert.out = shape{shape::half_type, {2, 12, 128, 64}, {128 * 768, 64, 768, 1}};
    return bert;
}

} // namespace

// Q in and the output out through shared memory (16-byte pieces) where the stages leave room and
// the rows vectorize; per-lane pairs otherwise (the device test below runs both).
TEST(gpu_lower_attention, q_and_output_pass_through_shared_memory_where_they_fit)
{
    auto bert = bert_base_heads();
    auto k   = migraphx::gpu::generate_attention(bert);
    ASSERT_TRUE(k.has_value());
    EXPECT_NE(k->source.find("ldsm_x4(qa[kk], qs"), std::string::npos) << k->source;
    EXPECT_NE(k->source.find("reinterpret_cast<uint4*>(yb"), std::string::npos) << k->source;
    // one key step (64 keys): one stage, so Q has no stage 1 to pass through; the output still does
    auto short_keys = bert;
    short_keys.kt   = shape{shape::half_type, {2, 12, 64, 64}};
    short_keys.v    = shape{shape::half_type, {2, 12, 64, 64}};
    k               = migraphx::gpu::generate_attention(short_keys);
    ASSERT_TRUE(k.has_value());
    EXPECT_EQ(k->source.find("ldsm_x4(qa[kk], qs"), std::string::npos);
    EXPECT_NE(k->source.find("reinterpret_cast<uint4*>(yb"), std::string::npos);
    k = migraphx::gpu::generate_attention(bert);
    ASSERT_TRUE(k.has_value());
    EXPECT_NE(k->source.find("float s[8][4];"), std::string::npos);
    EXPECT_NE(k->source.find("__launch_bounds__(256, 2)"), std::string::npos);
    EXPECT_NE(k->source.find("n0 += 64"), std::string::npos);
    // an output whose rows are not contiguous along d: per-lane stores
    auto strided = bert;
    strided.out  = shape{shape::half_type, {2, 12, 128, 64}, {128 * 64 * 12 * 2, 128 * 64 * 2, 64 * 2, 2}};
    k            = migraphx::gpu::generate_attention(strided);
    ASSERT_TRUE(k.has_value());
    EXPECT_EQ(k->source.find("uint4"), std::string::npos);
    EXPECT_NE(k->source.find("ldsm_x4(qa[kk], qs"), std::string::npos);
}

// 8 warps (256 threads) for BERT's 128 rows, 4 (64 rows a block) where there are at most 64.
TEST(gpu_lower_attention, eight_warps_for_more_than_64_rows)
{
    auto bert = bert_base_heads();
    auto k8   = migraphx::gpu::generate_attention(bert);
    ASSERT_TRUE(k8.has_value());
    EXPECT_EQ(k8->local, 256u);
    EXPECT_EQ(k8->elements, 2u * 12 * 256); // a block an item
    auto rows64 = bert;
    rows64.q    = shape{shape::half_type, {2, 12, 64, 64}};
    rows64.out  = shape{shape::half_type, {2, 12, 64, 64}};
    auto k4     = migraphx::gpu::generate_attention(rows64);
    ASSERT_TRUE(k4.has_value());
    EXPECT_EQ(k4->local, 128u);
    EXPECT_NE(k4->source.find("__launch_bounds__(128, 4)"), std::string::npos);
}

// On the device: the kernel against ref. Half inputs in [-1, 1]-ish; the kernel keeps the scores
// in float and rounds P to half once (ref rounds the scores, the softmax and each product), so
// the bound is a few half ulps of the outputs (|o| <= 1). `kernel(c)` names the kernel case c
// must have become.
void check_cases_on_device(const std::function<std::string(const attention_case&)>& kernel)
{
    attention_case bert;                 // 70 x 70, d 64, mask, Q/K scaled, transposed out
    attention_case cross;                // 100 queries over 130 keys, d 32, dv 48, divided, no mask
    cross.m        = 100;
    cross.n        = 130;
    cross.d        = 32;
    cross.dv       = 48;
    cross.scale_qk = false;
    cross.mask     = false;
    attention_case wide;                 // d 128, 17 queries, 200 keys, plain output
    wide.m = 17;
    wide.n = 200;
    wide.d = wide.dv = 128;
    wide.transpose_out = false;
    attention_case narrow;               // d 16, float softmax, one key block exactly
    narrow.d = narrow.dv = 16;
    narrow.m = narrow.n = 64;
    narrow.softmax_float = true;
    attention_case padded;               // whole key blocks masked out (online softmax)
    padded.n            = 150;
    padded.padding_mask = true;
    attention_case nan_rows;             // -inf masks, whole rows masked: NaN rows made 0
    nan_rows.inf_mask  = true;
    nan_rows.nan_guard = true;
    attention_case nan_kept = nan_rows;  // without the guard the NaN rows stay NaN, as on ref
    nan_kept.nan_guard = false;
    // More items (batch x heads x row blocks) than blocks fit on the device at once, BERT's
    // padding mask as one row.
    attention_case many;                 // BERT-base's heads at batch 48: 576 items of 128 rows
    many.batch    = 48;
    many.heads    = 12;
    many.m        = 128;
    many.n        = 128;
    many.row_mask = true;
    attention_case many_short = many;    // 64 x 12 items of 16 rows over 40 keys (one key step)
    many_short.batch = 64;
    many_short.m     = 16;
    many_short.n     = 40;
    attention_case keys_cross = cross;   // 100 queries over 72 keys, dv 48: wgmma n 48, keys padded to 80
    keys_cross.n = 72;
    for(const auto& c : {bert, cross, wide, narrow, padded, nan_rows, nan_kept, many, many_short, keys_cross})
    {
        auto p = attention(c);
        auto g = migx_test::expect_gpu_matches_ref(p, 5e-3, 5e-3);
        std::ostringstream ss;
        ss << g;
        EXPECT_NE(ss.str().find("symbol_name=" + kernel(c) + ","), std::string::npos)
            << "m " << c.m << " n " << c.n << " d " << c.d << ": " << ss.str();
    }
}

TEST(gpu_lower_attention, matches_ref_on_device)
{
    MIGX_REQUIRE_GPU();
    migx_test::scoped_env off("MIGRAPHX_GPU_ATTENTION_WGMMA", "0"); // the mma.sync kernel on any device
    check_cases_on_device([](const attention_case&) { return std::string("attention_kernel"); });
}

// The e4m3 store against ref's cast of the half result: one e4m3 step (1/8 relative; the
// normal range starts at 2^-6, 0.016 in units of 1/16) where the kernel's half result differs
// from ref's in its last bit and the two round apart.
TEST(gpu_lower_attention, e4m3_result_matches_ref_on_device)
{
    MIGX_REQUIRE_GPU();
    for(const char* wgmma : {"1", "0"})
    {
        migx_test::scoped_env k("MIGRAPHX_GPU_ATTENTION_WGMMA", wgmma);
        attention_case c;
        c.e4m3_cast = true;
        attention_case plain = c;
        plain.transpose_out  = false;
        for(const auto& cc : {c, plain})
        {
            auto g = migx_test::text(migx_test::expect_gpu_matches_ref(attention(cc), 0.13, 0.016));
            EXPECT_EQ(occurrences(g, "gpu::code_object"), 1u) << wgmma << g;
        }
    }
}

// The Hopper kernel (codegen_attention_wgmma.cpp) on an sm_90 device, up to 128 keys; the
// mma.sync kernel past them.
TEST(gpu_lower_attention, hopper_kernel_matches_ref_on_device)
{
    MIGX_REQUIRE_GPU();
    migraphx::gpu::gpu_context g;
    const auto& st = g.get();
    if(st.sm_major != 9 or st.sm_minor != 0)
        GTEST_SKIP() << "the Hopper kernel needs an sm_90 device; this one is sm_" << st.sm_major << st.sm_minor;
    migx_test::scoped_env on("MIGRAPHX_GPU_ATTENTION_WGMMA", "1");
    // its layouts: two warpgroups a block or one, the 128-byte swizzle (head size 64) or none,
    // one stage or two (persistent, dynamic shared memory)
    for(const char* rows : {"128", "64"})
        for(const char* swizzle : {"1", "0"})
            for(const char* stages : {"1", "2", "2 place"})
        {
            const std::string st_mode = stages;
            SCOPED_TRACE(std::string("rows ") + rows + ", swizzle " + swizzle + ", stages " + stages);
            migx_test::scoped_env r("MIGRAPHX_GPU_ATTENTION_WGMMA_ROWS", rows);
            migx_test::scoped_env z("MIGRAPHX_GPU_ATTENTION_WGMMA_SWIZZLE", swizzle);
            migx_test::scoped_env st("MIGRAPHX_GPU_ATTENTION_WGMMA_STAGES", st_mode.substr(0, 1).c_str());
            // "place": the mask row read at its place instead of copied with the item
            migx_test::scoped_env m("MIGRAPHX_GPU_ATTENTION_WGMMA_MASK", st_mode.size() > 1 ? "place" : nullptr);
            check_cases_on_device([](const attention_case& c) {
                return std::string(c.n <= 128 ? "attention_wgmma_kernel" : "attention_kernel");
            });
        }
}
// The two-stage kernel's launch (2 blocks an SM, 97 KiB of dynamic shared memory) comes back
// from a saved program: loaded, it runs bit for bit as compiled.
TEST(gpu_lower_attention, two_stage_kernel_saved_and_loaded_on_device)
{
    MIGX_REQUIRE_GPU();
    migraphx::gpu::gpu_context g;
    if(g.get().sm_major != 9 or g.get().sm_minor != 0)
        GTEST_SKIP() << "the Hopper kernel needs an sm_90 device";
    migx_test::scoped_env on("MIGRAPHX_GPU_ATTENTION_WGMMA", "1");
    migx_test::scoped_env two("MIGRAPHX_GPU_ATTENTION_WGMMA_STAGES", "2");
    attention_case many; // BERT-base's heads at batch 48: 576 items, 2 or 3 a block
    many.batch    = 48;
    many.heads    = 12;
    many.m        = 128;
    many.n        = 128;
    many.row_mask = true;
    auto p = migx_test::expect_gpu_matches_ref(attention(many), 5e-3, 5e-3);
    auto code = migraphx::value();
    for(auto ins : *p.get_main_module())
        if(ins.name() == "gpu::code_object" and
           ins.get_operator().to_value().at("symbol_name") == migraphx::value("attention_wgmma_kernel"))
            code = ins.get_operator().to_value();
    ASSERT_FALSE(code.is_null()) << p;
    EXPECT_EQ(code.at("shared").to<std::size_t>(), 2u * 49 * 1024 + 1024);
    EXPECT_EQ(code.at("blocks_per_sm").to<std::size_t>(), 2u);
    auto params = migx_test::fresh_params(p);
    auto want   = p.eval(params);
    migraphx::file_options o;
    auto q = migraphx::load_buffer(migraphx::save_buffer(p, o), o);
    migx_test::expect_bitwise_equal(q.eval(params), want);
}
#endif
