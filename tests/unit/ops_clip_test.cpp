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

TEST(ops_clip, shape_rules)
{
    auto clip = migraphx::make_op("clip");
    EXPECT_EQ(str(clip), "clip");
    EXPECT_TRUE(clip.attributes().at("pointwise").get_bool());
    shape s{shape::float_type, {2, 3}};
    shape t{shape::float_type, {2, 3}, {1, 2}};
    shape sc{shape::float_type, {2, 3}, {0, 0}};
    EXPECT_EQ(clip.compute_shape({t, sc, sc}), s);
    EXPECT_THROW(clip.compute_shape({s, s}), migraphx::exception);
    EXPECT_THROW(clip.compute_shape({s, s, shape{shape::half_type, {2, 3}}}), migraphx::exception);
    EXPECT_THROW(clip.compute_shape({s, s, vec_shape(shape::float_type, 1)}), migraphx::exception);
}

TEST(ops_clip, broadcast_bounds)
{
    shape x{shape::float_type, {2, 3}};
    shape sc{shape::float_type, {2, 3}, {0, 0}};
    auto r = run_op(migraphx::make_op("clip"), {raw(x, {-2, 0.5, 3, qnan, 1, 0}), raw(sc, {0}), raw(sc, {1})});
    EXPECT_EQ(r.get_shape(), x);
    expect_near(r.to_vector<double>(), {0, 0.5, 1, qnan, 1, 0});
}

TEST(ops_clip, per_element_bounds_transposed_half_int)
{
    // x reads {-5 5 / -1 1} through strides {1, 2}; bounds per column.
    auto x  = raw(shape{shape::half_type, {2, 2}, {1, 2}}, {-5, -1, 5, 1});
    auto lo = raw(shape{shape::half_type, {2, 2}, {0, 1}}, {-2, 0});
    auto hi = raw(shape{shape::half_type, {2, 2}, {0, 1}}, {2, 0.5});
    auto r  = run_op(migraphx::make_op("clip"), {x, lo, hi});
    EXPECT_EQ(r.get_shape(), (shape{shape::half_type, {2, 2}}));
    expect_near(r.to_vector<double>(), {-2, 0.5, -1, 0.5});
    shape i = vec_shape(shape::int32_type, 4);
    auto ri = run_op(migraphx::make_op("clip"), {raw(i, {-7, 3, 9, 4}), raw(i, {0, 0, 0, 5}), raw(i, {5, 5, 5, 6})});
    EXPECT_EQ(ri.to_vector<int>(), (std::vector<int>{0, 3, 5, 5}));
}
