#include <migraphx/make_op.hpp>
#include <migraphx/argument.hpp>
#include <migraphx/literal.hpp>
#include <migraphx/program.hpp>
#include <migraphx/ref/target.hpp>
#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <sstream>

#include "ops_test_util.hpp"

using namespace migx_ops_test; // NOLINT: the shared test helpers
using migraphx::shape;

TEST(ops_unary, shape_rules)
{
    auto relu = migraphx::make_op("relu");
    EXPECT_EQ(str(relu), "relu");
    EXPECT_TRUE(relu.attributes().at("pointwise").get_bool());
    // Any input layout gives a standard output of the same type and lens.
    shape t{shape::float_type, {2, 3}, {1, 2}};
    EXPECT_EQ(relu.compute_shape({t}), (shape{shape::float_type, {2, 3}}));
    shape b{shape::half_type, {2, 3}, {0, 1}};
    EXPECT_EQ(migraphx::make_op("exp").compute_shape({b}), (shape{shape::half_type, {2, 3}}));
    EXPECT_EQ(migraphx::make_op("isnan").compute_shape({t}), (shape{shape::bool_type, {2, 3}}));
    EXPECT_EQ(migraphx::make_op("isinf").compute_shape({t}), (shape{shape::bool_type, {2, 3}}));
    EXPECT_EQ(migraphx::make_op("not").compute_shape({t}), (shape{shape::bool_type, {2, 3}}));
    EXPECT_EQ(relu.output_alias({t}), -1);
    EXPECT_THROW(relu.compute_shape({}), migraphx::exception);
    EXPECT_THROW(relu.compute_shape({t, t}), migraphx::exception);
    EXPECT_THROW(migraphx::make_op("relu", {{"alpha", 1}}), migraphx::exception);
    try
    {
        migraphx::make_op("sin").compute_shape({t, t});
        FAIL() << "expected a throw";
    }
    catch(const migraphx::exception& e)
    {
        EXPECT_NE(std::string(e.what()).find("sin"), std::string::npos) << e.what();
    }
}

TEST(ops_unary, math_functions_match_std)
{
    struct entry
    {
        const char* name;
        std::function<double(double)> f;
        dvec xs;
    };
    const dvec any{-1.5, -0.25, 0.0, 0.75, 2.0};
    const dvec unit{-0.9, -0.5, 0.0, 0.3, 0.8};
    const dvec pos{0.1, 0.5, 1.0, 4.0, 9.0};
    std::vector<entry> table = {
        {"acos", [](double x) { return std::acos(x); }, unit},
        {"acosh", [](double x) { return std::acosh(x); }, {1.0, 1.5, 2.0, 10.0, 100.0}},
        {"asin", [](double x) { return std::asin(x); }, unit},
        {"asinh", [](double x) { return std::asinh(x); }, any},
        {"atan", [](double x) { return std::atan(x); }, any},
        {"atanh", [](double x) { return std::atanh(x); }, unit},
        {"cos", [](double x) { return std::cos(x); }, any},
        {"cosh", [](double x) { return std::cosh(x); }, any},
        {"erf", [](double x) { return std::erf(x); }, any},
        {"exp", [](double x) { return std::exp(x); }, any},
        {"log", [](double x) { return std::log(x); }, pos},
        {"sin", [](double x) { return std::sin(x); }, any},
        {"sinh", [](double x) { return std::sinh(x); }, any},
        {"sqrt", [](double x) { return std::sqrt(x); }, pos},
        {"tan", [](double x) { return std::tan(x); }, any},
        {"tanh", [](double x) { return std::tanh(x); }, any},
        {"recip", [](double x) { return 1.0 / x; }, {-4.0, -0.5, 0.25, 2.0, 8.0}},
        {"rsqrt", [](double x) { return 1.0 / std::sqrt(x); }, pos},
        {"sigmoid", [](double x) { return 1.0 / (1.0 + std::exp(-x)); }, any},
        {"abs", [](double x) { return std::abs(x); }, any},
        {"neg", [](double x) { return -x; }, any},
        {"ceil", [](double x) { return std::ceil(x); }, any},
        {"floor", [](double x) { return std::floor(x); }, any},
        {"relu", [](double x) { return x < 0 ? 0.0 : x; }, any},
    };
    for(const auto& e : table)
    {
        SCOPED_TRACE(e.name);
        dvec want;
        for(auto x : e.xs)
            want.push_back(e.f(x));
        auto r = run_op(migraphx::make_op(e.name), {raw(vec_shape(shape::float_type, 5), e.xs)});
        EXPECT_EQ(r.get_shape().type(), shape::float_type);
        expect_near(r.to_vector<double>(), want, 1e-6);
        auto rd = run_op(migraphx::make_op(e.name), {raw(vec_shape(shape::double_type, 5), e.xs)});
        expect_near(rd.to_vector<double>(), want, 1e-14);
    }
}

TEST(ops_unary, transposed_and_broadcast_inputs)
{
    // Memory 0..5 read through strides {1, 2}: logical order 0 2 4 1 3 5.
    auto t = raw(shape{shape::float_type, {2, 3}, {1, 2}}, {0, 1, 2, 3, 4, 5});
    auto r = run_op(migraphx::make_op("neg"), {t});
    EXPECT_TRUE(r.get_shape().standard());
    expect_near(r.to_vector<double>(), {0, -2, -4, -1, -3, -5});
    // A row broadcast over two rows.
    auto b  = raw(shape{shape::float_type, {2, 3}, {0, 1}}, {1, 4, 9});
    auto rb = run_op(migraphx::make_op("sqrt"), {b});
    expect_near(rb.to_vector<double>(), {1, 2, 3, 1, 2, 3});
    // 3-d with a broadcast middle dimension.
    auto c  = raw(shape{shape::float_type, {2, 2, 2}, {2, 0, 1}}, {-1, 2, -3, 4});
    auto rc = run_op(migraphx::make_op("abs"), {c});
    expect_near(rc.to_vector<double>(), {1, 2, 1, 2, 3, 4, 3, 4});
}

TEST(ops_unary, round_half_to_even)
{
    auto r = run_op(migraphx::make_op("round"),
                    {raw(vec_shape(shape::float_type, 8), {0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.4, -2.6})});
    expect_near(r.to_vector<double>(), {0, 2, 2, 0, -2, -2, 2, -3});
    auto h = run_op(migraphx::make_op("round"), {raw(vec_shape(shape::half_type, 3), {0.5, 1.5, 3.25})});
    EXPECT_EQ(h.get_shape().type(), shape::half_type);
    expect_near(h.to_vector<double>(), {0, 2, 3});
}

TEST(ops_unary, sign_isnan_isinf_not)
{
    auto x = raw(vec_shape(shape::float_type, 5), {-2.5, 0, 3, qnan, -pinf});
    expect_near(run_op(migraphx::make_op("sign"), {x}).to_vector<double>(), {-1, 0, 1, qnan, -1});
    auto in = run_op(migraphx::make_op("isnan"), {x});
    EXPECT_EQ(in.get_shape().type(), shape::bool_type);
    EXPECT_EQ(in.to_vector<int>(), (std::vector<int>{0, 0, 0, 1, 0}));
    EXPECT_EQ(run_op(migraphx::make_op("isinf"), {x}).to_vector<int>(), (std::vector<int>{0, 0, 0, 0, 1}));
    EXPECT_EQ(run_op(migraphx::make_op("not"), {x}).to_vector<int>(), (std::vector<int>{0, 1, 0, 0, 0}));
    auto b = raw(vec_shape(shape::bool_type, 2), {1, 0});
    EXPECT_EQ(run_op(migraphx::make_op("not"), {b}).to_vector<int>(), (std::vector<int>{0, 1}));
    auto i = raw(vec_shape(shape::int32_type, 3), {-7, 0, 7});
    EXPECT_EQ(run_op(migraphx::make_op("isnan"), {i}).to_vector<int>(), (std::vector<int>{0, 0, 0}));
    EXPECT_EQ(run_op(migraphx::make_op("sign"), {i}).to_vector<int>(), (std::vector<int>{-1, 0, 1}));
}

TEST(ops_unary, half_computes_in_float)
{
    auto x = raw(shape{shape::half_type, {2, 2}, {1, 2}}, {0, 1, -1, 2});
    auto r = run_op(migraphx::make_op("exp"), {x});
    EXPECT_EQ(r.get_shape(), (shape{shape::half_type, {2, 2}}));
    // Logical order 0, -1, 1, 2; half keeps ~3 decimal digits.
    expect_near(r.to_vector<double>(), {1, std::exp(-1.0), std::exp(1.0), std::exp(2.0)}, 1e-3);
    auto s = run_op(migraphx::make_op("sigmoid"), {raw(vec_shape(shape::half_type, 2), {0, 20})});
    expect_near(s.to_vector<double>(), {0.5, 1.0}, 1e-3);
}

TEST(ops_unary, integers_are_exact_and_defined)
{
    const double imin = std::numeric_limits<std::int32_t>::min();
    auto x = raw(vec_shape(shape::int32_type, 4), {-5, 0, 9, imin});
    EXPECT_EQ(run_op(migraphx::make_op("abs"), {x}).to_vector<double>(), (dvec{5, 0, 9, imin}));
    EXPECT_EQ(run_op(migraphx::make_op("neg"), {x}).to_vector<double>(), (dvec{5, 0, -9, imin}));
    EXPECT_EQ(run_op(migraphx::make_op("relu"), {x}).to_vector<double>(), (dvec{0, 0, 9, 0}));
    EXPECT_EQ(run_op(migraphx::make_op("ceil"), {x}).to_vector<double>(), (dvec{-5, 0, 9, imin}));
    // Transcendental functions go through double; results that are NaN become 0.
    auto s = run_op(migraphx::make_op("sqrt"), {x});
    EXPECT_EQ(s.get_shape().type(), shape::int32_type);
    EXPECT_EQ(s.to_vector<double>(), (dvec{0, 0, 3, 0}));
    // 1/0 is inf, which is out of range: 0.
    EXPECT_EQ(run_op(migraphx::make_op("recip"), {x}).to_vector<double>(), (dvec{0, 0, 0, 0}));
    auto u = raw(vec_shape(shape::uint8_type, 3), {0, 1, 200});
    EXPECT_EQ(run_op(migraphx::make_op("neg"), {u}).to_vector<double>(), (dvec{0, 255, 56}));
    EXPECT_EQ(run_op(migraphx::make_op("abs"), {u}).to_vector<double>(), (dvec{0, 1, 200}));
}

TEST(ops_unary, identity_is_a_view)
{
    auto id = migraphx::make_op("identity");
    shape t{shape::float_type, {2, 3}, {1, 2}};
    EXPECT_EQ(id.compute_shape({t}), t);
    EXPECT_EQ(id.output_alias({t}), 0);
    auto x = raw(t, {0, 1, 2, 3, 4, 5});
    auto r = id.compute(t, {x});
    EXPECT_EQ(r.data(), x.data());
    EXPECT_EQ(r.get_shape(), t);
    EXPECT_THROW(id.compute_shape({t, t}), migraphx::exception);
}

TEST(ops_unary, runs_in_a_program_on_ref)
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto x   = mm->add_literal(migraphx::literal{shape{shape::float_type, {2, 2}}, std::vector<float>{-1, 2, -3, 4}});
    auto r   = mm->add_instruction(migraphx::make_op("relu"), x);
    auto e   = mm->add_instruction(migraphx::make_op("neg"), r);
    mm->add_return({e});
    p.compile(migraphx::ref::target{});
    auto result = p.eval({}).back();
    EXPECT_EQ(result.to_vector<float>(), (std::vector<float>{0, -2, 0, -4}));
}
