// The generated topk kernel (codegen_topk.cpp): its sources compile without a device (NVRTC, sm_90),
// what it declines stays on the host, the lowering's views of its one buffer; on a device, its
// results against ref: ties (lowest index first), NaN and -0, any axis, half, a row of 200,000.
#include "gpu_test_util.hpp"
#ifdef MIGRAPHX_HAVE_GPU
#include "targets/gpu/codegen.hpp"
#include "targets/gpu/kernel_compiler.hpp"
#endif
#include <migraphx/half.hpp>
#include <migraphx/make_op.hpp>
#include <cmath>
#include <limits>

using migraphx::make_op;
using migraphx::shape;

namespace {

/// x -> topk -> both results returned (the values, then the indices); x transposed (a strided
/// view of {lens[1], lens[0]}) where `transposed`.
migraphx::program topk_program(const shape& s, std::int64_t k, std::int64_t axis, bool largest, bool transposed = false)
{
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", s);
    if(transposed)
        x = m->add_instruction(make_op("transpose", {{"permutation", {1, 0}}}), x);
    auto t = m->add_instruction(make_op("topk", {{"k", k}, {"axis", axis}, {"largest", largest}}), x);
    m->add_return({m->add_instruction(make_op("get_tuple_elem", {{"index", 0}}), t),
                   m->add_instruction(make_op("get_tuple_elem", {{"index", 1}}), t)});
    return p;
}


} // namespace

#ifdef MIGRAPHX_HAVE_GPU
namespace gpu = migraphx::gpu;

TEST(gpu_codegen_topk, sources_compile_for_float_and_half_any_axis)
{
    auto f = gpu::generate_topk(shape{shape::float_type, {3, 200000}}, 1, 1000, true);
    ASSERT_TRUE(f.has_value());
    EXPECT_EQ(f->local, 1024u); // a long row: a block of 1024
    EXPECT_EQ(f->elements, 3u * 1024);
    EXPECT_NE(f->source.find("P = 1024u"), std::string::npos) << f->source; // 1000 sorted as 1024
    EXPECT_NO_THROW(gpu::compile_cuda(f->source, f->name, 9, 0)) << f->source;
    auto h = gpu::generate_topk(shape{shape::half_type, {50, 7, 3}}, 0, 10, false);
    ASSERT_TRUE(h.has_value());
    EXPECT_EQ(h->local, 256u);
    EXPECT_EQ(h->elements, 21u * 256); // a block for each of the 7 x 3 rows
    EXPECT_NE(h->source.find("inner = 21u"), std::string::npos) << h->source;
    EXPECT_NE(h->source.find("h2f(v)"), std::string::npos) << h->source;
    EXPECT_NO_THROW(gpu::compile_cuda(h->source, h->name, 9, 0)) << h->source;
}

TEST(gpu_codegen_topk, declines_what_it_cannot_take)
{
    shape f{shape::float_type, {2, 10000}};
    EXPECT_TRUE(gpu::generate_topk(f, 1, gpu::topk_max_k, true).has_value());
    EXPECT_FALSE(gpu::generate_topk(f, 1, gpu::topk_max_k + 1, true).has_value()); // too many to sort
    EXPECT_FALSE(gpu::generate_topk(f, 1, 0, true).has_value());
    EXPECT_FALSE(gpu::generate_topk(f, 0, 3, true).has_value()); // k > n
    EXPECT_FALSE(gpu::generate_topk(shape{shape::int32_type, {2, 100}}, 1, 3, true).has_value());
    EXPECT_FALSE(gpu::generate_topk(shape{shape::float_type, {100, 2}, {1, 100}}, 0, 3, true).has_value());
    EXPECT_FALSE(gpu::generate_topk(f, 2, 3, true).has_value());
}

TEST(gpu_codegen_topk, buffer_holds_the_indices_then_the_values)
{
    // 6 int64 indices, then 6 halves (12 bytes: two words)
    EXPECT_EQ(gpu::topk_buffer_elements(shape{shape::half_type, {2, 3}}), 8u);
    EXPECT_EQ(gpu::topk_buffer_elements(shape{shape::float_type, {5}}), 8u); // 5 + 20 bytes -> 3 words
}

// Lowered without a device: the kernel, its buffer, the two results as views of it (the indices
// at 0, the values after 8 bytes an index); a transposed input copied first; int32 values and a k
// too large to sort stay on the host.
TEST(gpu_codegen_topk, lowering_makes_the_kernel_and_views_of_its_buffer)
{
    auto t = migx_test::lowered_for_gpu(topk_program(shape{shape::float_type, {4, 300}}, 7, -1, true));
    EXPECT_NE(t.find("symbol_name=topk_kernel"), std::string::npos) << t;
    EXPECT_EQ(t.find("gpu::ref::topk"), std::string::npos) << t;
    EXPECT_NE(t.find("load[offset=0,end=224]"), std::string::npos) << t;     // 28 indices
    EXPECT_NE(t.find("load[offset=224,end=336]"), std::string::npos) << t;   // then 28 floats
    auto tr = migx_test::lowered_for_gpu(topk_program(shape{shape::half_type, {300, 4}}, 7, 1, false, true));
    EXPECT_NE(tr.find("symbol_name=topk_kernel"), std::string::npos) << tr;
    // the transposed view copied packed first (by the contiguous the simplifications add, or the
    // lowering's own copy)
    EXPECT_TRUE(tr.find("symbol_name=contiguous_kernel") != std::string::npos or
                tr.find("symbol_name=copy_kernel") != std::string::npos)
        << tr;
    auto i32 = migx_test::lowered_for_gpu(topk_program(shape{shape::int32_type, {4, 300}}, 7, -1, true));
    EXPECT_NE(i32.find("gpu::ref::topk"), std::string::npos) << i32;
    auto big = migx_test::lowered_for_gpu(topk_program(shape{shape::float_type, {1, 5000}}, 4097, 1, true));
    EXPECT_NE(big.find("gpu::ref::topk"), std::string::npos) << big;
}
#endif

namespace {

/// p on the gpu against ref for the given input, expecting the kernel (no host topk).
void expect_device_topk(const migraphx::program& p, const migraphx::parameter_map& params)
{
    auto g = migx_test::expect_gpu_matches_ref(p, params, 0, 0);
    auto t = migx_test::text(g);
    EXPECT_NE(t.find("symbol_name=topk_kernel"), std::string::npos) << t;
    EXPECT_EQ(t.find("gpu::ref::"), std::string::npos) << t;
}

} // namespace

TEST(gpu_topk, ties_come_lowest_index_first_largest_and_smallest)
{
    MIGX_REQUIRE_GPU();
    // 4 distinct values over 1000: every kept value ties with hundreds of others
    shape s{shape::float_type, {3, 1000}};
    auto params = migx_test::drawn_from(s, {-1.5f, 0.25f, 2.0f, 7.0f}, 1);
    for(bool largest : {true, false})
        for(std::int64_t k : {1, 5, 300, 1000})
            expect_device_topk(topk_program(s, k, -1, largest), params);
}

TEST(gpu_topk, nan_is_above_every_number_and_minus_zero_equals_zero)
{
    MIGX_REQUIRE_GPU();
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    shape s{shape::float_type, {2, 64}};
    auto params = migx_test::drawn_from(s, {nan, -nan, inf, -inf, 0.0f, -0.0f, 1.0f, -1.0f}, 2);
    for(bool largest : {true, false})
        for(std::int64_t k : {3, 20, 64})
            expect_device_topk(topk_program(s, k, 1, largest), params);
}

TEST(gpu_topk, first_and_middle_axes_half_and_transposed_inputs)
{
    MIGX_REQUIRE_GPU();
    shape h{shape::half_type, {50, 7, 3}};
    std::vector<float> pool;
    for(int i = 0; i < 40; i++)
        pool.push_back(static_cast<float>(i) * 0.37f - 5.0f);
    auto ph = migx_test::drawn_from(h, pool, 3);
    expect_device_topk(topk_program(h, 10, 0, false), ph);
    expect_device_topk(topk_program(h, 4, 1, true), ph);
    shape f{shape::float_type, {300, 4}};
    auto pf = migx_test::drawn_from(f, pool, 4);
    expect_device_topk(topk_program(f, 17, 1, true, true), pf); // a {4, 300} transposed view
}

TEST(gpu_topk, a_detector_level_of_two_hundred_thousand_anchors)
{
    MIGX_REQUIRE_GPU();
    shape s{shape::float_type, {1, 200000}};
    // fresh random values, then again with values from 1000 levels (ties at the threshold)
    expect_device_topk(topk_program(s, 1000, 1, true), migx_test::fresh_params(topk_program(s, 1000, 1, true)));
    std::vector<float> pool;
    for(int i = 0; i < 1000; i++)
        pool.push_back(static_cast<float>(i) / 1000.0f);
    expect_device_topk(topk_program(s, 1000, 1, true), migx_test::drawn_from(s, pool, 5));
    expect_device_topk(topk_program(s, 4096, 1, false), migx_test::drawn_from(s, pool, 6));
}
