#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/ref/target.hpp>
#include <gtest/gtest.h>

namespace {
using migraphx::shape;
migraphx::operation shift(const std::string& dir) { return migraphx::make_op("bitshift", {{"direction", dir}}); }
} // namespace

TEST(ops_bitshift, shape_rules_and_bad_inputs)
{
    shape s{shape::uint8_type, {3}};
    EXPECT_EQ(shift("left").compute_shape({s, s}), s);
    EXPECT_THROW(shift("up").compute_shape({s, s}), migraphx::exception);
    EXPECT_THROW(shift("left").compute_shape({s, shape{shape::uint16_type, {3}}}), migraphx::exception);
    EXPECT_THROW(shift("left").compute_shape({s, shape{shape::uint8_type, {2}}}), migraphx::exception);
    shape f{shape::float_type, {3}};
    EXPECT_THROW(shift("left").compute_shape({f, f}), migraphx::exception);
    std::ostringstream ss;
    ss << shift("right");
    EXPECT_EQ(ss.str(), "bitshift[direction=right]");
}

TEST(ops_bitshift, onnx_examples_and_wide_shifts)
{
    std::vector<std::uint8_t> x{16, 4, 1}, y{1, 2, 3};
    shape s{shape::uint8_type, {3}};
    migraphx::argument ax{s, x.data()}, ay{s, y.data()};
    EXPECT_EQ(shift("left").compute(s, {ax, ay}).to_vector<int>(), (std::vector<int>{32, 16, 8}));
    EXPECT_EQ(shift("right").compute(s, {ax, ay}).to_vector<int>(), (std::vector<int>{8, 1, 0}));
    EXPECT_EQ(shift("RIGHT").compute(s, {ax, ay}).to_vector<int>(), (std::vector<int>{8, 1, 0})); // ONNX spelling
    std::vector<std::uint32_t> a{1, 0x80000000u}, b{32, 31};
    shape s32{shape::uint32_type, {2}};
    migraphx::argument aa{s32, a.data()}, ab{s32, b.data()};
    EXPECT_EQ(shift("left").compute(s32, {aa, ab}).to_vector<std::uint32_t>(), (std::vector<std::uint32_t>{0, 0}));
    EXPECT_EQ(shift("right").compute(s32, {aa, ab}).to_vector<std::uint32_t>(), (std::vector<std::uint32_t>{0, 1}));
}

TEST(ops_bitshift, program_with_broadcast_amount)
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto x   = mm->add_literal(migraphx::literal{shape{shape::uint16_type, {2, 2}}, std::vector<std::uint16_t>{1, 2, 3, 4}});
    auto y   = mm->add_literal(migraphx::literal{shape{shape::uint16_type, {1}}, std::vector<std::uint16_t>{4}});
    auto by  = mm->add_instruction(migraphx::make_op("multibroadcast", {{"out_lens", {2, 2}}}), y);
    mm->add_return({mm->add_instruction(shift("left"), x, by)});
    p.compile(migraphx::ref::target{});
    EXPECT_EQ(p.eval({}).back().to_vector<int>(), (std::vector<int>{16, 32, 48, 64}));
}
