// convolution_pads: explicit paddings as given (one per dim or begin/end), and ONNX auto_pad's
// SAME_UPPER / SAME_LOWER worked out by hand (ONNX Conv: total = (ceil(in/stride) - 1) * stride +
// (kernel - 1) * dilation + 1 - in; SAME_UPPER puts the odd pixel at the end).
#include "ops/convolution_pads.hpp"
#include <gtest/gtest.h>

using lens = std::vector<std::size_t>;

TEST(convolution_pads, explicit_paddings_one_per_dim_or_begin_and_end)
{
    EXPECT_EQ(migraphx::convolution_pads({1, 2}, 0, {1, 1}, {1, 1}, {1, 3, 8, 8}, {4, 3, 3, 3}), (lens{1, 2, 1, 2}));
    EXPECT_EQ(migraphx::convolution_pads({0, 1, 2, 3}, 0, {1, 1}, {1, 1}, {1, 3, 8, 8}, {4, 3, 3, 3}),
              (lens{0, 1, 2, 3}));
    EXPECT_EQ(migraphx::convolution_pads({2}, 0, {1}, {1}, {1, 3, 8}, {4, 3, 5}), (lens{2, 2}));
}

TEST(convolution_pads, same_upper_and_lower_by_hand)
{
    // in 7, kernel 4, stride 1: out 7, total 3: upper {1, 2}, lower {2, 1}
    EXPECT_EQ(migraphx::convolution_pads({0}, 2, {1}, {1}, {1, 1, 7}, {1, 1, 4}), (lens{1, 2}));
    EXPECT_EQ(migraphx::convolution_pads({0}, 1, {1}, {1}, {1, 1, 7}, {1, 1, 4}), (lens{2, 1}));
    // in 224, kernel 7, stride 2 (a ResNet stem with SAME): out 112, total 5: upper {2, 3}
    EXPECT_EQ(migraphx::convolution_pads({0, 0}, 2, {2, 2}, {1, 1}, {1, 3, 224, 224}, {64, 3, 7, 7}),
              (lens{2, 2, 3, 3}));
    // in 5, kernel 3 dilated 2 (extent 5), stride 2: out 3, total 4: {2, 2}
    EXPECT_EQ(migraphx::convolution_pads({0}, 1, {2}, {2}, {1, 1, 5}, {1, 1, 3}), (lens{2, 2}));
    // kernel 1, stride 2 over 8: no padding needed (need 7 <= 8)
    EXPECT_EQ(migraphx::convolution_pads({0}, 2, {2}, {1}, {1, 1, 8}, {1, 1, 1}), (lens{0, 0}));
}
