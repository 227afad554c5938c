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

TEST(ops_logical, shape_rules)
{
    shape b{shape::bool_type, {2, 2}};
    shape f{shape::float_type, {2, 2}};
    for(const auto* name : {"logical_and", "logical_or", "logical_xor"})
    {
        auto op = migraphx::make_op(name);
        EXPECT_EQ(str(op), name);
        EXPECT_TRUE(op.attributes().at("pointwise").get_bool());
        EXPECT_EQ(op.compute_shape({b, b}), b);
        EXPECT_THROW(op.compute_shape({f, f}), migraphx::exception) << name;
        EXPECT_THROW(op.compute_shape({b, f}), migraphx::exception) << name;
        EXPECT_THROW(op.compute_shape({b, vec_shape(shape::bool_type, 4)}), migraphx::exception) << name;
        // compute refuses what compute_shape refuses.
        EXPECT_THROW(op.compute(f, {raw(f, {1, 2, 3, 4}), raw(f, {1, 2, 3, 4})}), migraphx::exception) << name;
    }
    auto band = migraphx::make_op("bitwise_and");
    shape i{shape::int32_type, {2, 2}};
    EXPECT_EQ(band.compute_shape({i, i}), i);
    EXPECT_EQ(band.compute_shape({b, b}), b);
    EXPECT_THROW(band.compute_shape({f, f}), migraphx::exception);
    EXPECT_THROW(band.compute_shape({i, shape{shape::int64_type, {2, 2}}}), migraphx::exception);
}

TEST(ops_logical, truth_tables_with_strides)
{
    // a reads {0 0 / 1 1} through a transpose of memory {0 1 0 1}; b is {0 1} broadcast.
    auto a = raw(shape{shape::bool_type, {2, 2}, {1, 2}}, {0, 1, 0, 1});
    auto b = raw(shape{shape::bool_type, {2, 2}, {0, 1}}, {0, 1});
    auto r = run_op(migraphx::make_op("logical_and"), {a, b});
    EXPECT_EQ(r.get_shape(), (shape{shape::bool_type, {2, 2}}));
    EXPECT_EQ(r.to_vector<int>(), (ivec{0, 0, 0, 1}));
    EXPECT_EQ(run_op(migraphx::make_op("logical_or"), {a, b}).to_vector<int>(), (ivec{0, 1, 1, 1}));
    EXPECT_EQ(run_op(migraphx::make_op("logical_xor"), {a, b}).to_vector<int>(), (ivec{0, 1, 1, 0}));
    EXPECT_EQ(run_op(migraphx::make_op("bitwise_and"), {a, b}).to_vector<int>(), (ivec{0, 0, 0, 1}));
}

TEST(ops_logical, bitwise_and_integers)
{
    shape i = vec_shape(shape::int32_type, 3);
    EXPECT_EQ(run_op(migraphx::make_op("bitwise_and"), {raw(i, {12, -1, 7}), raw(i, {10, 5, 0})}).to_vector<int>(),
              (ivec{8, 5, 0}));
    shape u = vec_shape(shape::uint8_type, 2);
    EXPECT_EQ(run_op(migraphx::make_op("bitwise_and"), {raw(u, {255, 0xf0}), raw(u, {0x0f, 0x3c})}).to_vector<int>(),
              (ivec{0x0f, 0x30}));
}
