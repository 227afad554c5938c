#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/ref/target.hpp>
#include <gtest/gtest.h>

namespace {
using migraphx::shape;
} // namespace

TEST(ops_quantize, shape_rules_and_bad_inputs)
{
    auto q = migraphx::make_op("quantizelinear");
    auto d = migraphx::make_op("dequantizelinear");
    shape x{shape::float_type, {4}}, sc{shape::float_type, {4}};
    EXPECT_EQ(q.compute_shape({x, sc}), (shape{shape::uint8_type, {4}}));
    EXPECT_EQ(q.compute_shape({x, sc, shape{shape::int8_type, {4}}}), (shape{shape::int8_type, {4}}));
    EXPECT_EQ(d.compute_shape({shape{shape::int8_type, {4}}, shape{shape::half_type, {4}}}), (shape{shape::half_type, {4}}));
    EXPECT_THROW(q.compute_shape({x, shape{shape::float_type, {3}}}), migraphx::exception);
    EXPECT_THROW(q.compute_shape({x, shape{shape::int32_type, {4}}}), migraphx::exception);
    EXPECT_THROW(q.compute_shape({x, sc, shape{shape::float_type, {4}}}), migraphx::exception);
    EXPECT_THROW(q.compute_shape({x}), migraphx::exception);
    EXPECT_THROW(d.compute_shape({shape{shape::int8_type, {4}}, sc, shape{shape::uint8_type, {4}}}), migraphx::exception);
}

TEST(ops_quantize, round_half_even_and_saturate)
{
    auto q = migraphx::make_op("quantizelinear");
    std::vector<float> x{0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 1000.0f, -1000.0f, 3.2f};
    std::vector<float> sc(8, 1.0f);
    std::vector<std::int8_t> zp(8, 0);
    shape xs{shape::float_type, {8}};
    migraphx::argument ax{xs, x.data()}, as{xs, sc.data()}, az{shape{shape::int8_type, {8}}, zp.data()};
    auto r = q.compute(shape{shape::int8_type, {8}}, {ax, as, az});
    EXPECT_EQ(r.to_vector<int>(), (std::vector<int>{0, 2, 2, -0, -2, 127, -128, 3}));
    // uint8 default with a zero point of 128 and scale 2.
    std::vector<float> sc2(8, 2.0f);
    std::vector<std::uint8_t> zp2(8, 128);
    migraphx::argument as2{xs, sc2.data()}, az2{shape{shape::uint8_type, {8}}, zp2.data()};
    r = q.compute(shape{shape::uint8_type, {8}}, {ax, as2, az2});
    EXPECT_EQ(r.to_vector<int>(), (std::vector<int>{128, 129, 129, 128, 127, 255, 0, 130}));
    r = q.compute(shape{shape::uint8_type, {8}}, {ax, as2});
    EXPECT_EQ(r.to_vector<int>(), (std::vector<int>{0, 1, 1, 0, 0, 255, 0, 2}));
}

TEST(ops_quantize, dequantize)
{
    auto d = migraphx::make_op("dequantizelinear");
    std::vector<std::uint8_t> x{0, 3, 128, 255};
    std::vector<float> sc{2, 2, 0.5f, 1};
    std::vector<std::uint8_t> zp{128, 128, 128, 0};
    shape xs{shape::uint8_type, {4}}, ss{shape::float_type, {4}};
    migraphx::argument ax{xs, x.data()}, as{ss, sc.data()}, az{xs, zp.data()};
    EXPECT_EQ(d.compute(ss, {ax, as, az}).to_vector<float>(), (std::vector<float>{-256, -250, 0, 255}));
    EXPECT_EQ(d.compute(ss, {ax, as}).to_vector<float>(), (std::vector<float>{0, 6, 64, 255}));
}

TEST(ops_quantize, program_round_trip_with_broadcast_scale)
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto x   = mm->add_literal(migraphx::literal{shape{shape::float_type, {2, 2}}, std::vector<float>{-1, 0.26f, 0.74f, 2}});
    auto s   = mm->add_literal(migraphx::literal{shape{shape::float_type, {1}}, std::vector<float>{0.5f}});
    auto z   = mm->add_literal(migraphx::literal{shape{shape::int8_type, {1}}, std::vector<std::int8_t>{1}});
    auto bs  = mm->add_instruction(migraphx::make_op("multibroadcast", {{"out_lens", {2, 2}}}), s);
    auto bz  = mm->add_instruction(migraphx::make_op("multibroadcast", {{"out_lens", {2, 2}}}), z);
    auto q   = mm->add_instruction(migraphx::make_op("quantizelinear"), x, bs, bz);
    auto dq  = mm->add_instruction(migraphx::make_op("dequantizelinear"), q, bs, bz);
    mm->add_return({q, dq});
    p.compile(migraphx::ref::target{});
    auto r = p.eval({});
    EXPECT_EQ(r[0].to_vector<int>(), (std::vector<int>{-1, 2, 2, 5}));
    EXPECT_EQ(r[1].to_vector<float>(), (std::vector<float>{-1, 0.5f, 0.5f, 2}));
}

TEST(ops_quantize, fp8e4m3fn_zero_point_quantizes_to_e4m3_and_back)
{
    auto q = migraphx::make_op("quantizelinear");
    auto d = migraphx::make_op("dequantizelinear");
    shape xs{shape::float_type, {6}}, zs{shape::fp8e4m3fn_type, {6}};
    EXPECT_EQ(q.compute_shape({xs, xs, zs}), zs);
    EXPECT_EQ(d.compute_shape({zs, xs, zs}), xs);
    // x / 2 rounded to e4m3 (nearest even), saturating at +-448
    std::vector<float> x{2.125f, 2.375f, -0.6f, 1000.0f, -5000.0f, 0.0f};
    std::vector<float> sc(6, 2.0f);
    std::vector<migraphx::fp8e4m3fn> zp(6, migraphx::fp8e4m3fn(0.0f));
    migraphx::argument ax{xs, x.data()}, as{xs, sc.data()}, az{zs, zp.data()};
    auto r = q.compute(zs, {ax, as, az});
    EXPECT_EQ(r.to_vector<float>(), (std::vector<float>{1.0f, 1.25f, -0.3125f, 448.0f, -448.0f, 0.0f}));
    EXPECT_EQ(d.compute(xs, {r, as, az}).to_vector<float>(),
              (std::vector<float>{2.0f, 2.5f, -0.625f, 896.0f, -896.0f, 0.0f}));
    // a zero point that is not an integer nor fp8 is refused
    EXPECT_THROW(q.compute_shape({xs, xs, shape{shape::half_type, {6}}}), migraphx::exception);
}
