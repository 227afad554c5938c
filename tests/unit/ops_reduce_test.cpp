#include <migraphx/make_op.hpp>
#include <migraphx/argument.hpp>
#include <migraphx/errors.hpp>
#include <gtest/gtest.h>
#include <numeric>
#include <sstream>

namespace {
using migraphx::shape;
using lvec = std::vector<std::size_t>;
using ivec = std::vector<std::int64_t>;
using fvec = std::vector<float>;
shape fs(lvec lens) { return shape{shape::float_type, std::move(lens)}; }

migraphx::argument run(const std::string& name, ivec axes, const migraphx::argument& x)
{
    auto op = migraphx::make_op(name, {{"axes", axes}});
    auto s  = op.compute_shape({x.get_shape()});
    auto r  = op.compute(s, {x});
    EXPECT_EQ(r.get_shape(), s);
    return r;
}
fvec runf(const std::string& name, ivec axes, const migraphx::argument& x)
{
    return run(name, std::move(axes), x).to_vector<float>();
}
} // namespace

TEST(ops_reduce, prints_and_shapes)
{
    std::ostringstream ss;
    ss << migraphx::make_op("reduce_mean", {{"axes", ivec{2, 3}}}) << " " << migraphx::make_op("reduce_sum");
    EXPECT_EQ(ss.str(), "reduce_mean[axes={2, 3}] reduce_sum[axes={}]");
    auto shape_of = [](const std::string& name, ivec axes, shape s) {
        return migraphx::make_op(name, {{"axes", axes}}).compute_shape({s});
    };
    EXPECT_EQ(shape_of("reduce_sum", {1}, fs({2, 3, 4})), fs({2, 1, 4}));
    EXPECT_EQ(shape_of("reduce_mean", {-1, 0}, fs({2, 3, 4})), fs({1, 3, 1}));
    EXPECT_EQ(shape_of("reduce_max", {}, fs({2, 3, 4})), fs({1, 1, 1}));
    EXPECT_EQ(shape_of("reduce_prod", {0}, shape{shape::int32_type, {5}}), (shape{shape::int32_type, {1}}));
    EXPECT_EQ(shape_of("reduce_min", {1}, shape{shape::float_type, {2, 3}, {1, 2}}), fs({2, 1}));
}

TEST(ops_reduce, bad_axes_throw)
{
    auto s = fs({2, 3});
    EXPECT_THROW(migraphx::make_op("reduce_sum", {{"axes", ivec{2}}}).compute_shape({s}), migraphx::exception);
    EXPECT_THROW(migraphx::make_op("reduce_sum", {{"axes", ivec{-3}}}).compute_shape({s}), migraphx::exception);
    EXPECT_THROW(migraphx::make_op("reduce_max", {{"axes", ivec{1, -1}}}).compute_shape({s}), migraphx::exception);
    EXPECT_THROW(migraphx::make_op("reduce_mean").compute_shape({s, s}), migraphx::exception);
}

TEST(ops_reduce, values)
{
    fvec x(24);
    std::iota(x.begin(), x.end(), 1.0f); // {2, 3, 4} of 1..24
    migraphx::argument xa{fs({2, 3, 4}), x.data()};
    EXPECT_EQ(runf("reduce_sum", {1}, xa), (fvec{15, 18, 21, 24, 51, 54, 57, 60}));
    EXPECT_EQ(runf("reduce_sum", {}, xa), (fvec{300}));
    EXPECT_EQ(runf("reduce_mean", {-1}, xa), (fvec{2.5, 6.5, 10.5, 14.5, 18.5, 22.5}));
    EXPECT_EQ(runf("reduce_mean", {0, 2}, xa), (fvec{8.5, 12.5, 16.5}));
    EXPECT_EQ(runf("reduce_max", {0}, xa), (fvec{13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24}));
    EXPECT_EQ(runf("reduce_min", {1, 2}, xa), (fvec{1, 13}));
    fvec y{1, -2, 3, 0.5f, 2, -1};
    migraphx::argument ya{fs({2, 3}), y.data()};
    EXPECT_EQ(runf("reduce_prod", {1}, ya), (fvec{-6, -1}));
    EXPECT_EQ(runf("reduce_prod", {0}, ya), (fvec{0.5f, -4, -3}));
    EXPECT_EQ(runf("reduce_max", {1}, ya), (fvec{3, 2}));
    EXPECT_EQ(runf("reduce_min", {}, ya), (fvec{-2}));
}

TEST(ops_reduce, strided_and_broadcast_inputs)
{
    fvec x{1, 2, 3, 4, 5, 6};
    // Logical {3, 2} = [[1, 4], [2, 5], [3, 6]] (transposed view of a {2, 3} buffer).
    migraphx::argument xt{shape{shape::float_type, {3, 2}, {1, 3}}, x.data()};
    EXPECT_EQ(runf("reduce_sum", {1}, xt), (fvec{5, 7, 9}));
    EXPECT_EQ(runf("reduce_max", {0}, xt), (fvec{3, 6}));
    // A row broadcast over 4 rows.
    migraphx::argument xb{shape{shape::float_type, {4, 3}, {0, 1}}, x.data()};
    EXPECT_EQ(runf("reduce_sum", {0}, xb), (fvec{4, 8, 12}));
    EXPECT_EQ(runf("reduce_mean", {0, 1}, xb), (fvec{2}));
}

TEST(ops_reduce, integer_and_half_types)
{
    std::vector<std::int64_t> big{(std::int64_t{1} << 60) + 1, (std::int64_t{1} << 60) + 3, 5};
    migraphx::argument ba{shape{shape::int64_type, {3}}, big.data()};
    // max/min compare in the element type (no loss through double).
    EXPECT_EQ(run("reduce_max", {0}, ba).to_vector<std::int64_t>(), (ivec{(std::int64_t{1} << 60) + 3}));
    EXPECT_EQ(run("reduce_min", {0}, ba).to_vector<std::int64_t>(), (ivec{5}));
    std::vector<std::int32_t> xi{1, 2, 4, 7};
    migraphx::argument ia{shape{shape::int32_type, {4}}, xi.data()};
    auto m = run("reduce_mean", {0}, ia);
    EXPECT_EQ(m.get_shape().type(), shape::int32_type);
    EXPECT_EQ(m.to_vector<std::int32_t>(), (std::vector<std::int32_t>{3})); // 14 / 4 truncated
    EXPECT_EQ(run("reduce_prod", {0}, ia).to_vector<std::int32_t>(), (std::vector<std::int32_t>{56}));
    // half sums accumulate in double: 2048 + 1 + 1 = 2050 (2049 is not representable in half).
    std::vector<migraphx::half> h{2048, 1, 1};
    migraphx::argument ha{shape{shape::half_type, {3}}, h.data()};
    EXPECT_EQ(runf("reduce_sum", {0}, ha), (fvec{2050}));
}
