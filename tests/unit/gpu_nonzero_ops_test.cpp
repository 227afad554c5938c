// gpu::nonzero_start and gpu::nonzero_finish (nonzero_ops.cpp): their shapes and checks without a
// device; on one, the two halves on a buffer give nonzero's indices and count, a finish reads the
// count of the latest start of its slot, and a CUDA graph recording of the start is replayed with
// new counts each time (its event and copy are graph nodes).
#include "gpu_test_util.hpp"
#ifdef MIGRAPHX_HAVE_GPU
#include "targets/gpu/context.hpp"
#include "targets/gpu/gpu_ops.hpp"
#include <migraphx/make_op.hpp>
#include <migraphx/gpu/hip.hpp>
#include <migraphx/operation.hpp>
#include <cuda_runtime.h>

using migraphx::shape;

TEST(gpu_nonzero_ops_no_device, shapes_and_what_they_refuse)
{
    migraphx::operation start{migraphx::gpu::nonzero_start{}}, finish{migraphx::gpu::nonzero_finish{}};
    shape x{shape::float_type, {2, 3}}, buf{shape::int64_type, {2, 6}};
    EXPECT_EQ(start.compute_shape({x, buf}), buf);
    EXPECT_EQ(finish.compute_shape({buf}), buf);
    EXPECT_THROW(start.compute_shape({x}), migraphx::exception);
    EXPECT_THROW(start.compute_shape({x, shape{shape::int64_type, {2, 5}}}), migraphx::exception); // too small
    EXPECT_THROW(start.compute_shape({x, shape{shape::int32_type, {2, 6}}}), migraphx::exception);
    EXPECT_THROW(finish.compute_shape({shape{shape::int64_type, {12}}}), migraphx::exception);
    EXPECT_TRUE(finish.attributes().at("dynamic_output").get_bool());
    // not finalized: a clear error, not a crash
    migraphx::context ctx{migraphx::gpu::gpu_context{}};
    EXPECT_THROW(finish.compute(ctx, buf, {migraphx::argument{buf}}), migraphx::exception);
}

TEST(gpu_nonzero_ops, the_halves_give_nonzeros_indices_and_a_replayed_start_new_counts)
{
    MIGX_REQUIRE_GPU();
    migraphx::context ctx{migraphx::gpu::gpu_context{}};
    auto& g = migraphx::gpu::get_gpu_context(ctx);
    shape x{shape::float_type, {2, 3}}, buf{shape::int64_type, {2, 6}};
    migraphx::gpu::nonzero_start s;
    migraphx::gpu::nonzero_finish f;
    s.slot = f.slot = 5;
    s.finalize(ctx, buf, {x, buf});
    f.finalize(ctx, buf, {buf});
    auto dx = migraphx::gpu::to_gpu(migraphx::argument{x});
    auto db = migraphx::gpu::allocate_gpu(buf);
    auto upload = [&](const std::vector<float>& v) {
        ASSERT_EQ(cudaMemcpy(dx.data(), v.data(), v.size() * 4, cudaMemcpyHostToDevice), cudaSuccess);
    };
    auto indices = [&](const migraphx::argument& r) { return migraphx::gpu::from_gpu(r).to_vector<std::int64_t>(); };

    upload({0, 1.5f, 0, -2, 0, 3});
    auto r = f.compute(ctx, buf, {s.compute(ctx, buf, {dx, db})});
    EXPECT_EQ(r.get_shape().lens(), (std::vector<std::size_t>{2, 3}));
    EXPECT_EQ(indices(r), (std::vector<std::int64_t>{0, 1, 1, 1, 0, 2}));

    // the start recorded once in a CUDA graph, replayed on new values: each finish sees its count
    auto rec = g.record([&] { s.compute(ctx, buf, {dx, db}); });
    for(const auto& [values, n] : std::vector<std::pair<std::vector<float>, std::size_t>>{
            {{0, 0, 0, 0, 0, 0}, 0}, {{1, 1, 1, 1, 1, 1}, 6}, {{0, 0, 0, 0, 7, 0}, 1}})
    {
        upload(values);
        g.replay(rec);
        auto got = f.compute(ctx, buf, {db});
        EXPECT_EQ(got.get_shape().lens(), (std::vector<std::size_t>{2, n}));
        if(n == 1)
            EXPECT_EQ(indices(got), (std::vector<std::int64_t>{1, 1}));
    }
}
#endif
