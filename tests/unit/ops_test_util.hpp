#ifndef MIGX_TEST_OPS_TEST_UTIL_HPP
#define MIGX_TEST_OPS_TEST_UTIL_HPP

// Helpers the elementwise op tests share: arguments from raw memory, running one op, comparing
// with NaN/inf-aware tolerance.

#include <migraphx/argument.hpp>
#include <migraphx/half.hpp>
#include <migraphx/make_op.hpp>
#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace migx_ops_test {
using migraphx::shape;
using dvec = std::vector<double>;

// An argument whose memory (element_space() slots, in memory order) holds mem.
inline migraphx::argument raw(const shape& s, const dvec& mem)
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
inline shape vec_shape(shape::type_t t, std::size_t n) { return shape{t, std::vector<std::size_t>{n}}; }
inline migraphx::argument run_op(const migraphx::operation& op, const std::vector<migraphx::argument>& args)
{
    std::vector<shape> shapes;
    for(const auto& a : args)
        shapes.push_back(a.get_shape());
    auto out = op.compute_shape(shapes);
    auto r   = op.compute(out, args);
    EXPECT_EQ(r.get_shape(), out);
    return r;
}
inline std::string str(const migraphx::operation& op)
{
    std::ostringstream ss;
    ss << op;
    return ss.str();
}
inline void expect_near(const dvec& got, const dvec& want, double tol = 1e-6)
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
inline const double qnan = std::numeric_limits<double>::quiet_NaN();
inline const double pinf = std::numeric_limits<double>::infinity();
} // namespace migx_ops_test

#endif
