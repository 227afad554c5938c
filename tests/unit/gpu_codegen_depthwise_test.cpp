// The depthwise kernel generator: what it takes and refuses, and the code it writes (activations
// only where asked, a tap's columns read once). Run on the device by gpu_fuse_depthwise_test.
#include "gpu_test_util.hpp"
#ifdef MIGRAPHX_HAVE_GPU
#include "targets/gpu/codegen_depthwise.hpp"
#include "targets/gpu/layout_nhwc.hpp"
#include <gtest/gtest.h>

using migraphx::shape;
using namespace migraphx::gpu;

namespace {

depthwise_spec mobilenet_3x3()
{
    depthwise_spec d;
    d.x         = nhwc_shape(shape{shape::half_type, {2, 32, 14, 14}});
    d.out       = nhwc_shape(shape{shape::half_type, {2, 32, 14, 14}});
    d.kh        = 3;
    d.kw        = 3;
    d.pad_begin = {1, 1};
    return d;
}

using migx_test::occurrences;

} // namespace

TEST(gpu_codegen_depthwise, writes_activations_only_where_asked)
{
    auto plain = generate_depthwise(mobilenet_3x3());
    ASSERT_TRUE(plain.has_value());
    EXPECT_EQ(plain->name, "depthwise_kernel");
    // 80 registers at most: 3 blocks an SM (measured faster than the compiler's 95 and 2)
    EXPECT_NE(plain->source.find("__launch_bounds__(256, 3)"), std::string::npos);
    EXPECT_EQ(plain->source.find("b_pre"), std::string::npos);
    EXPECT_EQ(plain->source.find("b_post"), std::string::npos);
    // 8 channels a thread, 4 output pixels a thread: 2 x 14 x 4 x 4 threads
    EXPECT_EQ(plain->elements, 2u * 14 * 4 * 4);
    auto d     = mobilenet_3x3();
    d.pre.bias = true;
    d.pre.lo   = 0.0f;
    d.pre.hi   = 6.0f;
    d.post.bias = true;
    auto act   = generate_depthwise(d);
    ASSERT_TRUE(act.has_value());
    EXPECT_NE(act->source.find("const migx_half* __restrict__ b_pre"), std::string::npos);
    EXPECT_NE(act->source.find("const migx_half* __restrict__ b_post"), std::string::npos);
    // 4 outputs of stride 1 and a 3-wide filter read 6 columns a filter row, each loaded once.
    EXPECT_EQ(occurrences(act->source, "load8<1>(v, xr"), 6u) << act->source;
}

TEST(gpu_codegen_depthwise, strided_and_standard_layouts)
{
    auto d   = mobilenet_3x3();
    d.stride = {2, 2};
    d.out    = nhwc_shape(shape{shape::half_type, {2, 32, 7, 7}});
    auto k   = generate_depthwise(d);
    ASSERT_TRUE(k.has_value());
    // 4 outputs of stride 2: columns 0..8 a filter row
    EXPECT_EQ(occurrences(k->source, "const int ix = ix0 + "), 9u) << k->source;
    // NCHW tensors: channels are not contiguous, so no 16-byte path (the flag is constant false)
    d.x   = shape{shape::half_type, {2, 32, 14, 14}};
    d.out = shape{shape::half_type, {2, 32, 7, 7}};
    auto s = generate_depthwise(d);
    ASSERT_TRUE(s.has_value());
    EXPECT_NE(s->source.find("const bool xvec = false"), std::string::npos);
    EXPECT_NE(s->source.find("load8<196>"), std::string::npos); // channel stride 14 x 14
}

TEST(gpu_codegen_depthwise, refuses_what_it_cannot_do)
{
    auto d = mobilenet_3x3();
    auto f = d;
    f.x    = shape{shape::float_type, f.x.lens()};
    EXPECT_FALSE(generate_depthwise(f).has_value());
    auto odd = d;
    odd.x    = nhwc_shape(shape{shape::half_type, {2, 12, 14, 14}});
    odd.out  = nhwc_shape(shape{shape::half_type, {2, 12, 14, 14}});
    EXPECT_FALSE(generate_depthwise(odd).has_value());
    auto big = d;
    big.kh = big.kw = 9;
    EXPECT_FALSE(generate_depthwise(big).has_value());
    auto zero   = d;
    zero.stride = {0, 1};
    EXPECT_FALSE(generate_depthwise(zero).has_value());
}

#endif
