// gpu::fuse_fp8: quantize_fp8's products become fp8_dot ops (one cuBLASLt fp8 product each,
// with the epilogues half products take). Before/after on ref, what lowering makes of it
// without a device, and on the device against ref.
#include "gpu_test_util.hpp"
#ifdef MIGRAPHX_HAVE_GPU
#include "scoped_env.hpp"
#include "targets/gpu/fuse_fp8.hpp"
#include <migraphx/instruction.hpp>
#include <migraphx/literal.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/quantization.hpp>
#include <migraphx/ref/target.hpp>
#include <gtest/gtest.h>
#include <random>
#include <sstream>

using migraphx::make_op;
using migraphx::shape;
using migx_test::random_values;

namespace {

std::size_t count(const migraphx::program& p, const std::string& name)
{
    const auto& m = *p.get_main_module();
    return std::count_if(m.begin(), m.end(), [&](const auto& ins) { return ins.name() == name; });
}

/// A BERT-like feed-forward block [2, 8, k] -> act(x W1 + b1) W2 + b2 + x, in half, its two
/// products quantized to fp8 (calibrated on ref with one input); act relu, or GELU in the erf
/// form ONNX exporters write.
migraphx::program ffn(std::size_t k = 32, std::size_t hidden = 64, const std::string& act = "relu")
{
    migraphx::program p;
    auto* m   = p.get_main_module();
    auto x    = m->add_parameter("x", shape{shape::float_type, {2, 8, k}});
    auto bcast = [&](migraphx::instruction_ref w, std::vector<std::size_t> lens) {
        return m->add_instruction(make_op("multibroadcast", {{"out_lens", lens}}), w);
    };
    auto w1   = m->add_literal(migraphx::literal{shape{shape::float_type, {k, hidden}}, random_values(k * hidden, 1, 0.2f)});
    auto b1   = m->add_literal(migraphx::literal{shape{shape::float_type, {hidden}}, random_values(hidden, 2, 0.1f)});
    auto w2   = m->add_literal(migraphx::literal{shape{shape::float_type, {hidden, k}}, random_values(k * hidden, 3, 0.2f)});
    auto b2   = m->add_literal(migraphx::literal{shape{shape::float_type, {k}}, random_values(k, 4, 0.1f)});
    auto h    = m->add_instruction(make_op("dot"), x, bcast(w1, {2, k, hidden}));
    h         = m->add_instruction(make_op("add"), h, bcast(b1, {2, 8, hidden}));
    if(act == "relu")
        h = m->add_instruction(make_op("relu"), h);
    else
    {
        auto c = [&](float v) {
            auto l = m->add_literal(migraphx::literal{shape{shape::float_type, {1}}, {v}});
            return m->add_instruction(make_op("multibroadcast", {{"out_lens", std::vector<std::size_t>{2, 8, hidden}}}), l);
        };
        auto e = m->add_instruction(make_op("erf"), m->add_instruction(make_op("div"), h, c(std::sqrt(2.0f))));
        auto t = m->add_instruction(make_op("add"), e, c(1.0f));
        h      = m->add_instruction(make_op("mul"), m->add_instruction(make_op("mul"), h, c(0.5f)), t);
    }
    auto y    = m->add_instruction(make_op("dot"), h, bcast(w2, {2, hidden, k}));
    y         = m->add_instruction(make_op("add"), y, bcast(b2, {2, 8, k}));
    m->add_return({m->add_instruction(make_op("add"), y, x)});
    migraphx::quantize_fp16(p);
    auto xv = random_values(2 * 8 * k, 5, 1.0f);
    migraphx::parameter_map cal{{"x", migraphx::argument{shape{shape::float_type, {2, 8, k}}, xv.data()}}};
    migraphx::quantize_fp8(p, migraphx::ref::target{}, {cal});
    return p;
}

/// A BERT-like attention output block's tail: n = layernorm(x) (scale and shift), then
/// n W + b + n, built in half (quantize_fp16's converts would pack the broadcast scale and
/// shift, which the layernorm op takes only as broadcasts), the product quantized to fp8;
/// returns that and the norm itself.
migraphx::program norm_then_product(std::size_t k = 64)
{
    migraphx::program p;
    auto* m = p.get_main_module();
    auto t  = shape::half_type;
    shape xs{t, {2, 8, k}};
    auto x     = m->add_parameter("x", xs);
    auto bcast = [&](migraphx::instruction_ref v, std::vector<std::size_t> lens) {
        return m->add_instruction(make_op("multibroadcast", {{"out_lens", lens}}), v);
    };
    auto g  = m->add_literal(migraphx::literal{shape{t, {k}}, random_values(k, 11, 0.5f)});
    auto c  = m->add_literal(migraphx::literal{shape{t, {k}}, random_values(k, 12, 0.1f)});
    auto w  = m->add_literal(migraphx::literal{shape{t, {k, k}}, random_values(k * k, 13, 0.2f)});
    auto b  = m->add_literal(migraphx::literal{shape{t, {k}}, random_values(k, 14, 0.1f)});
    auto gb = bcast(g, xs.lens());
    auto cb = bcast(c, xs.lens());
    auto n  = m->add_instruction(make_op("layernorm", {{"epsilon", 1e-5f}}), x, gb, cb);
    auto y  = m->add_instruction(make_op("dot"), n, bcast(w, {2, k, k}));
    y       = m->add_instruction(make_op("add"), y, bcast(b, xs.lens()));
    m->add_return({m->add_instruction(make_op("add"), y, n), n});
    auto cal = migx_test::fresh_params(p);
    migraphx::quantize_fp8(p, migraphx::ref::target{}, {cal});
    return p;
}

migraphx::argument run_ref(migraphx::program p)
{
    p.compile(migraphx::ref::target{});
    auto xv = random_values(p.get_parameter_shapes().at("x").elements(), 9, 1.0f);
    return p.eval({{"x", migraphx::argument{p.get_parameter_shapes().at("x"), xv.data()}}}).front();
}

} // namespace

TEST(gpu_fuse_fp8, dequantized_products_become_fp8_dots_on_sm89_and_later)
{
    auto before = ffn();
    ASSERT_EQ(count(before, "dot"), 2u);
    auto after = before;
    migraphx::gpu::fuse_fp8{90}.apply(*after.get_main_module());
    EXPECT_EQ(count(after, "dot"), 0u) << migx_test::text(after);
    EXPECT_EQ(count(after, "fp8_dot"), 2u) << migx_test::text(after);
    EXPECT_EQ(count(after, "dequantizelinear"), 0u) << "the weights' and activations' dequantizes fold into alpha";
    EXPECT_EQ(count(after, "quantizelinear"), 2u) << "the activations are still cast";
    // the same numbers up to the half rounding of the dequantized operands ref rounds and
    // fp8_dot does not
    auto a = run_ref(after).to_vector<float>(), b = run_ref(before).to_vector<float>();
    ASSERT_EQ(a.size(), b.size());
    for(std::size_t i = 0; i < a.size(); i++)
        EXPECT_NEAR(a[i], b[i], 2e-2 * (1 + std::abs(b[i]))) << i;
}

TEST(gpu_fuse_fp8, left_alone_where_the_fp8_kernels_do_not_apply)
{
    auto before = ffn();
    auto unchanged = [&](const migraphx::program& p, const std::string& why) {
        EXPECT_EQ(count(p, "fp8_dot"), 0u) << why;
        EXPECT_EQ(count(p, "dot"), 2u) << why;
    };
    auto old = before; // no fp8 tensor cores before sm_89
    migraphx::gpu::fuse_fp8{80}.apply(*old.get_main_module());
    unchanged(old, "sm_80");
    {
        migx_test::scoped_env off("MIGRAPHX_DISABLE_FP8_GEMM", "1");
        auto off_p = before;
        migraphx::gpu::fuse_fp8{90}.apply(*off_p.get_main_module());
        unchanged(off_p, "MIGRAPHX_DISABLE_FP8_GEMM=1");
    }
    auto odd = ffn(24, 40); // K = 24: not a multiple of 16
    migraphx::gpu::fuse_fp8{90}.apply(*odd.get_main_module());
    unchanged(odd, "K = 24");
}

TEST(gpu_fuse_fp8, lowering_makes_fp8_gemms_and_device_casts)
{
    // the first product's bias and relu are its epilogue and it writes e4m3 itself (the cast
    // for the second is its D scale); the weights are stored once, transposed, in e4m3
    auto text = migx_test::lowered_for_gpu(ffn(), 90);
    EXPECT_EQ(migx_test::occurrences(text, "gpu::gemm[alpha=1,"), 0u) << "alpha: the scales " << text;
    EXPECT_EQ(migx_test::occurrences(text, "gpu::gemm"), 2u) << text;
    EXPECT_EQ(migx_test::occurrences(text, "epilogue=relu_bias,d_scale="), 1u) << text;
    EXPECT_EQ(migx_test::occurrences(text, ":transposed] -> fp8e4m3fn_type, {32, 64}"), 1u) << text;
    EXPECT_EQ(migx_test::occurrences(text, ":transposed] -> fp8e4m3fn_type, {64, 32}"), 1u) << text;
    EXPECT_EQ(migx_test::occurrences(text, "gpu::ref::"), 0u) << "the casts run on the device: " << text;
    // before sm_89: half products of the dequantized operands, each weight one half literal
    auto old = migx_test::lowered_for_gpu(ffn(), 80);
    EXPECT_EQ(migx_test::occurrences(old, "gpu::gemm[alpha=1,"), 2u) << old;
    EXPECT_EQ(migx_test::occurrences(old, "hip_copy_literal[id=main:@literal:0] -> half_type, {64, 32}"), 1u) << old;
    EXPECT_EQ(migx_test::occurrences(old, "gpu::ref::"), 0u) << old;
}

TEST(gpu_fuse_fp8, a_product_before_a_gelu_and_a_cast_writes_e4m3)
{
    // FFN1 in BERT: GELU (cuBLASLt's epilogue under fast_math) and the cast for FFN2 in one call
    auto text = migx_test::lowered_for_gpu(ffn(32, 64, "gelu"), 90);
    EXPECT_EQ(migx_test::occurrences(text, "gpu::gemm"), 2u) << text;
    EXPECT_EQ(migx_test::occurrences(text, "epilogue=gelu_bias,d_scale="), 1u) << "1 / the scale: " << text;
    std::istringstream lines(text);
    std::size_t e4m3_gemms = 0;
    for(std::string line; std::getline(lines, line);)
        e4m3_gemms += line.find("gpu::gemm[") != std::string::npos and line.find(") -> fp8e4m3fn_type, {2, 8, 64}") != std::string::npos;
    EXPECT_EQ(e4m3_gemms, 1u) << "the gemm's result: " << text;
    migx_test::scoped_env off("MIGRAPHX_DISABLE_FP8_OUTPUT", "1");
    auto kept = migx_test::lowered_for_gpu(ffn(32, 64, "gelu"), 90);
    EXPECT_EQ(migx_test::occurrences(kept, "d_scale="), 0u) << kept;
    EXPECT_EQ(migx_test::occurrences(kept, "epilogue=gelu"), 0u) << "GELU and the cast in one kernel: " << kept;
    EXPECT_EQ(migx_test::occurrences(kept, "gpu::code_object"), migx_test::occurrences(text, "gpu::code_object") + 1)
        << "one kernel more: " << kept;
}

TEST(gpu_fuse_fp8, a_layer_norm_before_a_product_writes_its_e4m3_copy_itself)
{
    // the norm's kernel writes the half norm and, after it in the same buffer, the e4m3 cast
    // the product reads: no cast kernel of its own
    auto text = migx_test::lowered_for_gpu(norm_then_product(), 90);
    EXPECT_EQ(migx_test::occurrences(text, "symbol_name=layernorm_e4m3_kernel,"), 1u) << text;
    EXPECT_EQ(migx_test::occurrences(text, "symbol_name=layernorm_kernel,"), 0u) << text;
    EXPECT_EQ(migx_test::occurrences(text, "load[offset=2048,end=3072]"), 1u) << "the copy, after 1024 halves: " << text;
    EXPECT_EQ(migx_test::occurrences(text, "load[offset=0,end=2048]"), 1u) << "the norm: " << text;
    EXPECT_EQ(migx_test::occurrences(text, "hip::hip_allocate_memory[shape=half_type, {1536}, {1}]"), 1u) << text;
    migx_test::scoped_env off("MIGRAPHX_DISABLE_FP8_OUTPUT", "1");
    auto kept = migx_test::lowered_for_gpu(norm_then_product(), 90);
    EXPECT_EQ(migx_test::occurrences(kept, "layernorm_e4m3_kernel"), 0u) << kept;
    EXPECT_EQ(migx_test::occurrences(kept, "gpu::code_object"), migx_test::occurrences(text, "gpu::code_object") + 1)
        << "the cast's kernel: " << kept;
}

/// The scale of quantize_fp8's cast of a {.., n} activation in p (its quantizelinear's).
static float activation_scale(const migraphx::program& p, std::size_t n)
{
    const auto& m = *p.get_main_module();
    for(auto ins = m.begin(); ins != m.end(); ++ins)
        if(ins->name() == "quantizelinear" and ins->get_shape().lens().back() == n)
            return ins->inputs()[1]->inputs().front()->get_literal().to_vector<float>().front();
    ADD_FAILURE() << "no quantizelinear of width " << n;
    return 1;
}

TEST(gpu_fuse_fp8, fp8_products_match_ref_on_the_device)
{
    MIGX_REQUIRE_GPU();
    // ref runs the dequantized operands in half, the gpu the fp8 products in float. Between the
    // two products the hidden layer is rounded to e4m3, and anything that moves a hidden value
    // across an e4m3 midpoint picks the neighbouring e4m3 value on one side only: ref rounds
    // the product to half, then adds the bias in half, where cuBLASLt adds it in float and rounds
    // once (the cast a kernel of its own, MIGRAPHX_DISABLE_FP8_OUTPUT=1), or rounds straight to
    // e4m3 (the product writing e4m3 itself). The output then moves by that e4m3 step times a
    // weight (first device run: 1 or 2 of 512 outputs by 0.03-0.05; a host emulation of this
    // block: up to 0.07 in 40 draws). So: most outputs within ref's half tolerance, none beyond
    // one step of the largest hidden value (32 x its scale, e4m3's step in [256, 448)) times the
    // largest |W2|, and no bias in the mean.
    auto w2     = random_values(32 * 64, 3, 0.2f);
    float w2max = 0;
    for(auto w : w2)
        w2max = std::max(w2max, std::abs(w));
    for(bool fused : {false, true})
        for(const auto* act : {"relu", "gelu"})
        {
            SCOPED_TRACE(std::string(act) + (fused ? ", the product writing e4m3" : ", the cast a kernel"));
            migx_test::scoped_env env("MIGRAPHX_DISABLE_FP8_OUTPUT", fused ? "0" : "1");
            auto p   = ffn(32, 64, act);
            auto ref = p;
            ref.compile(migraphx::ref::target{});
            auto gpu = p;
            migraphx::compile_options o;
            o.offload_copy = true;
            gpu.compile(migraphx::get_target("gpu"), o);
            auto t = migx_test::text(gpu);
            EXPECT_EQ(migx_test::occurrences(t, "d_scale="), fused ? 1u : 0u) << t;
            float one_step = 32 * activation_scale(p, 64) * w2max;
            for(int draw = 1; draw <= 4; draw++)
            {
                auto params = migx_test::fresh_params(p);
                auto want   = ref.eval(params).front().to_vector<double>();
                auto got    = gpu.eval(params).front().to_vector<double>();
                ASSERT_EQ(got.size(), want.size());
                std::size_t outside = 0;
                double sum = 0, worst = 0;
                for(std::size_t i = 0; i < got.size(); i++)
                {
                    double d = got[i] - want[i];
                    sum += d;
                    worst = std::max(worst, std::abs(d));
                    outside += std::abs(d) > 3e-2 + 3e-2 * std::abs(want[i]);
                }
                EXPECT_LE(worst, 3e-2 + one_step) << "draw " << draw;
                EXPECT_LE(outside, got.size() / 50) << "draw " << draw << ": at most 2 % past ref's tolerance";
                EXPECT_LE(std::abs(sum / got.size()), 3e-3) << "draw " << draw;
            }
        }
    // a norm writing the product's e4m3 input beside its own result (the norm returned as well)
    auto t = migx_test::text(migx_test::expect_gpu_matches_ref(norm_then_product(), 3e-2, 3e-2));
    EXPECT_EQ(migx_test::occurrences(t, "layernorm_e4m3_kernel"), 1u) << t;
}

#ifdef MIGX_TEST_HAVE_ONNX
#include "onnx_test_model.hpp"

// An ONNX model quantized elsewhere (QDQ with FLOAT8E4M3FN zero points, as TensorRT's and
// ModelOpt's fp8 exports write them) takes the same path: its MatMul becomes one fp8 gemm.
TEST(gpu_fuse_fp8, an_onnx_qdq_model_in_e4m3_lowers_to_fp8_gemms)
{
    constexpr int float8e4m3fn = 17;
    migx_test::onnx_model m(19);
    m.input("x", onnx::TensorProto::FLOAT, {2, 8, 32});
    onnx::TensorProto w;
    w.set_name("w");
    w.set_data_type(float8e4m3fn);
    w.add_dims(32);
    w.add_dims(16);
    for(int i = 0; i < 32 * 16; i++)
        w.add_int32_data((i * 37) % 0x7e); // finite e4m3 encodings, positive
    m.initializer(w);
    m.initializer(migx_test::onnx_model::tensor("sx", {}, {0.02f}));
    m.initializer(migx_test::onnx_model::tensor("sw", {}, {0.001f}));
    onnx::TensorProto z;
    z.set_name("z");
    z.set_data_type(float8e4m3fn);
    z.add_int32_data(0);
    m.initializer(z);
    m.node("QuantizeLinear", {"x", "sx", "z"}, {"xq"});
    m.node("DequantizeLinear", {"xq", "sx", "z"}, {"xd"});
    m.node("DequantizeLinear", {"w", "sw", "z"}, {"wd"});
    m.node("MatMul", {"xd", "wd"}, {"y"});
    m.output("y");
    auto p    = m.parse();
    auto text = migx_test::lowered_for_gpu(p, 90);
    EXPECT_EQ(migx_test::occurrences(text, "gpu::gemm"), 1u) << text;
    EXPECT_EQ(migx_test::occurrences(text, "gpu::gemm[alpha=1,"), 0u) << "alpha = 0.02 * 0.001: " << text;
    EXPECT_EQ(migx_test::occurrences(text, ":transposed] -> fp8e4m3fn_type, {16, 32}"), 1u) << "W stored as its transpose: " << text;
    EXPECT_EQ(migx_test::occurrences(text, "gpu::ref::"), 0u) << text;
}
#endif

#endif
