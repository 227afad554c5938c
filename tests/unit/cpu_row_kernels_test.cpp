// cpu::softmax and cpu::reduce against the reference ops; other axes stay on the reference ops.
#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include "cpu_test_util.hpp"

using migraphx::make_op;
using migraphx::shape;

TEST(cpu_row_kernels, softmax_and_logsoftmax_last_axis)
{
    MIGX_REQUIRE_CPU();
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{shape::float_type, {4, 8, 33}});
    auto s  = m->add_instruction(make_op("softmax", {{"axis", -1}}), x);
    auto l  = m->add_instruction(make_op("logsoftmax", {{"axis", 2}}), x);
    auto o  = m->add_instruction(make_op("softmax", {{"axis", 1}}), x); // stays a reference op
    m->add_return({s, l, o});
    auto cpu   = migx_test::expect_cpu_matches_ref(p, 1e-5, 1e-6);
    auto names = migx_test::op_names(*cpu.get_main_module());
    EXPECT_EQ(std::count(names.begin(), names.end(), "cpu::softmax"), 2);
    EXPECT_EQ(std::count(names.begin(), names.end(), "softmax"), 1);
}

TEST(cpu_row_kernels, reductions_on_a_transposed_input)
{
    MIGX_REQUIRE_CPU();
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{shape::float_type, {6, 10, 7}});
    auto t  = m->add_instruction(make_op("transpose", {{"permutation", std::vector<std::int64_t>{0, 2, 1}}}), x);
    std::vector<migraphx::instruction_ref> outs;
    for(const auto* op : {"reduce_sum", "reduce_mean", "reduce_max", "reduce_min"})
        outs.push_back(m->add_instruction(make_op(op, {{"axes", std::vector<std::int64_t>{2}}}), t));
    m->add_return(outs);
    auto cpu   = migx_test::expect_cpu_matches_ref(p, 1e-5, 1e-6);
    auto names = migx_test::op_names(*cpu.get_main_module());
    EXPECT_EQ(std::count(names.begin(), names.end(), "cpu::reduce"), 4);
}

// Reductions over several trailing axes (a global average as ShuffleNet exports it: mean over
// {2, 3}) are one row each: any order and sign of the axes; {1, 2} of a rank-4 input (not
// trailing) stays a reference op.
TEST(cpu_row_kernels, reductions_over_trailing_axes)
{
    MIGX_REQUIRE_CPU();
    using axes = std::vector<std::int64_t>;
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{shape::float_type, {2, 16, 7, 5}});
    std::vector<migraphx::instruction_ref> r;
    r.push_back(m->add_instruction(make_op("reduce_mean", {{"axes", axes{2, 3}}}), x));
    r.push_back(m->add_instruction(make_op("reduce_sum", {{"axes", axes{-1, -2}}}), x));
    r.push_back(m->add_instruction(make_op("reduce_max", {{"axes", axes{3, 1, 2}}}), x));
    r.push_back(m->add_instruction(make_op("reduce_min", {{"axes", axes{1, 2}}}), x)); // stays
    m->add_return(r);
    auto cpu   = migx_test::expect_cpu_matches_ref(p, 1e-5, 1e-6);
    auto names = migx_test::op_names(*cpu.get_main_module());
    EXPECT_EQ(std::count(names.begin(), names.end(), "cpu::reduce"), 3);
    EXPECT_EQ(std::count(names.begin(), names.end(), "reduce_min"), 1);
}

TEST(cpu_row_kernels, bad_input_is_an_exception)
{
    MIGX_REQUIRE_CPU();
    auto op = migraphx::make_op("cpu::reduce", {{"mode", "median"}});
    EXPECT_THROW(op.compute_shape({shape{shape::float_type, {2, 3}}}), migraphx::exception);
    auto sm = migraphx::make_op("cpu::softmax");
    EXPECT_THROW(sm.compute_shape({shape{shape::int32_type, {2, 3}}}), migraphx::exception);
}
