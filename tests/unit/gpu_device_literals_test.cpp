// targets/gpu/device_literals: a model compiled twice in one process keeps one device copy of its
// weights (hip::hip_copy_literal's buffers are the same), both programs give ref's results, and
// the second still runs after the first is gone; weights that differ get copies of their own.
#include <gtest/gtest.h>
#ifdef MIGRAPHX_HAVE_GPU
#include "gpu_test_util.hpp"
#include "targets/gpu/gpu_ops.hpp"
#include "ir/shared_literals.hpp"
#include <migraphx/make_op.hpp>
#include <cstring>
#include <vector>

namespace {

using migraphx::shape;

/// relu(x W) with W {512, 256} (512 KiB), its values from seed, in a buffer of its own.
migraphx::program dense(unsigned long seed)
{
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{shape::float_type, {64, 512}});
    auto g  = migraphx::generate_literal(shape{shape::float_type, {512, 256}}, seed);
    std::shared_ptr<char> bytes(new char[g.get_shape().bytes()], std::default_delete<char[]>());
    std::memcpy(bytes.get(), g.data(), g.get_shape().bytes());
    auto w = m->add_literal(migraphx::literal::adopt(g.get_shape(), bytes));
    m->add_return({m->add_instruction(migraphx::make_op("relu"), m->add_instruction(migraphx::make_op("dot"), x, w))});
    return p;
}

/// The device buffers of p's uploaded literals of the shared size or more.
std::vector<const char*> device_weights(const migraphx::program& p)
{
    std::vector<const char*> r;
    for(const auto& ins : *p.get_main_module())
    {
        if(ins.name() != "hip::hip_copy_literal" or ins.get_shape().bytes() < migraphx::shared_literal_min_bytes)
            continue;
        const auto* op = ins.get_operator().any_cast<migraphx::gpu::hip_copy_literal>();
        if(op != nullptr)
            r.push_back(op->buffer.get());
    }
    return r;
}

} // namespace

TEST(gpu_device_literals, a_model_compiled_twice_has_one_device_copy_of_its_weights)
{
    MIGX_REQUIRE_GPU();
    auto first = migx_test::expect_gpu_matches_ref(dense(7));
    auto again = migx_test::expect_gpu_matches_ref(dense(7));
    auto w1    = device_weights(first);
    ASSERT_EQ(w1.size(), 1u) << migx_test::text(first);
    EXPECT_EQ(device_weights(again), w1);
    // other weights: a copy of their own
    auto other = migx_test::expect_gpu_matches_ref(dense(8));
    EXPECT_NE(device_weights(other), w1);
    // the second runs on after the first is gone (the copy lives while a program holds it)
    auto params = migx_test::fresh_params(again);
    auto want   = again.eval(params).at(0);
    first       = migraphx::program{};
    migx_test::expect_close(again.eval(params).at(0), want, 0, 0, "after the first program is gone");
}
#endif
