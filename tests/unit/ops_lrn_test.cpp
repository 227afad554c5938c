#include <migraphx/make_op.hpp>
#include <migraphx/argument.hpp>
#include <migraphx/errors.hpp>
#include <gtest/gtest.h>
#include <cmath>
#include <sstream>

// Expected values: a direct numpy loop of the ONNX LRN formula (window [c - (size-1)/2, c + ceil((size-1)/2)]);
// the odd-size case also matches torch.nn.functional.local_response_norm.
namespace {
using migraphx::shape;
using fvec = std::vector<float>;
using dvec = std::vector<double>;

fvec seq(std::size_t n)
{
    fvec r(n);
    for(std::size_t i = 0; i < n; i++)
        r[i] = static_cast<float>((static_cast<int>(i) * 37 + 11) % 17 - 8) / 4.0f;
    return r;
}

migraphx::operation lrn(int size)
{
    return migraphx::make_op("lrn", {{"alpha", 0.5}, {"beta", 0.75}, {"bias", 2.0}, {"size", size}});
}

void expect_lrn(int size, const migraphx::argument& x, const dvec& expected)
{
    auto op = lrn(size);
    auto s  = op.compute_shape({x.get_shape()});
    auto r  = op.compute(s, {x}).to_vector<double>();
    ASSERT_EQ(r.size(), expected.size());
    for(std::size_t i = 0; i < r.size(); i++)
        EXPECT_NEAR(r[i], expected[i], 1e-6) << "size " << size << " at " << i;
}
} // namespace

TEST(ops_lrn, prints_and_shapes)
{
    std::ostringstream ss;
    ss << migraphx::make_op("lrn");
    EXPECT_EQ(ss.str(), "lrn[alpha=0.0001,beta=0.75,bias=1,size=1]");
    shape t{shape::float_type, {2, 3, 4, 5}, {60, 1, 15, 3}};
    EXPECT_EQ(lrn(3).compute_shape({t}), (shape{shape::float_type, {2, 3, 4, 5}}));
    EXPECT_THROW(lrn(3).compute_shape({shape{shape::float_type, {5}}}), migraphx::exception);
    EXPECT_THROW(lrn(0).compute_shape({t}), migraphx::exception);
    EXPECT_THROW(lrn(3).compute_shape({t, t}), migraphx::exception);
}

TEST(ops_lrn, odd_and_even_sizes)
{
    auto x = seq(20);
    migraphx::argument xa{shape{shape::float_type, {2, 5, 2}}, x.data()};
    expect_lrn(3, xa, {0.3502114, 0.7251942, -0.9234624, -0.6025431, -0.2264601, 0.1160807, 0.4723055,
                       0.8337324, -0.8361643, -0.4778082, -0.1351453, 0.2368337, 0.6025431, 0.9234624,
                       -0.7251942, -0.341548,  0.0,        0.341548,   0.7840496, -0.9338971});
    expect_lrn(2, xa, {0.3179063, 0.6658553, -0.8639188, -0.6470003, -0.2666298, 0.1160807, 0.4369855,
                       0.7647246, -0.8160055, -0.5443311, -0.1294001, 0.2159797, 0.5548794, 0.8477503,
                       -0.7406164, -0.4040467, 0.0,        0.3179063,  0.7406164, -0.8773827});
    expect_lrn(4, xa, {0.3661302, 0.758016,  -0.9425804, -0.5673067, -0.2172277, 0.1183315, 0.4971586,
                       0.8760999, -0.878146, -0.5017977, -0.126336,  0.2440868,  0.63168,   0.9570131,
                       -0.7009188, -0.3179063, 0.0,       0.3620606, 0.8080935,  -0.9852366});
}

TEST(ops_lrn, size_one_and_strided_input)
{
    // size 1: y = x / (bias + alpha * x^2)^beta, element by element.
    fvec x{1, 2, 3, 4};
    migraphx::argument xt{shape{shape::float_type, {1, 2, 2}, {4, 1, 2}}, x.data()}; // logical [[1,3],[2,4]]
    auto f = [](double v) { return v / std::pow(2.0 + 0.5 * v * v, 0.75); };
    expect_lrn(1, xt, {f(1), f(3), f(2), f(4)});
    // size 3 on the same transposed view: channels 0 and 1 see each other.
    auto g = [](double v, double a, double b) { return v / std::pow(2.0 + 0.5 / 3 * (a * a + b * b), 0.75); };
    expect_lrn(3, xt, {g(1, 1, 2), g(3, 3, 4), g(2, 1, 2), g(4, 3, 4)});
}
