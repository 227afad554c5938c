// dimensions_of: the lens of its argument at run time (ONNX Shape of a data-dependent result).
#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/ref/target.hpp>
#include <gtest/gtest.h>

namespace {
using migraphx::shape;
using i64 = std::vector<std::int64_t>;

migraphx::operation dims_op(std::size_t start, std::size_t end)
{
    return migraphx::make_op("dimensions_of", {{"start", start}, {"end", end}});
}
} // namespace

TEST(ops_dimensions_of, shape_rules)
{
    shape x{shape::float_type, {4, 3, 2}};
    EXPECT_EQ(dims_op(0, 3).compute_shape({x}), (shape{shape::int64_type, std::vector<std::size_t>{3}}));
    EXPECT_EQ(dims_op(1, 2).compute_shape({x}), (shape{shape::int64_type, std::vector<std::size_t>{1}}));
    EXPECT_THROW(dims_op(0, 4).compute_shape({x}), migraphx::exception);
    EXPECT_THROW(dims_op(2, 2).compute_shape({x}), migraphx::exception);
    EXPECT_THROW(dims_op(0, 1).compute_shape({}), migraphx::exception);
    EXPECT_THROW(dims_op(0, 1).compute_shape({x, x}), migraphx::exception);
    std::ostringstream ss;
    ss << dims_op(1, 3);
    EXPECT_EQ(ss.str(), "dimensions_of[start=1,end=3]");
}

TEST(ops_dimensions_of, reads_the_argument_not_the_declared_shape)
{
    auto op = dims_op(0, 2);
    auto out = op.compute_shape({shape{shape::float_type, {8, 4}}});
    migraphx::argument got{shape{shape::float_type, {3, 4}}};
    EXPECT_EQ(op.compute(out, {got}).to_vector<std::int64_t>(), (i64{3, 4}));
    migraphx::argument none{shape{shape::float_type, {0, 4}}};
    EXPECT_EQ(dims_op(0, 1).compute(shape{shape::int64_type, std::vector<std::size_t>{1}}, {none}).to_vector<std::int64_t>(),
              (i64{0}));
}

// nonzero of 8 declared entries that finds 3: the program's dimensions_of gives 3, not 8.
TEST(ops_dimensions_of, after_nonzero_in_a_program)
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto x   = mm->add_parameter("x", shape{shape::float_type, {8}});
    auto nz  = mm->add_instruction(migraphx::make_op("nonzero"), x);
    mm->add_return({mm->add_instruction(dims_op(0, 2), nz)});
    p.compile(migraphx::ref::target{});
    std::vector<float> d{0, 1, 0, 2, 0, 0, 3, 0};
    auto r = p.eval({{"x", migraphx::argument{shape{shape::float_type, {8}}, d.data()}}}).back();
    EXPECT_EQ(r.to_vector<std::int64_t>(), (i64{1, 3}));
}
