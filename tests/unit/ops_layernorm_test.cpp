// op::layernorm (made by a target's pass, not by the parser): ref's results and shape checks.
#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/ref/target.hpp>
#include <gtest/gtest.h>
#include <cmath>

using migraphx::make_op;
using migraphx::shape;

TEST(ops_layernorm, normalizes_each_row_of_the_last_axis)
{
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{shape::float_type, {2, 4}});
    m->add_return({m->add_instruction(make_op("layernorm", {{"epsilon", 0.5f}}), x)});
    p.compile(migraphx::ref::target{});
    std::vector<float> xv = {1, 2, 3, 6, -1, -1, -1, -1};
    auto y = p.eval({{"x", migraphx::argument{shape{shape::float_type, {2, 4}}, xv.data()}}}).back().to_vector<float>();
    // row 0: mean 3, variance (4 + 1 + 0 + 9) / 4 = 3.5, + 0.5 = 4: (x - 3) / 2
    std::vector<float> want = {-1, -0.5f, 0, 1.5f, 0, 0, 0, 0};
    for(std::size_t i = 0; i < want.size(); i++)
        EXPECT_NEAR(y[i], want[i], 1e-6) << i;
}

TEST(ops_layernorm, transposed_half_input_is_read_in_logical_order)
{
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{shape::half_type, {3, 2}});
    auto t  = m->add_instruction(make_op("transpose", {{"permutation", {1, 0}}}), x);
    m->add_return({m->add_instruction(make_op("layernorm", {{"epsilon", 0.0f}}), t)});
    p.compile(migraphx::ref::target{});
    std::vector<migraphx::half> xv = {1, 4, 2, 4, 3, 4}; // columns {1, 2, 3} and {4, 4, 4}
    auto r = p.eval({{"x", migraphx::argument{shape{shape::half_type, {3, 2}}, xv.data()}}}).back();
    EXPECT_EQ(r.get_shape().type(), shape::half_type);
    auto y = r.to_vector<float>();
    EXPECT_NEAR(y[0], -std::sqrt(1.5f), 2e-3);
    EXPECT_NEAR(y[2], std::sqrt(1.5f), 2e-3);
    EXPECT_TRUE(std::isnan(y[3])); // a constant row with epsilon 0: 0 / 0
}

TEST(ops_layernorm, bad_inputs_throw)
{
    migraphx::program p;
    auto* m = p.get_main_module();
    auto i  = m->add_parameter("i", shape{shape::int32_type, {2, 3}});
    EXPECT_THROW(m->add_instruction(make_op("layernorm"), i), migraphx::exception);
    auto z = m->add_parameter("z", shape{shape::float_type, {2, 0}});
    EXPECT_THROW(m->add_instruction(make_op("layernorm"), z), migraphx::exception);
}

TEST(ops_layernorm, scale_and_shift_along_the_last_axis)
{
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{shape::float_type, {2, 4}});
    auto g  = m->add_parameter("g", shape{shape::float_type, {4}});
    auto b  = m->add_parameter("b", shape{shape::float_type, {4}});
    auto bc = [&](migraphx::instruction_ref v) {
        return m->add_instruction(make_op("multibroadcast", {{"out_lens", {2, 4}}}), v);
    };
    auto y  = m->add_instruction(make_op("layernorm", {{"epsilon", 0.5f}}), x, bc(g), bc(b));
    auto ys = m->add_instruction(make_op("layernorm", {{"epsilon", 0.5f}}), x, bc(g));
    m->add_return({y, ys});
    p.compile(migraphx::ref::target{});
    std::vector<float> xv = {1, 2, 3, 6, -1, -1, -1, -1}, gv = {2, -1, 3, 0.5f}, bv = {1, 0, -2, 4};
    auto r = p.eval({{"x", migraphx::argument{shape{shape::float_type, {2, 4}}, xv.data()}},
                     {"g", migraphx::argument{shape{shape::float_type, {4}}, gv.data()}},
                     {"b", migraphx::argument{shape{shape::float_type, {4}}, bv.data()}}});
    std::vector<float> norm = {-1, -0.5f, 0, 1.5f, 0, 0, 0, 0}; // as in the first test
    auto both = r[0].to_vector<float>(), scaled = r[1].to_vector<float>();
    for(std::size_t i = 0; i < norm.size(); i++)
    {
        EXPECT_NEAR(both[i], norm[i] * gv[i % 4] + bv[i % 4], 1e-6) << i;
        EXPECT_NEAR(scaled[i], norm[i] * gv[i % 4], 1e-6) << i;
    }
}

TEST(ops_layernorm, a_scale_that_varies_along_another_axis_throws)
{
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{shape::float_type, {2, 4}});
    auto g  = m->add_parameter("g", shape{shape::float_type, {2, 1}});
    auto gb = m->add_instruction(make_op("multibroadcast", {{"out_lens", {2, 4}}}), g); // one value a row
    EXPECT_THROW(m->add_instruction(make_op("layernorm"), x, gb), migraphx::exception);
    auto h = m->add_parameter("h", shape{shape::half_type, {2, 4}});
    EXPECT_THROW(m->add_instruction(make_op("layernorm"), x, h), migraphx::exception); // another type
    EXPECT_THROW(m->add_instruction(make_op("layernorm"), x, x, x, x), migraphx::exception);
}

// addends: the inputs before the scale and shift are added (rounded to their type, as the add
// they replace) and then normalized; float_out: the result in float.
TEST(ops_layernorm, addends_are_summed_first_and_float_out_keeps_float)
{
    migraphx::program p;
    auto* m = p.get_main_module();
    auto a  = m->add_parameter("a", shape{shape::half_type, {2, 4}});
    auto e  = m->add_parameter("e", shape{shape::half_type, {4}}); // a position embedding, one row
    auto g  = m->add_parameter("g", shape{shape::half_type, {4}});
    auto eb = m->add_instruction(make_op("multibroadcast", {{"out_lens", {2, 4}}}), e);
    auto gb = m->add_instruction(make_op("multibroadcast", {{"out_lens", {2, 4}}}), g);
    auto fused = m->add_instruction(make_op("layernorm", {{"epsilon", 0.5f}, {"addends", 2}, {"float_out", true}}),
                                    a, eb, gb);
    auto sum   = m->add_instruction(make_op("add"), a, eb);
    auto apart = m->add_instruction(
        make_op("convert", {{"target_type", shape::float_type}}),
        m->add_instruction(make_op("layernorm", {{"epsilon", 0.5f}}), sum, gb));
    m->add_return({fused, apart});
    EXPECT_EQ(fused->get_shape(), (shape{shape::float_type, {2, 4}}));
    p.compile(migraphx::ref::target{});
    std::vector<migraphx::half> av = {1, 2, 3, 6, -1, -1, -1, -1}, ev = {0.5f, 0, -1, 2}, gv = {2, -1, 3, 0.5f};
    auto r = p.eval({{"a", migraphx::argument{shape{shape::half_type, {2, 4}}, av.data()}},
                     {"e", migraphx::argument{shape{shape::half_type, {4}}, ev.data()}},
                     {"g", migraphx::argument{shape{shape::half_type, {4}}, gv.data()}}});
    EXPECT_EQ(r[0].get_shape().type(), shape::float_type);
    auto f = r[0].to_vector<float>(), s = r[1].to_vector<float>();
    // the same sum and statistics; only the final rounding to half is skipped
    for(std::size_t i = 0; i < f.size(); i++)
        EXPECT_NEAR(f[i], s[i], 4e-3 * (1 + std::abs(s[i]))) << i;
    // row 0 sums to (1.5, 2, 2, 8): mean 3.375, variance 7.171875; its last element times 0.5
    EXPECT_NEAR(f[3], 4.625 / std::sqrt(7.171875 + 0.5) * 0.5, 1e-3);
}

TEST(ops_layernorm, addends_must_match_x)
{
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{shape::float_type, {2, 4}});
    auto h  = m->add_parameter("h", shape{shape::half_type, {2, 4}});
    auto y  = m->add_parameter("y", shape{shape::float_type, {2, 3}});
    EXPECT_THROW(m->add_instruction(make_op("layernorm", {{"addends", 2}}), x, h), migraphx::exception);
    EXPECT_THROW(m->add_instruction(make_op("layernorm", {{"addends", 2}}), x, y), migraphx::exception);
    EXPECT_THROW(m->add_instruction(make_op("layernorm", {{"addends", 2}}), x), migraphx::exception);
    EXPECT_THROW(m->add_instruction(make_op("layernorm", {{"addends", 0}}), x), migraphx::exception);
    EXPECT_NO_THROW(m->add_instruction(make_op("layernorm", {{"addends", 3}}), x, x, x));
}
