#include <migraphx/make_op.hpp>
#include <migraphx/argument.hpp>
#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>

namespace {
using migraphx::shape;
using dvec = std::vector<double>;

// An argument whose memory (element_space() slots, in memory order) holds mem.
migraphx::argument raw(const shape& s, const dvec& mem)
{
    EXPECT_EQ(mem.size(), s.element_space());
    migraphx::argument a{s};
    a.visit([&](auto v) {
        using T = typename decltype(v)::value_type;
        for(std::size_t k = 0; k < mem.size() and k < s.element_space(); k++)
            v.data()[k] = migraphx::type_cast<T>(mem[k]);
    });
    return a;
}
// A 1-d standard shape (shape{t, {n}} would be ambiguous with the dynamic constructor).
shape vec_shape(shape::type_t t, std::size_t n) { return shape{t, std::vector<std::size_t>{n}}; }
migraphx::argument run_op(const migraphx::operation& op, const std::vector<migraphx::argument>& args)
{
    std::vector<shape> shapes;
    for(const auto& a : args)
        shapes.push_back(a.get_shape());
    auto out = op.compute_shape(shapes);
    auto r   = op.compute(out, args);
    EXPECT_EQ(r.get_shape(), out);
    return r;
}
[[maybe_unused]] std::string str(const migraphx::operation& op)
{
    std::ostringstream ss;
    ss << op;
    return ss.str();
}
[[maybe_unused]] void expect_near(const dvec& got, const dvec& want, double tol = 1e-6)
{
    ASSERT_EQ(got.size(), want.size());
    for(std::size_t i = 0; i < got.size(); i++)
    {
        if(std::isnan(want[i]))
            EXPECT_TRUE(std::isnan(got[i])) << "at " << i << ": got " << got[i];
        else if(std::isinf(want[i]))
            EXPECT_EQ(got[i], want[i]) << "at " << i;
        else
            EXPECT_NEAR(got[i], want[i], tol * std::max(1.0, std::abs(want[i]))) << "at " << i;
    }
}
[[maybe_unused]] const double qnan = std::numeric_limits<double>::quiet_NaN();
[[maybe_unused]] const double pinf = std::numeric_limits<double>::infinity();
} // namespace

using ivec = std::vector<int>;

TEST(ops_comparison, shape_rules)
{
    shape t{shape::float_type, {2, 3}, {1, 2}};
    for(const auto* name : {"equal", "greater", "less"})
    {
        auto op = migraphx::make_op(name);
        EXPECT_EQ(str(op), name);
        EXPECT_TRUE(op.attributes().at("pointwise").get_bool());
        EXPECT_EQ(op.compute_shape({t, t}), (shape{shape::bool_type, {2, 3}})) << name;
        EXPECT_THROW(op.compute_shape({t}), migraphx::exception) << name;
        EXPECT_THROW(op.compute_shape({t, shape{shape::int32_type, {2, 3}}}), migraphx::exception) << name;
        EXPECT_THROW(op.compute_shape({t, shape{shape::float_type, {2, 2}}}), migraphx::exception) << name;
    }
}

TEST(ops_comparison, values)
{
    shape s = vec_shape(shape::float_type, 4);
    auto a = raw(s, {1, 2, 3, qnan});
    auto b = raw(s, {2, 2, 2, qnan});
    auto eq = run_op(migraphx::make_op("equal"), {a, b});
    EXPECT_EQ(eq.get_shape(), (vec_shape(shape::bool_type, 4)));
    EXPECT_EQ(eq.to_vector<int>(), (ivec{0, 1, 0, 0}));
    EXPECT_EQ(run_op(migraphx::make_op("greater"), {a, b}).to_vector<int>(), (ivec{0, 0, 1, 0}));
    EXPECT_EQ(run_op(migraphx::make_op("less"), {a, b}).to_vector<int>(), (ivec{1, 0, 0, 0}));
}

TEST(ops_comparison, strided_half_and_int)
{
    // Transposed {0 2 / 1 3} against a broadcast row {1 2}.
    auto a = raw(shape{shape::half_type, {2, 2}, {1, 2}}, {0, 1, 2, 3});
    auto b = raw(shape{shape::half_type, {2, 2}, {0, 1}}, {1, 2});
    EXPECT_EQ(run_op(migraphx::make_op("equal"), {a, b}).to_vector<int>(), (ivec{0, 1, 1, 0}));
    EXPECT_EQ(run_op(migraphx::make_op("greater"), {a, b}).to_vector<int>(), (ivec{0, 0, 0, 1}));
    EXPECT_EQ(run_op(migraphx::make_op("less"), {a, b}).to_vector<int>(), (ivec{1, 0, 0, 0}));
    shape i = vec_shape(shape::int32_type, 3);
    auto x = raw(i, {-1, 5, std::numeric_limits<std::int32_t>::min()});
    auto y = raw(i, {1, 5, 0});
    EXPECT_EQ(run_op(migraphx::make_op("less"), {x, y}).to_vector<int>(), (ivec{1, 0, 1}));
    EXPECT_EQ(run_op(migraphx::make_op("equal"), {x, y}).to_vector<int>(), (ivec{0, 1, 0}));
}
