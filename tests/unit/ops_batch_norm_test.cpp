#include <migraphx/make_op.hpp>
#include <migraphx/argument.hpp>
#include <migraphx/errors.hpp>
#include <gtest/gtest.h>
#include <cmath>
#include <sstream>

namespace {
using migraphx::shape;
using lvec = std::vector<std::size_t>;
using fvec = std::vector<float>;
using dvec = std::vector<double>;
shape fs(lvec lens) { return shape{shape::float_type, std::move(lens)}; }

dvec run(const migraphx::operation& op, const std::vector<migraphx::argument>& args)
{
    std::vector<shape> shapes;
    for(const auto& a : args)
        shapes.push_back(a.get_shape());
    auto s = op.compute_shape(shapes);
    auto r = op.compute(s, args);
    EXPECT_EQ(r.get_shape(), s);
    return r.to_vector<double>();
}

void expect_near(const dvec& got, const dvec& expected)
{
    ASSERT_EQ(got.size(), expected.size());
    for(std::size_t i = 0; i < got.size(); i++)
        EXPECT_NEAR(got[i], expected[i], 1e-5) << "at " << i;
}
} // namespace

TEST(ops_batch_norm, prints_like_migraphx)
{
    std::ostringstream ss;
    ss << migraphx::make_op("batch_norm_inference");
    EXPECT_EQ(ss.str(), "batch_norm_inference[epsilon=1e-05,momentum=0.9,bn_mode=1]");
    ss.str("");
    ss << migraphx::make_op("batch_norm_inference", {{"epsilon", 0.001}, {"bn_mode", 0}});
    EXPECT_EQ(ss.str(), "batch_norm_inference[epsilon=0.001,momentum=0.9,bn_mode=0]");
}

TEST(ops_batch_norm, shape_rules)
{
    auto op = migraphx::make_op("batch_norm_inference");
    auto c  = fs({3});
    EXPECT_EQ(op.compute_shape({fs({2, 3, 4, 5}), c, c, c, c}), fs({2, 3, 4, 5}));
    EXPECT_EQ(op.compute_shape({fs({2, 3}), c, c, c, c}), fs({2, 3}));
    // A transposed input gives a standard output.
    EXPECT_EQ(op.compute_shape({shape{shape::float_type, {2, 3, 4}, {1, 2, 6}}, c, c, c, c}), fs({2, 3, 4}));
    auto pa = migraphx::make_op("batch_norm_inference", {{"bn_mode", 0}});
    auto p  = fs({3, 4});
    EXPECT_EQ(pa.compute_shape({fs({2, 3, 4}), p, p, p, p}), fs({2, 3, 4}));
}

TEST(ops_batch_norm, bad_shapes_throw)
{
    auto op = migraphx::make_op("batch_norm_inference");
    auto c  = fs({3});
    EXPECT_THROW(op.compute_shape({fs({2, 3, 4}), c, c, c}), migraphx::exception);
    EXPECT_THROW(op.compute_shape({fs({2, 3, 4}), c, c, c, fs({4})}), migraphx::exception);
    EXPECT_THROW(op.compute_shape({fs({3}), c, c, c, c}), migraphx::exception);
    auto pa = migraphx::make_op("batch_norm_inference", {{"bn_mode", 0}});
    EXPECT_THROW(pa.compute_shape({fs({2, 3, 4}), c, c, c, c}), migraphx::exception);
    auto bad = migraphx::make_op("batch_norm_inference", {{"bn_mode", 2}});
    EXPECT_THROW(bad.compute_shape({fs({2, 3, 4}), c, c, c, c}), migraphx::exception);
}

TEST(ops_batch_norm, spatial_values)
{
    // x {1, 2, 2}: channel 0 = [1, 3], channel 1 = [-2, 6].
    fvec x{1, 3, -2, 6};
    fvec scale{2, 0.5f}, bias{1, -1}, mean{2, 2}, var{4, 16};
    auto arg = [](fvec& v, lvec lens) { return migraphx::argument{fs(std::move(lens)), v.data()}; };
    auto op  = migraphx::make_op("batch_norm_inference", {{"epsilon", 0.0}});
    expect_near(run(op, {arg(x, {1, 2, 2}), arg(scale, {2}), arg(bias, {2}), arg(mean, {2}), arg(var, {2})}),
                {2 * (1 - 2) / 2.0 + 1, 2 * (3 - 2) / 2.0 + 1, 0.5 * (-2 - 2) / 4.0 - 1, 0.5 * (6 - 2) / 4.0 - 1});
    // The default epsilon is added to the variance.
    auto d  = migraphx::make_op("batch_norm_inference");
    auto r  = run(d, {arg(x, {1, 2, 2}), arg(scale, {2}), arg(bias, {2}), arg(mean, {2}), arg(var, {2})});
    auto e  = static_cast<double>(1e-5f);
    EXPECT_NEAR(r[1], 2 * (3 - 2) / std::sqrt(4 + e) + 1, 1e-6); // float output
    EXPECT_LT(r[1], 2.0f);
}

TEST(ops_batch_norm, per_activation_and_strided_input)
{
    // x logical {2, 2} = [[1, 3], [2, 4]] through transposed strides; per-activation params of {2}.
    fvec x{1, 2, 3, 4};
    fvec scale{1, 2}, bias{0, 10}, mean{1, 1}, var{1, 4};
    migraphx::argument xt{shape{shape::float_type, {2, 2}, {1, 2}}, x.data()};
    auto p  = [](fvec& v) { return migraphx::argument{fs({2}), v.data()}; };
    auto op = migraphx::make_op("batch_norm_inference", {{"epsilon", 0.0}, {"bn_mode", 0}});
    expect_near(run(op, {xt, p(scale), p(bias), p(mean), p(var)}), {0, 2 * 2 / 2.0 + 10, 1, 2 * 3 / 2.0 + 10});
    // Spatial mode over a 4-d input with broadcast scale (stride 0 over channels).
    fvec x4{1, 2, 3, 4, 5, 6, 7, 8};
    fvec one{2};
    fvec zero4{0, 0};
    fvec ones{1, 1};
    migraphx::argument xa{fs({1, 2, 2, 2}), x4.data()};
    migraphx::argument sb{shape{shape::float_type, {2}, {0}}, one.data()};
    auto sp = migraphx::make_op("batch_norm_inference", {{"epsilon", 0.0}});
    expect_near(run(sp, {xa, sb, p(zero4), p(zero4), p(ones)}), {2, 4, 6, 8, 10, 12, 14, 16});
}

TEST(ops_batch_norm, half_input_keeps_type)
{
    std::vector<migraphx::half> x{1, 2, 3, 4};
    fvec scale{1}, bias{0.5f}, mean{0}, var{1};
    migraphx::argument xa{shape{shape::half_type, {2, 1, 2}}, x.data()};
    auto p  = [](fvec& v) { return migraphx::argument{fs({1}), v.data()}; };
    auto op = migraphx::make_op("batch_norm_inference", {{"epsilon", 0.0}});
    auto s  = op.compute_shape({xa.get_shape(), fs({1}), fs({1}), fs({1}), fs({1})});
    EXPECT_EQ(s.type(), shape::half_type);
    auto r = op.compute(s, {xa, p(scale), p(bias), p(mean), p(var)});
    EXPECT_EQ(r.to_vector<float>(), (fvec{1.5f, 2.5f, 3.5f, 4.5f}));
}
