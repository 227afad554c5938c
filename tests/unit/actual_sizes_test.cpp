// ir/actual_sizes: the shapes an op computes with when an input holds fewer entries than declared
// (a data-dependent result's actual rows), as eval and the gpu host fallbacks use them.
#include "ir/actual_sizes.hpp"
#include <migraphx/make_op.hpp>
#include <gtest/gtest.h>

using migraphx::make_op;
using migraphx::shape;

namespace {

const shape declared_rows{shape::int64_type, {2, 8}}; // nonzero of 8 declared entries
const shape actual_rows{shape::int64_type, {2, 3}};   // ... that found 3

TEST(actual_sizes, inputs_as_declared_keep_the_declared_output_and_op)
{
    auto op = make_op("transpose", {{"permutation", {1, 0}}});
    shape out{shape::int64_type, {8, 2}, {1, 8}};
    auto r = migraphx::actual_output_shape(op, out, {declared_rows}, {declared_rows});
    EXPECT_FALSE(r.replaced);
    EXPECT_EQ(r.output, out);
}

TEST(actual_sizes, a_smaller_input_gives_the_op_shape_for_it)
{
    auto op = make_op("transpose", {{"permutation", {1, 0}}});
    shape out{shape::int64_type, {8, 2}, {1, 8}};
    auto r = migraphx::actual_output_shape(op, out, {declared_rows}, {actual_rows});
    EXPECT_FALSE(r.replaced);
    EXPECT_EQ(r.output.lens(), (std::vector<std::size_t>{3, 2}));
}

TEST(actual_sizes, attributes_spelling_the_declared_size_follow_the_actual_one)
{
    // reshape[dims={8, 2}] after the nonzero: the parser spelled 8 from the static shape
    auto op  = make_op("reshape", {{"dims", {8, 2}}});
    shape in{shape::int64_type, {8, 2}};
    shape got{shape::int64_type, {3, 2}};
    auto r = migraphx::actual_output_shape(op, shape{shape::int64_type, {8, 2}}, {in}, {got});
    ASSERT_TRUE(r.replaced);
    EXPECT_EQ(r.replaced->to_value().at("dims").to_vector<std::int64_t>(), (std::vector<std::int64_t>{3, 2}));
    EXPECT_EQ(r.output.lens(), (std::vector<std::size_t>{3, 2}));
}

TEST(actual_sizes, an_op_that_takes_no_other_shapes_keeps_the_declared_output)
{
    // add of a smaller input and a full-size one: no shape fits both; compute will say why
    auto op = make_op("add");
    shape full{shape::float_type, {8, 2}};
    auto r = migraphx::actual_output_shape(op, full, {full, full}, {shape{shape::float_type, {3, 2}}, full});
    EXPECT_FALSE(r.replaced);
    EXPECT_EQ(r.output, full);
}

TEST(actual_sizes, follow_actual_sizes_tries_fewest_replacements_first)
{
    // out_lens {8, 8}: either 8 may be the data-dependent one; one replacement comes before two
    auto op    = make_op("multibroadcast", {{"out_lens", {8, 8}}});
    auto cands = migraphx::follow_actual_sizes(op, shape{shape::float_type, {8, 8}}, {{8, 3}});
    ASSERT_EQ(cands.size(), 3u);
    EXPECT_EQ(cands[0].to_value().at("out_lens").to_vector<std::int64_t>(), (std::vector<std::int64_t>{3, 8}));
    EXPECT_EQ(cands[1].to_value().at("out_lens").to_vector<std::int64_t>(), (std::vector<std::int64_t>{8, 3}));
    EXPECT_EQ(cands[2].to_value().at("out_lens").to_vector<std::int64_t>(), (std::vector<std::int64_t>{3, 3}));
}

} // namespace

namespace {

// mul(x, multibroadcast(scalar)) after a data-dependent x: the scalar was broadcast to x's
// declared 8 rows; x holds 3. The broadcast input is viewed with 3 rows (it holds no data along
// them), so the mul computes {3, 2}.
TEST(actual_sizes, a_broadcast_input_follows_the_actual_rows)
{
    auto op = make_op("mul");
    shape full{shape::float_type, {8, 2}};
    shape bcast{shape::float_type, {8, 2}, {0, 0}};
    shape got{shape::float_type, {3, 2}};
    auto r = migraphx::actual_output_shape(op, full, {full, full}, {got, bcast});
    EXPECT_EQ(r.output.lens(), (std::vector<std::size_t>{3, 2}));
    ASSERT_EQ(r.inputs.size(), 2u);
    EXPECT_EQ(r.inputs[0], got);
    EXPECT_EQ(r.inputs[1], (shape{shape::float_type, {3, 2}, {0, 0}}));
    // A broadcast along the other dim only (stride 0 there, the rows real) is left as it is, and
    // so is an input that holds the declared rows (its stride is not 0): no shape fits both.
    shape cols{shape::float_type, {8, 2}, {1, 0}};
    auto c = migraphx::actual_output_shape(op, full, {full, full}, {got, cols});
    EXPECT_TRUE(c.inputs.empty());
    EXPECT_EQ(c.output, full);
    // Inputs of different declared shapes (not an elementwise op's): nothing is shrunk.
    shape five{shape::float_type, {5, 2}, {0, 0}};
    auto g = migraphx::actual_output_shape(make_op("concat", {{"axis", 0}}),
                                           shape{shape::float_type, {13, 2}},
                                           {full, shape{shape::float_type, {5, 2}}},
                                           {got, five});
    EXPECT_TRUE(g.inputs.empty());
    EXPECT_EQ(g.output.lens(), (std::vector<std::size_t>{8, 2}));
}

} // namespace

TEST(actual_sizes, sized_for_follows_what_an_instruction_got)
{
    // neg of x (declared {8, 2}): as declared -> nullopt (compute as declared); 3 actual rows
    // -> the output shape {3, 2}.
    migraphx::module m;
    auto x = m.add_parameter("x", migraphx::shape{migraphx::shape::float_type, {8, 2}});
    auto n = m.add_instruction(migraphx::make_op("neg"), x);
    std::vector<migraphx::argument> declared{migraphx::argument{x->get_shape()}};
    EXPECT_FALSE(migraphx::sized_for(n, declared).has_value());
    std::vector<migraphx::argument> three{migraphx::argument{migraphx::shape{migraphx::shape::float_type, {3, 2}}}};
    auto s = migraphx::sized_for(n, three);
    ASSERT_TRUE(s.has_value());
    EXPECT_EQ(s->output.lens(), (std::vector<std::size_t>{3, 2}));
}
