// dnnl::quant_matmul (the cpu target's int8 matmul) and dnnl::quant_pooling called directly.
#include <migraphx/make_op.hpp>
#include <migraphx/argument.hpp>
#include <migraphx/errors.hpp>
#include <gtest/gtest.h>
#ifdef MIGRAPHX_HAVE_CPU
#include <migraphx/cpu/target.hpp>
#endif
#include <cstdint>

namespace {
#ifdef MIGRAPHX_HAVE_CPU
using migraphx::make_op;
using migraphx::shape;

TEST(cpu_dnnl_quant_matmul, bad_shapes_throw)
{
    auto op = make_op("dnnl::quant_matmul", {{"scales", std::vector<float>{1.0f}}});
    shape a{shape::uint8_type, {2, 3, 8}}, w{shape::int8_type, {8, 5}};
    EXPECT_EQ(op.compute_shape({a, w}), (shape{shape::float_type, {2, 3, 5}}));
    EXPECT_THROW(op.compute_shape({a}), migraphx::exception);
    EXPECT_THROW(op.compute_shape({a, shape{shape::int8_type, {7, 5}}}), migraphx::exception); // K differs
    EXPECT_THROW(op.compute_shape({shape{shape::float_type, {2, 3, 8}}, w}), migraphx::exception);
    EXPECT_THROW(op.compute_shape({a, shape{shape::int8_type, {2, 8, 5}}}), migraphx::exception); // batched weights
    auto two = make_op("dnnl::quant_matmul", {{"scales", std::vector<float>{1.0f, 2.0f}}});
    EXPECT_THROW(two.compute_shape({a, w}), migraphx::exception) << "2 scales for 5 columns";
}

TEST(cpu_dnnl_quant_matmul, scales_bias_and_relu)
{
    // y = relu(scale[n] * (a w + bias[n])), a uint8 {3, 4}, w int8 {4, 2}
    std::vector<std::uint8_t> a = {255, 0, 10, 20, 1, 2, 3, 4, 200, 100, 50, 25};
    std::vector<std::int8_t> w  = {63, -63, 1, 2, -5, 7, 0, 63};
    std::vector<float> bias = {-1000.0f, 5.0f}, scales = {0.5f, 0.25f};
    auto op = make_op("dnnl::quant_matmul",
                      {{"bias", true}, {"scales", scales}, {"post_ops", std::vector<std::string>{"relu"}},
                       {"post_alpha", std::vector<float>{0}}, {"post_beta", std::vector<float>{0}}});
    shape as{shape::uint8_type, {3, 4}}, ws{shape::int8_type, {4, 2}}, bs{shape::float_type, {2}};
    auto out = op.compute_shape({as, ws, bs});
    migraphx::cpu::target t;
    auto ctx = t.get_context();
    auto r   = op.compute(ctx, out, {migraphx::argument{as, a.data()}, migraphx::argument{ws, w.data()},
                                   migraphx::argument{bs, bias.data()}});
    auto got = r.to_vector<float>();
    ASSERT_EQ(got.size(), 6u);
    for(std::size_t i = 0; i < 3; i++)
        for(std::size_t n = 0; n < 2; n++)
        {
            double acc = 0;
            for(std::size_t k = 0; k < 4; k++)
                acc += double(a[i * 4 + k]) * w[k * 2 + n];
            double want = std::max(0.0, scales[n] * (acc + bias[n]));
            EXPECT_FLOAT_EQ(got[i * 2 + n], static_cast<float>(want)) << i << "," << n;
        }
}

TEST(cpu_dnnl_quant_pooling, max_of_uint8_channels_last)
{
    auto op = make_op("dnnl::quant_pooling", {{"lengths", std::vector<std::size_t>{2, 2}},
                                              {"stride", std::vector<std::size_t>{2, 2}},
                                              {"padding", std::vector<std::size_t>{0, 0, 0, 0}}});
    shape in{shape::uint8_type, {1, 2, 4, 4}};
    std::vector<std::uint8_t> x(32);
    for(std::size_t i = 0; i < x.size(); i++)
        x[i] = static_cast<std::uint8_t>((i * 37) % 251);
    auto out = op.compute_shape({in});
    EXPECT_EQ(out.lens(), (std::vector<std::size_t>{1, 2, 2, 2}));
    EXPECT_EQ(out.strides(), (std::vector<std::size_t>{8, 1, 4, 2})) << "channels-last";
    EXPECT_THROW(op.compute_shape({shape{shape::float_type, {1, 2, 4, 4}}}), migraphx::exception);
    migraphx::cpu::target t;
    auto ctx = t.get_context();
    auto r   = op.compute(ctx, out, {migraphx::argument{in, x.data()}});
    auto got = r.to_vector<int>(); // logical order
    for(std::size_t c = 0; c < 2; c++)
        for(std::size_t i = 0; i < 2; i++)
            for(std::size_t j = 0; j < 2; j++)
            {
                int want = 0;
                for(std::size_t di = 0; di < 2; di++)
                    for(std::size_t dj = 0; dj < 2; dj++)
                        want = std::max<int>(want, x[c * 16 + (2 * i + di) * 4 + 2 * j + dj]);
                EXPECT_EQ(got[c * 4 + i * 2 + j], want);
            }
}
#endif
} // namespace
