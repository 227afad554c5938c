#include <migraphx/make_op.hpp>
#include <migraphx/argument.hpp>
#include <migraphx/errors.hpp>
#include <gtest/gtest.h>
#include <sstream>

namespace {
using migraphx::shape;
using lvec = std::vector<std::size_t>;
using ivec = std::vector<std::int64_t>;
using fvec = std::vector<float>;

ivec run(const std::string& name, std::int64_t axis, const migraphx::argument& x, bool last = false)
{
    auto op = migraphx::make_op(name, {{"axis", axis}, {"select_last_index", last}});
    auto s  = op.compute_shape({x.get_shape()});
    auto r  = op.compute(s, {x});
    EXPECT_EQ(r.get_shape(), s);
    return r.to_vector<std::int64_t>();
}
} // namespace

TEST(ops_argminmax, prints_and_shapes)
{
    std::ostringstream ss;
    ss << migraphx::make_op("argmax") << " " << migraphx::make_op("argmin", {{"axis", -1}});
    EXPECT_EQ(ss.str(), "argmax[axis=0,select_last_index=0] argmin[axis=-1,select_last_index=0]");
    shape s{shape::float_type, {2, 3, 4}};
    EXPECT_EQ(migraphx::make_op("argmax", {{"axis", 1}}).compute_shape({s}), (shape{shape::int64_type, {2, 1, 4}}));
    EXPECT_EQ(migraphx::make_op("argmin", {{"axis", -1}}).compute_shape({s}), (shape{shape::int64_type, {2, 3, 1}}));
    EXPECT_THROW(migraphx::make_op("argmax", {{"axis", 3}}).compute_shape({s}), migraphx::exception);
    EXPECT_THROW(migraphx::make_op("argmin", {{"axis", -4}}).compute_shape({s}), migraphx::exception);
    EXPECT_THROW(migraphx::make_op("argmin").compute_shape({s, s}), migraphx::exception);
}

TEST(ops_argminmax, values_along_axes)
{
    // [[[3, 1, 4], [1, 5, 9]], [[2, 6, 5], [3, 5, 8]]]
    fvec x{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8};
    migraphx::argument xa{shape{shape::float_type, {2, 2, 3}}, x.data()};
    EXPECT_EQ(run("argmax", 2, xa), (ivec{2, 2, 1, 2}));
    EXPECT_EQ(run("argmin", -1, xa), (ivec{1, 0, 0, 0}));
    EXPECT_EQ(run("argmax", 0, xa), (ivec{0, 1, 1, 1, 0, 0})); // the 5-5 tie keeps the first
    EXPECT_EQ(run("argmin", 1, xa), (ivec{1, 0, 0, 0, 1, 0}));
}

TEST(ops_argminmax, ties_and_select_last_index)
{
    fvec x{1, 7, 7, 0, 0, 7};
    migraphx::argument xa{shape{shape::float_type, {6}}, x.data()};
    EXPECT_EQ(run("argmax", 0, xa), (ivec{1}));
    EXPECT_EQ(run("argmax", 0, xa, true), (ivec{5}));
    EXPECT_EQ(run("argmin", 0, xa), (ivec{3}));
    EXPECT_EQ(run("argmin", 0, xa, true), (ivec{4}));
}

TEST(ops_argminmax, strided_and_integer_inputs)
{
    fvec x{1, 9, 3, 4, 2, 6};
    // Logical {3, 2} = [[1, 4], [9, 2], [3, 6]].
    migraphx::argument xt{shape{shape::float_type, {3, 2}, {1, 3}}, x.data()};
    EXPECT_EQ(run("argmax", 0, xt), (ivec{1, 2}));
    EXPECT_EQ(run("argmin", 1, xt), (ivec{0, 1, 0}));
    std::vector<std::int64_t> big{(std::int64_t{1} << 60) + 1, (std::int64_t{1} << 60) + 2, 0};
    migraphx::argument ba{shape{shape::int64_type, {3}}, big.data()};
    EXPECT_EQ(run("argmax", 0, ba), (ivec{1}));
    std::vector<migraphx::half> h{0.5f, -1, 0.25f};
    migraphx::argument ha{shape{shape::half_type, {3}}, h.data()};
    EXPECT_EQ(run("argmin", 0, ha), (ivec{1}));
}

// A strided view (the class scores sliced from a [rows, 5 + classes] head output, and a
// transpose) gives the indices of the same values packed.
TEST(ops_argminmax, views_as_their_packed_values)
{
    fvec head(6 * 9);
    for(std::size_t i = 0; i < head.size(); i++)
        head[i] = static_cast<float>((i * 37) % 23) - 11.0f;
    // columns 5..8 of each of the 6 rows: lens {6, 4}, strides {9, 1}, offset 5
    migraphx::argument scores{shape{shape::float_type, {6, 4}, {9, 1}}, head.data() + 5};
    fvec packed;
    for(std::size_t r = 0; r < 6; r++)
        for(std::size_t c = 0; c < 4; c++)
            packed.push_back(head[r * 9 + 5 + c]);
    migraphx::argument p{shape{shape::float_type, {6, 4}}, packed.data()};
    for(const char* op : {"argmax", "argmin"})
        for(std::int64_t axis : {0, 1})
            for(bool last : {false, true})
                EXPECT_EQ(run(op, axis, scores, last), run(op, axis, p, last)) << op << " axis " << axis;
    // transposed: [4, 6] read with strides {1, 4} over the packed [6, 4]
    migraphx::argument t{shape{shape::float_type, {4, 6}, {1, 4}}, packed.data()};
    fvec tp;
    for(std::size_t c = 0; c < 4; c++)
        for(std::size_t r = 0; r < 6; r++)
            tp.push_back(packed[r * 4 + c]);
    migraphx::argument tpa{shape{shape::float_type, {4, 6}}, tp.data()};
    EXPECT_EQ(run("argmax", 1, t), run("argmax", 1, tpa));
    EXPECT_EQ(run("argmin", 0, t), run("argmin", 0, tpa));
}
