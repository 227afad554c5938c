// cpu::concat (the reference concat's row copies on the cpu target's OpenMP team) against ref:
// channel concats of NHWC tensors large enough to be split over threads, a transposed input,
// whole blocks along the first axis, a negative axis.
#include "cpu_test_util.hpp"
#include <migraphx/make_op.hpp>
#include <algorithm>

using migraphx::make_op;
using migraphx::shape;

namespace {

std::size_t count(const migraphx::program& p, const std::string& name)
{
    auto names = migx_test::op_names(*p.get_main_module());
    return static_cast<std::size_t>(std::count(names.begin(), names.end(), name));
}

} // namespace

TEST(cpu_concat_kernel, channel_concats_match_ref)
{
    MIGX_REQUIRE_CPU();
    for(std::int64_t axis : {3, -1})
    {
        migraphx::program p;
        auto* m = p.get_main_module();
        auto a  = m->add_parameter("a", shape{shape::float_type, {1, 96, 96, 16}});
        auto b  = m->add_parameter("b", shape{shape::float_type, {1, 96, 96, 24}});
        // a transposed view: its rows are not contiguous
        auto c  = m->add_parameter("c", shape{shape::float_type, {1, 96, 8, 96}});
        auto ct = m->add_instruction(make_op("transpose", {{"permutation", {0, 1, 3, 2}}}), c);
        m->add_return({m->add_instruction(make_op("concat", {{"axis", axis}}), a, b, ct)});
        auto cpu = migx_test::expect_cpu_matches_ref(p, 0, 0);
        EXPECT_EQ(count(cpu, "cpu::concat"), 1u) << axis;
        EXPECT_EQ(count(cpu, "concat"), 0u) << axis;
    }
}

TEST(cpu_concat_kernel, blocks_along_the_first_axis_match_ref)
{
    MIGX_REQUIRE_CPU();
    migraphx::program p;
    auto* m = p.get_main_module();
    std::vector<migraphx::instruction_ref> parts;
    for(std::size_t i = 0; i < 5; i++)
        parts.push_back(m->add_parameter(std::string{"x"} += static_cast<char>('a' + i), shape{shape::float_type, {i + 1, 7, 130}}));
    m->add_return({m->add_instruction(make_op("concat", {{"axis", 0}}), parts)});
    auto cpu = migx_test::expect_cpu_matches_ref(p, 0, 0);
    EXPECT_EQ(count(cpu, "cpu::concat"), 1u);
}
