// passes/layernorm_match: the importer's LayerNormalization (without scale and shift) is found
// in float and half, with or without the epsilon add; a near miss is not.
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
