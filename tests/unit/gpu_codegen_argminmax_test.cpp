// The generated argmax / argmin kernel (codegen_argminmax.cpp): sources compile without a device
// (NVRTC, sm_90), a thread a row or a block a row as the rows call for; on a device, exactly
// op::argmax's results: ties first or last (select_last_index), NaNs as its scan treats them,
// half, any axis, a strided input.
#include "gpu_test_util.hpp"
#ifdef MIGRAPHX_HAVE_GPU
#include "targets/gpu/codegen.hpp"
#include "targets/gpu/kernel_compiler.hpp"
#endif
#include <migraphx/make_op.hpp>
#include <limits>

using migraphx::make_op;
using migraphx::shape;

namespace {

migraphx::program arg_program(const std::string& op, const shape& s, std::int64_t axis, bool last,
                              bool transposed = false)
{
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", s);
    if(transposed)
        x = m->add_instruction(make_op("transpose", {{"permutation", {1, 0}}}), x);
    m->add_return({m->add_instruction(make_op(op, {{"axis", axis}, {"select_last_index", last}}), x)});
    return p;
}


void expect_device_arg(const migraphx::program& p, const migraphx::parameter_map& params, const std::string& kernel)
{
    auto g = migx_test::expect_gpu_matches_ref(p, params, 0, 0);
    auto t = migx_test::text(g);
    EXPECT_NE(t.find("symbol_name=" + kernel), std::string::npos) << t;
    EXPECT_EQ(t.find("gpu::ref::"), std::string::npos) << t;
}

} // namespace

#ifdef MIGRAPHX_HAVE_GPU
namespace gpu = migraphx::gpu;

TEST(gpu_codegen_argminmax, thread_a_row_or_block_a_row)
{
    // a segmentation head: 21 classes over 512 x 512 pixels, a thread a pixel
    auto seg = gpu::generate_argminmax(true, false, 1, shape{shape::half_type, {1, 21, 512, 512}});
    ASSERT_TRUE(seg.has_value());
    EXPECT_EQ(seg->name, "argmax_kernel");
    EXPECT_EQ(seg->elements, 512u * 512);
    EXPECT_EQ(seg->source.find("__shfl_down_sync"), std::string::npos) << seg->source;
    EXPECT_NO_THROW(gpu::compile_cuda(seg->source, seg->name, 9, 0)) << seg->source;
    // a classifier: 1000 classes a row, a block a row
    auto cls = gpu::generate_argminmax(false, true, 1, shape{shape::float_type, {8, 1000}});
    ASSERT_TRUE(cls.has_value());
    EXPECT_EQ(cls->name, "argmin_kernel");
    EXPECT_EQ(cls->elements, 8u * 256);
    EXPECT_NE(cls->source.find("__shfl_down_sync"), std::string::npos) << cls->source;
    EXPECT_NO_THROW(gpu::compile_cuda(cls->source, cls->name, 9, 0)) << cls->source;
    EXPECT_FALSE(gpu::generate_argminmax(true, false, 1, shape{shape::int32_type, {8, 1000}}).has_value());
    EXPECT_FALSE(gpu::generate_argminmax(true, false, 0, shape{shape::float_type, {10, 2}, {1, 10}}).has_value());
}

TEST(gpu_codegen_argminmax, lowering_copies_a_strided_input_and_keeps_integers_on_the_host)
{
    auto t = migx_test::lowered_for_gpu(arg_program("argmax", shape{shape::float_type, {300, 4}}, 1, false, true));
    EXPECT_NE(t.find("symbol_name=argmax_kernel"), std::string::npos) << t;
    EXPECT_EQ(t.find("gpu::ref::"), std::string::npos) << t;
    auto i = migx_test::lowered_for_gpu(arg_program("argmin", shape{shape::int32_type, {3, 4}}, 1, false));
    EXPECT_NE(i.find("gpu::ref::argmin"), std::string::npos) << i;
}
#endif

TEST(gpu_argminmax, ties_first_or_last_short_and_long_rows)
{
    MIGX_REQUIRE_GPU();
    for(const auto& s : {shape{shape::float_type, {5, 21, 9, 7}}, shape{shape::float_type, {6, 3000}}})
    {
        auto params = migx_test::drawn_from(s, {-2.0f, 0.5f, 3.0f, 3.0f, 1.0f}, 7);
        std::int64_t axis = s.lens().size() == 4 ? 1 : -1;
        for(bool last : {false, true})
        {
            expect_device_arg(arg_program("argmax", s, axis, last), params, "argmax_kernel");
            expect_device_arg(arg_program("argmin", s, axis, last), params, "argmin_kernel");
        }
    }
}

TEST(gpu_argminmax, nans_as_the_scan_treats_them)
{
    MIGX_REQUIRE_GPU();
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    // rows with a NaN first, later, none; short rows (a thread each) and long (a block each)
    for(const auto& s : {shape{shape::float_type, {40, 6}}, shape{shape::float_type, {40, 700}}})
    {
        auto params = migx_test::drawn_from(s, {nan, inf, -inf, 1.0f, 2.0f, 2.0f, 0.0f, -0.0f, 5.0f, 5.0f, 1.5f, 3.0f, 4.0f}, 8);
        // a row of NaNs only, a row starting with one
        migraphx::argument& a = params["x"];
        auto* v = reinterpret_cast<float*>(a.data());
        auto n  = s.lens()[1];
        std::fill_n(v, n, nan);
        v[n] = nan;
        for(bool last : {false, true})
            for(const std::string op : {"argmax", "argmin"})
                expect_device_arg(arg_program(op, s, 1, last), params, op + "_kernel");
    }
}

TEST(gpu_argminmax, half_any_axis_and_strided_input)
{
    MIGX_REQUIRE_GPU();
    shape h{shape::half_type, {4, 300, 5}};
    std::vector<float> pool;
    for(int i = 0; i < 30; i++)
        pool.push_back(static_cast<float>(i % 17) * 0.5f - 3.0f);
    auto ph = migx_test::drawn_from(h, pool, 9);
    for(std::int64_t axis : {0, 1, 2})
        expect_device_arg(arg_program("argmax", h, axis, false), ph, "argmax_kernel");
    shape f{shape::float_type, {2000, 3}};
    expect_device_arg(arg_program("argmin", f, 1, false, true), migx_test::drawn_from(f, pool, 10), "argmin_kernel");
}
