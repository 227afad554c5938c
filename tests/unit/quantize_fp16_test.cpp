#include <migraphx/quantization.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/ref/target.hpp>
#include <gtest/gtest.h>
#include <cmath>
#include <sstream>

namespace {

using migraphx::make_op;
using migraphx::shape;

std::string text(const migraphx::module& m)
{
    std::ostringstream ss;
    ss << m;
    return ss.str();
}

std::size_t count(const migraphx::module& m, const std::string& name)
{
    std::size_t n = 0;
    for(auto ins = m.begin(); ins != m.end(); ++ins)
        n += ins->name() == name ? 1 : 0;
    return n;
}

// x -> add(x, c) -> relu -> softmax -> return: one convert in, one out, the chain in half.
migraphx::program small_chain()
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto x   = mm->add_parameter("x", shape{shape::float_type, {2, 3}});
    auto c   = mm->add_literal(migraphx::literal{shape{shape::float_type, {2, 3}}, std::vector<float>{1, -2, 3, -4, 5, -6}});
    auto a   = mm->add_instruction(make_op("add"), x, c);
    auto r   = mm->add_instruction(make_op("relu"), a);
    auto s   = mm->add_instruction(make_op("softmax", {{"axis", 1}}), r);
    mm->add_return({s});
    return p;
}

TEST(quantize_fp16, converts_only_at_the_edges)
{
    auto p = small_chain();
    migraphx::quantize_fp16(p);
    const auto& m = *p.get_main_module();
    EXPECT_EQ(count(m, "convert"), 2u) << text(m);
    for(auto ins = m.begin(); ins != m.end(); ++ins)
        if(ins->name() == "add" or ins->name() == "relu" or ins->name() == "softmax")
            EXPECT_EQ(ins->get_shape().type(), shape::half_type) << text(m);
        else if(ins->name() == "@literal")
        {
            EXPECT_EQ(ins->get_shape().type(), shape::half_type) << "float literals become half literals";
        }
    // parameters and outputs keep their declared types
    EXPECT_EQ(p.get_parameter_shapes().at("x").type(), shape::float_type);
    EXPECT_EQ(p.get_output_shapes().front().type(), shape::float_type);
}

TEST(quantize_fp16, broadcasts_stay_broadcasts)
{
    // layernorm takes its scale and shift only as broadcasts along the last axis: quantize_fp16
    // used to turn each broadcast into a packed convert, and the program was refused
    migraphx::program p;
    auto* m = p.get_main_module();
    shape xs{shape::float_type, {2, 8, 64}};
    auto x  = m->add_parameter("x", xs);
    std::vector<float> gv(64), cv(64);
    for(std::size_t i = 0; i < 64; i++)
    {
        gv[i] = 0.5f + 0.01f * static_cast<float>(i);
        cv[i] = 0.1f - 0.003f * static_cast<float>(i);
    }
    auto g  = m->add_literal(migraphx::literal{shape{shape::float_type, {64}}, gv});
    auto c  = m->add_literal(migraphx::literal{shape{shape::float_type, {64}}, cv});
    auto gb = m->add_instruction(make_op("multibroadcast", {{"out_lens", xs.lens()}}), g);
    auto cb = m->add_instruction(make_op("multibroadcast", {{"out_lens", xs.lens()}}), c);
    m->add_return({m->add_instruction(make_op("layernorm", {{"epsilon", 1e-5f}}), x, gb, cb)});
    auto q = p;
    ASSERT_NO_THROW(migraphx::quantize_fp16(q));
    const auto& qm = *q.get_main_module();
    for(auto ins = qm.begin(); ins != qm.end(); ++ins)
    {
        if(ins->name() != "layernorm")
            continue;
        EXPECT_EQ(ins->get_shape().type(), shape::half_type);
        EXPECT_EQ(ins->inputs()[1]->name(), "multibroadcast");
        EXPECT_EQ(ins->inputs()[1]->get_shape().strides(), (std::vector<std::size_t>{0, 0, 1}));
    }
    std::vector<float> xv(xs.elements());
    for(std::size_t i = 0; i < xv.size(); i++)
        xv[i] = std::sin(0.37f * static_cast<float>(i)) * 2.0f;
    migraphx::parameter_map in{{"x", migraphx::argument{xs, xv.data()}}};
    auto eval = [&](migraphx::program r) {
        r.compile(migraphx::ref::target{});
        return r.eval(in).front().to_vector<float>();
    };
    auto want = eval(p), got = eval(q);
    ASSERT_EQ(got.size(), want.size());
    for(std::size_t i = 0; i < got.size(); i++)
        EXPECT_NEAR(got[i], want[i], 1e-2 * (1 + std::abs(want[i]))) << i;
}

TEST(quantize_fp16, results_agree_with_float)
{
    auto p = small_chain();
    auto q = p;
    migraphx::quantize_fp16(q);
    p.compile(migraphx::ref::target{});
    q.compile(migraphx::ref::target{});
    std::vector<float> xv = {0.5f, 0.25f, -1.0f, 2.0f, 0.125f, 7.0f};
    migraphx::parameter_map params{{"x", migraphx::argument{shape{shape::float_type, {2, 3}}, xv.data()}}};
    auto a = p.eval(params).back().to_vector<float>();
    auto b = q.eval(params).back();
    EXPECT_EQ(b.get_shape().type(), shape::float_type);
    auto bv = b.to_vector<float>();
    ASSERT_EQ(a.size(), bv.size());
    for(std::size_t i = 0; i < a.size(); i++)
        EXPECT_NEAR(a[i], bv[i], 2e-3) << i;
}

// transformers' extended attention mask: (1 - mask) * finfo(float).min. In half the constant
// must become -65504, not -inf: 0 * -inf would be NaN wherever the mask is 1.
TEST(quantize_fp16, large_finite_constants_saturate_instead_of_becoming_inf)
{
    migraphx::program p;
    auto* m   = p.get_main_module();
    auto mask = m->add_parameter("mask", shape{shape::float_type, {4}});
    auto one  = m->add_literal(migraphx::literal{shape{shape::float_type, {4}}, {1.f, 1.f, 1.f, 1.f}});
    auto big  = m->add_literal(migraphx::literal{shape{shape::float_type, {4}},
                                                 {-3.4028235e38f, 3.4028235e38f, -INFINITY, 1e5f}});
    auto inv  = m->add_instruction(make_op("sub"), one, mask);
    m->add_return({m->add_instruction(make_op("mul"), inv, big)});
    migraphx::quantize_fp16(p);
    p.compile(migraphx::ref::target{});
    std::vector<float> mv = {1.f, 0.f, 0.f, 0.f};
    auto r = p.eval({{"mask", migraphx::argument{shape{shape::float_type, {4}}, mv.data()}}}).back().to_vector<float>();
    EXPECT_EQ(r[0], 0.f); // 0 * -65504, not 0 * -inf = NaN
    EXPECT_EQ(r[1], 65504.f);
    EXPECT_TRUE(std::isinf(r[2]) and r[2] < 0); // a real infinity stays one
    EXPECT_EQ(r[3], 65504.f);
}

TEST(quantize_fp16, only_named_ops)
{
    auto p = small_chain();
    migraphx::quantize_fp16(p, {"relu"});
    const auto& m = *p.get_main_module();
    for(auto ins = m.begin(); ins != m.end(); ++ins)
    {
        if(ins->name() == "relu")
        {
            EXPECT_EQ(ins->get_shape().type(), shape::half_type);
        }
        if(ins->name() == "add" or ins->name() == "softmax")
        {
            EXPECT_EQ(ins->get_shape().type(), shape::float_type);
        }
    }
    EXPECT_EQ(count(m, "convert"), 2u) << text(m);
}

TEST(quantize_fp16, leaves_integer_ops_alone)
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto x   = mm->add_parameter("x", shape{shape::int32_type, {4}});
    auto y   = mm->add_instruction(make_op("add"), x, x);
    mm->add_return({y});
    auto before = text(*mm);
    migraphx::quantize_fp16(p);
    EXPECT_EQ(text(*p.get_main_module()), before);
}

TEST(quantize_fp16, compiled_program_throws)
{
    auto p = small_chain();
    p.compile(migraphx::ref::target{});
    EXPECT_THROW(migraphx::quantize_fp16(p), migraphx::exception);
}

} // namespace

// An lstm (a tuple of float results) runs in half; each result the graph takes is converted back
// once. Before this, tuple ops stayed in float.
TEST(quantize_fp16, an_lstm_runs_in_half)
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto x   = mm->add_parameter("x", shape{shape::float_type, {4, 1, 3}});
    auto lit = [&](std::vector<std::size_t> lens) {
        shape s{shape::float_type, lens};
        std::vector<float> v(s.elements());
        for(std::size_t i = 0; i < v.size(); i++)
            v[i] = 0.5f * std::sin(static_cast<float>(i));
        return mm->add_literal(migraphx::literal{s, v});
    };
    auto l  = mm->add_instruction(make_op("lstm", {{"hidden_size", 2}}), x, lit({1, 8, 3}), lit({1, 8, 2}));
    auto y  = mm->add_instruction(make_op("get_tuple_elem", {{"index", 0}}), l);
    auto yc = mm->add_instruction(make_op("get_tuple_elem", {{"index", 2}}), l);
    mm->add_return({y, yc});
    auto q = p;
    migraphx::quantize_fp16(q);
    const auto& m = *q.get_main_module();
    ASSERT_EQ(count(m, "lstm"), 1u) << text(m);
    for(auto ins = m.begin(); ins != m.end(); ++ins)
        if(ins->name() == "lstm")
            EXPECT_EQ(ins->inputs().front()->get_shape().type(), shape::half_type) << text(m);
    EXPECT_EQ(count(m, "convert"), 3u) << text(m); // x in; Y and Y_c out

    std::vector<float> xv{0.1f, -0.4f, 0.9f, 0.3f, 0.2f, -0.7f, 0.5f, 0.6f, -0.1f, 0.8f, -0.3f, 0.4f};
    migraphx::parameter_map params{{"x", migraphx::argument{shape{shape::float_type, {4, 1, 3}}, xv.data()}}};
    p.compile(migraphx::ref::target{});
    q.compile(migraphx::ref::target{});
    auto a = p.eval(params), b = q.eval(params);
    ASSERT_EQ(a.size(), b.size());
    for(std::size_t i = 0; i < a.size(); i++)
    {
        EXPECT_EQ(b[i].get_shape().type(), shape::float_type);
        auto va = a[i].to_vector<float>(), vb = b[i].to_vector<float>();
        for(std::size_t j = 0; j < va.size(); j++)
            EXPECT_NEAR(va[j], vb[j], 5e-3) << "output " << i << " element " << j;
    }
}

// topk (a tuple of float values and int64 indices) runs in half: the values come back in float
// through one convert, the indices as they are. Before, mixed tuples stayed in float, so a
// quantized detector wrapped each topk in two converts (SSDlite: 180 extra kernels a run).
TEST(quantize_fp16, a_topk_runs_in_half_and_keeps_its_indices)
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    shape xs{shape::float_type, {2, 6}};
    auto x = mm->add_parameter("x", xs);
    auto t = mm->add_instruction(make_op("topk", {{"k", 3}, {"axis", 1}, {"largest", 1}}), x);
    auto v = mm->add_instruction(make_op("get_tuple_elem", {{"index", 0}}), t);
    auto i = mm->add_instruction(make_op("get_tuple_elem", {{"index", 1}}), t);
    mm->add_return({v, i});
    auto q = p;
    migraphx::quantize_fp16(q);
    const auto& m = *q.get_main_module();
    ASSERT_EQ(count(m, "topk"), 1u) << text(m);
    for(auto ins = m.begin(); ins != m.end(); ++ins)
        if(ins->name() == "topk")
            EXPECT_EQ(ins->inputs().front()->get_shape().type(), shape::half_type) << text(m);
    EXPECT_EQ(count(m, "convert"), 2u) << text(m); // x in, the values out; never the indices
    EXPECT_EQ(q.get_output_shapes().at(0).type(), shape::float_type);
    EXPECT_EQ(q.get_output_shapes().at(1).type(), shape::int64_type);

    // values exact in half: the same picks and values as in float, ties by lower index
    std::vector<float> xv{0.5f, -2.0f, 3.25f, 0.5f, 8.0f, -0.125f, 1.0f, 1.0f, -4.0f, 2.5f, 1.0f, 0.0f};
    migraphx::parameter_map params{{"x", migraphx::argument{xs, xv.data()}}};
    p.compile(migraphx::ref::target{});
    q.compile(migraphx::ref::target{});
    auto a = p.eval(params), b = q.eval(params);
    ASSERT_EQ(b.size(), 2u);
    EXPECT_EQ(a[0].to_vector<float>(), b[0].to_vector<float>());
    EXPECT_EQ(a[1].to_vector<std::int64_t>(), b[1].to_vector<std::int64_t>());
}
