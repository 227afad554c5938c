#include <migraphx/make_op.hpp>
#include <migraphx/argument.hpp>
#include <gtest/gtest.h>

using migraphx::shape;

TEST(ops_get_tuple_elem, shape_and_compute)
{
    shape a{shape::float_type, {2}};
    shape b{shape::int64_type, {3, 1}};
    shape t{std::vector<shape>{a, b}};
    auto op = migraphx::make_op("get_tuple_elem", {{"index", 1}});
    EXPECT_EQ(op.compute_shape({t}), b);
    EXPECT_EQ(op.output_alias({t}), 0);
    EXPECT_THROW(migraphx::make_op("get_tuple_elem", {{"index", 2}}).compute_shape({t}), migraphx::exception);
    EXPECT_THROW(op.compute_shape({a}), migraphx::exception);

    std::vector<float> x{1, 2};
    std::vector<std::int64_t> y{4, 5, 6};
    migraphx::argument ax{a, x.data()};
    migraphx::argument by{b, y.data()};
    migraphx::argument tup{std::vector<migraphx::argument>{ax, by}};
    auto r = op.compute(b, {tup});
    EXPECT_EQ(r.data(), by.data());
    EXPECT_EQ(r.to_vector<std::int64_t>(), y);
}
