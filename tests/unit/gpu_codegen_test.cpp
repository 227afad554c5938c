// Kernel source generation needs no device: these run wherever the gpu target is built.
#include <gtest/gtest.h>
#ifdef MIGRAPHX_HAVE_GPU
#include "targets/gpu/codegen.hpp"
#include "targets/gpu/kernel_compiler.hpp"
#include <migraphx/instruction.hpp>
#include <migraphx/literal.hpp>
#include <migraphx/make_op.hpp>
#include <memory>
#include <optional>

using migraphx::make_op;
using migraphx::shape;

TEST(gpu_codegen, pointwise_add_relu_with_broadcast_input)
{
    migraphx::module sub("main:pointwise0");
    shape s{shape::float_type, {2, 8, 4, 4}};
    auto x0 = sub.add_parameter("x0", s);
    auto x1 = sub.add_parameter("x1", s);
    auto a  = sub.add_instruction(make_op("add"), x0, x1);
    sub.add_return({sub.add_instruction(make_op("relu"), a)});
    shape bias{shape::float_type, {2, 8, 4, 4}, {0, 1, 0, 0}};
    auto k = migraphx::gpu::generate_pointwise(sub, {s, bias}, s);
    ASSERT_TRUE(k.has_value());
    EXPECT_EQ(k->name, "add_relu_kernel");
    // 4 floats a thread: the bias is one value over each run of H * W = 16
    EXPECT_EQ(k->elements, 64u);
    EXPECT_NE(k->source.find("extern \"C\" __global__ void add_relu_kernel"), std::string::npos) << k->source;
    EXPECT_NE(k->source.find("off0 = i"), std::string::npos) << k->source; // standard input: linear
    EXPECT_NE(k->source.find("% 8u"), std::string::npos) << k->source;     // bias: channel index
    EXPECT_NE(k->source.find("// vector path: 4 elements a thread"), std::string::npos) << k->source;
}

namespace {

bool vector_path(const migraphx::gpu::kernel_source& k)
{
    return k.source.find("// vector path") != std::string::npos;
}

/// The pointers the vector path needs 16-byte aligned (its condition's line).
std::string vector_condition(const migraphx::gpu::kernel_source& k)
{
    auto c = k.source.find("if(((");
    if(c == std::string::npos)
        return "";
    return k.source.substr(c, k.source.find('\n', c) - c);
}

/// op of the parameters x0.. (of the inputs' element types) over `inputs` into `out`.
std::optional<migraphx::gpu::kernel_source>
elementwise(const std::string& op, const std::vector<shape>& inputs, const shape& out)
{
    migraphx::module sub("main:pointwise0");
    std::vector<migraphx::instruction_ref> x;
    for(std::size_t k = 0; k < inputs.size(); k++)
        x.push_back(sub.add_parameter("x" + std::to_string(k), shape{inputs[k].type(), inputs[k].lens()}));
    sub.add_return({sub.add_instruction(make_op(op), x)});
    return migraphx::gpu::generate_pointwise(sub, inputs, out);
}

} // namespace

TEST(gpu_codegen, pointwise_vector_path_for_packed_and_broadcast_inputs)
{
    // BERT-base b64's bias + erf GELU in fp16: 8 halves a thread (16-byte loads and stores),
    // the bias read as 8 consecutive halves of its row
    {
        std::vector<std::size_t> lens{64, 128, 3072};
        shape s{shape::half_type, lens};
        migraphx::module sub("main:pointwise0");
        auto x0   = sub.add_parameter("x0", s);
        auto x1   = sub.add_parameter("x1", s);
        auto lit  = [&](float v) {
            return sub.add_instruction(make_op("multibroadcast", {{"out_lens", lens}}),
                                       sub.add_literal(migraphx::literal{shape{shape::half_type}, std::vector<float>{v}}));
        };
        auto a = sub.add_instruction(make_op("add"), x0, x1);
        auto e = sub.add_instruction(make_op("erf"), sub.add_instruction(make_op("div"), a, lit(1.4142135f)));
        auto g = sub.add_instruction(make_op("mul"), a, sub.add_instruction(make_op("add"), e, lit(1)));
        sub.add_return({sub.add_instruction(make_op("mul"), g, lit(0.5f))});
        auto k = migraphx::gpu::generate_pointwise(sub, {s, shape{shape::half_type, lens, {0, 0, 1}}}, s);
        ASSERT_TRUE(k.has_value());
        EXPECT_EQ(k->name, "add_div_erf_add_mul_mul_kernel");
        EXPECT_EQ(k->elements, 64u * 128 * 3072 / 8);
        EXPECT_NE(k->source.find("// vector path: 8 elements a thread"), std::string::npos) << k->source;
        EXPECT_NE(k->source.find("q < 3145728u;"), std::string::npos) << k->source;
        EXPECT_NE(k->source.find("xv0.c[0] = reinterpret_cast<const uint4*>(x0 + off0)[0];"), std::string::npos)
            << k->source;
        EXPECT_NE(k->source.find("xv1.c[0] = reinterpret_cast<const uint4*>(x1 + off1)[0];"), std::string::npos)
            << k->source;
        EXPECT_NE(k->source.find("idx_t off1 = d1 * 1u;"), std::string::npos) << k->source; // the column
        EXPECT_NE(k->source.find("const float v1 = h2f(xv1.e[j]);"), std::string::npos) << k->source;
        EXPECT_NE(k->source.find("yv.e[j] = f2h(t5);"), std::string::npos) << k->source;
        EXPECT_NE(k->source.find("reinterpret_cast<uint4*>(y + i)[0] = yv.c[0];"), std::string::npos) << k->source;
        EXPECT_EQ(vector_condition(*k), "if((((unsigned long long)(const void*)x0 | (unsigned long long)(const "
                                        "void*)x1 | (unsigned long long)(const void*)y) & 15ull) == 0ull)");
        // the scalar loop stays, over all elements, for pointers off 16 bytes
        EXPECT_NE(k->source.find("i < n; i += (idx_t)gridDim.x * blockDim.x"), std::string::npos) << k->source;
        EXPECT_NE(k->source.find("const idx_t n = 25165824;"), std::string::npos) << k->source;
        EXPECT_NE(k->source.find("y[i] = f2h(t5);"), std::string::npos) << k->source;
        EXPECT_NO_THROW(migraphx::gpu::compile_cuda(k->source, k->name, 9, 0)) << k->source;
    }
    // MobileNetV2's add + clip on NHWC: the output, the conv result and the per-channel bias
    // (stride 1 along C, innermost in memory) all vectors
    {
        std::vector<std::size_t> lens{256, 32, 112, 112};
        shape nhwc{shape::half_type, lens, {401408, 1, 3584, 32}};
        migraphx::module sub("main:pointwise1");
        auto x0  = sub.add_parameter("x0", shape{shape::half_type, lens});
        auto x1  = sub.add_parameter("x1", shape{shape::half_type, lens});
        auto lit = [&](float v) {
            return sub.add_instruction(make_op("multibroadcast", {{"out_lens", lens}}),
                                       sub.add_literal(migraphx::literal{shape{shape::half_type}, std::vector<float>{v}}));
        };
        sub.add_return({sub.add_instruction(make_op("clip"), sub.add_instruction(make_op("add"), x0, x1), lit(0), lit(6))});
        auto k = migraphx::gpu::generate_pointwise(sub, {nhwc, shape{shape::half_type, lens, {0, 1, 0, 0}}}, nhwc);
        ASSERT_TRUE(k.has_value());
        EXPECT_EQ(k->elements, 256u * 401408 / 8);
        EXPECT_TRUE(vector_path(*k)) << k->source;
        EXPECT_NE(vector_condition(*k).find("x1 |"), std::string::npos) << k->source;
        EXPECT_NE(k->source.find("idx_t d1 = r % 32u;"), std::string::npos) << k->source; // C, innermost
        EXPECT_NE(k->source.find("idx_t off1 = d1 * 1u;"), std::string::npos) << k->source;
        EXPECT_NO_THROW(migraphx::gpu::compile_cuda(k->source, k->name, 9, 0)) << k->source;
    }
    // a scalar broadcast is read once a vector (not a vector, its pointer not checked); fp32: 4
    {
        shape s{shape::float_type, {3, 40}};
        auto k = elementwise("mul", {s, shape{shape::float_type, {3, 40}, {0, 0}}}, s);
        ASSERT_TRUE(k.has_value());
        EXPECT_EQ(k->elements, 30u);
        EXPECT_NE(k->source.find("// vector path: 4 elements a thread"), std::string::npos) << k->source;
        EXPECT_EQ(vector_condition(*k),
                  "if((((unsigned long long)(const void*)x0 | (unsigned long long)(const void*)y) & 15ull) == 0ull)");
        EXPECT_NE(k->source.find("idx_t off1 = 0;"), std::string::npos) << k->source;
        auto loop = k->source.find("#pragma unroll");
        auto once = k->source.find("const float v1 = x1[off1];");
        EXPECT_LT(once, loop) << k->source;
        EXPECT_EQ(k->source.find("xv1"), std::string::npos) << k->source;
        EXPECT_NO_THROW(migraphx::gpu::compile_cuda(k->source, k->name, 9, 0)) << k->source;
    }
    // half and float together: 8 a thread, a float tensor in two 16-byte words
    {
        std::vector<std::size_t> lens{4, 64};
        migraphx::module sub("main:pointwise2");
        auto x0 = sub.add_parameter("x0", shape{shape::half_type, lens});
        auto x1 = sub.add_parameter("x1", shape{shape::float_type, lens});
        auto c  = sub.add_instruction(make_op("convert", {{"target_type", shape::float_type}}), x0);
        sub.add_return({sub.add_instruction(make_op("add"), c, x1)});
        shape out{shape::float_type, lens};
        auto k = migraphx::gpu::generate_pointwise(sub, {shape{shape::half_type, lens}, shape{shape::float_type, lens, {0, 1}}}, out);
        ASSERT_TRUE(k.has_value());
        EXPECT_EQ(k->elements, 32u);
        EXPECT_NE(k->source.find("union { uint4 c[1]; migx_half e[8]; } xv0;"), std::string::npos) << k->source;
        EXPECT_NE(k->source.find("union { uint4 c[2]; float e[8]; } xv1;"), std::string::npos) << k->source;
        EXPECT_NE(k->source.find("xv1.c[1] = reinterpret_cast<const uint4*>(x1 + off1)[1];"), std::string::npos)
            << k->source;
        EXPECT_NE(k->source.find("union { uint4 c[2]; float e[8]; } yv;"), std::string::npos) << k->source;
        EXPECT_NE(k->source.find("reinterpret_cast<uint4*>(y + i)[1] = yv.c[1];"), std::string::npos) << k->source;
        EXPECT_NO_THROW(migraphx::gpu::compile_cuda(k->source, k->name, 9, 0)) << k->source;
    }
    // a slice whose rows start at multiples of the width; a per-row value (innermost stride 0);
    // where with a bool condition read once a vector
    {
        shape s{shape::half_type, {4, 16}};
        auto k = elementwise("add", {shape{shape::half_type, {4, 16}, {24, 1}}, s}, s);
        ASSERT_TRUE(k.has_value());
        EXPECT_EQ(k->elements, 8u);
        EXPECT_NE(k->source.find("idx_t off0 = d0 * 24u + d1 * 1u;"), std::string::npos) << k->source;
        auto r = elementwise("max", {s, shape{shape::half_type, {4, 16}, {1, 0}}}, s);
        ASSERT_TRUE(r.has_value());
        EXPECT_TRUE(vector_path(*r)) << r->source;
        EXPECT_EQ(vector_condition(*r).find("x1"), std::string::npos) << r->source;
        auto w = elementwise("where", {shape{shape::bool_type, {4, 16}, {1, 0}}, s, s}, s);
        ASSERT_TRUE(w.has_value());
        EXPECT_TRUE(vector_path(*w)) << w->source;
        EXPECT_NE(w->source.find("const bool v0 = x0[off0];"), std::string::npos) << w->source;
        EXPECT_NO_THROW(migraphx::gpu::compile_cuda(w->source, w->name, 9, 0)) << w->source;
    }
}

TEST(gpu_codegen, pointwise_scalar_path_where_vectors_do_not_fit)
{
    auto scalar_only = [](const std::optional<migraphx::gpu::kernel_source>& k, std::size_t n) {
        ASSERT_TRUE(k.has_value());
        EXPECT_FALSE(vector_path(*k)) << k->source;
        EXPECT_EQ(k->elements, n);
    };
    shape h{shape::half_type, {64, 128}};
    // a transposed input (innermost stride 64)
    scalar_only(elementwise("add", {shape{shape::half_type, {64, 128}, {1, 64}}, h}, h), 8192);
    // a row of 12: a row bias needs the width to divide it (8 halves do not, 4 floats do)
    shape h12{shape::half_type, {8, 12}};
    scalar_only(elementwise("add", {h12, shape{shape::half_type, {8, 12}, {0, 1}}}, h12), 96);
    shape f12{shape::float_type, {8, 12}};
    auto f = elementwise("add", {f12, shape{shape::float_type, {8, 12}, {0, 1}}}, f12);
    ASSERT_TRUE(f.has_value());
    EXPECT_TRUE(vector_path(*f));
    EXPECT_EQ(f->elements, 24u);
    // ... but packed inputs alone only the element count
    EXPECT_TRUE(vector_path(*elementwise("add", {h12, h12}, h12)));
    // an element count no multiple of the width, or less than it
    shape h15{shape::half_type, {3, 5}};
    scalar_only(elementwise("add", {h15, h15}, h15), 15);
    shape h4{shape::half_type, {4}};
    scalar_only(elementwise("add", {h4, h4}, h4), 4);
    // a broadcast along a non-innermost dim whose runs are no multiple of the width (an NCHW
    // per-channel bias over 7 x 7)
    shape n7{shape::half_type, {2, 32, 7, 7}};
    scalar_only(elementwise("add", {n7, shape{shape::half_type, {2, 32, 7, 7}, {0, 1, 0, 0}}}, n7), 2u * 32 * 49);
    // rows at a stride no multiple of the width (a slice), an innermost stride of 2
    shape s16{shape::half_type, {4, 16}};
    scalar_only(elementwise("add", {shape{shape::half_type, {4, 16}, {20, 1}}, s16}, s16), 64);
    scalar_only(elementwise("add", {shape{shape::half_type, {4, 16}, {32, 2}}, s16}, s16), 64);
    // other element types keep the scalar loop: int32, a bool result, an int64 vector input
    shape i32{shape::int32_type, {64}};
    scalar_only(elementwise("add", {i32, i32}, i32), 64);
    scalar_only(elementwise("less", {shape{shape::half_type, {64}}, shape{shape::half_type, {64}}}, shape{shape::bool_type, {64}}),
                64);
    {
        migraphx::module sub("main:pointwise3");
        auto x0 = sub.add_parameter("x0", shape{shape::int64_type, {64}});
        auto c  = sub.add_instruction(make_op("convert", {{"target_type", shape::half_type}}), x0);
        sub.add_return({c});
        scalar_only(migraphx::gpu::generate_pointwise(sub, {shape{shape::int64_type, {64}}}, shape{shape::half_type, {64}}),
                    64);
    }
    // no elements: no launch
    shape e{shape::float_type, {0, 8}};
    scalar_only(elementwise("add", {e, e}, e), 0);
}

TEST(gpu_codegen, unknown_op_or_type_gives_nothing)
{
    // float math on integers (ref computes it in double) and double values are not generated
    migraphx::module sub("main:pointwise1");
    shape si{shape::int32_type, {4}};
    auto x0 = sub.add_parameter("x0", si);
    sub.add_return({sub.add_instruction(make_op("sqrt"), x0)});
    EXPECT_FALSE(migraphx::gpu::generate_pointwise(sub, {si}, si).has_value());

    migraphx::module dsub("main:pointwise2");
    shape sd{shape::double_type, {4}};
    auto y0 = dsub.add_parameter("x0", sd);
    dsub.add_return({dsub.add_instruction(make_op("add"), y0, y0)});
    EXPECT_FALSE(migraphx::gpu::generate_pointwise(dsub, {sd}, sd).has_value());

    // a comparison of mixed types does not exist; where needs a bool condition
    migraphx::module wsub("main:pointwise3");
    shape sf{shape::float_type, {4}};
    auto c  = wsub.add_parameter("x0", sf);
    auto a  = wsub.add_parameter("x1", sf);
    auto w  = wsub.add_instruction(make_op("add"), c, a);
    wsub.add_return({w});
    EXPECT_FALSE(migraphx::gpu::generate_pointwise(wsub, {sf, sf}, shape{shape::bool_type, {4}}).has_value());
}

TEST(gpu_codegen, integer_inputs_through_convert)
{
    shape si{shape::int64_type, {8}};
    shape sf{shape::float_type, {8}};
    migraphx::module sub("main:pointwise4");
    auto x0 = sub.add_parameter("x0", si);
    auto x1 = sub.add_parameter("x1", sf);
    auto c  = sub.add_instruction(make_op("convert", {{"target_type", shape::float_type}}), x0);
    sub.add_return({sub.add_instruction(make_op("sub"), x1, c)});
    auto k = migraphx::gpu::generate_pointwise(sub, {si, sf}, sf);
    ASSERT_TRUE(k.has_value());
    EXPECT_NE(k->source.find("const long long* __restrict__ x0"), std::string::npos) << k->source;
    EXPECT_NE(k->source.find("const long long v0 = x0[off0];"), std::string::npos) << k->source;
    EXPECT_NE(k->source.find("((float)v0)"), std::string::npos) << k->source;
    EXPECT_NO_THROW(migraphx::gpu::compile_cuda(k->source, k->name, 9, 0)) << k->source;
}

TEST(gpu_codegen, comparisons_logic_and_where_hold_bool_values)
{
    // BERT's padding mask: where(bool(1 - float(mask)), finfo.min, 1 - float(mask)), then the
    // causal part: where(not(greater(i, j)) and mask, x, -inf), a bool output besides
    shape si{shape::int64_type, {2, 8}};
    shape sh{shape::half_type, {2, 8}};
    shape sb{shape::bool_type, {2, 8}};
    migraphx::module sub("main:pointwise5");
    auto m   = sub.add_parameter("x0", si);
    auto x   = sub.add_parameter("x1", sh);
    auto j   = sub.add_parameter("x2", si);
    auto one = sub.add_literal(migraphx::literal{shape{shape::half_type}, std::vector<float>{1}});
    auto big = sub.add_literal(migraphx::literal{shape{shape::half_type}, std::vector<float>{-65504}});
    auto b1  = sub.add_instruction(make_op("multibroadcast", {{"out_lens", {2, 8}}}), one);
    auto b2  = sub.add_instruction(make_op("multibroadcast", {{"out_lens", {2, 8}}}), big);
    auto mf  = sub.add_instruction(make_op("convert", {{"target_type", shape::half_type}}), m);
    auto inv = sub.add_instruction(make_op("sub"), b1, mf);
    auto ib  = sub.add_instruction(make_op("convert", {{"target_type", shape::bool_type}}), inv);
    auto gt  = sub.add_instruction(make_op("greater"), m, j);
    auto ng  = sub.add_instruction(make_op("not"), gt);
    auto an  = sub.add_instruction(make_op("logical_and"), ng, ib);
    auto xo  = sub.add_instruction(make_op("logical_xor"), an, sub.add_instruction(make_op("equal"), m, j));
    auto w   = sub.add_instruction(make_op("where"), xo, b2, x);
    auto lt  = sub.add_instruction(make_op("less"), w, x);
    sub.add_return({lt});
    auto k = migraphx::gpu::generate_pointwise(sub, {si, sh, si}, sb);
    ASSERT_TRUE(k.has_value());
    EXPECT_EQ(k->name, "sub_greater_not_logical_and_equal_logical_xor_kernel");
    EXPECT_NE(k->source.find("bool* __restrict__ y)"), std::string::npos) << k->source;
    // 1 - mask is computed in float (float-through); converting it to bool reads its half value
    EXPECT_NE(k->source.find("const float t1 = (__int_as_float(0x3f800000) - t0);"), std::string::npos) << k->source;
    EXPECT_NE(k->source.find("const bool t2 = (rh(t1) != 0);"), std::string::npos) << k->source; // convert to bool
    EXPECT_NE(k->source.find("const bool t3 = (v0 > v2);"), std::string::npos) << k->source;   // int64 compare
    EXPECT_NE(k->source.find("const bool t4 = (t3 == 0);"), std::string::npos) << k->source;   // not
    EXPECT_NE(k->source.find("(t4 && t2)"), std::string::npos) << k->source;
    EXPECT_NE(k->source.find("(t5 != t6)"), std::string::npos) << k->source;                  // xor
    // where of two half values is one: the comparison after it needs no rounding
    EXPECT_NE(k->source.find("const float t8 = (t7 ? __int_as_float(0xc77fe000) : v1);"), std::string::npos)
        << k->source;
    EXPECT_NE(k->source.find("const bool t9 = (t8 < v1);"), std::string::npos) << k->source;
    EXPECT_NE(k->source.find("y[i] = t9;"), std::string::npos) << k->source; // bool stored as it is
    EXPECT_NO_THROW(migraphx::gpu::compile_cuda(k->source, k->name, 9, 0)) << k->source;
}

TEST(gpu_codegen, conversions_follow_safe_cast)
{
    auto conv = [&](shape::type_t from, shape::type_t to) {
        migraphx::module sub("main:pointwise6");
        auto x = sub.add_parameter("x0", shape{from, {5}});
        sub.add_return({sub.add_instruction(make_op("convert", {{"target_type", to}}), x)});
        auto k = migraphx::gpu::generate_pointwise(sub, {shape{from, {5}}}, shape{to, {5}});
        EXPECT_TRUE(k.has_value());
        if(k)
        {
            EXPECT_NO_THROW(migraphx::gpu::compile_cuda(k->source, k->name, 9, 0)) << k->source;
        }
        return k ? k->source : std::string();
    };
    // float -> integer: NaN, inf and values out of range give 0 (ref's safe_cast), else trunc
    auto i32 = conv(shape::float_type, shape::int32_type);
    EXPECT_NE(i32.find("migx_f2i<int>(v0, -0x1p31, 0x1p31)"), std::string::npos) << i32;
    EXPECT_NE(i32.find("template <class T> __device__ __forceinline__ T migx_f2i"), std::string::npos) << i32;
    auto u8 = conv(shape::half_type, shape::uint8_type);
    EXPECT_NE(u8.find("migx_f2i<unsigned char>(v0, 0.0, 0x1p8)"), std::string::npos) << u8;
    auto i64 = conv(shape::float_type, shape::int64_type);
    EXPECT_NE(i64.find("migx_f2i<long long>(v0, -0x1p63, 0x1p63)"), std::string::npos) << i64;
    // integer -> integer wraps (a C cast), bool -> half goes through float and is rounded
    EXPECT_NE(conv(shape::int64_type, shape::int8_type).find("((signed char)v0)"), std::string::npos);
    EXPECT_NE(conv(shape::bool_type, shape::half_type).find("rh(((float)v0))"), std::string::npos);
    EXPECT_NE(conv(shape::half_type, shape::bool_type).find("(v0 != 0)"), std::string::npos);
    // plain float conversions need no integer helpers
    EXPECT_EQ(conv(shape::half_type, shape::float_type).find("migx_f2i"), std::string::npos);
    // fp8e4m3fn: read through f82f, written through f2f8 (codegen's fp8_prelude, compiled by NVRTC)
    auto to8 = conv(shape::float_type, shape::fp8e4m3fn_type);
    EXPECT_NE(to8.find("y[i] = f2f8("), std::string::npos) << to8;
    EXPECT_NE(to8.find("migx_fp8* __restrict__ y"), std::string::npos) << to8;
    auto from8 = conv(shape::fp8e4m3fn_type, shape::half_type);
    EXPECT_NE(from8.find("f82f(x0[off0])"), std::string::npos) << from8;
    EXPECT_EQ(conv(shape::half_type, shape::float_type).find("f82f"), std::string::npos) << "only where fp8 is used";
}

TEST(gpu_codegen, integer_arithmetic_wraps_and_divides_as_ref)
{
    shape si{shape::int32_type, {6}};
    migraphx::module sub("main:pointwise7");
    auto a = sub.add_parameter("x0", si);
    auto b = sub.add_parameter("x1", si);
    auto big = sub.add_instruction(make_op("multibroadcast", {{"out_lens", {6}}}),
                                   sub.add_literal(migraphx::literal{shape{shape::int32_type}, std::vector<int>{-2147483647}}));
    auto s  = sub.add_instruction(make_op("add"), a, big);
    auto d  = sub.add_instruction(make_op("div"), s, b);
    auto md = sub.add_instruction(make_op("mod"), d, b);
    auto mx = sub.add_instruction(make_op("max"), md, sub.add_instruction(make_op("neg"), a));
    sub.add_return({sub.add_instruction(make_op("abs"), mx)});
    auto k = migraphx::gpu::generate_pointwise(sub, {si, si}, si);
    ASSERT_TRUE(k.has_value());
    EXPECT_EQ(k->name, "add_div_mod_neg_max_abs_kernel");
    EXPECT_NE(k->source.find("((int)((unsigned int)v0 + (unsigned int)((int)0xffffffff80000001ull)))"),
              std::string::npos)
        << k->source;
    EXPECT_NE(k->source.find("migx_idiv<int>(t0, v1)"), std::string::npos) << k->source;
    EXPECT_NE(k->source.find("migx_imod<int>(t1, v1)"), std::string::npos) << k->source;
    EXPECT_NE(k->source.find("int* __restrict__ y)"), std::string::npos) << k->source;
    EXPECT_NO_THROW(migraphx::gpu::compile_cuda(k->source, k->name, 9, 0)) << k->source;
}

namespace {

/// The kernel's body (after the helpers, which define rh and f2h).
std::string body(const migraphx::gpu::kernel_source& k) { return k.source.substr(k.source.find("extern \"C\"")); }

migraphx::instruction_ref constant(migraphx::module& sub, shape::type_t t, float v, const std::vector<std::size_t>& lens)
{
    return sub.add_instruction(make_op("multibroadcast", {{"out_lens", lens}}),
                               sub.add_literal(migraphx::literal{shape{t}, std::vector<float>{v}}));
}

} // namespace

TEST(gpu_codegen, half_chains_run_in_float_and_round_when_stored)
{
    // BERT's erf GELU over half: x / sqrt(2) -> erf -> + 1 -> * x -> * 0.5, no rounding between
    // the ops (float-through), the division by the constant a multiplication by its reciprocal
    migraphx::module sub("main:pointwise3");
    std::vector<std::size_t> lens{64, 3072};
    shape s{shape::half_type, lens};
    auto x = sub.add_parameter("x0", s);
    auto d = sub.add_instruction(make_op("div"), x, constant(sub, shape::half_type, 1.4142135f, lens));
    auto e = sub.add_instruction(make_op("erf"), d);
    auto a = sub.add_instruction(make_op("add"), e, constant(sub, shape::half_type, 1.f, lens));
    auto m = sub.add_instruction(make_op("mul"), x, a);
    sub.add_return({sub.add_instruction(make_op("mul"), m, constant(sub, shape::half_type, 0.5f, lens))});
    auto k = migraphx::gpu::generate_pointwise(sub, {s}, s);
    ASSERT_TRUE(k.has_value());
    auto b = body(*k);
    EXPECT_EQ(b.find("rh("), std::string::npos) << b;
    EXPECT_EQ(b.find(" / "), std::string::npos) << b;
    // the half constant 1.4140625's float reciprocal, 0.70718...
    EXPECT_NE(b.find("const float t0 = (v0 * __int_as_float(0x3f3509e7));"), std::string::npos) << b;
    EXPECT_NE(b.find("const float t1 = erff(t0);"), std::string::npos) << b;
    EXPECT_NE(b.find("yv.e[j] = f2h(t4);"), std::string::npos) << b; // rounded once, when stored
    EXPECT_NE(b.find("y[i] = f2h(t4);"), std::string::npos) << b;
    EXPECT_TRUE(vector_path(*k));
    EXPECT_NO_THROW(migraphx::gpu::compile_cuda(k->source, k->name, 9, 0)) << k->source;

    // float chains are as they were: a division stays one
    shape f{shape::float_type, lens};
    migraphx::module fs("main:pointwise4");
    auto fx = fs.add_parameter("x0", f);
    fs.add_return({fs.add_instruction(make_op("div"), fx, constant(fs, shape::float_type, 3.f, lens))});
    auto fk = migraphx::gpu::generate_pointwise(fs, {f}, f);
    ASSERT_TRUE(fk.has_value());
    EXPECT_NE(body(*fk).find("(v0 / __int_as_float(0x40400000))"), std::string::npos) << fk->source;
}

TEST(gpu_codegen, half_values_are_rounded_before_discontinuous_ops)
{
    // t = x + y in float; the ops whose result rounding could flip read rh(t), as ref computes
    // them on the rounded half; continuous ones (exp, the sub) read t itself
    shape s{shape::half_type, {64}};
    migraphx::module sub("main:pointwise8");
    auto x  = sub.add_parameter("x0", s);
    auto y  = sub.add_parameter("x1", s);
    auto t  = sub.add_instruction(make_op("add"), x, y);
    auto fl = sub.add_instruction(make_op("floor"), t);                                   // t1
    auto eq = sub.add_instruction(make_op("equal"), t, y);                                // t2
    auto in = sub.add_instruction(make_op("isinf"), t);                                   // t3
    auto ci = sub.add_instruction(make_op("convert", {{"target_type", shape::int32_type}}), t); // t4
    auto pw = sub.add_instruction(make_op("pow"), t, t);                                   // t5: base as is
    auto ex = sub.add_instruction(make_op("exp"), t);                                      // t6
    auto c1 = sub.add_instruction(make_op("convert", {{"target_type", shape::half_type}}), ci); // t7: rounds
    auto w  = sub.add_instruction(make_op("where"), sub.add_instruction(make_op("logical_or"), eq, in), fl, ex); // t8, t9
    auto r  = sub.add_instruction(make_op("sub"), sub.add_instruction(make_op("add"), w, pw), c1);
    sub.add_return({r});
    auto k = migraphx::gpu::generate_pointwise(sub, {s, s}, s);
    ASSERT_TRUE(k.has_value());
    auto b = body(*k);
    EXPECT_NE(b.find("const float t0 = (v0 + v1);"), std::string::npos) << b;
    EXPECT_NE(b.find("const float t1 = floorf(rh(t0));"), std::string::npos) << b;
    EXPECT_NE(b.find("const bool t2 = (rh(t0) == v1);"), std::string::npos) << b;
    EXPECT_NE(b.find("const bool t3 = isinf(rh(t0));"), std::string::npos) << b;
    EXPECT_NE(b.find("migx_f2i<int>(rh(t0), -0x1p31, 0x1p31)"), std::string::npos) << b;
    EXPECT_NE(b.find("const float t5 = powf(t0, rh(t0));"), std::string::npos) << b;
    EXPECT_NE(b.find("const float t6 = expf(t0);"), std::string::npos) << b;
    EXPECT_NE(b.find("const float t7 = rh(((float)t4));"), std::string::npos) << b;
    EXPECT_NE(b.find("const float t9 = (t8 ? t1 : t6);"), std::string::npos) << b;
    EXPECT_NE(b.find("const float t10 = (t9 + t5);"), std::string::npos) << b;
    EXPECT_NO_THROW(migraphx::gpu::compile_cuda(k->source, k->name, 9, 0)) << k->source;
}

TEST(gpu_codegen, copy_of_transposed_view)
{
    shape in{shape::half_type, {3, 5}, {1, 3}};
    auto k = migraphx::gpu::generate_copy(in, shape{shape::half_type, {3, 5}});
    EXPECT_EQ(k.name, "contiguous_kernel");
    EXPECT_EQ(k.elements, 15u);
    EXPECT_NE(k.source.find("unsigned short"), std::string::npos);
    EXPECT_NE(k.source.find("d0 * 1u + d1 * 3u"), std::string::npos) << k.source;
}
TEST(gpu_codegen, many_inputs_come_through_a_pointer_table)
{
    std::size_t n = migraphx::gpu::max_pointer_params + 1;
    shape s{shape::float_type, {4, 3}};
    shape t{shape::float_type, {4, 3}, {1, 4}};
    // a max over all inputs of one layout: a loop over the table
    {
        migraphx::module sub("main:pointwise7");
        std::vector<migraphx::instruction_ref> ps;
        for(std::size_t k = 0; k < n; k++)
            ps.push_back(sub.add_parameter("x" + std::to_string(k), s));
        auto acc = ps[0];
        for(std::size_t k = 1; k < n; k++)
            acc = sub.add_instruction(make_op("max"), acc, ps[k]);
        sub.add_return({acc});
        std::vector<shape> in(n, t);
        auto k = migraphx::gpu::generate_pointwise(sub, in, s);
        ASSERT_TRUE(k.has_value());
        EXPECT_EQ(k->name, "max_fold_kernel");
        EXPECT_NE(k->source.find("max_fold_kernel(const void* const* __restrict__ migx_inputs, float* __restrict__ y)"),
                  std::string::npos)
            << k->source;
        EXPECT_NE(k->source.find("k < 512u"), std::string::npos) << k->source;
        EXPECT_EQ(k->source.find("x511"), std::string::npos) << k->source;
        // two layouts: no fold, unrolled, pointers still from the table
        in[1]  = s;
        auto u = migraphx::gpu::generate_pointwise(sub, in, s);
        ASSERT_TRUE(u.has_value());
        EXPECT_EQ(u->name, "max_max_max_max_max_max_kernel");
        EXPECT_EQ(u->source.find("vector path"), std::string::npos); // never with a pointer table
        EXPECT_EQ(u->elements, 12u);
        EXPECT_NE(u->source.find("const float* __restrict__ x511 = static_cast<const float*>(migx_inputs[511]);"),
                  std::string::npos);
        EXPECT_EQ(u->source.find("const float* __restrict__ x511,"), std::string::npos);
    }
    // few inputs: one parameter each
    {
        migraphx::module sub("main:pointwise8");
        auto x0 = sub.add_parameter("x0", s);
        auto x1 = sub.add_parameter("x1", s);
        sub.add_return({sub.add_instruction(make_op("max"), x0, x1)});
        auto k = migraphx::gpu::generate_pointwise(sub, {s, s}, s);
        ASSERT_TRUE(k.has_value());
        EXPECT_EQ(k->name, "max_kernel");
        EXPECT_EQ(k->source.find("migx_inputs"), std::string::npos) << k->source;
        EXPECT_NE(k->source.find("const float* __restrict__ x1, float* __restrict__ y)"), std::string::npos)
            << k->source;
    }
}

// A detector head's elementwise kernel takes its row count at run time: one more parameter, the
// loop bound from it, threads a row for the launch; the vector path only where every row count
// ends on a whole vector; refused where the rows are not the outermost dim.
TEST(gpu_codegen, pointwise_rows_at_run_time)
{
    std::vector<std::unique_ptr<migraphx::module>> subs;
    auto bias_relu = [&](const shape& s) -> const migraphx::module& {
        subs.push_back(std::make_unique<migraphx::module>("main:pointwise9"));
        auto& sub = *subs.back();
        auto x0   = sub.add_parameter("x0", s);
        auto x1   = sub.add_parameter("x1", s);
        sub.add_return({sub.add_instruction(make_op("relu"), sub.add_instruction(make_op("add"), x0, x1))});
        return sub;
    };
    shape h{shape::half_type, {100, 256, 14, 14}};
    shape bias = h; // a residual: packed like the output
    const auto& sub = bias_relu(h);
    auto k          = migraphx::gpu::generate_pointwise(sub, {h, bias}, h, true);
    ASSERT_TRUE(k.has_value());
    EXPECT_NE(k->source.find("migx_half* __restrict__ y, unsigned long long migx_rows)"), std::string::npos) << k->source;
    EXPECT_NE(k->source.find("const idx_t n = (idx_t)migx_rows * 50176u;"), std::string::npos) << k->source;
    EXPECT_NE(k->source.find("// vector path: 8 elements a thread"), std::string::npos) << k->source;
    EXPECT_NE(k->source.find("q < n / 8u;"), std::string::npos) << k->source;
    EXPECT_EQ(k->row_elements, 50176u / 8);
    EXPECT_EQ(k->elements, h.elements() / 8);
    // the same kernel for a fixed size: no parameter, constant bounds
    auto fixed = migraphx::gpu::generate_pointwise(sub, {h, bias}, h);
    ASSERT_TRUE(fixed.has_value());
    EXPECT_EQ(fixed->row_elements, 0u);
    EXPECT_EQ(fixed->source.find("migx_rows"), std::string::npos);
    // rows of 12 halves: a row count may end inside a vector of 8, so the scalar loop only
    shape odd{shape::half_type, {6, 12}};
    auto o = migraphx::gpu::generate_pointwise(bias_relu(odd), {odd, odd}, odd, true);
    ASSERT_TRUE(o.has_value());
    EXPECT_EQ(o->source.find("vector path"), std::string::npos) << o->source;
    EXPECT_EQ(o->row_elements, 12u);
    // an NHWC output: refused (the device rows path takes standard outputs only)
    shape nhwc{shape::half_type, {4, 8, 2, 2}, {32, 1, 16, 8}};
    EXPECT_FALSE(migraphx::gpu::generate_pointwise(bias_relu(nhwc), {nhwc, nhwc}, nhwc, true).has_value());
}

#else
TEST(gpu_codegen, skipped) { GTEST_SKIP() << "built without CUDA"; }
#endif
