#include <migraphx/make_op.hpp>
#include <migraphx/argument.hpp>
#include <gtest/gtest.h>
#include <numeric>

namespace {
using migraphx::shape;
using ivec = std::vector<std::int64_t>;
using lvec = std::vector<std::size_t>;

migraphx::argument run(const migraphx::operation& op, const migraphx::argument& in)
{
    return op.compute(op.compute_shape({in.get_shape()}), {in});
}
} // namespace

TEST(ops_contiguous, output_shape_is_standard)
{
    auto op = migraphx::make_op("contiguous");
    EXPECT_EQ(op.compute_shape({shape{shape::float_type, {1, 1, 4, 3}, {24, 24, 6, 1}}}),
              (shape{shape::float_type, {1, 1, 4, 3}, {12, 12, 3, 1}}));
    EXPECT_EQ(op.compute_shape({shape{shape::int8_type, {2, 3}, {0, 1}}}), (shape{shape::int8_type, {2, 3}}));
    EXPECT_EQ(op.output_alias({shape{shape::float_type, {2, 3}}}), -1);
    EXPECT_THROW(op.compute_shape({}), migraphx::exception);
}

TEST(ops_contiguous, copies_transposed_input)
{
    std::vector<std::int32_t> x{0, 1, 2, 3, 4, 5};
    migraphx::argument in{shape{shape::int32_type, {3, 2}, {1, 3}}, x.data()};
    auto r = run(migraphx::make_op("contiguous"), in);
    EXPECT_EQ(r.get_shape(), (shape{shape::int32_type, {3, 2}}));
    EXPECT_NE(r.data(), in.data());
    EXPECT_EQ(r.to_vector<std::int32_t>(), (std::vector<std::int32_t>{0, 3, 1, 4, 2, 5}));
}

TEST(ops_contiguous, copies_chained_views)
{
    // contiguous(slice(transpose(x))) on a {2, 3, 4} input.
    std::vector<float> x(24);
    std::iota(x.begin(), x.end(), 0.0f);
    migraphx::argument in{shape{shape::float_type, {2, 3, 4}}, x.data()};
    auto t = run(migraphx::make_op("transpose", {{"permutation", ivec{2, 0, 1}}}), in); // {4, 2, 3}
    auto s = run(migraphx::make_op("slice", {{"axes", ivec{0, 2}}, {"starts", ivec{1, 1}}, {"ends", ivec{3, 3}}}),
                 t); // {2, 2, 2}
    EXPECT_EQ(s.get_shape(), (shape{shape::float_type, {2, 2, 2}, {1, 12, 4}}));
    EXPECT_EQ(s.data(), in.data() + 5 * sizeof(float));
    auto r = run(migraphx::make_op("contiguous"), s);
    EXPECT_EQ(r.get_shape(), (shape{shape::float_type, {2, 2, 2}}));
    // out[i][j][k] = x[j][k + 1][i + 1]
    EXPECT_EQ(r.to_vector<float>(), (std::vector<float>{5, 9, 17, 21, 6, 10, 18, 22}));
}

TEST(ops_contiguous, copies_broadcast_scalar)
{
    std::vector<migraphx::half> x{migraphx::half(1.5f)};
    migraphx::argument in{shape{shape::half_type, {2, 2}, {0, 0}}, x.data()};
    auto r = run(migraphx::make_op("contiguous"), in);
    EXPECT_EQ(r.get_shape(), (shape{shape::half_type, {2, 2}}));
    EXPECT_EQ(r.to_vector<float>(), (std::vector<float>{1.5f, 1.5f, 1.5f, 1.5f}));
}
