#include <migraphx/make_op.hpp>
#include <migraphx/argument.hpp>
#include <migraphx/errors.hpp>
#include <gtest/gtest.h>
#include <sstream>

// Expected values come from torch.nn.functional.conv_transpose{1,2}d on the same integer inputs.
namespace {
using migraphx::shape;
using lvec = std::vector<std::size_t>;
using fvec = std::vector<float>;
using dvec = std::vector<double>;

fvec seq(std::size_t n, int mul = 37, int add = 11, int mod = 17, int off = 8)
{
    fvec r(n);
    for(std::size_t i = 0; i < n; i++)
        r[i] = static_cast<float>((static_cast<int>(i) * mul + add) % mod - off);
    return r;
}
fvec wseq(std::size_t n) { return seq(n, 13, 5, 11, 5); }
shape fs(lvec lens) { return shape{shape::float_type, std::move(lens)}; }

migraphx::operation deconv(lvec padding, lvec stride, lvec dilation, int group = 1)
{
    return migraphx::make_op(
        "convolution_backwards",
        {{"padding", padding}, {"stride", stride}, {"dilation", dilation}, {"group", group}});
}

dvec run(const migraphx::operation& op, const migraphx::argument& x, const migraphx::argument& w)
{
    auto s = op.compute_shape({x.get_shape(), w.get_shape()});
    auto r = op.compute(s, {x, w});
    EXPECT_EQ(r.get_shape(), s);
    return r.to_vector<double>();
}
} // namespace

TEST(ops_convolution_backwards, prints)
{
    std::ostringstream ss;
    ss << migraphx::make_op("convolution_backwards");
    EXPECT_EQ(ss.str(), "convolution_backwards[padding={0, 0},stride={1, 1},dilation={1, 1},padding_mode=0,group=1]");
}

TEST(ops_convolution_backwards, output_shape_rules)
{
    auto lens = [](const migraphx::operation& op, lvec x, lvec w) {
        return op.compute_shape({fs(x), fs(w)}).lens();
    };
    EXPECT_EQ(lens(deconv({0, 0}, {1, 1}, {1, 1}), {1, 1, 3, 3}, {1, 2, 3, 3}), (lvec{1, 2, 5, 5}));
    EXPECT_EQ(lens(deconv({0, 0}, {2, 2}, {1, 1}), {1, 1, 3, 3}, {1, 1, 3, 3}), (lvec{1, 1, 7, 7}));
    EXPECT_EQ(lens(deconv({1, 1}, {2, 2}, {1, 1}), {1, 1, 3, 3}, {1, 1, 3, 3}), (lvec{1, 1, 5, 5}));
    EXPECT_EQ(lens(deconv({1, 0, 0, 2}, {2, 3}, {1, 1}), {1, 1, 3, 3}, {1, 1, 3, 3}), (lvec{1, 1, 6, 7}));
    EXPECT_EQ(lens(deconv({0, 0}, {1, 1}, {2, 2}), {1, 1, 3, 3}, {1, 1, 3, 3}), (lvec{1, 1, 7, 7}));
    // Weights {C, K/group, k...}: 4 input channels in 2 groups of 3 filters give 6 outputs.
    EXPECT_EQ(lens(deconv({0, 0}, {1, 1}, {1, 1}, 2), {2, 4, 3, 3}, {4, 3, 3, 3}), (lvec{2, 6, 5, 5}));
    EXPECT_EQ(lens(deconv({0}, {2}, {1}), {1, 2, 4}, {2, 1, 3}), (lvec{1, 1, 9}));
}

TEST(ops_convolution_backwards, bad_shapes_throw)
{
    auto op = deconv({0, 0}, {1, 1}, {1, 1});
    EXPECT_THROW(op.compute_shape({fs({1, 2, 3, 3}), fs({3, 1, 3, 3})}), migraphx::exception); // C != w[0]
    EXPECT_THROW(op.compute_shape({fs({1, 2, 3}), fs({2, 1, 3})}), migraphx::exception);       // attr rank
    EXPECT_THROW(op.compute_shape({fs({1, 2, 3, 3})}), migraphx::exception);
    EXPECT_THROW(deconv({0, 0}, {1, 1}, {1, 1}, 2).compute_shape({fs({1, 3, 3, 3}), fs({3, 1, 3, 3})}),
                 migraphx::exception);
    // Padding that removes the whole output.
    EXPECT_THROW(deconv({2, 2}, {1, 1}, {1, 1}).compute_shape({fs({1, 1, 1, 1}), fs({1, 1, 3, 3})}),
                 migraphx::exception);
}

TEST(ops_convolution_backwards, hand_computed)
{
    // 1-d, stride 2: every input scatters its kernel [1, 10, 100] at 2*i.
    fvec x{1, 2, 3};
    fvec w{1, 10, 100};
    migraphx::argument xa{fs({1, 1, 3}), x.data()};
    migraphx::argument wa{fs({1, 1, 3}), w.data()};
    EXPECT_EQ(run(deconv({0}, {2}, {1}), xa, wa), (dvec{1, 10, 102, 20, 203, 30, 300}));
    EXPECT_EQ(run(deconv({1, 2}, {2}, {1}), xa, wa), (dvec{10, 102, 20, 203}));
    // Weights read through a strided view (every other element of the buffer).
    fvec wbuf{1, 0, 10, 0, 100, 0};
    migraphx::argument ws{shape{shape::float_type, {1, 1, 3}, {6, 6, 2}}, wbuf.data()};
    EXPECT_EQ(run(deconv({0}, {2}, {1}), xa, ws), (dvec{1, 10, 102, 20, 203, 30, 300}));
}

TEST(ops_convolution_backwards, grouped_strided_padded)
{
    auto x = seq(36);
    auto w = wseq(108);
    migraphx::argument xa{fs({1, 4, 3, 3}), x.data()};
    migraphx::argument wa{fs({4, 3, 3, 3}), w.data()};
    dvec expected{7,   -30, -14, 46,  16,  -4,  -8,  20,  40,  -24, -5,  45,  -26, -49, 21,  0,   0,   24,  48,  -20,
                  0,   -33, -21, 43,  9,   0,   -24, 21,  -49, -26, 0,   -48, -24, 40,  20,  -5,  54,  16,  46,  -14,
                  -4,  -56, -28, 32,  16,  7,   -21, 28,  -46, -19, 4,   -7,  1,   21,  -2,  -40, 33,  -13, -81, 31,
                  -5,  -25, -8,  20,  6,   58,  31,  85,  -83, -58, 3,   -9,  0,   19,  -3,  -35, -40, 50,  11,  50,
                  -2,  40,  -2,  -28, -2,  50,  -40, -35, 28,  -35, -2,  40,  -2,  -28, -2,  -35, -40, 50,  11,  50,
                  11,  19,  -14, -31, -5,  -46, 7,   42,  78,  -6,  4,   22,  -4,  -11, 5,   -54, -86, 34,  -15, -14,
                  14,  25,  -11, -25, -2,  -9,  23,  10,  -7,  -5,  31,  -26, -35, 30,  1,   -20, 18,  16,  5,   1,
                  37,  74,  -29, -57, 7,   -14, 13,  5,   -17, -10};
    EXPECT_EQ(run(deconv({1, 1}, {2, 2}, {1, 1}, 2), xa, wa), expected);
}

TEST(ops_convolution_backwards, dilated_and_1d)
{
    auto x = seq(36);
    auto w = wseq(108);
    // The first 2 channels of x and the first 2x2 filters of w (a slice of the {4,3,3,3} buffer).
    migraphx::argument xa{fs({1, 2, 3, 3}), x.data()};
    migraphx::argument wa{shape{shape::float_type, {2, 2, 3, 3}, {27, 9, 3, 1}}, w.data()};
    dvec expected{4,   1,  0,   11,  -14, 21,  -26, -5,  -8,  1,   4,   -9,  16,  -14, -32, -35, 59,  0,   17,  24,
                  -15, 50, 50,  -40, -26, 16,  -14, 11,  -32, -29, 43,  -5,  -10, 19,  -31, -5,  -2,  -4,  10,  -14,
                  22,  -19, 4,  7,   -1,  21,  -7,  35,  -23, 8,   -19, 28,  -9,  14,  1,   -2,  -5,  -32, 21,  -20,
                  11,  -8, 6,   1,   -17, 0,   7,   -53, -35, 47,  -5,  4,   -9,  16,  36,  50,  -35, 12,  0,   17,
                  24,  -47, -29, 42, -5,  -26, 16,  -14, 6,   -2,  1,   0,   -21, 11,  -7,  5,   7,   -7};
    EXPECT_EQ(run(deconv({0, 0}, {1, 1}, {2, 2}), xa, wa), expected);

    auto x1 = seq(8);
    auto w1 = wseq(6);
    migraphx::argument x1a{fs({1, 2, 4}), x1.data()};
    migraphx::argument w1a{fs({2, 1, 3}), w1.data()};
    EXPECT_EQ(run(deconv({2}, {3}, {1}), x1a, w1a), (dvec{14, -5, 9, 23, -20, -28, -36, -35}));
}
