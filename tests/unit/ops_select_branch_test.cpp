// select_branch: an If with a run-time condition whose branches give different sizes.
#include <migraphx/make_op.hpp>
#include <gtest/gtest.h>

namespace {
using migraphx::shape;
using i64 = std::vector<std::int64_t>;

migraphx::argument ints(std::vector<std::int64_t> v)
{
    migraphx::argument a{shape{shape::int64_type, std::vector<std::size_t>{v.size()}}};
    std::copy(v.begin(), v.end(), reinterpret_cast<std::int64_t*>(a.data()));
    return a;
}
migraphx::argument flag(bool b)
{
    migraphx::argument a{shape{shape::bool_type}};
    *reinterpret_cast<bool*>(a.data()) = b;
    return a;
}
} // namespace

TEST(ops_select_branch, shape_is_the_larger_branch)
{
    auto op = migraphx::make_op("select_branch");
    shape c{shape::bool_type};
    shape empty{shape::int64_type, std::vector<std::size_t>{0}};
    shape keep{shape::int64_type, std::vector<std::size_t>{36}};
    EXPECT_EQ(op.compute_shape({c, empty, keep}), keep);
    EXPECT_EQ(op.compute_shape({c, shape{shape::float_type, {2, 5}}, shape{shape::float_type, {3, 1}}}).lens(),
              (std::vector<std::size_t>{3, 5}));
    EXPECT_TRUE(op.attributes().at("dynamic_output").get_bool());
    EXPECT_THROW(op.compute_shape({c, empty, shape{shape::float_type, std::vector<std::size_t>{3}}}),
                 migraphx::exception); // types differ
    EXPECT_THROW(op.compute_shape({c, empty, shape{shape::int64_type, {3, 1}}}), migraphx::exception); // ranks
    EXPECT_THROW(op.compute_shape({shape{shape::bool_type, {2}}, keep, keep}), migraphx::exception);
    EXPECT_THROW(op.compute_shape({c, keep}), migraphx::exception);
}

TEST(ops_select_branch, gives_the_branch_taken_whole)
{
    auto op = migraphx::make_op("select_branch");
    shape out{shape::int64_type, std::vector<std::size_t>{3}};
    auto a = ints({});
    auto b = ints({4, 5, 6});
    auto t = op.compute(out, {flag(true), a, b});
    EXPECT_EQ(t.get_shape().lens(), (std::vector<std::size_t>{0}));
    auto e = op.compute(out, {flag(false), a, b});
    EXPECT_EQ(e.to_vector<std::int64_t>(), (i64{4, 5, 6}));
    EXPECT_NE(e.data(), b.data()); // a copy, never an input's memory
}
