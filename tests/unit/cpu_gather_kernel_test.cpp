// cpu::gather against the reference gather: axes, negative indices, views, bad indices.
#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include "cpu_test_util.hpp"

using migraphx::make_op;
using migraphx::shape;

namespace {
migraphx::program gather_program(std::int64_t axis, bool transposed_data)
{
    migraphx::program p;
    auto* m = p.get_main_module();
    auto d  = m->add_parameter("d", shape{shape::float_type, {5, 6, 7}});
    if(transposed_data)
        d = m->add_instruction(make_op("transpose", {{"permutation", std::vector<std::int64_t>{2, 0, 1}}}), d);
    auto idx = m->add_literal(migraphx::literal{shape{shape::int64_type, {2, 2}}, std::vector<std::int64_t>{0, -1, 2, 1}});
    m->add_return({m->add_instruction(make_op("gather", {{"axis", axis}}), d, idx)});
    return p;
}
} // namespace

TEST(cpu_gather_kernel, every_axis_and_a_view)
{
    MIGX_REQUIRE_CPU();
    for(std::int64_t axis : {0, 1, 2, -1})
    {
        SCOPED_TRACE(axis);
        auto cpu   = migx_test::expect_cpu_matches_ref(gather_program(axis, false), 0, 0);
        auto names = migx_test::op_names(*cpu.get_main_module());
        EXPECT_EQ(std::count(names.begin(), names.end(), "cpu::gather"), 1);
    }
    migx_test::expect_cpu_matches_ref(gather_program(1, true), 0, 0);
}

TEST(cpu_gather_kernel, out_of_range_index_throws)
{
    MIGX_REQUIRE_CPU();
    migraphx::program p;
    auto* m  = p.get_main_module();
    auto d   = m->add_parameter("d", shape{shape::float_type, {3, 2}});
    auto idx = m->add_parameter("i", shape{shape::int32_type, {1}});
    m->add_return({m->add_instruction(make_op("gather", {{"axis", 0}}), d, idx)});
    p.compile(migraphx::get_target("cpu"));
    std::vector<float> dv(6, 1.0f);
    std::vector<std::int32_t> iv{3};
    migraphx::parameter_map params{{"d", migraphx::argument{shape{shape::float_type, {3, 2}}, dv.data()}},
                                   {"i", migraphx::argument{shape{shape::int32_type, {1}}, iv.data()}}};
    EXPECT_THROW(p.eval(params), migraphx::exception);
}

// Along the last axis (a bilinear resize's gathers) elements of 1, 2, 4 and 8 bytes go row by row
// with one typed load each: every type, exact against ref, on a size past the threading threshold
// (2 x 300 rows of 256 positions, repeated and negative indices).
TEST(cpu_gather_kernel, last_axis_rows_of_every_element_size)
{
    MIGX_REQUIRE_CPU();
    std::vector<std::int64_t> idx;
    for(std::int64_t j = 0; j < 256; j++)
        idx.push_back((j * 7) % 128 - (j % 3 == 0 ? 128 : 0)); // in [-128, 127]
    for(auto t : {shape::int8_type, shape::half_type, shape::float_type, shape::int64_type})
    {
        migraphx::program p;
        auto* m = p.get_main_module();
        auto d  = m->add_parameter("d", shape{t, {2, 300, 128}});
        auto i  = m->add_literal(migraphx::literal{shape{shape::int64_type, {256}}, idx});
        m->add_return({m->add_instruction(make_op("gather", {{"axis", 2}}), d, i)});
        SCOPED_TRACE(shape::type_name(t));
        auto cpu   = migx_test::expect_cpu_matches_ref(p, 0, 0);
        auto names = migx_test::op_names(*cpu.get_main_module());
        EXPECT_EQ(std::count(names.begin(), names.end(), "cpu::gather"), 1);
    }
}
