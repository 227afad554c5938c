// fp8_output_of: the e4m3 cast at the end of a product's epilogue body, which an fp8 product
// can take over (its D scale); instructions_computing: the body before it; e4m3_cast_scale: a
// cast instruction a producer can take over.
#ifdef MIGRAPHX_HAVE_GPU
#include "targets/gpu/fp8_output.hpp"
#include <migraphx/instruction.hpp>
#include <migraphx/literal.hpp>
#include <migraphx/make_op.hpp>
#include <gtest/gtest.h>
#include <functional>
#include <migraphx/program.hpp>

using migraphx::make_op;
using migraphx::shape;

namespace {

/// relu(x0 + x1) in half, then `tail` builds the rest from it; returned.
struct body
{
    migraphx::module m{"pw"};
    migraphx::instruction_ref x0, x1, sum, act;
    body()
    {
        x0  = m.add_parameter("x0", shape{shape::half_type, {4}});
        x1  = m.add_parameter("x1", shape{shape::half_type, {4}});
        sum = m.add_instruction(make_op("add"), x0, x1);
        act = m.add_instruction(make_op("relu"), sum);
    }
    migraphx::instruction_ref constant(float v, shape::type_t t = shape::float_type)
    {
        auto l = m.add_literal(migraphx::literal{shape{t, {1}}, {v}});
        return m.add_instruction(make_op("multibroadcast", {{"out_lens", std::vector<std::size_t>{4}}}), l);
    }
    migraphx::instruction_ref to(shape::type_t t, migraphx::instruction_ref x)
    {
        return m.add_instruction(make_op("convert", {{"target_type", t}}), x);
    }
};

} // namespace

TEST(gpu_fp8_output, a_quantize_in_float_is_a_d_scale)
{
    body b; // fuse_int8's quantize: convert<fp8>(convert<float>(y) / s)
    auto q = b.m.add_instruction(make_op("div"), b.to(shape::float_type, b.act), b.constant(0.25f));
    b.m.add_return({b.to(shape::fp8e4m3fn_type, q)});
    auto c = migraphx::gpu::fp8_output_of(b.m);
    ASSERT_TRUE(c.has_value());
    EXPECT_EQ(c->y, b.act);
    EXPECT_FLOAT_EQ(c->d_scale, 4.0f);
    auto before = migraphx::gpu::instructions_computing(b.m, c->y);
    EXPECT_EQ(before, (std::vector<migraphx::instruction_ref>{b.sum, b.act}));
}

TEST(gpu_fp8_output, a_multiply_in_half_is_a_d_scale)
{
    body b;
    auto q = b.m.add_instruction(make_op("mul"), b.act, b.constant(8.0f, shape::half_type));
    b.m.add_return({b.to(shape::fp8e4m3fn_type, q)});
    auto c = migraphx::gpu::fp8_output_of(b.m);
    ASSERT_TRUE(c.has_value());
    EXPECT_EQ(c->y, b.act);
    EXPECT_FLOAT_EQ(c->d_scale, 8.0f);
}

TEST(gpu_fp8_output, a_bare_cast_has_a_scale_of_one)
{
    body b; // quantize_fp8 with scale 1 (no calibration data): the divide is simplified away
    b.m.add_return({b.to(shape::fp8e4m3fn_type, b.to(shape::float_type, b.act))});
    auto c = migraphx::gpu::fp8_output_of(b.m);
    ASSERT_TRUE(c.has_value());
    EXPECT_EQ(c->y, b.act);
    EXPECT_FLOAT_EQ(c->d_scale, 1.0f);
    body d; // an add before the cast is part of y, not a scale
    auto sum = d.m.add_instruction(make_op("add"), d.act, d.constant(2.0f, shape::half_type));
    d.m.add_return({d.to(shape::fp8e4m3fn_type, sum)});
    auto e = migraphx::gpu::fp8_output_of(d.m);
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(e->y, sum);
    EXPECT_FLOAT_EQ(e->d_scale, 1.0f);
}

TEST(gpu_fp8_output, other_endings_are_not)
{
    auto none = [](const std::function<migraphx::instruction_ref(body&)>& end) {
        body b;
        b.m.add_return({end(b)});
        return not migraphx::gpu::fp8_output_of(b.m).has_value();
    };
    EXPECT_TRUE(none([](body& b) { return b.act; })); // no cast
    EXPECT_TRUE(none([](body& b) { // a cast to int8 (an integer grid: round and clip first)
        return b.to(shape::int8_type, b.m.add_instruction(make_op("div"), b.act, b.constant(0.5f, shape::half_type)));
    }));
    EXPECT_TRUE(none([](body& b) { // a scale that is not a constant
        return b.to(shape::fp8e4m3fn_type, b.m.add_instruction(make_op("div"), b.act, b.x1));
    }));
    EXPECT_TRUE(none([](body& b) { // a negative scale (cuBLASLt's D scale is any float; ours come positive)
        return b.to(shape::fp8e4m3fn_type,
                    b.m.add_instruction(make_op("div"), b.act, b.constant(-2.0f, shape::half_type)));
    }));
    EXPECT_TRUE(none([](body& b) { // zero: 1 / s is infinite
        return b.to(shape::fp8e4m3fn_type,
                    b.m.add_instruction(make_op("div"), b.act, b.constant(0.0f, shape::half_type)));
    }));
}

TEST(gpu_fp8_output, instructions_computing_leave_out_what_the_root_does_not_need)
{
    body b;
    auto other = b.m.add_instruction(make_op("mul"), b.x0, b.x1); // not needed for act
    b.m.add_return({b.m.add_instruction(make_op("add"), b.act, other)});
    EXPECT_EQ(migraphx::gpu::instructions_computing(b.m, b.act), (std::vector<migraphx::instruction_ref>{b.sum, b.act}));
    EXPECT_EQ(migraphx::gpu::instructions_computing(b.m, b.x0), std::vector<migraphx::instruction_ref>{}) << "a parameter";
}
TEST(gpu_fp8_output, a_cast_instruction_and_its_scale)
{
    // main: x (half) -> pointwise(x / 4 -> e4m3), a bare convert to e4m3, and a pointwise that
    // computes more than the cast (relu first), whose result a producer cannot store
    migraphx::program p;
    auto* m = p.get_main_module();
    shape hs{shape::half_type, {4}};
    auto x  = m->add_parameter("x", hs);
    auto make_body = [&](const std::string& name, bool relu) {
        auto* b  = p.create_module(name);
        auto y   = b->add_parameter("y", hs);
        auto v   = relu ? b->add_instruction(make_op("relu"), y) : y;
        auto f   = b->add_instruction(make_op("convert", {{"target_type", shape::float_type}}), v);
        auto l   = b->add_literal(migraphx::literal{shape{shape::float_type, {1}}, {4.0f}});
        auto s   = b->add_instruction(make_op("multibroadcast", {{"out_lens", std::vector<std::size_t>{4}}}), l);
        auto q   = b->add_instruction(make_op("div"), f, s);
        b->add_return({b->add_instruction(make_op("convert", {{"target_type", shape::fp8e4m3fn_type}}), q)});
        return b;
    };
    auto scaled = m->add_instruction(make_op("pointwise"), {x}, {make_body("cast", false)});
    auto bare   = m->add_instruction(make_op("convert", {{"target_type", shape::fp8e4m3fn_type}}), x);
    auto more   = m->add_instruction(make_op("pointwise"), {x}, {make_body("relu_cast", true)});
    auto half   = m->add_instruction(make_op("convert", {{"target_type", shape::float_type}}), x);
    m->add_return({scaled, bare, more, half});
    auto s = migraphx::gpu::e4m3_cast_scale(scaled);
    ASSERT_TRUE(s.has_value());
    EXPECT_FLOAT_EQ(*s, 0.25f);
    ASSERT_TRUE(migraphx::gpu::e4m3_cast_scale(bare).has_value());
    EXPECT_FLOAT_EQ(*migraphx::gpu::e4m3_cast_scale(bare), 1.0f);
    EXPECT_FALSE(migraphx::gpu::e4m3_cast_scale(more).has_value()) << "relu before the cast";
    EXPECT_FALSE(migraphx::gpu::e4m3_cast_scale(half).has_value()) << "not to e4m3";
    EXPECT_FALSE(migraphx::gpu::e4m3_cast_scale(x).has_value());
}

#endif
