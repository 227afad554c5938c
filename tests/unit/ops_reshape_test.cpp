#include <migraphx/make_op.hpp>
#include <migraphx/argument.hpp>
#include <gtest/gtest.h>
#include <numeric>

namespace {
using migraphx::shape;
using ivec = std::vector<std::int64_t>;
using lvec = std::vector<std::size_t>;
migraphx::operation make_reshape(ivec dims) { return migraphx::make_op("reshape", {{"dims", dims}}); }
} // namespace

TEST(ops_reshape, shape_rules)
{
    shape s{shape::float_type, {2, 3, 4}};
    EXPECT_EQ(make_reshape({0, -1}).compute_shape({s}), (shape{shape::float_type, {2, 12}}));
    EXPECT_EQ(make_reshape({4, -1, 2}).compute_shape({s}), (shape{shape::float_type, {4, 3, 2}}));
    EXPECT_EQ(make_reshape({0, 0, 4}).compute_shape({s}), (shape{shape::float_type, {2, 3, 4}}));
    EXPECT_EQ(make_reshape({24}).compute_shape({s}), (shape{shape::float_type, {24}}));
    EXPECT_EQ(make_reshape({1, 24, 1}).compute_shape({s}), (shape{shape::float_type, {1, 24, 1}}));
    EXPECT_EQ(make_reshape({0, 0, 4}).output_alias({s}), 0);
}

TEST(ops_reshape, bad_dims_throw)
{
    shape s{shape::float_type, {2, 3, 4}};
    EXPECT_THROW(make_reshape({-1, -1}).compute_shape({s}), migraphx::exception);
    EXPECT_THROW(make_reshape({5, -1}).compute_shape({s}), migraphx::exception);
    EXPECT_THROW(make_reshape({0, 0, 0, 0}).compute_shape({s}), migraphx::exception);
    EXPECT_THROW(make_reshape({-2, 12}).compute_shape({s}), migraphx::exception);
    try
    {
        make_reshape({5, 5}).compute_shape({s});
        FAIL() << "expected a throw";
    }
    catch(const migraphx::exception& e)
    {
        std::string msg = e.what();
        EXPECT_NE(msg.find("{5, 5}"), std::string::npos) << msg;
        EXPECT_NE(msg.find("{2, 3, 4}"), std::string::npos) << msg;
    }
}

TEST(ops_reshape, standard_input_is_view)
{
    std::vector<float> x(6);
    std::iota(x.begin(), x.end(), 0.0f);
    migraphx::argument in{shape{shape::float_type, {2, 3}}, x.data()};
    auto op  = make_reshape({3, 2});
    auto out = op.compute_shape({in.get_shape()});
    auto r   = op.compute(out, {in});
    EXPECT_EQ(r.data(), in.data());
    EXPECT_EQ(r.get_shape(), (shape{shape::float_type, {3, 2}}));
    EXPECT_EQ(r.to_vector<float>(), x);
}

TEST(ops_reshape, transposed_input_is_copied)
{
    std::vector<float> x(6);
    std::iota(x.begin(), x.end(), 0.0f);
    migraphx::argument in{shape{shape::float_type, {2, 3}}, x.data()};
    auto t  = migraphx::make_op("transpose", {{"permutation", ivec{1, 0}}});
    auto ts = t.compute_shape({in.get_shape()});
    auto tr = t.compute(ts, {in});
    auto op  = make_reshape({6});
    auto out = op.compute_shape({ts});
    EXPECT_EQ(out, (shape{shape::float_type, {6}}));
    EXPECT_EQ(op.output_alias({ts}), -1);
    auto r = op.compute(out, {tr});
    EXPECT_NE(r.data(), in.data());
    EXPECT_EQ(r.get_shape(), out);
    EXPECT_EQ(r.to_vector<float>(), (std::vector<float>{0, 3, 1, 4, 2, 5}));
}
