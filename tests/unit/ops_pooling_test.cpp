#include <migraphx/make_op.hpp>
#include <migraphx/argument.hpp>
#include <migraphx/errors.hpp>
#include <gtest/gtest.h>
#include <sstream>

// Expected values come from torch.nn.functional.{max,avg,lp}_pool*d (count_include_pad=False) or,
// for asymmetric padding, a direct numpy loop, on the same integer inputs.
namespace {
using migraphx::shape;
using lvec = std::vector<std::size_t>;
using fvec = std::vector<float>;
using dvec = std::vector<double>;

fvec seq(std::size_t n)
{
    fvec r(n);
    for(std::size_t i = 0; i < n; i++)
        r[i] = static_cast<float>((static_cast<int>(i) * 37 + 11) % 17 - 8);
    return r;
}
shape fs(lvec lens) { return shape{shape::float_type, std::move(lens)}; }

migraphx::operation pool(const std::string& mode,
                         lvec lengths,
                         lvec stride,
                         lvec padding,
                         bool ceil_mode   = false,
                         int lp_order     = 2,
                         bool global_pool = false)
{
    return migraphx::make_op("pooling",
                             {{"mode", mode},
                              {"padding", padding},
                              {"stride", stride},
                              {"lengths", lengths},
                              {"ceil_mode", ceil_mode},
                              {"lp_order", lp_order},
                              {"global", global_pool}});
}

dvec run(const migraphx::operation& op, const migraphx::argument& x)
{
    auto s = op.compute_shape({x.get_shape()});
    auto r = op.compute(s, {x});
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

TEST(ops_pooling, prints_like_migraphx)
{
    std::ostringstream ss;
    ss << pool("max", {3, 3}, {2, 2}, {1, 1, 1, 1});
    EXPECT_EQ(ss.str(), "pooling[mode=max,padding={1, 1, 1, 1},stride={2, 2},lengths={3, 3},ceil_mode=0,lp_order=2,global=0]");
    ss.str("");
    ss << migraphx::make_op("pooling");
    EXPECT_EQ(ss.str(),
              "pooling[mode=average,padding={0, 0},stride={1, 1},lengths={1, 1},ceil_mode=0,lp_order=2,global=0]");
}

TEST(ops_pooling, output_shape_rules)
{
    auto lens = [](const migraphx::operation& op, lvec x) { return op.compute_shape({fs(x)}).lens(); };
    EXPECT_EQ(lens(pool("max", {3, 3}, {2, 2}, {1, 1}), {1, 64, 112, 112}), (lvec{1, 64, 56, 56}));
    EXPECT_EQ(lens(pool("max", {3, 3}, {2, 2}, {1, 1, 1, 1}), {1, 64, 112, 112}), (lvec{1, 64, 56, 56}));
    EXPECT_EQ(lens(pool("average", {2, 2}, {2, 2}, {0, 0}), {2, 3, 5, 7}), (lvec{2, 3, 2, 3}));
    EXPECT_EQ(lens(pool("average", {2, 2}, {2, 2}, {0, 0}, true), {2, 3, 5, 7}), (lvec{2, 3, 3, 4}));
    EXPECT_EQ(lens(pool("average", {3, 3}, {2, 2}, {1, 0, 0, 2}), {1, 1, 6, 6}), (lvec{1, 1, 3, 3}));
    // ceil mode: the last window must start inside the input or the left padding.
    EXPECT_EQ(lens(pool("max", {3, 3}, {2, 2}, {1, 1}, true), {1, 1, 6, 6}), (lvec{1, 1, 4, 4}));
    EXPECT_EQ(lens(pool("max", {2}, {2}, {1}, true), {1, 1, 5}), (lvec{1, 1, 3}));
    EXPECT_EQ(lens(pool("max", {2}, {2}, {1}, false), {1, 1, 5}), (lvec{1, 1, 3}));
    EXPECT_EQ(lens(pool("lpnorm", {2, 2, 2}, {2, 2, 2}, {0, 0, 0}), {1, 2, 4, 5, 6}), (lvec{1, 2, 2, 2, 3}));
    // global pools the whole spatial extent whatever lengths says.
    EXPECT_EQ(lens(pool("average", {1, 1}, {1, 1}, {0, 0}, false, 2, true), {2, 3, 7, 9}), (lvec{2, 3, 1, 1}));
    EXPECT_EQ(lens(pool("max", {1, 1}, {1, 1}, {0, 0}, false, 2, true), {2, 3, 7}), (lvec{2, 3, 1}));
    auto s = pool("max", {2, 2}, {2, 2}, {0, 0}).compute_shape({shape{shape::half_type, {1, 2, 4, 4}, {32, 1, 8, 2}}});
    EXPECT_EQ(s, (shape{shape::half_type, {1, 2, 2, 2}}));
}

TEST(ops_pooling, bad_attributes_throw)
{
    auto x = fs({1, 1, 5, 5});
    EXPECT_THROW(pool("median", {2, 2}, {1, 1}, {0, 0}).compute_shape({x}), migraphx::exception);
    EXPECT_THROW(pool("max", {2}, {1, 1}, {0, 0}).compute_shape({x}), migraphx::exception);
    EXPECT_THROW(pool("max", {2, 2}, {1, 1}, {0, 0, 0}).compute_shape({x}), migraphx::exception);
    EXPECT_THROW(pool("max", {2, 2}, {0, 1}, {0, 0}).compute_shape({x}), migraphx::exception);
    EXPECT_THROW(pool("max", {7, 2}, {1, 1}, {0, 0}).compute_shape({x}), migraphx::exception);
    EXPECT_THROW(pool("max", {2, 2}, {1, 1}, {0, 0}).compute_shape({fs({1, 5})}), migraphx::exception);
    EXPECT_THROW(pool("max", {2, 2}, {1, 1}, {0, 0}).compute_shape({x, x}), migraphx::exception);
    EXPECT_THROW(pool("lpnorm", {2, 2}, {1, 1}, {0, 0}, false, 0).compute_shape({x}), migraphx::exception);
}

TEST(ops_pooling, max_padded_strided)
{
    auto x = seq(50);
    migraphx::argument xa{fs({1, 2, 5, 5}), x.data()};
    EXPECT_EQ(run(pool("max", {3, 3}, {2, 2}, {1, 1}), xa),
              (dvec{6, 7, -2, 4, 8, 8, 0, 6, 7, 8, 2, 5, 8, 7, 3, 7, 8, -1}));
    EXPECT_EQ(run(pool("max", {1, 1}, {1, 1}, {0, 0}, false, 2, true), xa), (dvec{8, 8}));
}

TEST(ops_pooling, average_excludes_padding)
{
    auto x = seq(36);
    migraphx::argument xa{fs({1, 1, 6, 6}), x.data()};
    expect_near(run(pool("average", {3, 3}, {2, 2}, {1, 1}, true), xa),
                {5.0, -1.833333, -1.5, 1.5, 3.666667, -2.222222, 0.0, 3.0, 0.0, -4.0, 2.0, 5.0, 1.0, -3.0, 3.0, 6.0});
    expect_near(run(pool("average", {3, 3}, {2, 2}, {1, 1}), xa),
                {5.0, -1.833333, -1.5, 3.666667, -2.222222, 0.0, 0.0, -4.0, 2.0});
    // Asymmetric padding: begin {1, 0}, end {0, 2}.
    expect_near(run(pool("average", {3, 3}, {2, 2}, {1, 0, 0, 2}), xa),
                {0.833333, -4.5, 0.0, 0.444444, -3.0, 1.5, -1.333333, -1.0, 3.5});
    EXPECT_EQ(run(pool("max", {3, 3}, {2, 2}, {1, 0, 0, 2}), xa), (dvec{7, -1, 2, 8, 1, 4, 8, 3, 6}));
    auto x50 = seq(50);
    migraphx::argument g{fs({1, 2, 5, 5}), x50.data()};
    expect_near(run(pool("average", {1, 1}, {1, 1}, {0, 0}, false, 2, true), g), {0.24, -0.24});
}

TEST(ops_pooling, ceil_mode_1d)
{
    auto x = seq(5);
    migraphx::argument xa{fs({1, 1, 5}), x.data()};
    EXPECT_EQ(run(pool("average", {2}, {2}, {1}, true), xa), (dvec{3.0, -1.0, -3.5}));
    EXPECT_EQ(run(pool("max", {2}, {2}, {1}, true), xa), (dvec{3, 6, -2}));
    // Without padding the last, partial window still counts (and averages over its one element).
    EXPECT_EQ(run(pool("max", {2}, {2}, {0}, true), xa), (dvec{6, -5, -2}));
    EXPECT_EQ(run(pool("average", {2}, {2}, {0}, true), xa), (dvec{4.5, -6.5, -2.0}));
}

TEST(ops_pooling, three_d)
{
    auto x = seq(128);
    migraphx::argument xa{fs({1, 2, 4, 4, 4}), x.data()};
    EXPECT_EQ(run(pool("max", {2, 2, 2}, {2, 2, 2}, {0, 0, 0}), xa),
              (dvec{6, 7, 8, 8, 6, 6, 7, 8, 8, 6, 7, 7, 5, 8, 7, 7}));
    expect_near(run(pool("average", {2, 3, 2}, {1, 2, 2}, {0, 0, 0}), xa),
                {-0.583333, -0.25, -0.75, -0.416667, -0.916667, -0.583333, 1.583333, -0.916667, 0.0, 0.333333,
                 -1.583333, 1.583333});
}

TEST(ops_pooling, lpnorm)
{
    auto x = seq(9);
    migraphx::argument xa{fs({1, 1, 3, 3}), x.data()};
    expect_near(run(pool("lpnorm", {2, 2}, {1, 1}, {0, 0}), xa), {8.602325, 10.246951, 9.69536, 10.148892});
    expect_near(run(pool("lpnorm", {2, 2}, {1, 1}, {0, 0}, false, 3), xa), {7.217652, 9.032802, 8.143253, 8.857849});
    // Padding adds nothing to the norm: a 1x1 window padded by 1 sees only itself at the corner.
    auto r = run(pool("lpnorm", {2, 2}, {2, 2}, {1, 1}), xa);
    EXPECT_NEAR(r[0], std::abs(x[0]), 1e-6);
}

TEST(ops_pooling, transposed_input)
{
    auto x = seq(36);
    // Logical input is the transpose of the 6x6 buffer.
    migraphx::argument xt{shape{shape::float_type, {1, 1, 6, 6}, {36, 36, 1, 6}}, x.data()};
    EXPECT_EQ(run(pool("max", {2, 2}, {2, 2}, {0, 0}), xt), (dvec{7, 8, 8, -4, -2, 0, 2, 4, 6}));
}

TEST(ops_pooling, integer_and_half_types)
{
    std::vector<std::int32_t> xi{1, -7, 3, 9, -2, 4};
    migraphx::argument xa{shape{shape::int32_type, {1, 1, 6}}, xi.data()};
    auto op = pool("max", {3}, {3}, {0});
    auto r  = op.compute(op.compute_shape({xa.get_shape()}), {xa});
    EXPECT_EQ(r.get_shape().type(), shape::int32_type);
    EXPECT_EQ(r.to_vector<std::int32_t>(), (std::vector<std::int32_t>{3, 9}));
    std::vector<migraphx::half> xh{-1, -2, -3, -4};
    migraphx::argument ha{shape{shape::half_type, {1, 1, 4}}, xh.data()};
    EXPECT_EQ(run(pool("max", {2}, {2}, {0}), ha), (dvec{-1, -3}));
    EXPECT_EQ(run(pool("average", {2}, {2}, {0}), ha), (dvec{-1.5, -3.5}));
}
