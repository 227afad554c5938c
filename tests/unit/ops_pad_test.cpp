#include <migraphx/make_op.hpp>
#include <migraphx/argument.hpp>
#include <gtest/gtest.h>
#include <sstream>

namespace {
using migraphx::shape;
using ivec = std::vector<std::int64_t>;
using lvec = std::vector<std::size_t>;
migraphx::operation make_pad(ivec pads, float value = 0, std::int64_t mode = 0)
{
    return migraphx::make_op("pad", {{"pads", pads}, {"value", value}, {"mode", mode}});
}
std::vector<float> run(const migraphx::operation& op, const migraphx::argument& in)
{
    auto out = op.compute_shape({in.get_shape()});
    auto r   = op.compute(out, {in});
    EXPECT_EQ(r.get_shape(), out);
    return r.to_vector<float>();
}
} // namespace

TEST(ops_pad, shape_rules)
{
    auto op = make_pad({1, 0, 0, 1}, 9);
    std::ostringstream ss;
    ss << op;
    EXPECT_EQ(ss.str(), "pad[pads={1, 0, 0, 1},value=9,mode=0]");
    EXPECT_EQ(op.compute_shape({shape{shape::float_type, {2, 2}}}), (shape{shape::float_type, {3, 3}}));
    EXPECT_EQ(make_pad({0, 1, 2, 0, 3, 0}).compute_shape({shape{shape::int8_type, {1, 2, 3}}}),
              (shape{shape::int8_type, {1, 6, 5}}));
    EXPECT_EQ(make_pad({-1, 0}).compute_shape({shape{shape::float_type, {4}}}).lens(), (lvec{3}));
}

TEST(ops_pad, bad_attributes_throw)
{
    shape s{shape::float_type, {2, 2}};
    EXPECT_THROW(make_pad({1, 1}).compute_shape({s}), migraphx::exception);
    EXPECT_THROW(make_pad({0, 0, 0, 0}, 0, 3).compute_shape({s}), migraphx::exception);
    EXPECT_THROW(make_pad({-2, 0, -1, 0}).compute_shape({s}), migraphx::exception);
}

TEST(ops_pad, constant)
{
    std::vector<float> x{1, 2, 3, 4};
    migraphx::argument in{shape{shape::float_type, {2, 2}}, x.data()};
    EXPECT_EQ(run(make_pad({1, 0, 0, 1}, 9), in), (std::vector<float>{9, 9, 9, 1, 2, 9, 3, 4, 9}));
    // Transposed input: [[1, 3], [2, 4]].
    migraphx::argument t{shape{shape::float_type, {2, 2}, {1, 2}}, x.data()};
    EXPECT_EQ(run(make_pad({0, 1, 0, 0}), t), (std::vector<float>{0, 1, 3, 0, 2, 4}));
}

TEST(ops_pad, reflect_edge_and_crop)
{
    std::vector<float> x{1, 2, 3, 4};
    migraphx::argument in{shape{shape::float_type, {4}}, x.data()};
    EXPECT_EQ(run(make_pad({2, 2}, 0, 1), in), (std::vector<float>{3, 2, 1, 2, 3, 4, 3, 2}));
    EXPECT_EQ(run(make_pad({2, 1}, 0, 2), in), (std::vector<float>{1, 1, 1, 2, 3, 4, 4}));
    EXPECT_EQ(run(make_pad({-1, 1}, 7, 0), in), (std::vector<float>{2, 3, 4, 7}));
    migraphx::argument m{shape{shape::float_type, {2, 2}}, x.data()};
    EXPECT_EQ(run(make_pad({1, 1, 0, 0}, 0, 1), m), (std::vector<float>{4, 3, 4, 2, 1, 2, 4, 3, 4}));
}
