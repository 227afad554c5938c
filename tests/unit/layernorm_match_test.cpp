// passes/layernorm_match: the importer's LayerNormalization (without scale and shift) is found
// in float and half, with or without the epsilon add; a near miss is not. The scale and shift after
// it (match_layernorm_affine) in either operand order, not a scale per row.
#include <migraphx/generate.hpp>
#include <migraphx/instruction.hpp>
#include <migraphx/literal.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <gtest/gtest.h>
#include "passes/layernorm_match.hpp"

using migraphx::make_op;
using migraphx::shape;

namespace {

struct built
{
    migraphx::program p;
    migraphx::instruction_ref x, mean, y;
};

built layer_norm(shape::type_t t, bool with_epsilon, bool square_other = false)
{
    built b;
    auto* m   = b.p.get_main_module();
    b.x       = m->add_parameter("x", shape{t, {2, 5, 24}});
    auto lens = b.x->get_shape().lens();
    auto bc   = [&](migraphx::instruction_ref v) {
        return m->add_instruction(make_op("multibroadcast", {{"out_lens", lens}}), v);
    };
    auto axes = std::vector<std::int64_t>{2};
    b.mean    = m->add_instruction(make_op("reduce_mean", {{"axes", axes}}), b.x);
    auto d    = m->add_instruction(make_op("sub"), b.x, bc(b.mean));
    auto sq   = m->add_instruction(make_op("mul"), d, square_other ? b.x : d);
    auto var  = m->add_instruction(make_op("reduce_mean", {{"axes", axes}}), sq);
    auto v    = var;
    if(with_epsilon)
    {
        auto eps = m->add_instruction(make_op("multibroadcast", {{"out_lens", var->get_shape().lens()}}),
                                      m->add_literal(migraphx::literal{shape{t}, std::vector<float>{1e-3f}}));
        v        = m->add_instruction(make_op("add"), var, eps);
    }
    auto inv = m->add_instruction(make_op("rsqrt"), v);
    b.y      = m->add_instruction(make_op("mul"), d, bc(inv));
    m->add_return({b.y});
    return b;
}

} // namespace

TEST(layernorm_match, float_and_half_with_and_without_epsilon)
{
    for(auto t : {shape::float_type, shape::half_type})
        for(bool eps : {true, false})
        {
            auto b = layer_norm(t, eps);
            auto f = migraphx::match_layernorm(b.mean);
            ASSERT_TRUE(f.has_value()) << t << " " << eps;
            EXPECT_EQ(f->x, b.x);
            EXPECT_EQ(f->y, b.y);
            EXPECT_NEAR(f->epsilon, eps ? 1e-3f : 0.0f, 1e-6f);
        }
}

TEST(layernorm_match, near_misses_are_not_matched)
{
    auto b = layer_norm(shape::float_type, true, true); // variance of x, not of x - mean
    EXPECT_FALSE(migraphx::match_layernorm(b.mean).has_value());
    auto c = layer_norm(shape::float_type, true);
    EXPECT_FALSE(migraphx::match_layernorm(c.y).has_value()); // not a reduce_mean
}

namespace {

/// b's normalized y, then y * scale [+ shift] (operands in either order); scale and shift one value
/// per column, or (`per_row`) one per row.
migraphx::instruction_ref with_affine(built& b, bool shift, bool swapped, bool per_row = false)
{
    auto* m   = b.p.get_main_module();
    auto ret  = std::prev(m->end()); // the new instructions go before the return
    auto lens = b.y->get_shape().lens();
    auto t    = b.y->get_shape().type();
    std::vector<std::size_t> one = per_row ? std::vector<std::size_t>{2, 5, 1} : std::vector<std::size_t>{24};
    auto add = [&](const std::string& name, std::vector<migraphx::instruction_ref> args) {
        return m->insert_instruction(ret, make_op(name), args);
    };
    auto bc = [&](int seed) {
        return m->insert_instruction(ret, make_op("multibroadcast", {{"out_lens", lens}}),
                                     {m->add_literal(migraphx::generate_literal(shape{t, one}, seed))});
    };
    auto g   = bc(1);
    auto s   = swapped ? add("mul", {g, b.y}) : add("mul", {b.y, g});
    auto out = s;
    if(shift)
    {
        auto sh = bc(2);
        out     = swapped ? add("add", {sh, s}) : add("add", {s, sh});
    }
    m->replace_return({out});
    return out;
}

} // namespace

TEST(layernorm_match, scale_and_shift_after_it_in_either_operand_order)
{
    for(bool shift : {true, false})
        for(bool swapped : {true, false})
        {
            auto b   = layer_norm(shape::half_type, true);
            auto out = with_affine(b, shift, swapped);
            auto a   = migraphx::match_layernorm_affine(b.y);
            ASSERT_TRUE(a.has_value()) << shift << swapped;
            EXPECT_EQ(a->out, out);
            EXPECT_EQ(a->shift.has_value(), shift);
            EXPECT_EQ(a->scale->name(), "multibroadcast");
        }
}

TEST(layernorm_match, a_scale_per_row_or_a_second_reader_is_not_an_affine)
{
    auto b = layer_norm(shape::float_type, true);
    with_affine(b, true, false, true);
    EXPECT_FALSE(migraphx::match_layernorm_affine(b.y).has_value());
    auto c = layer_norm(shape::float_type, true); // y is returned: no mul after it
    EXPECT_FALSE(migraphx::match_layernorm_affine(c.y).has_value());
}
