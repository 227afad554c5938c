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
double sig(double x) { return 1.0 / (1.0 + std::exp(-x)); }
std::vector<float> rep(std::initializer_list<float> vs, std::size_t n)
{
    std::vector<float> r;
    for(float v : vs)
        r.insert(r.end(), n, v);
    return r;
}
} // namespace

TEST(ops_lstm, shape_rules_and_bad_inputs)
{
    auto op = migraphx::make_op("lstm", {{"hidden_size", 3}, {"direction", "bidirectional"}});
    auto s  = op.compute_shape({fs({4, 2, 5}), fs({2, 12, 5}), fs({2, 12, 3})});
    ASSERT_EQ(s.sub_shapes().size(), 3u);
    EXPECT_EQ(s.sub_shapes()[0], fs({4, 2, 2, 3}));
    EXPECT_EQ(s.sub_shapes()[1], fs({2, 2, 3}));
    EXPECT_EQ(s.sub_shapes()[2], fs({2, 2, 3}));
    shape sl{shape::int64_type, {2}};
    EXPECT_EQ(op.compute_shape({fs({4, 2, 5}), fs({2, 12, 5}), fs({2, 12, 3}), fs({2, 24}), sl, fs({2, 2, 3}),
                                fs({2, 2, 3}), fs({2, 9})}),
              s);
    EXPECT_THROW(op.compute_shape({fs({4, 2, 5}), fs({2, 12, 5}), fs({2, 12, 3}), fs({2, 24}), sl, fs({2, 2, 3}),
                                   fs({2, 2, 3}), fs({2, 6})}),
                 migraphx::exception); // P
    EXPECT_THROW(op.compute_shape({fs({4, 2, 5}), fs({2, 12, 5}), fs({2, 12, 3}), fs({2, 24}), sl, fs({2, 2, 3}),
                                   fs({1, 2, 3})}),
                 migraphx::exception); // initial_c
    EXPECT_THROW(op.compute_shape({fs({4, 2}), fs({2, 12, 5}), fs({2, 12, 3})}), migraphx::exception);
    EXPECT_THROW(op.compute_shape({shape{shape::int32_type, {4, 2, 5}}, fs({2, 12, 5}), fs({2, 12, 3})}),
                 migraphx::exception);
    std::ostringstream ss;
    ss << migraphx::make_op("lstm", {{"hidden_size", 3}, {"input_forget", 1}});
    EXPECT_EQ(ss.str(), "lstm[hidden_size=3,actv_funcs={},direction=forward,clip=0,input_forget=1]");
}

TEST(ops_lstm, onnx_defaults_initial_bias_and_peepholes)
{
    std::vector<float> x{1, 2, 3, 4, 5, 6}, w(24, 0.1f), r(36, 0.1f);
    auto res = run(migraphx::make_op("lstm", {{"hidden_size", 3}}),
                   {{fs({1, 3, 2}), x.data()}, {fs({1, 12, 2}), w.data()}, {fs({1, 12, 3}), r.data()}});
    expect_near(res[1].to_vector<float>(), rep({0.0952412039f, 0.256064475f, 0.40323776f}, 3));

    std::vector<float> x3{1, 2, 3, 4, 5, 6, 7, 8, 9}, w3(48, 0.1f), r3(64, 0.1f), b3(32, 0.0f);
    std::fill(b3.begin(), b3.begin() + 16, 0.1f);
    res = run(migraphx::make_op("lstm", {{"hidden_size", 4}}),
              {{fs({1, 3, 3}), x3.data()}, {fs({1, 16, 3}), w3.data()}, {fs({1, 16, 4}), r3.data()}, {fs({1, 32}), b3.data()}});
    expect_near(res[1].to_vector<float>(), rep({0.256064475f, 0.536727786f, 0.667213202f}, 4));

    std::vector<float> x4{1, 2, 3, 4, 5, 6, 7, 8}, w4(48, 0.1f), r4(36, 0.1f), b4(24, 0.0f), h(6, 0.0f), c(6, 0.0f),
        p(9, 0.1f);
    std::vector<int> sl{1, 1};
    res = run(migraphx::make_op("lstm", {{"hidden_size", 3}}),
              {{fs({1, 2, 4}), x4.data()}, {fs({1, 12, 4}), w4.data()}, {fs({1, 12, 3}), r4.data()},
               {fs({1, 24}), b4.data()}, {shape{shape::int32_type, {2}}, sl.data()}, {fs({1, 2, 3}), h.data()},
               {fs({1, 2, 3}), c.data()}, {fs({1, 9}), p.data()}});
    expect_near(res[1].to_vector<float>(), rep({0.375069112f, 0.680130899f}, 3));
}

TEST(ops_lstm, two_steps_by_hand_with_peepholes_and_input_forget)
{
    // hidden 1, input 1; gates i, o, f, c.
    const double wi = 0.3, wo = -0.2, wf = 0.5, wc = 0.7, ri = 0.1, ro = 0.4, rf = -0.3, rc = 0.2;
    const double pi = 0.05, po = -0.1, pf = 0.2, h0 = 0.1, c0 = -0.2;
    const double xs[2] = {1.0, -2.0};
    std::vector<float> x{float(xs[0]), float(xs[1])}, w{float(wi), float(wo), float(wf), float(wc)};
    std::vector<float> r{float(ri), float(ro), float(rf), float(rc)}, b(8, 0.0f), hv{float(h0)}, cv{float(c0)};
    std::vector<float> p{float(pi), float(po), float(pf)};
    std::vector<int> sl{2};
    for(int coupled : {0, 1})
    {
        double h = h0, c = c0;
        for(double xt : xs)
        {
            double i  = sig(wi * xt + ri * h + pi * c);
            double f  = coupled ? 1 - i : sig(wf * xt + rf * h + pf * c);
            double cc = std::tanh(wc * xt + rc * h);
            c         = f * c + i * cc;
            double o  = sig(wo * xt + ro * h + po * c);
            h         = o * std::tanh(c);
        }
        auto res = run(migraphx::make_op("lstm", {{"hidden_size", 1}, {"input_forget", coupled}}),
                       {{fs({2, 1, 1}), x.data()}, {fs({1, 4, 1}), w.data()}, {fs({1, 4, 1}), r.data()},
                        {fs({1, 8}), b.data()}, {shape{shape::int32_type, {1}}, sl.data()}, {fs({1, 1, 1}), hv.data()},
                        {fs({1, 1, 1}), cv.data()}, {fs({1, 3}), p.data()}});
        EXPECT_NEAR(res[1].to_vector<float>()[0], h, 1e-6) << "input_forget=" << coupled;
        EXPECT_NEAR(res[2].to_vector<float>()[0], c, 1e-6) << "input_forget=" << coupled;
        EXPECT_NEAR(res[0].to_vector<float>()[1], h, 1e-6);
    }
}

TEST(ops_lstm, program_returns_cell_state)
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto xl  = mm->add_literal(migraphx::literal{fs({1, 3, 2}), std::vector<float>{1, 2, 3, 4, 5, 6}});
    auto wl  = mm->add_literal(migraphx::literal{fs({1, 12, 2}), std::vector<float>(24, 0.1f)});
    auto rl  = mm->add_literal(migraphx::literal{fs({1, 12, 3}), std::vector<float>(36, 0.1f)});
    auto l   = mm->add_instruction(migraphx::make_op("lstm", {{"hidden_size", 3}}), xl, wl, rl);
    auto yh  = mm->add_instruction(migraphx::make_op("get_tuple_elem", {{"index", 1}}), l);
    auto yc  = mm->add_instruction(migraphx::make_op("get_tuple_elem", {{"index", 2}}), l);
    mm->add_return({yh, yc});
    p.compile(migraphx::ref::target{});
    auto r = p.eval({});
    expect_near(r[0].to_vector<float>(), rep({0.0952412039f, 0.256064475f, 0.40323776f}, 3));
    // One step from zero state: c = i * tanh(pre_c) with all gate pre-activations equal (0.1 * sum(x)).
    auto yc_v = r[1].to_vector<float>();
    for(std::size_t b = 0; b < 3; b++)
    {
        double pre = 0.1 * (2 * b + 1 + 2 * b + 2);
        EXPECT_NEAR(yc_v[b * 3], sig(pre) * std::tanh(pre), 1e-6);
    }
}
