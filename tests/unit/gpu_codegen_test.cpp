// Kernel source generation needs no device: these run wherever the gpu target is built.
#include <gtest/gtest.h>
#ifdef MIGRAPHX_HAVE_GPU
#include "targets/gpu/codegen.hpp"
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
    migraphx::module sub("main:pointwise1");
    shape s{shape::float_type, {4}};
    auto x0 = sub.add_parameter("x0", s);
    auto x1 = sub.add_parameter("x1", s);
    sub.add_return({sub.add_instruction(make_op("greater"), x0, x1)});
    EXPECT_FALSE(migraphx::gpu::generate_pointwise(sub, {s, s}, shape{shape::bool_type, {4}}).has_value());

    migraphx::module isub("main:pointwise2");
    shape si{shape::int32_type, {4}};
    auto y0 = isub.add_parameter("x0", si);
    isub.add_return({isub.add_instruction(make_op("add"), y0, y0)});
    EXPECT_FALSE(migraphx::gpu::generate_pointwise(isub, {si}, si).has_value());
}

TEST(gpu_codegen, integer_input_only_through_convert)
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
    EXPECT_NE(k->source.find("(float)x0[off0]"), std::string::npos) << k->source;

    migraphx::module bad("main:pointwise5"); // an integer add is not a float expression
    auto y0 = bad.add_parameter("x0", si);
    auto y1 = bad.add_parameter("x1", sf);
    auto a  = bad.add_instruction(make_op("add"), y0, y0);
    auto cv = bad.add_instruction(make_op("convert", {{"target_type", shape::float_type}}), a);
    bad.add_return({bad.add_instruction(make_op("sub"), y1, cv)});
    EXPECT_FALSE(migraphx::gpu::generate_pointwise(bad, {si, sf}, sf).has_value());
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
