#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/reflect.hpp>
#include <gtest/gtest.h>
#include <sstream>

using migraphx::make_op;
using migraphx::shape;

namespace {
std::string printed(const migraphx::operation& op)
{
    std::ostringstream ss;
    ss << op;
    return ss.str();
}
migraphx::operation alloc(const shape& s, bool scratch = false)
{
    return make_op("allocate", {{"shape", migraphx::shape_to_value(s)}, {"scratch", scratch}});
}
} // namespace

TEST(ops_allocate, prints_its_shape_and_scratch_only_when_set)
{
    EXPECT_EQ(printed(alloc(shape{shape::float_type, {1, 64}})), "allocate[shape=float_type, {1, 64}, {64, 1}]");
    EXPECT_EQ(printed(alloc(shape{shape::uint8_type, {256}}, true)), "allocate[shape=uint8_type, {256}, {1},scratch=1]");
}

TEST(ops_allocate, scratch_attribute_marks_the_planned_buffer)
{
    EXPECT_FALSE(alloc(shape{shape::float_type, {2}}).attributes().contains("scratch"));
    EXPECT_TRUE(alloc(shape{shape::uint8_type, {2}}, true).attributes().contains("scratch"));
}

TEST(ops_allocate, shape_round_trips_through_value_including_strides)
{
    shape s{shape::half_type, {2, 3}, {1, 2}};
    auto op = alloc(s);
    EXPECT_EQ(op.compute_shape({}), s);
    auto again = make_op("allocate", op.to_value());
    EXPECT_EQ(again, op);
    EXPECT_EQ(again.compute_shape({}), s);
    EXPECT_NE(alloc(shape{shape::half_type, {2, 3}}), op);
}

TEST(ops_allocate, computes_a_fresh_buffer_of_its_shape)
{
    shape s{shape::float_type, {4, 5}};
    auto op = alloc(s);
    auto a  = op.compute(s, {});
    auto b  = op.compute(s, {});
    EXPECT_EQ(a.get_shape(), s);
    ASSERT_NE(a.data(), nullptr);
    EXPECT_NE(a.data(), b.data());
    migraphx::program p;
    auto* mm = p.get_main_module();
    mm->add_return({mm->add_instruction(op, {})});
    EXPECT_EQ(p.eval({}).front().get_shape(), s);
    EXPECT_EQ(p.get_memory_usage(), s.bytes());
}

TEST(ops_allocate, takes_no_inputs)
{
    auto op = alloc(shape{shape::float_type, {2}});
    EXPECT_THROW(op.compute_shape({shape{shape::float_type, {2}}}), migraphx::exception);
    EXPECT_THROW(alloc(shape{std::vector<shape>{shape{shape::float_type, {2}}}}).compute_shape({}),
                 migraphx::exception);
    EXPECT_THROW(make_op("allocate", {{"shape", 3}}), migraphx::exception);
}
