// cpu::concat before/after: a static concat becomes cpu::concat, writing into a planned buffer
// where its result is not returned; standard, transposed and broadcast inputs, the last axis of
// channels-last data and a negative axis give what ref gives.
#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include "cpu_test_util.hpp"
#include <algorithm>

using migraphx::make_op;
using migraphx::shape;

namespace {

// relu(concat(x, transpose(y), broadcast z)) on `axis`
migraphx::program concat_program(std::int64_t axis)
{
    migraphx::program p;
    auto* m = p.get_main_module();
    std::vector<std::size_t> part{2, 5, 6, 3};
    auto x  = m->add_parameter("x", shape{shape::float_type, part});
    auto y  = m->add_parameter("y", shape{shape::float_type, {2, 6, 5, 3}});
    auto yt = m->add_instruction(make_op("transpose", {{"permutation", std::vector<std::int64_t>{0, 2, 1, 3}}}), y);
    auto z  = m->add_parameter("z", shape{shape::float_type, {3}});
    auto zb = m->add_instruction(make_op("multibroadcast", {{"out_lens", part}}), z);
    auto c  = m->add_instruction(make_op("concat", {{"axis", axis}}), x, yt, zb);
    m->add_return({m->add_instruction(make_op("relu"), c)});
    return p;
}

} // namespace

TEST(cpu_concat_kernel, static_concat_runs_planned_and_matches_ref)
{
    MIGX_REQUIRE_CPU();
    for(std::int64_t axis : {0, 1, 3, -1})
    {
        SCOPED_TRACE(axis);
        auto cpu = migx_test::expect_cpu_matches_ref(concat_program(axis), 0, 0);
        int kernels = 0;
        for(const auto& ins : *cpu.get_main_module())
        {
            EXPECT_NE(ins.name(), "concat");
            if(ins.name() != "cpu::concat")
                continue;
            kernels++;
            auto v = ins.get_operator().to_value();
            EXPECT_TRUE(v.at("planned").get_bool());
            EXPECT_EQ(v.at("axis").get_int64(), axis < 0 ? axis + 4 : axis);
        }
        EXPECT_EQ(kernels, 1);
    }
}

TEST(cpu_concat_kernel, a_returned_concat_gets_memory_of_its_own)
{
    MIGX_REQUIRE_CPU();
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{shape::float_type, {4, 3}});
    auto y  = m->add_parameter("y", shape{shape::float_type, {4, 5}});
    m->add_return({m->add_instruction(make_op("concat", {{"axis", 1}}), x, y)});
    auto cpu = migx_test::expect_cpu_matches_ref(p, 0, 0);
    auto c   = std::find_if(cpu.get_main_module()->begin(), cpu.get_main_module()->end(),
                          [](const auto& ins) { return ins.name() == "cpu::concat"; });
    ASSERT_NE(c, cpu.get_main_module()->end());
    EXPECT_FALSE(c->get_operator().to_value().at("planned").get_bool());
}

TEST(cpu_concat_kernel, inputs_that_disagree_off_the_axis_are_refused)
{
    MIGX_REQUIRE_CPU();
    auto op = make_op("cpu::concat", {{"axis", 1}});
    EXPECT_THROW(op.compute_shape({shape{shape::float_type, {2, 3}}, shape{shape::float_type, {3, 3}}}), migraphx::exception);
    EXPECT_THROW(op.compute_shape({shape{shape::float_type, {2, 3}}, shape{shape::half_type, {2, 3}}}), migraphx::exception);
    EXPECT_THROW(make_op("cpu::concat", {{"axis", 2}}).compute_shape({shape{shape::float_type, {2, 3}}}),
                 migraphx::exception);
    EXPECT_EQ(op.compute_shape({shape{shape::float_type, {2, 3}}, shape{shape::float_type, {2, 4}}}),
              (shape{shape::float_type, {2, 7}}));
}
