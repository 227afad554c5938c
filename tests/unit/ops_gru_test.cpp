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
} // namespace

TEST(ops_gru, shape_rules_and_bad_inputs)
{
    auto op = migraphx::make_op("gru", {{"hidden_size", 5}, {"direction", "reverse"}});
    auto s  = op.compute_shape({fs({2, 3, 4}), fs({1, 15, 4}), fs({1, 15, 5})});
    ASSERT_EQ(s.sub_shapes().size(), 2u);
    EXPECT_EQ(s.sub_shapes()[0], fs({2, 1, 3, 5}));
    EXPECT_EQ(s.sub_shapes()[1], fs({1, 3, 5}));
    EXPECT_THROW(op.compute_shape({fs({2, 3, 4}), fs({1, 12, 4}), fs({1, 12, 5})}), migraphx::exception);
    EXPECT_THROW(op.compute_shape({fs({2, 3, 4}), fs({1, 15, 4}), fs({1, 15, 5}), fs({1, 15})}), migraphx::exception);
    EXPECT_THROW(op.compute_shape({fs({2, 3, 4}), fs({1, 15, 4}), shape{shape::half_type, {1, 15, 5}}}),
                 migraphx::exception);
    // Seven inputs is one too many for gru.
    shape sl{shape::int32_type, {3}};
    EXPECT_THROW(op.compute_shape({fs({2, 3, 4}), fs({1, 15, 4}), fs({1, 15, 5}), fs({1, 30}), sl, fs({1, 3, 5}),
                                   fs({1, 3, 5})}),
                 migraphx::exception);
    EXPECT_THROW(migraphx::make_op("gru", {{"hidden_size", 5}, {"actv_funcs", {"sigmoid", "tanh", "relu"}}})
                     .compute_shape({fs({2, 3, 4}), fs({1, 15, 4}), fs({1, 15, 5})}),
                 migraphx::exception);
    std::ostringstream ss;
    ss << migraphx::make_op("gru", {{"hidden_size", 2}});
    EXPECT_EQ(ss.str(), "gru[hidden_size=2,actv_funcs={},direction=forward,clip=0,linear_before_reset=0]");
}

TEST(ops_gru, onnx_defaults_and_initial_bias)
{
    std::vector<float> x{1, 2, 3, 4, 5, 6}, w(30, 0.1f), r(75, 0.1f);
    auto res = run(migraphx::make_op("gru", {{"hidden_size", 5}}),
                   {{fs({1, 3, 2}), x.data()}, {fs({1, 15, 2}), w.data()}, {fs({1, 15, 5}), r.data()}});
    std::vector<float> yh;
    for(float v : {0.123970263f, 0.200536624f, 0.199916542f})
        yh.insert(yh.end(), 5, v);
    expect_near(res[1].to_vector<float>(), yh);

    std::vector<float> x3{1, 2, 3, 4, 5, 6, 7, 8, 9}, w3(27, 0.1f), r3(27, 0.1f), b3(18, 0.0f);
    std::fill(b3.begin(), b3.begin() + 9, 0.1f);
    res = run(migraphx::make_op("gru", {{"hidden_size", 3}}),
              {{fs({1, 3, 3}), x3.data()}, {fs({1, 9, 3}), w3.data()}, {fs({1, 9, 3}), r3.data()}, {fs({1, 18}), b3.data()}});
    yh.clear();
    for(float v : {0.200536624f, 0.154823378f, 0.0748427585f})
        yh.insert(yh.end(), 3, v);
    expect_near(res[1].to_vector<float>(), yh);
}

TEST(ops_gru, onnx_seq_length_two_steps)
{
    // ONNX backend test test_gru_seq_length (random weights, two time steps).
    // X float32 [2, 3, 3]
    std::vector<float> X{1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f, 8.0f, 9.0f, 10.0f, 11.0f, 12.0f, 13.0f, 14.0f, 15.0f, 16.0f, 17.0f, 18.0f};
    // W float32 [1, 15, 3]
    std::vector<float> W{1.76405239f, 0.400157213f, 0.97873801f, 2.24089313f, 1.867558f, -0.977277875f, 0.950088441f, -0.151357204f, -0.103218853f, 0.410598516f, 0.144043565f, 1.45427346f, 0.761037707f, 0.121675014f, 0.443863243f, 0.333674341f, 1.49407911f, -0.205158263f, 0.313067704f, -0.854095757f, -2.55298972f, 0.653618574f, 0.864436209f, -0.742165029f, 2.26975465f, -1.45436573f, 0.0457585156f, -0.187183857f, 1.53277922f, 1.4693588f, 0.15494743f, 0.378162533f, -0.887785733f, -1.98079646f, -0.347912163f, 0.156348974f, 1.23029065f, 1.20237982f, -0.387326807f, -0.302302748f, -1.04855299f, -1.42001796f, -1.70627022f, 1.95077538f, -0.509652197f};
    // R float32 [1, 15, 5]
    std::vector<float> R{-0.438074291f, -1.25279534f, 0.777490377f, -1.6138978f, -0.212740287f, -0.895466566f, 0.386902511f, -0.51080513f, -1.18063223f, -0.028182229f, 0.428331882f, 0.0665172189f, 0.302471906f, -0.634322107f, -0.362741172f, -0.672460437f, -0.359553158f, -0.813146293f, -1.7262826f, 0.177426144f, -0.401780933f, -1.63019836f, 0.462782264f, -0.907298386f, 0.0519453958f, 0.729090571f, 0.128982916f, 1.13940072f, -1.23482585f, 0.402341634f, -0.684810102f, -0.870797157f, -0.578849673f, -0.311552525f, 0.0561653413f, -1.16514981f, 0.900826514f, 0.46566245f, -1.53624368f, 1.48825216f, 1.89588916f, 1.1787796f, -0.179924831f, -1.07075262f, 1.0544517f, -0.403176934f, 1.22244501f, 0.208274975f, 0.976639032f, 0.356366396f, 0.706573188f, 0.0105000203f, 1.78587055f, 0.126912087f, 0.401989371f, 1.8831507f, -1.34775901f, -1.27048504f, 0.96939671f, -1.17312336f, 1.94362116f, -0.413618982f, -0.747454822f, 1.92294204f, 1.48051476f, 1.86755896f, 0.906044662f, -0.861225665f, 1.91006494f, -0.268003374f, 0.802456379f, 0.947251976f, -0.155010089f, 0.614079356f, 0.9222067f};
    // B float32 [1, 30]
    std::vector<float> B{0.376425534f, -1.09940076f, 0.298238188f, 1.32638586f, -0.694567859f, -0.14963454f, -0.435153544f, 1.84926379f, 0.672294736f, 0.407461822f, -0.769916058f, 0.539249182f, -0.674332678f, 0.0318305567f, -0.635846078f, 0.676433265f, 0.576590836f, -0.208298758f, 0.396006703f, -1.09306157f, -1.49125755f, 0.439391702f, 0.166673496f, 0.635031462f, 2.38314486f, 0.944479465f, -0.912822247f, 1.11701632f, -1.31590736f, -0.461584598f};
    // Y_h float32 [1, 3, 5]
    std::vector<float> Y_h{-0.00130678061f, -0.0735266358f, 0.393016756f, -0.00113057345f, -0.148788989f, -1.13389646e-07f, -6.69003566e-06f, 0.0750085562f, -2.73153091e-06f, -0.0089931516f, -9.19529036e-12f, -5.57028423e-10f, 0.00996355526f, -6.59210997e-09f, -0.000194893437f};
    auto res = run(migraphx::make_op("gru", {{"hidden_size", 5}}),
                   {{fs({2, 3, 3}), X.data()}, {fs({1, 15, 3}), W.data()}, {fs({1, 15, 5}), R.data()}, {fs({1, 30}), B.data()}});
    expect_near(res[1].to_vector<float>(), Y_h);
    // The last step of Y is Y_h.
    auto y = res[0].to_vector<float>();
    expect_near(std::vector<float>(y.begin() + 15, y.end()), Y_h);
}

TEST(ops_gru, linear_before_reset_by_hand)
{
    // hidden 1, input 1, one step from h0, all weights distinct.
    const double wz = 0.3, wr = -0.2, wh = 0.5, rz = 0.4, rr = 0.6, rh = -0.8;
    const double bz = 0.1, br = 0.2, bh = -0.3, cz = 0.05, cr = -0.1, ch = 0.25, x = 1.5, h0 = 0.7;
    std::vector<float> xv{float(x)}, w{float(wz), float(wr), float(wh)}, r{float(rz), float(rr), float(rh)};
    std::vector<float> b{float(bz), float(br), float(bh), float(cz), float(cr), float(ch)}, h{float(h0)};
    std::vector<int> sl{1};
    double z  = sig(wz * x + rz * h0 + bz + cz);
    double rg = sig(wr * x + rr * h0 + br + cr);
    for(int lbr : {0, 1})
    {
        double ht = lbr == 0 ? std::tanh(wh * x + rh * (rg * h0) + ch + bh) : std::tanh(wh * x + rg * (rh * h0 + ch) + bh);
        double expect = (1 - z) * ht + z * h0;
        auto res = run(migraphx::make_op("gru", {{"hidden_size", 1}, {"linear_before_reset", lbr}}),
                       {{fs({1, 1, 1}), xv.data()}, {fs({1, 3, 1}), w.data()}, {fs({1, 3, 1}), r.data()},
                        {fs({1, 6}), b.data()}, {shape{shape::int32_type, {1}}, sl.data()}, {fs({1, 1, 1}), h.data()}});
        EXPECT_NEAR(res[1].to_vector<float>()[0], expect, 1e-6) << "linear_before_reset=" << lbr;
    }
}

TEST(ops_gru, program_bidirectional_matches_two_single_directions)
{
    std::vector<float> x{0.1f, -0.2f, 0.3f, 0.4f, -0.5f, 0.6f}; // {3, 1, 2}
    std::vector<float> w, r;
    for(int i = 0; i < 2 * 9 * 2; i++)
        w.push_back(0.05f * float((i * 7) % 11) - 0.25f);
    for(int i = 0; i < 2 * 9 * 3; i++)
        r.push_back(0.04f * float((i * 5) % 13) - 0.2f);
    auto run_prog = [&](const std::string& dir, std::size_t dirs, std::size_t offset) {
        migraphx::program p;
        auto* mm = p.get_main_module();
        auto xl  = mm->add_literal(migraphx::literal{fs({3, 1, 2}), x});
        auto wl  = mm->add_literal(migraphx::literal{fs({dirs, 9, 2}),
                                                    std::vector<float>(w.begin() + offset * 18, w.begin() + (offset + dirs) * 18)});
        auto rl  = mm->add_literal(migraphx::literal{fs({dirs, 9, 3}),
                                                    std::vector<float>(r.begin() + offset * 27, r.begin() + (offset + dirs) * 27)});
        auto g   = mm->add_instruction(migraphx::make_op("gru", {{"hidden_size", 3}, {"direction", dir}}), xl, wl, rl);
        mm->add_return({mm->add_instruction(migraphx::make_op("get_tuple_elem", {{"index", 0}}), g)});
        p.compile(migraphx::ref::target{});
        return p.eval({}).back().to_vector<float>();
    };
    auto both = run_prog("bidirectional", 2, 0); // {3, 2, 1, 3}
    auto fwd  = run_prog("forward", 1, 0);       // {3, 1, 1, 3}
    auto rev  = run_prog("reverse", 1, 1);
    for(std::size_t t = 0; t < 3; t++)
        for(std::size_t j = 0; j < 3; j++)
        {
            EXPECT_NEAR(both[(t * 2 + 0) * 3 + j], fwd[t * 3 + j], 1e-6f);
            EXPECT_NEAR(both[(t * 2 + 1) * 3 + j], rev[t * 3 + j], 1e-6f);
        }
}
