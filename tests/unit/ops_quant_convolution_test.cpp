#include <migraphx/make_op.hpp>
#include <migraphx/argument.hpp>
#include <migraphx/errors.hpp>
#include <gtest/gtest.h>
#include <sstream>

namespace {
using migraphx::shape;
using lvec = std::vector<std::size_t>;
using i8vec = std::vector<std::int8_t>;
shape i8(lvec lens) { return shape{shape::int8_type, std::move(lens)}; }
} // namespace

TEST(ops_quant_convolution, prints_and_shape)
{
    std::ostringstream ss;
    ss << migraphx::make_op("quant_convolution");
    EXPECT_EQ(ss.str(),
              "quant_convolution[padding={0, 0},stride={1, 1},dilation={1, 1},group=1,padding_mode=0,"
              "use_dynamic_same_auto_pad=0]");
    auto op = migraphx::make_op("quant_convolution", {{"padding", lvec{1, 1}}, {"stride", lvec{2, 2}}});
    EXPECT_EQ(op.compute_shape({i8({2, 3, 5, 5}), i8({4, 3, 3, 3})}), (shape{shape::int32_type, {2, 4, 3, 3}}));
    auto g = migraphx::make_op("quant_convolution", {{"group", 2}});
    EXPECT_EQ(g.compute_shape({i8({1, 4, 3, 3}), i8({2, 2, 1, 1})}), (shape{shape::int32_type, {1, 2, 3, 3}}));
}

TEST(ops_quant_convolution, bad_shapes_throw)
{
    auto op = migraphx::make_op("quant_convolution");
    shape f{shape::float_type, {1, 1, 3, 3}};
    EXPECT_THROW(op.compute_shape({f, f}), migraphx::exception);
    EXPECT_THROW(op.compute_shape({i8({1, 1, 3, 3}), f}), migraphx::exception);
    EXPECT_THROW(op.compute_shape({i8({1, 2, 3, 3}), i8({1, 3, 2, 2})}), migraphx::exception);
    EXPECT_THROW(op.compute_shape({i8({1, 2, 3, 3})}), migraphx::exception);
    try
    {
        op.compute_shape({i8({1, 2, 3, 3}), i8({1, 3, 2, 2})});
        FAIL() << "expected a throw";
    }
    catch(const migraphx::exception& e)
    {
        EXPECT_EQ(std::string(e.what()).rfind("quant_convolution", 0), 0u) << e.what();
    }
}

TEST(ops_quant_convolution, int32_results_beyond_int8)
{
    // Sums of int8 products that overflow int8 and int16 land exactly in int32.
    i8vec x{100, -128, 127, 50, 1, 2, 3, 4, 5};
    i8vec w{127, 127, -128, 100};
    migraphx::argument xa{i8({1, 1, 3, 3}), x.data()};
    migraphx::argument wa{i8({1, 1, 2, 2}), w.data()};
    auto op = migraphx::make_op("quant_convolution");
    auto s  = op.compute_shape({xa.get_shape(), wa.get_shape()});
    auto r  = op.compute(s, {xa, wa});
    EXPECT_EQ(r.get_shape(), (shape{shape::int32_type, {1, 1, 2, 2}}));
    std::vector<std::int32_t> expected{
        100 * 127 + -128 * 127 + 50 * -128 + 1 * 100,
        -128 * 127 + 127 * 127 + 1 * -128 + 2 * 100,
        50 * 127 + 1 * 127 + 3 * -128 + 4 * 100,
        1 * 127 + 2 * 127 + 4 * -128 + 5 * 100,
    };
    EXPECT_EQ(r.to_vector<std::int32_t>(), expected);
}

TEST(ops_quant_convolution, strided_weights)
{
    i8vec x{1, 2, 3, 4, 5, 6, 7, 8, 9};
    i8vec wbuf{1, 2, 3, 4};
    migraphx::argument xa{i8({1, 1, 3, 3}), x.data()};
    migraphx::argument wt{shape{shape::int8_type, {1, 1, 2, 2}, {4, 4, 1, 2}}, wbuf.data()}; // [[1,3],[2,4]]
    auto op = migraphx::make_op("quant_convolution");
    auto r  = op.compute(op.compute_shape({xa.get_shape(), wt.get_shape()}), {xa, wt});
    EXPECT_EQ(r.to_vector<std::int32_t>(), (std::vector<std::int32_t>{35, 45, 65, 75}));
}

TEST(ops_quant_convolution, uint8_data_with_int8_weights)
{
    // uint8 activations (after relu) with int8 weights: mixed types, exact int32 sums
    std::vector<std::uint8_t> x{255, 200, 0, 1, 2, 3, 250, 128, 7};
    i8vec w{127, -127, 63, -1};
    migraphx::argument xa{shape{shape::uint8_type, {1, 1, 3, 3}}, x.data()};
    migraphx::argument wa{i8({1, 1, 2, 2}), w.data()};
    auto op = migraphx::make_op("quant_convolution");
    auto s  = op.compute_shape({xa.get_shape(), wa.get_shape()});
    EXPECT_EQ(s, (shape{shape::int32_type, {1, 1, 2, 2}}));
    auto r = op.compute(s, {xa, wa});
    std::vector<std::int32_t> expected{
        255 * 127 - 200 * 127 + 1 * 63 - 2,
        200 * 127 - 0 * 127 + 2 * 63 - 3,
        1 * 127 - 2 * 127 + 250 * 63 - 128,
        2 * 127 - 3 * 127 + 128 * 63 - 7,
    };
    EXPECT_EQ(r.to_vector<std::int32_t>(), expected);
    EXPECT_THROW(op.compute_shape({xa.get_shape(), shape{shape::float_type, {1, 1, 2, 2}}}), migraphx::exception);
}
