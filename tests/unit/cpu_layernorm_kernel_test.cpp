// cpu::fuse_layernorm / cpu::layernorm: the importer's nine-op layer norm, and the scale and shift
// after it, become one kernel with ref's results; a near miss of the pattern is left alone.
#include <migraphx/generate.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include "cpu_test_util.hpp"

using migraphx::make_op;
using migraphx::shape;

namespace {

// The ONNX importer's LayerNormalization over the last axis of x (or a look-alike when
// `square_other` makes the variance use another tensor).
migraphx::program layer_norm(bool transposed_input, bool square_other, bool affine = false)
{
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{shape::float_type, {4, 6, 40}});
    if(transposed_input)
        x = m->add_instruction(make_op("transpose", {{"permutation", std::vector<std::int64_t>{1, 0, 2}}}), x);
    auto lens = x->get_shape().lens();
    auto bc   = [&](migraphx::instruction_ref v) {
        return m->add_instruction(make_op("multibroadcast", {{"out_lens", lens}}), v);
    };
    auto axes = std::vector<std::int64_t>{2};
    auto mean = m->add_instruction(make_op("reduce_mean", {{"axes", axes}}), x);
    auto d    = m->add_instruction(make_op("sub"), x, bc(mean));
    auto sq   = m->add_instruction(make_op("mul"), d, square_other ? x : d);
    auto var  = m->add_instruction(make_op("reduce_mean", {{"axes", axes}}), sq);
    auto eps  = m->add_instruction(make_op("multibroadcast", {{"out_lens", var->get_shape().lens()}}),
                                  m->add_literal(migraphx::literal{1e-5f}));
    auto inv  = m->add_instruction(make_op("rsqrt"), m->add_instruction(make_op("add"), var, eps));
    auto y = m->add_instruction(make_op("mul"), d, bc(inv));
    if(affine) // a trained model's scale and shift, one value per position of the last axis
    {
        auto g = m->add_literal(migraphx::generate_literal(shape{shape::float_type, {40}}, 5));
        auto b = m->add_literal(migraphx::generate_literal(shape{shape::float_type, {40}}, 6));
        y      = m->add_instruction(make_op("add"), m->add_instruction(make_op("mul"), bc(g), y), bc(b));
    }
    m->add_return({y});
    return p;
}

} // namespace

TEST(cpu_layernorm_kernel, pattern_becomes_one_kernel)
{
    MIGX_REQUIRE_CPU();
    for(bool transposed : {false, true})
    {
        SCOPED_TRACE(transposed);
        auto cpu   = migx_test::expect_cpu_matches_ref(layer_norm(transposed, false), 1e-4, 1e-5);
        auto names = migx_test::op_names(*cpu.get_main_module());
        EXPECT_EQ(std::count(names.begin(), names.end(), "cpu::layernorm"), 1);
        EXPECT_EQ(std::count(names.begin(), names.end(), "cpu::reduce"), 0);
    }
}

TEST(cpu_layernorm_kernel, scale_and_shift_join_the_kernel)
{
    MIGX_REQUIRE_CPU();
    auto cpu   = migx_test::expect_cpu_matches_ref(layer_norm(false, false, true), 1e-4, 1e-5);
    auto names = migx_test::op_names(*cpu.get_main_module());
    EXPECT_EQ(std::count(names.begin(), names.end(), "cpu::layernorm"), 1);
    EXPECT_EQ(std::count(names.begin(), names.end(), "cpu::pointwise"), 0) << cpu;
}

TEST(cpu_layernorm_kernel, near_miss_is_left_alone)
{
    MIGX_REQUIRE_CPU();
    auto cpu   = migx_test::expect_cpu_matches_ref(layer_norm(false, true), 1e-4, 1e-5);
    auto names = migx_test::op_names(*cpu.get_main_module());
    EXPECT_EQ(std::count(names.begin(), names.end(), "cpu::layernorm"), 0);
}

TEST(cpu_layernorm_kernel, bad_input_is_an_exception)
{
    MIGX_REQUIRE_CPU();
    auto op = migraphx::make_op("cpu::layernorm");
    EXPECT_THROW(op.compute_shape({shape{shape::float_type, {2, 0}}}), migraphx::exception);
    EXPECT_THROW(op.compute_shape({shape{shape::half_type, {2, 3}}}), migraphx::exception);
    shape x{shape::float_type, {2, 3}};
    EXPECT_NO_THROW(op.compute_shape({x, shape{shape::float_type, {2, 3}, {0, 1}}}));
    EXPECT_THROW(op.compute_shape({x, shape{shape::float_type, {2, 3}, {1, 0}}}), migraphx::exception); // per row
    EXPECT_THROW(op.compute_shape({x, x, x, x}), migraphx::exception);
}
