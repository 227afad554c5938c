#include <migraphx/make_op.hpp>
#include <migraphx/argument.hpp>
#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "ops_test_util.hpp"

using namespace migx_ops_test; // NOLINT: the shared test helpers
using migraphx::shape;

TEST(ops_activation, attributes_print_as_migraphx)
{
    EXPECT_EQ(str(migraphx::make_op("leaky_relu")), "leaky_relu[alpha=0.01]");
    EXPECT_EQ(str(migraphx::make_op("elu")), "elu[alpha=1]");
    EXPECT_EQ(str(migraphx::make_op("celu")), "celu[alpha=1]");
    EXPECT_EQ(str(migraphx::make_op("hardsigmoid")), "hardsigmoid[alpha=0.2,beta=0.5]");
    EXPECT_EQ(str(migraphx::make_op("selu")), "selu[alpha=1.67326,gamma=1.0507]");
    EXPECT_EQ(str(migraphx::make_op("thresholdedrelu")), "thresholdedrelu[alpha=1]");
    EXPECT_EQ(str(migraphx::make_op("softplus")), "softplus");
    EXPECT_EQ(str(migraphx::make_op("softsign")), "softsign");
    EXPECT_EQ(str(migraphx::make_op("hardswish")), "hardswish");
    EXPECT_EQ(str(migraphx::make_op("leaky_relu", {{"alpha", 0.5}})), "leaky_relu[alpha=0.5]");
    EXPECT_TRUE(migraphx::make_op("elu").attributes().at("pointwise").get_bool());
    EXPECT_THROW(migraphx::make_op("elu", {{"beta", 1}}), migraphx::exception);
    EXPECT_NE(migraphx::make_op("elu", {{"alpha", 2}}), migraphx::make_op("elu"));
}

TEST(ops_activation, shape_rules)
{
    shape t{shape::float_type, {2, 3}, {1, 2}};
    EXPECT_EQ(migraphx::make_op("selu").compute_shape({t}), (shape{shape::float_type, {2, 3}}));
    EXPECT_THROW(migraphx::make_op("selu").compute_shape({t, t}), migraphx::exception);
    EXPECT_THROW(migraphx::make_op("celu", {{"alpha", 0}}).compute_shape({t}), migraphx::exception);
}

TEST(ops_activation, values)
{
    auto f = [](const dvec& xs) { return raw(vec_shape(shape::float_type, xs.size()), xs); };
    const double e1 = std::exp(-1.0) - 1.0;
    expect_near(run_op(migraphx::make_op("leaky_relu", {{"alpha", 0.1}}), {f({-2, 0, 3})}).to_vector<double>(),
                {-0.2, 0, 3});
    expect_near(run_op(migraphx::make_op("elu", {{"alpha", 2}}), {f({-1, 0, 1})}).to_vector<double>(),
                {2 * e1, 0, 1});
    expect_near(run_op(migraphx::make_op("celu", {{"alpha", 2}}), {f({-1, 0, 1})}).to_vector<double>(),
                {2 * (std::exp(-0.5) - 1), 0, 1});
    expect_near(run_op(migraphx::make_op("hardsigmoid"), {f({-5, 0, 1, 5})}).to_vector<double>(), {0, 0.5, 0.7, 1});
    const double alpha = 1.67326319217681884765625, gamma = 1.05070102214813232421875;
    expect_near(run_op(migraphx::make_op("selu"), {f({-1, 0, 2})}).to_vector<double>(),
                {gamma * alpha * e1, 0, gamma * 2});
    expect_near(run_op(migraphx::make_op("thresholdedrelu"), {f({0.5, 1, 2})}).to_vector<double>(), {0, 0, 2});
    expect_near(run_op(migraphx::make_op("softplus"), {f({-100, 0, 1, 100})}).to_vector<double>(),
                {std::exp(-100.0), std::log(2.0), std::log1p(std::exp(1.0)), 100});
    expect_near(run_op(migraphx::make_op("softsign"), {f({-3, 0, 1})}).to_vector<double>(), {-0.75, 0, 0.5});
    expect_near(run_op(migraphx::make_op("hardswish"), {f({-4, 0, 1, 4})}).to_vector<double>(),
                {0, 0, 1.0 / 6 + 0.5, 4});
}

TEST(ops_activation, strided_half_and_int_inputs)
{
    // Transposed: memory {-1, -2, 1, 2} read as {-1, 1, -2, 2}.
    auto t = raw(shape{shape::float_type, {2, 2}, {1, 2}}, {-1, -2, 1, 2});
    expect_near(run_op(migraphx::make_op("leaky_relu", {{"alpha", 0.5}}), {t}).to_vector<double>(),
                {-0.5, 1, -1, 2});
    // Broadcast scalar.
    auto b = raw(shape{shape::float_type, {2, 2}, {0, 0}}, {-1});
    expect_near(run_op(migraphx::make_op("elu"), {b}).to_vector<double>(),
                dvec(4, std::exp(-1.0) - 1.0));
    auto h = run_op(migraphx::make_op("hardsigmoid"), {raw(vec_shape(shape::half_type, 3), {-1, 0, 2})});
    EXPECT_EQ(h.get_shape().type(), shape::half_type);
    expect_near(h.to_vector<double>(), {0.3, 0.5, 0.9}, 1e-3);
    auto i = run_op(migraphx::make_op("leaky_relu", {{"alpha", 0.1}}), {raw(vec_shape(shape::int32_type, 2), {-10, 5})});
    EXPECT_EQ(i.get_shape().type(), shape::int32_type);
    EXPECT_EQ(i.to_vector<int>(), (std::vector<int>{-1, 5}));
}
