#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/ref/target.hpp>
#include <gtest/gtest.h>
#include <cmath>

namespace {
using migraphx::shape;
using lvec = std::vector<std::size_t>;
shape fs(lvec l) { return shape{shape::float_type, std::move(l)}; }

std::vector<migraphx::argument> run(const migraphx::operation& op, std::vector<migraphx::argument> args)
{
    std::vector<shape> ss;
    for(const auto& a : args)
        ss.push_back(a.get_shape());
    return op.compute(op.compute_shape(ss), args).get_sub_objects();
}
void expect_near(const std::vector<float>& a, const std::vector<float>& b, float tol = 1e-5f)
{
    ASSERT_EQ(a.size(), b.size());
    for(std::size_t i = 0; i < a.size(); i++)
        EXPECT_NEAR(a[i], b[i], tol) << "at " << i;
}
} // namespace

TEST(ops_rnn, shape_rules)
{
    auto op = migraphx::make_op("rnn", {{"hidden_size", 4}, {"direction", "bidirectional"}});
    auto s  = op.compute_shape({fs({5, 3, 2}), fs({2, 4, 2}), fs({2, 4, 4})});
    ASSERT_EQ(s.sub_shapes().size(), 2u);
    EXPECT_EQ(s.sub_shapes()[0], fs({5, 2, 3, 4}));
    EXPECT_EQ(s.sub_shapes()[1], fs({2, 3, 4}));
    // All six inputs.
    shape sl{shape::int32_type, {3}};
    EXPECT_EQ(op.compute_shape({fs({5, 3, 2}), fs({2, 4, 2}), fs({2, 4, 4}), fs({2, 8}), sl, fs({2, 3, 4})}), s);
    std::ostringstream ss;
    ss << migraphx::make_op("rnn", {{"hidden_size", 4}, {"actv_funcs", {"tanh"}}});
    EXPECT_EQ(ss.str(), "rnn[hidden_size=4,actv_funcs={tanh},direction=forward,clip=0]");
}

TEST(ops_rnn, bad_inputs_throw)
{
    auto op = migraphx::make_op("rnn", {{"hidden_size", 4}});
    EXPECT_THROW(op.compute_shape({fs({5, 3, 2}), fs({2, 4, 2}), fs({2, 4, 4})}), migraphx::exception); // dirs
    EXPECT_THROW(op.compute_shape({fs({5, 3, 2}), fs({1, 4, 3}), fs({1, 4, 4})}), migraphx::exception); // input size
    EXPECT_THROW(op.compute_shape({fs({5, 3, 2}), fs({1, 4, 2})}), migraphx::exception);
    EXPECT_THROW(op.compute_shape({fs({5, 3, 2}), fs({1, 4, 2}), fs({1, 4, 4}), fs({1, 4})}), migraphx::exception);
    EXPECT_THROW(op.compute_shape({fs({5, 3, 2}), fs({1, 4, 2}), fs({1, 4, 4}), fs({1, 8}), fs({3})}),
                 migraphx::exception); // float sequence_lens
    EXPECT_THROW(migraphx::make_op("rnn", {{"hidden_size", 4}, {"direction", "sideways"}})
                     .compute_shape({fs({5, 3, 2}), fs({1, 4, 2}), fs({1, 4, 4})}),
                 migraphx::exception);
    EXPECT_THROW(migraphx::make_op("rnn", {{"hidden_size", 4}, {"actv_funcs", {"gelu"}}})
                     .compute_shape({fs({5, 3, 2}), fs({1, 4, 2}), fs({1, 4, 4})}),
                 migraphx::exception);
    // sequence_lens beyond seq_length is caught when the op runs.
    std::vector<float> x(2, 1.0f), w(1, 1.0f), r(1, 1.0f), b(2, 0.0f);
    std::vector<int> sl{3};
    auto op1 = migraphx::make_op("rnn", {{"hidden_size", 1}});
    EXPECT_THROW(run(op1, {{fs({2, 1, 1}), x.data()}, {fs({1, 1, 1}), w.data()}, {fs({1, 1, 1}), r.data()},
                           {fs({1, 2}), b.data()}, {shape{shape::int32_type, {1}}, sl.data()}}),
                 migraphx::exception);
}

TEST(ops_rnn, onnx_simple_rnn_defaults)
{
    std::vector<float> x{1, 2, 3, 4, 5, 6}, w(8, 0.1f), r(16, 0.1f);
    auto op = migraphx::make_op("rnn", {{"hidden_size", 4}});
    auto res = run(op, {{fs({1, 3, 2}), x.data()}, {fs({1, 4, 2}), w.data()}, {fs({1, 4, 4}), r.data()}});
    std::vector<float> yh{0.291312635f, 0.291312635f, 0.291312635f, 0.291312635f, 0.604367793f, 0.604367793f,
                          0.604367793f, 0.604367793f, 0.800499022f, 0.800499022f, 0.800499022f, 0.800499022f};
    expect_near(res[1].to_vector<float>(), yh);
    expect_near(res[0].to_vector<float>(), yh); // one step: Y == Y_h
}

TEST(ops_rnn, two_steps_directions_and_sequence_lens)
{
    // hidden 1, input 1: h_t = f(w x_t + r h_{t-1} + wb + rb); batch 2, second row has length 1.
    const float w = 0.5f, r = -0.7f, wb = 0.1f, rb = 0.2f, h0a = 0.3f, h0b = -0.4f;
    std::vector<float> x{1.0f, 2.0f, -1.5f, 9.0f}; // x[t][b]
    std::vector<float> wv{w, w}, rv{r, r}, bv{wb, rb, wb, rb}, h0{h0a, h0b, h0a, h0b};
    std::vector<int> sl{2, 1};
    auto f = [](double v) { return std::tanh(v); };
    // forward
    double a1 = f(w * 1.0 + r * h0a + wb + rb), a2 = f(w * -1.5 + r * a1 + wb + rb);
    double b1 = f(w * 2.0 + r * h0b + wb + rb);
    // reverse: row a starts at t=1, row b (length 1) only sees t=0
    double ra1 = f(w * -1.5 + r * h0a + wb + rb), ra0 = f(w * 1.0 + r * ra1 + wb + rb);
    double rb0 = f(w * 2.0 + r * h0b + wb + rb);
    auto op = migraphx::make_op("rnn", {{"hidden_size", 1}, {"direction", "bidirectional"}});
    auto res = run(op, {{fs({2, 2, 1}), x.data()}, {fs({2, 1, 1}), wv.data()}, {fs({2, 1, 1}), rv.data()},
                        {fs({2, 2}), bv.data()}, {shape{shape::int32_type, {2}}, sl.data()},
                        {fs({2, 2, 1}), h0.data()}});
    // Y {seq, dirs, batch, 1}; row b is 0 past its length.
    expect_near(res[0].to_vector<float>(),
                {float(a1), float(b1), float(ra0), float(rb0), float(a2), 0.0f, float(ra1), 0.0f});
    expect_near(res[1].to_vector<float>(), {float(a2), float(b1), float(ra0), float(rb0)});
}

TEST(ops_rnn, activations_with_parameters_and_clip)
{
    std::vector<float> x{2.0f}, w{1.0f}, r{0.0f};
    auto one = [&](const migraphx::value& attrs) {
        auto op = migraphx::make_op("rnn", attrs);
        return run(op, {{fs({1, 1, 1}), x.data()}, {fs({1, 1, 1}), w.data()}, {fs({1, 1, 1}), r.data()}})[1]
            .to_vector<float>()
            .front();
    };
    EXPECT_NEAR(one({{"hidden_size", 1}, {"actv_funcs", {"relu"}}}), 2.0f, 1e-6f);
    EXPECT_NEAR(one({{"hidden_size", 1}, {"actv_funcs", {"hardsigmoid"}}}), 0.9f, 1e-6f);
    EXPECT_NEAR(one({{"hidden_size", 1}, {"actv_funcs", {"HardSigmoid(0.1, 0.3)"}}}), 0.5f, 1e-6f);
    EXPECT_NEAR(one({{"hidden_size", 1}, {"actv_funcs", {"sigmoid"}}}), 1.0f / (1.0f + std::exp(-2.0f)), 1e-6f);
    EXPECT_NEAR(one({{"hidden_size", 1}, {"actv_funcs", {"affine(3,1)"}}}), 7.0f, 1e-6f);
    EXPECT_NEAR(one({{"hidden_size", 1}, {"actv_funcs", {"relu"}}, {"clip", 1.5}}), 1.5f, 1e-6f);
}

TEST(ops_rnn, program_with_absent_inputs_and_tuple_elements)
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    std::vector<float> x{1, 2, 3, 4, 5, 6};
    auto xl  = mm->add_literal(migraphx::literal{fs({1, 3, 2}), x});
    auto wl  = mm->add_literal(migraphx::literal{fs({1, 4, 2}), std::vector<float>(8, 0.1f)});
    auto rl  = mm->add_literal(migraphx::literal{fs({1, 4, 4}), std::vector<float>(16, 0.1f)});
    // B and sequence_lens materialised as "absent" literals, initial_h given as zeros.
    auto bl  = mm->add_literal(migraphx::literal{fs({1, 8}), std::vector<float>(8, 0.0f)});
    auto sl  = mm->add_literal(migraphx::literal{shape{shape::int32_type, {3}}, std::vector<int>{1, 1, 1}});
    auto hl  = mm->add_literal(migraphx::literal{fs({1, 3, 4}), std::vector<float>(12, 0.0f)});
    auto rnn = mm->add_instruction(migraphx::make_op("rnn", {{"hidden_size", 4}}), {xl, wl, rl, bl, sl, hl});
    auto yh  = mm->add_instruction(migraphx::make_op("get_tuple_elem", {{"index", 1}}), rnn);
    mm->add_return({yh});
    p.compile(migraphx::ref::target{});
    auto r = p.eval({}).back();
    EXPECT_EQ(r.get_shape(), fs({1, 3, 4}));
    expect_near(r.to_vector<float>(),
                {0.291312635f, 0.291312635f, 0.291312635f, 0.291312635f, 0.604367793f, 0.604367793f, 0.604367793f,
                 0.604367793f, 0.800499022f, 0.800499022f, 0.800499022f, 0.800499022f});
}
