// Dynamic inputs of ONNX models (src/onnx/onnx_dynamic.cpp): which dims become ranges, and
// that a dynamic program runs each shape with the result of a program parsed statically for it.
#ifdef MIGX_TEST_HAVE_ONNX

#include <gtest/gtest.h>
#include <migraphx/onnx.hpp>
#include <migraphx/ref/target.hpp>
#include "onnx_test_model.hpp"

using migx_test::onnx_model;
using onnx::TensorProto;
using dd = migraphx::shape::dynamic_dimension;

namespace {

/// y = x + ConstantOfShape(Shape(x), 1): Shape-dependent ops see the shape actually run.
onnx_model shape_dependent_model()
{
    onnx_model m;
    m.input("x", TensorProto::FLOAT, {-1, 3}); // symbolic "N"
    m.node("Shape", {"x"}, {"s"});
    auto& c = m.node("ConstantOfShape", {"s"}, {"ones"});
    onnx_model::attr(c, "value", onnx_model::tensor("v", {1}, {1.0f}));
    m.node("Add", {"x", "ones"}, {"y"});
    m.output("y");
    return m;
}

std::vector<float> iota(std::size_t n)
{
    std::vector<float> v(n);
    for(std::size_t i = 0; i < n; i++)
        v[i] = static_cast<float>(i);
    return v;
}

migraphx::argument run_at(const migraphx::program& p, std::size_t n, std::vector<float>& data)
{
    data = iota(n * 3);
    migraphx::shape s{migraphx::shape::float_type, {n, 3}};
    return p.eval({{"x", migraphx::argument{s, data.data()}}}).at(0);
}

} // namespace

TEST(onnx_dynamic, map_input_dims_on_a_symbolic_dim_gives_its_maximum)
{
    migraphx::onnx_options o;
    o.map_input_dims["x"] = {5, 3};
    auto p = shape_dependent_model().parse(o);
    auto s = p.get_inputs().at("x");
    ASSERT_TRUE(s.dynamic());
    EXPECT_EQ(s.dyn_dims().at(0), (dd{1, 5, {}}));
    EXPECT_EQ(s.dyn_dims().at(1), (dd{3, 3, {}}));
    EXPECT_EQ(s.lens(), (std::vector<std::size_t>{5, 3})); // the spec reads lens() as the maximum
    p.compile(migraphx::ref::target{});
    for(std::size_t n : {5, 1, 3, 1})
    {
        std::vector<float> data;
        auto r = run_at(p, n, data);
        EXPECT_EQ(r.get_shape().lens(), (std::vector<std::size_t>{n, 3}));
        auto v = r.to_vector<float>();
        for(std::size_t i = 0; i < v.size(); i++)
            EXPECT_EQ(v[i], data[i] + 1) << "n=" << n << " i=" << i;
    }
}

TEST(onnx_dynamic, a_fixed_dim_given_in_map_input_dims_stays_static)
{
    onnx_model m;
    m.input("x", TensorProto::FLOAT, {2, 3});
    m.node("Relu", {"x"}, {"y"});
    m.output("y");
    migraphx::onnx_options o;
    o.map_input_dims["x"] = {4, 3}; // overrides a fixed dim: static, as before
    auto p = m.parse(o);
    EXPECT_FALSE(p.get_inputs().at("x").dynamic());
    EXPECT_EQ(p.get_inputs().at("x").lens(), (std::vector<std::size_t>{4, 3}));
}

TEST(onnx_dynamic, map_dyn_input_dims_and_default_dyn_dim_value)
{
    migraphx::onnx_options o;
    o.map_dyn_input_dims["x"] = {{2, 6, {4}}, {3, 3, {}}};
    auto p = shape_dependent_model().parse(o);
    EXPECT_EQ(p.get_inputs().at("x").dyn_dims().at(0), (dd{2, 6, {4}}));

    migraphx::onnx_options d;
    d.default_dyn_dim_value = {1, 7, {}};
    p = shape_dependent_model().parse(d);
    EXPECT_EQ(p.get_inputs().at("x").dyn_dims().at(0), (dd{1, 7, {}}));

    migraphx::onnx_options fixed;
    fixed.map_dyn_input_dims["x"] = {{4, 4, {}}, {3, 3, {}}}; // all fixed: a static program
    p = shape_dependent_model().parse(fixed);
    EXPECT_FALSE(p.get_inputs().at("x").dynamic());
    EXPECT_EQ(p.get_inputs().at("x").lens(), (std::vector<std::size_t>{4, 3}));
}

TEST(onnx_dynamic, bad_ranges_are_named)
{
    migraphx::onnx_options rank;
    rank.map_dyn_input_dims["x"] = {{1, 4, {}}};
    EXPECT_THROW(shape_dependent_model().parse(rank), migraphx::exception);
    migraphx::onnx_options zero;
    zero.map_dyn_input_dims["x"] = {{0, 4, {}}, {3, 3, {}}};
    EXPECT_THROW(shape_dependent_model().parse(zero), migraphx::exception);
    migraphx::onnx_options unknown;
    unknown.map_dyn_input_dims["nope"] = {{1, 4, {}}, {3, 3, {}}};
    try
    {
        shape_dependent_model().parse(unknown);
        FAIL() << "no error for an unknown input";
    }
    catch(const migraphx::exception& e)
    {
        EXPECT_NE(std::string(e.what()).find("nope"), std::string::npos) << e.what();
    }
}

TEST(onnx_dynamic, shapes_outside_the_range_or_of_another_rank_are_errors)
{
    migraphx::onnx_options o;
    o.map_dyn_input_dims["x"] = {{2, 4, {}}, {3, 3, {}}};
    auto p = shape_dependent_model().parse(o);
    p.compile(migraphx::ref::target{});
    std::vector<float> data(30);
    auto eval_with = [&](std::vector<std::size_t> lens) {
        migraphx::shape s{migraphx::shape::float_type, lens};
        return p.eval({{"x", migraphx::argument{s, data.data()}}});
    };
    for(auto lens : {std::vector<std::size_t>{1, 3}, {5, 3}, {2, 4}, {2, 3, 1}})
    {
        try
        {
            eval_with(lens);
            FAIL() << "no error for lens of rank " << lens.size();
        }
        catch(const migraphx::exception& e)
        {
            std::string msg = e.what();
            EXPECT_NE(msg.find("'x'"), std::string::npos) << msg;        // the input
            EXPECT_NE(msg.find("2..4"), std::string::npos) << msg;       // the range
        }
    }
    EXPECT_NO_THROW(eval_with({3, 3}));
}

TEST(onnx_dynamic, each_shape_equals_the_static_program)
{
    // A conv net with N, H and W dynamic: every shape's result equals a static parse's.
    onnx_model m;
    m.input("x", TensorProto::FLOAT, {-1, 2, -2, -2});
    std::vector<float> w(3 * 2 * 3 * 3);
    for(std::size_t i = 0; i < w.size(); i++)
        w[i] = static_cast<float>((i * 7) % 5) - 2.0f;
    m.initializer(onnx_model::tensor("w", {3, 2, 3, 3}, w));
    auto& conv = m.node("Conv", {"x", "w"}, {"c"});
    onnx_model::attr(conv, "pads", std::vector<std::int64_t>{1, 1, 1, 1});
    m.node("Relu", {"c"}, {"r"});
    m.node("GlobalAveragePool", {"r"}, {"y"});
    m.output("y");
    migraphx::onnx_options o;
    o.map_dyn_input_dims["x"] = {{1, 3, {}}, {2, 2, {}}, {4, 9, {}}, {4, 9, {}}};
    auto dyn = m.parse(o);
    dyn.compile(migraphx::ref::target{});
    for(auto lens : {std::vector<std::size_t>{3, 2, 9, 9}, {1, 2, 4, 7}, {2, 2, 8, 5}})
    {
        migraphx::shape s{migraphx::shape::float_type, lens};
        auto data = iota(s.elements());
        migraphx::parameter_map params{{"x", migraphx::argument{s, data.data()}}};
        // A static parse: fixed ranges (map_input_dims on a symbolic dim would give a maximum).
        migraphx::onnx_options so;
        for(auto l : lens)
            so.map_dyn_input_dims["x"].push_back({l, l, {}});
        auto fixed = m.parse(so);
        ASSERT_FALSE(fixed.get_inputs().at("x").dynamic());
        fixed.compile(migraphx::ref::target{});
        auto want = fixed.eval(params).at(0);
        auto got  = dyn.eval(params).at(0);
        EXPECT_EQ(got.get_shape().lens(), want.get_shape().lens());
        EXPECT_EQ(got.to_vector<float>(), want.to_vector<float>());
    }
}

#endif // MIGX_TEST_HAVE_ONNX
