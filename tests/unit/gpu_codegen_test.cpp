// Kernel source generation needs no device: these run wherever the gpu target is built.
#include <gtest/gtest.h>
#ifdef MIGRAPHX_HAVE_GPU
#include "targets/gpu/codegen.hpp"
#include "targets/gpu/kernel_compiler.hpp"
#include <migraphx/instruction.hpp>
#include <migraphx/literal.hpp>
#include <migraphx/make_op.hpp>

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
    EXPECT_EQ(k->elements, 256u);
    EXPECT_NE(k->source.find("extern \"C\" __global__ void add_relu_kernel"), std::string::npos) << k->source;
    EXPECT_NE(k->source.find("off0 = i"), std::string::npos) << k->source; // standard input: linear
    EXPECT_NE(k->source.find("% 8u"), std::string::npos) << k->source;     // bias: channel index
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
    EXPECT_NE(k->source.find("const bool t2 = (t1 != 0);"), std::string::npos) << k->source; // convert to bool
    EXPECT_NE(k->source.find("const bool t3 = (v0 > v2);"), std::string::npos) << k->source;   // int64 compare
    EXPECT_NE(k->source.find("const bool t4 = (t3 == 0);"), std::string::npos) << k->source;   // not
    EXPECT_NE(k->source.find("(t4 && t2)"), std::string::npos) << k->source;
    EXPECT_NE(k->source.find("(t5 != t6)"), std::string::npos) << k->source;                  // xor
    EXPECT_NE(k->source.find("const float t8 = rh((t7 ? __int_as_float(0xc77fe000) : v1));"), std::string::npos)
        << k->source;
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

TEST(gpu_codegen, half_values_are_rounded_like_ref)
{
    migraphx::module sub("main:pointwise3");
    shape s{shape::half_type, {16}};
    auto x0 = sub.add_parameter("x0", s);
    sub.add_return({sub.add_instruction(make_op("exp"), sub.add_instruction(make_op("neg"), x0))});
    auto k = migraphx::gpu::generate_pointwise(sub, {s}, s);
    ASSERT_TRUE(k.has_value());
    EXPECT_NE(k->source.find("rh("), std::string::npos);
    EXPECT_NE(k->source.find("f2h("), std::string::npos);
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
#else
TEST(gpu_codegen, skipped) { GTEST_SKIP() << "built without CUDA"; }
#endif
