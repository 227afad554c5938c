// op::depthwise_activated (made by the gpu target's fuse_depthwise, not by the parser): ref's
// results against the unfused ops, and shape checks.
#include <migraphx/literal.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/ref/target.hpp>
#include <gtest/gtest.h>

using migraphx::make_op;
using migraphx::shape;

TEST(ops_depthwise_activated, hand_computed_sums_with_both_activations)
{
    // One channel of 3 x 3, a 2 x 2 filter of ones, pad 0: each output sums a 2 x 2 window of
    // clamp(x + 1, 0, 4), then adds 0.5 and clamps to [0, 9].
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{shape::float_type, {1, 1, 3, 3}});
    auto w  = m->add_literal(migraphx::literal{shape{shape::float_type, {2, 2, 1}}, std::vector<float>{1, 1, 1, 1}});
    auto b1 = m->add_literal(migraphx::literal{shape{shape::float_type, {1}}, std::vector<float>{1}});
    auto b2 = m->add_literal(migraphx::literal{shape{shape::float_type, {1}}, std::vector<float>{0.5f}});
    m->add_return({m->add_instruction(make_op("depthwise_activated", {{"pre_bias", true},
                                                                      {"post_bias", true},
                                                                      {"pre_clip", {0.0f, 4.0f}},
                                                                      {"post_clip", {0.0f, 9.0f}}}),
                                      x, w, b1, b2)});
    p.compile(migraphx::ref::target{});
    std::vector<float> xv = {-3, 0, 1, 2, 5, -1, 0, 0, 9}; // activated: 0 1 2 / 3 4 0 / 1 1 4
    auto y = p.eval({{"x", migraphx::argument{shape{shape::float_type, {1, 1, 3, 3}}, xv.data()}}})
                 .back()
                 .to_vector<float>();
    // windows: 0+1+3+4 = 8, 1+2+4+0 = 7, 3+4+1+1 = 9, 4+0+1+4 = 9; + 0.5, clamped to 9
    std::vector<float> want = {8.5f, 7.5f, 9, 9};
    ASSERT_EQ(y.size(), want.size());
    for(std::size_t i = 0; i < want.size(); i++)
        EXPECT_FLOAT_EQ(y[i], want[i]) << i;
}

TEST(ops_depthwise_activated, equals_bias_clip_convolution_bias_clip)
{
    std::size_t n = 2, c = 3, h = 5, w = 6;
    shape xs{shape::float_type, {n, c, h, w}};
    std::vector<float> wv(c * 9), b1 = {0.5f, -0.25f, 0}, b2 = {0.1f, 0, -0.3f}, xv(xs.elements());
    for(std::size_t i = 0; i < wv.size(); i++)
        wv[i] = static_cast<float>(i % 5) * 0.25f - 0.5f;
    for(std::size_t i = 0; i < xv.size(); i++)
        xv[i] = static_cast<float>((i * 13) % 17) * 0.5f - 4;
    auto run = [&](bool fusedop) {
        migraphx::program p;
        auto* m = p.get_main_module();
        auto x  = m->add_parameter("x", xs);
        auto lb1 = m->add_literal(migraphx::literal{shape{shape::float_type, {c}}, b1});
        auto lb2 = m->add_literal(migraphx::literal{shape{shape::float_type, {c}}, b2});
        if(fusedop)
        {
            std::vector<float> t(wv.size()); // {c, 1, 3, 3} -> {3, 3, c}
            for(std::size_t ch = 0; ch < c; ch++)
                for(std::size_t k = 0; k < 9; k++)
                    t[k * c + ch] = wv[ch * 9 + k];
            auto lw = m->add_literal(migraphx::literal{shape{shape::float_type, {3, 3, c}}, t});
            m->add_return({m->add_instruction(make_op("depthwise_activated", {{"stride", {2, 1}},
                                                                              {"padding", {1, 1, 1, 1}},
                                                                              {"pre_bias", true},
                                                                              {"post_bias", true},
                                                                              {"pre_clip", {0.0f, 6.0f}},
                                                                              {"post_clip", {-1.0f, 2.0f}}}),
                                              x, lw, lb1, lb2)});
        }
        else
        {
            auto lw = m->add_literal(migraphx::literal{shape{shape::float_type, {c, 1, 3, 3}}, wv});
            auto clip = [&](migraphx::instruction_ref v, float lo, float hi) {
                auto l = m->add_instruction(make_op("multibroadcast", {{"out_lens", v->get_shape().lens()}}),
                                            m->add_literal(migraphx::literal{shape{shape::float_type, {1}}, std::vector<float>{lo}}));
                auto u = m->add_instruction(make_op("multibroadcast", {{"out_lens", v->get_shape().lens()}}),
                                            m->add_literal(migraphx::literal{shape{shape::float_type, {1}}, std::vector<float>{hi}}));
                return m->add_instruction(make_op("clip"), v, l, u);
            };
            auto bias = [&](migraphx::instruction_ref v, migraphx::instruction_ref b) {
                return m->add_instruction(make_op("add"), v,
                                          m->add_instruction(make_op("broadcast", {{"axis", 1}, {"out_lens", v->get_shape().lens()}}), b));
            };
            auto a  = clip(bias(x, lb1), 0, 6);
            auto cv = m->add_instruction(make_op("convolution", {{"padding", {1, 1, 1, 1}}, {"stride", {2, 1}}, {"group", c}}), a, lw);
            m->add_return({clip(bias(cv, lb2), -1, 2)});
        }
        p.compile(migraphx::ref::target{});
        return p.eval({{"x", migraphx::argument{xs, xv.data()}}}).back();
    };
    auto got  = run(true);
    auto want = run(false);
    ASSERT_EQ(got.get_shape().lens(), want.get_shape().lens());
    auto g = got.to_vector<float>(), e = want.to_vector<float>();
    for(std::size_t i = 0; i < g.size(); i++)
        EXPECT_NEAR(g[i], e[i], 1e-5) << i;
}

TEST(ops_depthwise_activated, bad_inputs_throw)
{
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{shape::float_type, {1, 4, 5, 5}});
    auto w  = m->add_parameter("w", shape{shape::float_type, {3, 3, 4}});
    auto w3 = m->add_parameter("w3", shape{shape::float_type, {3, 3, 3}}); // channels differ
    auto b  = m->add_parameter("b", shape{shape::float_type, {5}});
    auto i  = m->add_parameter("i", shape{shape::int32_type, {1, 4, 5, 5}});
    EXPECT_NO_THROW(m->add_instruction(make_op("depthwise_activated"), x, w));
    EXPECT_THROW(m->add_instruction(make_op("depthwise_activated"), x, w3), migraphx::exception);
    EXPECT_THROW(m->add_instruction(make_op("depthwise_activated", {{"pre_bias", true}}), x, w, b), migraphx::exception);
    EXPECT_THROW(m->add_instruction(make_op("depthwise_activated", {{"pre_bias", true}}), x, w), migraphx::exception);
    EXPECT_THROW(m->add_instruction(make_op("depthwise_activated"), i, w), migraphx::exception);
    EXPECT_THROW(m->add_instruction(make_op("depthwise_activated", {{"stride", {0, 1}}}), x, w), migraphx::exception);
    EXPECT_THROW(m->add_instruction(make_op("depthwise_activated", {{"pre_clip", {1.0f}}}), x, w), migraphx::exception);
    auto big = m->add_parameter("big", shape{shape::float_type, {9, 9, 4}}); // larger than the input
    EXPECT_THROW(m->add_instruction(make_op("depthwise_activated"), x, big), migraphx::exception);
}
