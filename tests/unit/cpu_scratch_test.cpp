// cpu::allocate: a run's scratch buffer is the one the previous run gave back (same memory, still
// in cache), and runs at the same time get different ones.
#include "cpu_test_util.hpp"
#ifdef MIGRAPHX_HAVE_CPU
#include "targets/cpu/scratch.hpp"
#include <migraphx/make_op.hpp>

using migraphx::shape;

TEST(cpu_scratch, a_run_reuses_the_buffer_the_last_run_gave_back)
{
    migraphx::cpu::scratch_allocate op;
    op.s = shape{shape::uint8_type, {1 << 20}};
    const void* first = nullptr;
    {
        auto a = op.compute(op.s, {});
        first  = a.data();
        auto view = a.view(shape{shape::float_type, {16}}, 64); // a planned result keeps it alive
        a         = {};
        EXPECT_EQ(op.idle->buffers.size(), 0u); // still held by the view
    }
    EXPECT_EQ(op.idle->buffers.size(), 1u);
    auto b = op.compute(op.s, {});
    EXPECT_EQ(b.data(), first);
    auto c = op.compute(op.s, {}); // at the same time as b: another buffer
    EXPECT_NE(c.data(), b.data());
    b = {};
    c = {};
    EXPECT_EQ(op.idle->buffers.size(), 2u);
}

TEST(cpu_scratch, refuses_inputs_and_tuples)
{
    migraphx::cpu::scratch_allocate op;
    op.s = shape{shape::uint8_type, {8}};
    EXPECT_THROW(op.compute_shape({shape{shape::float_type, {1}}}), migraphx::exception);
    EXPECT_EQ(op.compute_shape({}), op.s);
    // the scratch form says so (program::get_memory_usage reads it)
    EXPECT_FALSE(op.attributes().contains("scratch"));
    op.scratch = true;
    EXPECT_TRUE(op.attributes().contains("scratch"));
    EXPECT_EQ(migraphx::make_op("cpu::allocate", {{"shape", migraphx::shape_to_value(op.s)}}).name(), "cpu::allocate");
}
#endif
