#include <migraphx/make_op.hpp>
#include <migraphx/argument.hpp>
#include <migraphx/errors.hpp>
#include <gtest/gtest.h>
#include <cmath>
#include <sstream>

// Expected values come from torch.nn.functional.{softmax,log_softmax} on the same inputs.
namespace {
using migraphx::shape;
using lvec = std::vector<std::size_t>;
using fvec = std::vector<float>;
using dvec = std::vector<double>;

fvec seq(std::size_t n)
{
    fvec r(n);
    for(std::size_t i = 0; i < n; i++)
        r[i] = static_cast<float>((static_cast<int>(i) * 37 + 11) % 17 - 8) / 4.0f;
    return r;
}

dvec run(const std::string& name, std::int64_t axis, const migraphx::argument& x)
{
    auto op = migraphx::make_op(name, {{"axis", axis}});
    auto s  = op.compute_shape({x.get_shape()});
    auto r  = op.compute(s, {x});
    EXPECT_EQ(r.get_shape(), s);
    return r.to_vector<double>();
}

void expect_near(const dvec& got, const dvec& expected, double tol = 1e-6)
{
    ASSERT_EQ(got.size(), expected.size());
    for(std::size_t i = 0; i < got.size(); i++)
        EXPECT_NEAR(got[i], expected[i], tol) << "at " << i;
}
} // namespace

TEST(ops_softmax, prints_and_shapes)
{
    std::ostringstream ss;
    ss << migraphx::make_op("softmax") << " " << migraphx::make_op("logsoftmax", {{"axis", -1}});
    EXPECT_EQ(ss.str(), "softmax[axis=1] logsoftmax[axis=-1]");
    shape t{shape::float_type, {2, 3, 4}, {1, 2, 6}};
    EXPECT_EQ(migraphx::make_op("softmax").compute_shape({t}), (shape{shape::float_type, {2, 3, 4}}));
    shape h{shape::half_type, {5}};
    EXPECT_EQ(migraphx::make_op("logsoftmax", {{"axis", 0}}).compute_shape({h}), h);
}

TEST(ops_softmax, bad_axis_throws)
{
    shape s{shape::float_type, {2, 3}};
    EXPECT_THROW(migraphx::make_op("softmax", {{"axis", 2}}).compute_shape({s}), migraphx::exception);
    EXPECT_THROW(migraphx::make_op("softmax", {{"axis", -3}}).compute_shape({s}), migraphx::exception);
    EXPECT_THROW(migraphx::make_op("logsoftmax").compute_shape({s, s}), migraphx::exception);
}

TEST(ops_softmax, values_along_each_axis)
{
    auto x = seq(24);
    migraphx::argument xa{shape{shape::float_type, {2, 3, 4}}, x.data()};
    expect_near(run("softmax", 1, xa),
                {0.7306791, 0.7306791, 0.0372576, 0.0372576, 0.2093431, 0.2093431, 0.7483395, 0.7483395,
                 0.0599778, 0.0599778, 0.2144029, 0.2144029, 0.7306791, 0.7306791, 0.0372576, 0.1420231,
                 0.2093431, 0.2093431, 0.7483395, 0.0406903, 0.0599778, 0.0599778, 0.2144029, 0.8172866});
    expect_near(run("softmax", -3, xa),
                {0.3775407, 0.3775407, 0.3775407, 0.3775407, 0.3775407, 0.3775407, 0.3775407, 0.9770226,
                 0.3775407, 0.3775407, 0.3775407, 0.3775407, 0.6224593, 0.6224593, 0.6224593, 0.6224593,
                 0.6224593, 0.6224593, 0.6224593, 0.0229774, 0.6224593, 0.6224593, 0.6224593, 0.6224593});
    expect_near(run("logsoftmax", -1, xa),
                {-1.1988386, -0.4488386, -3.9488386, -3.1988386, -2.8382843, -2.0882843, -1.3382843, -0.5882843,
                 -2.8382843, -2.0882843, -1.3382843, -0.5882843, -1.1988386, -0.4488386, -3.9488386, -3.1988386,
                 -2.0456293, -1.2956293, -0.5456293, -4.0456293, -2.8382843, -2.0882843, -1.3382843, -0.5882843});
}

TEST(ops_softmax, large_inputs_are_stable)
{
    fvec x{1000, 1001, 1002, -1000};
    migraphx::argument xa{shape{shape::float_type, {1, 4}}, x.data()};
    double z = 1 + std::exp(-1.0) + std::exp(-2.0);
    expect_near(run("softmax", 1, xa), {std::exp(-2.0) / z, std::exp(-1.0) / z, 1 / z, 0});
    auto l = run("logsoftmax", 1, xa);
    EXPECT_NEAR(l[2], -std::log(z), 1e-6);
    EXPECT_NEAR(l[3], -2002 - std::log(z), 1e-3);
    EXPECT_TRUE(std::isfinite(l[3]));
}

TEST(ops_softmax, transposed_input)
{
    // Logical x = [[1, 3], [2, 4]] from the buffer [1, 2, 3, 4] with strides {1, 2}.
    fvec x{1, 2, 3, 4};
    migraphx::argument xt{shape{shape::float_type, {2, 2}, {1, 2}}, x.data()};
    double a = 1 / (1 + std::exp(2.0));
    expect_near(run("softmax", 1, xt), {a, 1 - a, a, 1 - a});
    expect_near(run("softmax", 0, xt), {0.2689414, 0.2689414, 0.7310586, 0.7310586});
}

TEST(ops_softmax, half_type)
{
    std::vector<migraphx::half> x{0, 0, 0, 0};
    migraphx::argument xa{shape{shape::half_type, {4}}, x.data()};
    auto op = migraphx::make_op("softmax", {{"axis", 0}});
    auto r  = op.compute(op.compute_shape({xa.get_shape()}), {xa});
    EXPECT_EQ(r.get_shape().type(), shape::half_type);
    EXPECT_EQ(r.to_vector<float>(), (fvec{0.25f, 0.25f, 0.25f, 0.25f}));
}
