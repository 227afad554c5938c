// int8_convolution (ops/int8_convolution.cpp): the reference of gpu::fuse_int8's fused op.
#include <migraphx/argument.hpp>
#include <migraphx/errors.hpp>
#include <migraphx/literal.hpp>
#include <migraphx/make_op.hpp>
#include <gtest/gtest.h>
#include <cmath>

namespace {
using migraphx::shape;
using lvec = std::vector<std::size_t>;

shape i8(lvec lens) { return shape{shape::int8_type, std::move(lens)}; }

migraphx::argument i8_arg(lvec lens, int mult)
{
    shape s = i8(std::move(lens));
    std::vector<std::int8_t> v(s.elements());
    for(std::size_t i = 0; i < v.size(); i++)
        v[i] = static_cast<std::int8_t>(static_cast<int>((i * mult) % 29) - 14);
    return migraphx::literal{s, v}.get_argument();
}

migraphx::operation op(const std::vector<float>& scales, bool bias, bool residual, bool relu, shape::type_t out)
{
    return migraphx::make_op("int8_convolution", {{"padding", lvec{1, 1, 1, 1}},
                                                  {"scales", scales},
                                                  {"bias", bias},
                                                  {"residual", residual},
                                                  {"relu", relu},
                                                  {"out_type", out}});
}
} // namespace

TEST(ops_int8_convolution, epilogue_follows_the_exact_sums)
{
    auto x = i8_arg({1, 2, 4, 4}, 7), w = i8_arg({3, 2, 3, 3}, 5);
    auto acc = migraphx::make_op("quant_convolution", {{"padding", lvec{1, 1}}})
                   .compute(shape{shape::int32_type, {1, 3, 4, 4}}, {x, w})
                   .to_vector<double>();
    std::vector<float> scales{0.01f, -0.02f, 0.03f}, bias{0.5f, -1.0f, 2.0f};
    auto b = migraphx::literal{shape{shape::float_type, {3}}, bias}.get_argument();
    std::vector<float> zv(48);
    for(std::size_t i = 0; i < zv.size(); i++)
        zv[i] = 0.1f * static_cast<float>(i % 7) - 0.3f;
    auto z = migraphx::literal{shape{shape::float_type, {1, 3, 4, 4}}, zv}.get_argument();
    auto o = op(scales, true, true, true, shape::float_type);
    auto s = o.compute_shape({x.get_shape(), w.get_shape(), b.get_shape(), z.get_shape()});
    ASSERT_EQ(s, (shape{shape::float_type, {1, 3, 4, 4}}));
    auto y = o.compute(s, {x, w, b, z}).to_vector<float>();
    for(std::size_t i = 0; i < y.size(); i++)
    {
        auto k    = i / 16;
        float want = std::max(static_cast<float>(acc[i]) * scales[k] + bias[k] + zv[i], 0.0f);
        EXPECT_EQ(y[i], want) << i;
    }
}

TEST(ops_int8_convolution, int8_results_round_half_to_even_and_saturate)
{
    // 1x1 convolution of one channel: acc = x * w, scale 0.5 -> halves round to even
    std::vector<std::int8_t> xv{1, 3, 5, -1, 100, -100, 127, 0};
    auto x = migraphx::literal{i8({1, 1, 2, 4}), xv}.get_argument();
    auto w = migraphx::literal{i8({1, 1, 1, 1}), std::vector<std::int8_t>{1}}.get_argument();
    auto o = migraphx::make_op("int8_convolution", {{"scales", std::vector<float>{0.5f}}, {"out_type", shape::int8_type}});
    auto y = o.compute(o.compute_shape({x.get_shape(), w.get_shape()}), {x, w}).to_vector<int>();
    EXPECT_EQ(y, (std::vector<int>{0, 2, 2, 0, 50, -50, 64, 0}));
    auto big = migraphx::make_op("int8_convolution", {{"scales", std::vector<float>{4.0f}}, {"out_type", shape::int8_type}});
    auto s   = big.compute(big.compute_shape({x.get_shape(), w.get_shape()}), {x, w}).to_vector<int>();
    EXPECT_EQ(s, (std::vector<int>{4, 12, 20, -4, 127, -128, 127, 0}));
}

TEST(ops_int8_convolution, bad_inputs_throw)
{
    auto o = op({1.0f}, false, false, false, shape::float_type);
    EXPECT_THROW(o.compute_shape({shape{shape::float_type, {1, 2, 4, 4}}, i8({3, 2, 3, 3})}), migraphx::exception);
    EXPECT_THROW(o.compute_shape({i8({1, 2, 4, 4})}), migraphx::exception);
    EXPECT_THROW(o.compute_shape({i8({1, 2, 4}), i8({3, 2, 3})}), migraphx::exception);
    auto two = op({1.0f, 2.0f}, false, false, false, shape::float_type); // 2 scales, 3 channels
    EXPECT_THROW(two.compute_shape({i8({1, 2, 4, 4}), i8({3, 2, 3, 3})}), migraphx::exception);
    auto with_bias = op({1.0f}, true, false, false, shape::float_type);
    EXPECT_THROW(with_bias.compute_shape({i8({1, 2, 4, 4}), i8({3, 2, 3, 3}), shape{shape::float_type, {2}}}),
                 migraphx::exception);
    auto res = op({1.0f}, false, true, false, shape::half_type);
    // a residual of other lens, or of an integer type other than int8
    EXPECT_THROW(res.compute_shape({i8({1, 2, 4, 4}), i8({3, 2, 3, 3}), shape{shape::half_type, {1, 3, 4, 5}}}),
                 migraphx::exception);
    EXPECT_THROW(res.compute_shape({i8({1, 2, 4, 4}), i8({3, 2, 3, 3}), shape{shape::int32_type, {1, 3, 4, 4}}}),
                 migraphx::exception);
    EXPECT_NO_THROW(res.compute_shape({i8({1, 2, 4, 4}), i8({3, 2, 3, 3}), i8({1, 3, 4, 4})})); // an int8 residual
}
