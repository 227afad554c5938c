#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/reflect.hpp>
#include <gtest/gtest.h>
#include <sstream>

using migraphx::make_op;
using migraphx::shape;

namespace {
migraphx::operation load(const shape& s, std::size_t offset)
{
    return make_op("load", {{"shape", migraphx::shape_to_value(s)}, {"offset", offset}});
}
const shape buffer{shape::uint8_type, {64}};
} // namespace

TEST(ops_load, prints_offset_and_end)
{
    std::ostringstream ss;
    ss << load(shape{shape::float_type, {2, 3}}, 16);
    EXPECT_EQ(ss.str(), "load[offset=16,end=40]");
}

TEST(ops_load, is_a_view_of_the_buffer_at_the_offset)
{
    shape s{shape::float_type, {2, 2}};
    auto op = load(s, 16);
    EXPECT_EQ(op.compute_shape({buffer}), s);
    EXPECT_EQ(op.output_alias({buffer}), 0);
    migraphx::argument buf{buffer};
    auto v = op.compute(s, {buf});
    EXPECT_EQ(v.get_shape(), s);
    EXPECT_EQ(v.data(), buf.data() + 16);
    // Writes through the view land in the buffer.
    reinterpret_cast<float*>(v.data())[1] = 2.5f;
    EXPECT_EQ(reinterpret_cast<float*>(buf.data() + 16)[1], 2.5f);
}

TEST(ops_load, two_loads_of_one_scratch_share_its_memory_in_a_program)
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto scratch = mm->add_instruction(
        make_op("allocate", {{"shape", migraphx::shape_to_value(buffer)}, {"scratch", true}}), {});
    shape s{shape::float_type, {4}};
    auto a = mm->add_instruction(load(s, 0), scratch);
    auto b = mm->add_instruction(load(s, 16), scratch);
    mm->add_return({a, b});
    auto r = p.eval({});
    EXPECT_EQ(r[1].data(), r[0].data() + 16);
    EXPECT_EQ(p.get_memory_usage(), 64u);
}

TEST(ops_load, must_lie_inside_the_buffer)
{
    EXPECT_NO_THROW(load(shape{shape::float_type, {4}}, 48).compute_shape({buffer}));
    EXPECT_THROW(load(shape{shape::float_type, {4}}, 49).compute_shape({buffer}), migraphx::exception);
    EXPECT_THROW(load(shape{shape::float_type, {17}}, 0).compute_shape({buffer}), migraphx::exception);
    EXPECT_THROW(load(shape{shape::float_type, {4}}, 0).compute_shape({}), migraphx::exception);
    EXPECT_THROW(load(shape{shape::float_type, {4}}, 0).compute_shape({buffer, buffer}), migraphx::exception);
}
