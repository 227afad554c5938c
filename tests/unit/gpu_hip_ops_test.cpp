// The gpu target's host fallback (gpu::ref::<op>, hip_ops.cpp) on host arguments: what it
// computes between its copies, which needs no device. A data-dependent result (nonzero's actual
// rows, fewer than its static shape) reaches it smaller than its inputs declare.
#ifdef MIGRAPHX_HAVE_GPU
#include "targets/gpu/gpu_ops.hpp"
#include <migraphx/literal.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <gtest/gtest.h>
#include <cstdint>
#include <vector>

using migraphx::literal;
using migraphx::make_op;
using migraphx::shape;

namespace {

migraphx::argument host_arg(const shape& s, const std::vector<double>& v)
{
    return literal{s, v}.get_argument().copy();
}

/// A ref_fallback of `pointwise` over body pm, as the lowering makes one (finalize's in_shapes).
migraphx::gpu::ref_fallback pointwise_fallback(migraphx::module* pm, const std::vector<shape>& declared_in)
{
    migraphx::gpu::ref_fallback f;
    f.op        = make_op("pointwise");
    f.mod       = pm;
    f.in_shapes = declared_in;
    return f;
}

const shape f8{shape::float_type, {8}};
const shape i8{shape::int64_type, {8}};
const shape f82{shape::float_type, {8, 2}};
const shape bcast82{shape::float_type, {8, 2}, {0, 0}}; // a scalar broadcast to x's declared rows

/// A fallback of the body `op(x0, x1)` over {8, 2} parameters, inputs declared as given.
migraphx::gpu::ref_fallback binary_body(migraphx::program& p, const std::string& op, const std::vector<shape>& declared_in)
{
    auto* pm = p.create_module("main:pointwise0");
    auto x0  = pm->add_parameter("x0", f82);
    auto x1  = pm->add_parameter("x1", f82);
    pm->add_return({pm->add_instruction(make_op(op), x0, x1)});
    return pointwise_fallback(pm, declared_in);
}

} // namespace

TEST(gpu_hip_ops_no_device, pointwise_body_runs_at_the_actual_rows)
{
    // faster/mask R-CNN on gpu: a convert of the box column gathered from a nonzero's rows, 8
    // declared and 3 real. Its body's convert ran at the declared {8} and threw "convert: argument
    // lens differ from the output lens".
    migraphx::program p;
    auto* pm = p.create_module("main:pointwise0");
    pm->add_return({pm->add_instruction(make_op("convert", {{"target_type", shape::int64_type}}),
                                        pm->add_parameter("x0", f8))});
    auto f = pointwise_fallback(pm, {f8});
    auto r = f.compute_host(i8, {host_arg(shape{shape::float_type, {3}}, {1, -2, 7})});
    EXPECT_EQ(r.get_shape(), (shape{shape::int64_type, {3}}));
    EXPECT_EQ(r.to_vector<std::int64_t>(), (std::vector<std::int64_t>{1, -2, 7}));

    // no row at all
    auto e = f.compute_host(i8, {migraphx::argument{shape{shape::float_type, {0}}}});
    EXPECT_EQ(e.get_shape().lens(), (std::vector<std::size_t>{0}));

    // all 8 rows: the declared shape
    auto full = f.compute_host(i8, {host_arg(f8, {0, 1, 2, 3, 4, 5, 6, 7})});
    EXPECT_EQ(full.get_shape(), i8);
    EXPECT_EQ(full.to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(gpu_hip_ops_no_device, pointwise_body_chain_of_two_inputs_at_the_actual_rows)
{
    // convert(x0 - x1) then neg: each op of the body follows the size of what it got.
    migraphx::program p;
    shape f42{shape::float_type, {4, 2}};
    auto* pm = p.create_module("main:pointwise0");
    auto x0  = pm->add_parameter("x0", f42);
    auto x1  = pm->add_parameter("x1", f42);
    auto d   = pm->add_instruction(make_op("sub"), x0, x1);
    auto c   = pm->add_instruction(make_op("convert", {{"target_type", shape::int32_type}}), d);
    pm->add_return({pm->add_instruction(make_op("neg"), c)});
    auto f = pointwise_fallback(pm, {f42, f42});
    shape a22{shape::float_type, {2, 2}};
    auto r = f.compute_host(shape{shape::int32_type, {4, 2}},
                            {host_arg(a22, {5, 6, 7, 8}), host_arg(a22, {1, 1, 2, 2})});
    EXPECT_EQ(r.get_shape(), (shape{shape::int32_type, {2, 2}}));
    EXPECT_EQ(r.to_vector<std::int32_t>(), (std::vector<std::int32_t>{-4, -5, -5, -6}));
}

TEST(gpu_hip_ops_no_device, broadcast_scalar_input_follows_the_actual_rows)
{
    // x * multibroadcast(scale) after a data-dependent x (the boxes of a detection model): the
    // scalar was broadcast to x's declared 8 rows, x holds 3. The scalar input is viewed with 3
    // rows, as eval views it (actual_output_shape's sized_op::inputs); at its declared 8 rows the
    // body's mul got {3, 2} and {8, 2}.
    migraphx::program p;
    auto f     = binary_body(p, "mul", {f82, bcast82});
    auto scale = host_arg(shape{shape::float_type, {1}}, {0.5}).reshape(bcast82);
    auto r     = f.compute_host(f82, {host_arg(shape{shape::float_type, {3, 2}}, {2, 4, 6, 8, 10, 12}), scale});
    EXPECT_EQ(r.get_shape().lens(), (std::vector<std::size_t>{3, 2}));
    EXPECT_EQ(r.to_vector<float>(), (std::vector<float>{1, 2, 3, 4, 5, 6}));

    // No row at all.
    auto e = f.compute_host(f82, {migraphx::argument{shape{shape::float_type, {0, 2}}}, scale});
    EXPECT_EQ(e.get_shape().lens(), (std::vector<std::size_t>{0, 2}));

    // All 8 rows: the declared shape, the scalar as broadcast.
    std::vector<double> rows(16, 4.0);
    auto full = f.compute_host(f82, {host_arg(f82, rows), scale});
    EXPECT_EQ(full.get_shape(), f82);
    EXPECT_EQ(full.to_vector<float>(), std::vector<float>(16, 2.0f));
}

TEST(gpu_hip_ops_no_device, broadcast_scalar_first_in_a_body_follows_the_actual_rows)
{
    // The same body with the scalar as its first input: the body's result has the rows x holds
    // (pointwise takes the smallest lens over its inputs, not the first input's).
    migraphx::program p;
    auto f     = binary_body(p, "sub", {bcast82, f82});
    auto scale = host_arg(shape{shape::float_type, {1}}, {10}).reshape(bcast82);
    auto r     = f.compute_host(f82, {scale, host_arg(shape{shape::float_type, {2, 2}}, {1, 2, 3, 4})});
    EXPECT_EQ(r.get_shape().lens(), (std::vector<std::size_t>{2, 2}));
    EXPECT_EQ(r.to_vector<float>(), (std::vector<float>{9, 8, 7, 6}));
}

TEST(gpu_hip_ops_no_device, unfused_op_views_its_broadcast_input_at_the_actual_rows)
{
    // The same mul as its own gpu::ref::mul (no body): compute_host views the scalar with 3 rows.
    migraphx::gpu::ref_fallback f;
    f.op        = make_op("mul");
    f.in_shapes = {bcast82, f82};
    auto scale  = host_arg(shape{shape::float_type, {1}}, {-2}).reshape(bcast82);
    auto r      = f.compute_host(f82, {scale, host_arg(shape{shape::float_type, {1, 2}}, {3, -4})});
    EXPECT_EQ(r.get_shape().lens(), (std::vector<std::size_t>{1, 2}));
    EXPECT_EQ(r.to_vector<float>(), (std::vector<float>{-6, 8}));
}

TEST(gpu_hip_ops_no_device, op_without_body_follows_the_actual_rows)
{
    // gather of a nonzero's 2 real indices of 8 declared: the rows it got, not 8.
    migraphx::gpu::ref_fallback f;
    f.op = make_op("gather", {{"axis", 0}});
    shape data{shape::float_type, {5, 2}};
    f.in_shapes = {data, i8};
    auto r = f.compute_host(shape{shape::float_type, {8, 2}},
                            {host_arg(data, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}),
                             host_arg(shape{shape::int64_type, {2}}, {4, 1})});
    EXPECT_EQ(r.get_shape(), (shape{shape::float_type, {2, 2}}));
    EXPECT_EQ(r.to_vector<float>(), (std::vector<float>{8, 9, 2, 3}));
}
#endif
