#include <migraphx/make_op.hpp>
#include <migraphx/argument.hpp>
#include <migraphx/errors.hpp>
#include <migraphx/program.hpp>
#include <migraphx/ref/target.hpp>
#include <gtest/gtest.h>
#include <numeric>
#include <sstream>

// Expected values below come from torch.nn.functional.conv{1,2,3}d on the same integer inputs.
namespace {
using migraphx::shape;
using lvec = std::vector<std::size_t>;
using fvec = std::vector<float>;
using dvec = std::vector<double>;

fvec seq(std::size_t n, int mul = 37, int add = 11, int mod = 17, int off = 8)
{
    fvec r(n);
    for(std::size_t i = 0; i < n; i++)
        r[i] = static_cast<float>((static_cast<int>(i) * mul + add) % mod - off);
    return r;
}
fvec wseq(std::size_t n) { return seq(n, 13, 5, 11, 5); }

migraphx::operation conv(lvec padding, lvec stride, lvec dilation, int group = 1, int padding_mode = 0)
{
    return migraphx::make_op("convolution",
                             {{"padding", padding},
                              {"stride", stride},
                              {"dilation", dilation},
                              {"group", group},
                              {"padding_mode", padding_mode}});
}
migraphx::operation conv2d(lvec padding = {0, 0}, lvec stride = {1, 1}, lvec dilation = {1, 1}, int group = 1)
{
    return conv(std::move(padding), std::move(stride), std::move(dilation), group);
}

shape fs(lvec lens) { return shape{shape::float_type, std::move(lens)}; }
lvec out_lens(const migraphx::operation& op, lvec x, lvec w) { return op.compute_shape({fs(x), fs(w)}).lens(); }

dvec run(const migraphx::operation& op, const migraphx::argument& x, const migraphx::argument& w)
{
    auto s = op.compute_shape({x.get_shape(), w.get_shape()});
    auto r = op.compute(s, {x, w});
    EXPECT_EQ(r.get_shape(), s);
    return r.to_vector<double>();
}
} // namespace

TEST(ops_convolution, prints_like_migraphx)
{
    std::ostringstream ss;
    ss << migraphx::make_op("convolution");
    EXPECT_EQ(ss.str(),
              "convolution[padding={0, 0},stride={1, 1},dilation={1, 1},group=1,padding_mode=0,"
              "use_dynamic_same_auto_pad=0]");
    ss.str("");
    ss << conv2d({3, 3, 3, 3}, {2, 2});
    EXPECT_EQ(ss.str(),
              "convolution[padding={3, 3, 3, 3},stride={2, 2},dilation={1, 1},group=1,padding_mode=0,"
              "use_dynamic_same_auto_pad=0]");
    EXPECT_EQ(migraphx::make_op("convolution"), conv2d());
    EXPECT_NE(migraphx::make_op("convolution"), conv2d({1, 1}));
}

TEST(ops_convolution, output_shape_rules)
{
    EXPECT_EQ(out_lens(conv2d(), {1, 3, 5, 5}, {2, 3, 3, 3}), (lvec{1, 2, 3, 3}));
    EXPECT_EQ(out_lens(conv2d({1, 1}), {1, 3, 5, 5}, {2, 3, 3, 3}), (lvec{1, 2, 5, 5}));
    EXPECT_EQ(out_lens(conv2d({1, 1}, {2, 2}), {2, 3, 5, 6}, {4, 3, 3, 3}), (lvec{2, 4, 3, 3}));
    EXPECT_EQ(out_lens(conv2d({0, 0}, {1, 1}, {2, 2}), {1, 3, 5, 5}, {2, 3, 3, 3}), (lvec{1, 2, 1, 1}));
    // Begin/end padding: {begin_h, begin_w, end_h, end_w}.
    EXPECT_EQ(out_lens(conv2d({1, 0, 0, 0}), {1, 3, 5, 5}, {2, 3, 3, 3}), (lvec{1, 2, 4, 3}));
    EXPECT_EQ(out_lens(conv2d({0, 1, 2, 3}), {1, 3, 5, 5}, {2, 3, 3, 3}), (lvec{1, 2, 5, 7}));
    EXPECT_EQ(out_lens(conv2d({0, 0}, {1, 1}, {1, 1}, 2), {1, 4, 5, 5}, {6, 2, 3, 3}), (lvec{1, 6, 3, 3}));
    EXPECT_EQ(out_lens(conv({1}, {2}, {1}), {1, 2, 7}, {3, 2, 3}), (lvec{1, 3, 4}));
    EXPECT_EQ(out_lens(conv({0, 0, 0}, {1, 1, 1}, {1, 1, 1}), {1, 1, 4, 4, 4}, {1, 1, 2, 2, 2}),
              (lvec{1, 1, 3, 3, 3}));
    // padding_mode same_upper (2) / same_lower (1): output = ceil(in / stride), padding ignored.
    EXPECT_EQ(out_lens(conv({0, 0}, {2, 2}, {1, 1}, 1, 2), {1, 1, 5, 6}, {1, 1, 3, 3}), (lvec{1, 1, 3, 3}));
    EXPECT_EQ(out_lens(conv({0, 0}, {1, 1}, {1, 1}, 1, 1), {1, 1, 5, 6}, {1, 1, 4, 4}), (lvec{1, 1, 5, 6}));
    // The output is standard and keeps the input type.
    auto s = conv2d().compute_shape({shape{shape::half_type, {1, 2, 4, 4}}, shape{shape::half_type, {3, 2, 1, 1}}});
    EXPECT_EQ(s, (shape{shape::half_type, {1, 3, 4, 4}}));
}

TEST(ops_convolution, bad_shapes_throw)
{
    auto ok = conv2d();
    EXPECT_THROW(ok.compute_shape({fs({1, 3, 5, 5}), fs({2, 4, 3, 3})}), migraphx::exception); // channels
    EXPECT_THROW(ok.compute_shape({fs({1, 3, 5, 5})}), migraphx::exception);                   // one input
    EXPECT_THROW(ok.compute_shape({fs({3, 5}), fs({2, 3})}), migraphx::exception);             // rank < 3
    EXPECT_THROW(ok.compute_shape({fs({1, 3, 5, 5}), fs({2, 3, 3})}), migraphx::exception);    // rank mismatch
    EXPECT_THROW(ok.compute_shape({fs({1, 3, 2, 2}), fs({2, 3, 3, 3})}), migraphx::exception); // kernel too big
    EXPECT_THROW(ok.compute_shape({fs({1, 3, 5, 5}), shape{shape::half_type, {2, 3, 3, 3}}}), migraphx::exception);
    // 3 channels in 2 groups; 4 channels in 2 groups but 2 per group != 1; 3 filters in 2 groups.
    auto g2 = conv2d({0, 0}, {1, 1}, {1, 1}, 2);
    EXPECT_THROW(g2.compute_shape({fs({1, 3, 5, 5}), fs({2, 3, 3, 3})}), migraphx::exception);
    EXPECT_THROW(g2.compute_shape({fs({1, 4, 5, 5}), fs({2, 1, 3, 3})}), migraphx::exception);
    EXPECT_THROW(g2.compute_shape({fs({1, 4, 5, 5}), fs({3, 2, 3, 3})}), migraphx::exception);
    // Attribute sizes that do not fit the spatial rank.
    EXPECT_THROW(conv2d().compute_shape({fs({1, 2, 7}), fs({3, 2, 3})}), migraphx::exception);
    EXPECT_THROW(conv({1, 1, 1}, {1, 1}, {1, 1}).compute_shape({fs({1, 3, 5, 5}), fs({2, 3, 3, 3})}),
                 migraphx::exception);
    EXPECT_THROW(conv2d({0, 0}, {0, 1}).compute_shape({fs({1, 3, 5, 5}), fs({2, 3, 3, 3})}), migraphx::exception);
    try
    {
        ok.compute_shape({fs({1, 3, 5, 5}), fs({2, 4, 3, 3})});
    }
    catch(const migraphx::exception& e)
    {
        std::string msg = e.what();
        EXPECT_NE(msg.find("convolution"), std::string::npos) << msg;
        EXPECT_NE(msg.find("{2, 4, 3, 3}"), std::string::npos) << msg;
    }
}

TEST(ops_convolution, hand_computed_2d)
{
    auto x = seq(9, 1, 1, 100, 0); // 1..9
    fvec w{1, 0, 0, 1};
    migraphx::argument xa{fs({1, 1, 3, 3}), x.data()};
    migraphx::argument wa{fs({1, 1, 2, 2}), w.data()};
    EXPECT_EQ(run(conv2d(), xa, wa), (dvec{6, 8, 12, 14}));
    // padding 1, stride 2: each window sees only the taps that land inside the input.
    EXPECT_EQ(run(conv2d({1, 1}, {2, 2}), xa, wa), (dvec{1, 3, 7, 14}));
}

TEST(ops_convolution, strided_weights_and_input)
{
    auto x = seq(9, 1, 1, 100, 0); // 1..9
    fvec wbuf{1, 2, 3, 4};
    // Logical weights [[1, 3], [2, 4]] read through transposed strides.
    migraphx::argument wt{shape{shape::float_type, {1, 1, 2, 2}, {4, 4, 1, 2}}, wbuf.data()};
    migraphx::argument xa{fs({1, 1, 3, 3}), x.data()};
    EXPECT_EQ(run(conv2d(), xa, wt), (dvec{35, 45, 65, 75}));
    // Input transposed in its spatial dims: logical x = [[1, 4, 7], [2, 5, 8], [3, 6, 9]].
    migraphx::argument xt{shape{shape::float_type, {1, 1, 3, 3}, {9, 9, 1, 3}}, x.data()};
    fvec w{1, 0, 0, 1};
    migraphx::argument wa{fs({1, 1, 2, 2}), w.data()};
    EXPECT_EQ(run(conv2d(), xt, wa), (dvec{6, 12, 8, 14}));
    // A broadcast (stride 0) weight: every tap is 2.
    fvec two{2};
    migraphx::argument wb{shape{shape::float_type, {1, 1, 2, 2}, {0, 0, 0, 0}}, two.data()};
    EXPECT_EQ(run(conv2d(), xa, wb), (dvec{24, 32, 48, 56}));
}

TEST(ops_convolution, grouped_strided_padded)
{
    auto x = seq(100);
    auto w = wseq(108);
    migraphx::argument xa{fs({1, 4, 5, 5}), x.data()};
    migraphx::argument wa{fs({6, 2, 3, 3}), w.data()};
    EXPECT_EQ(run(conv2d({1, 1}, {2, 2}, {1, 1}, 2), xa, wa),
              (dvec{-14, -12, 33, 61,  -22, -41, -14, 91,  -63, 23, -46, -2, 26, 11,  -6,  -12, -18, -45,
                    104, -91, 29, 46,  22,  29,  -32, -17, 28,  -45, -1, -2, -3, -5,  -3,  43,  47,  -53,
                    66,  -100, 41, 0,  -18, -22, -27, 9,   28,  56,  -23, 62, 80, -75, 69, 35, -62, -45}));
}

TEST(ops_convolution, dilated_and_asymmetric_padding)
{
    auto x = seq(50);
    auto w = wseq(54);
    migraphx::argument xa{fs({1, 2, 5, 5}), x.data()};
    migraphx::argument w2{fs({2, 2, 3, 3}), w.data()};
    EXPECT_EQ(run(conv2d({2, 2}, {1, 1}, {2, 2}), xa, w2),
              (dvec{-13, 13, -60, 37,  65,  32,  -10, -73, -10, -16, 31, -33, 5,   -55, -22, 71, 34,
                    -29, -10, -11, -12, 104, 38,  36,  -16, -4,  -56, -68, -76, 43, -26, -10, 15, -76,
                    9,   91,  88,  -6,  -77, -104, -20, 34,  92,  34,  -30, -56, -36, 46,  105, 41}));
    migraphx::argument w3{fs({3, 2, 3, 3}), w.data()};
    // padding begin {1, 0}, end {0, 2}
    EXPECT_EQ(run(conv2d({1, 0, 0, 2}), xa, w3),
              (dvec{-23, -12, 16, 33, 7,   14,  8,  -32, 32,  -3,  1,   -22, -79, -41, 15,
                    90,  67,  -7, 22, 50,  -100, -46, 76, -2,  13,  88,  -92, -68, 44,  -12,
                    21,  11,  -33, -6, -30, 5,   46,  -15, -56, 20, -1, -91, -62, 29,  8,
                    -25, -71, -49, 12, 34,  85,  22,  -75, 29,  46,  8,   47,  -67, -90, -10}));
}

TEST(ops_convolution, one_and_three_d)
{
    auto x1 = seq(28);
    auto w1 = wseq(18);
    migraphx::argument x1a{fs({2, 2, 7}), x1.data()};
    migraphx::argument w1a{fs({3, 2, 3}), w1.data()};
    EXPECT_EQ(run(conv({1}, {2}, {1}), x1a, w1a),
              (dvec{16, 12, -6, -41, 25, -7, -6, -23, -32, 29, -17, -5,
                    -19, -12, -30, 13, -29, 0, -33, -5, -6, -21, 52, -23}));
    auto x3 = seq(128);
    auto w3 = wseq(32);
    migraphx::argument x3a{fs({1, 2, 4, 4, 4}), x3.data()};
    migraphx::argument w3a{fs({2, 2, 2, 2, 2}), w3.data()};
    EXPECT_EQ(run(conv({1, 0, 0}, {1, 2, 1}, {1, 1, 1}), x3a, w3a),
              (dvec{-55, -27, 103, 101, 44,  21,  76,  -117, -55, -57, 158, 33, 14, 76,  -117,
                    -153, -57, 158, 37,  14,  76,  -79, -153, -57, 57,  -11, -11, 57, -28, -62,
                    -41, 47,  33,  34,  3,   6,   56,  -51, 114,  118, 28,  -45, -41, 56, -51,
                    -64, 118, 28,  -53, -41, 56,  -59, -64, 118,  -12, -54, -45, 43,  -16, -7}));
}

TEST(ops_convolution, same_upper_padding_mode)
{
    // 1-d, in 4, kernel 2, stride 1: same_upper pads one at the end, same_lower one at the start.
    fvec x{1, 2, 3, 4};
    fvec w{1, 10};
    migraphx::argument xa{fs({1, 1, 4}), x.data()};
    migraphx::argument wa{fs({1, 1, 2}), w.data()};
    EXPECT_EQ(run(conv({0}, {1}, {1}, 1, 2), xa, wa), (dvec{21, 32, 43, 4}));
    EXPECT_EQ(run(conv({0}, {1}, {1}, 1, 1), xa, wa), (dvec{10, 21, 32, 43}));
}

TEST(ops_convolution, half_and_double)
{
    std::vector<migraphx::half> xh{1, 2, 3, 4};
    std::vector<migraphx::half> wh{0.5f, 0.25f};
    migraphx::argument xa{shape{shape::half_type, {1, 1, 4}}, xh.data()};
    migraphx::argument wa{shape{shape::half_type, {1, 1, 2}}, wh.data()};
    EXPECT_EQ(run(conv({0}, {1}, {1}), xa, wa), (dvec{1, 1.75, 2.5}));
    std::vector<double> xd{1, 2, 3, 4};
    std::vector<double> wd{1e-3, 1};
    migraphx::argument xda{shape{shape::double_type, {1, 1, 4}}, xd.data()};
    migraphx::argument wda{shape{shape::double_type, {1, 1, 2}}, wd.data()};
    auto r = run(conv({0}, {1}, {1}), xda, wda);
    dvec expected{2.001, 3.002, 4.003};
    ASSERT_EQ(r.size(), expected.size());
    for(std::size_t i = 0; i < r.size(); i++)
        EXPECT_NEAR(r[i], expected[i], 1e-12);
}

TEST(ops_convolution, through_a_ref_program)
{
    // conv (weights [[1, 0], [0, 1]]) -> global max pool, with the input as a parameter.
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto x   = mm->add_parameter("x", fs({1, 1, 3, 3}));
    auto w   = mm->add_literal(migraphx::literal{fs({1, 1, 2, 2}), fvec{1, 0, 0, 1}});
    auto c   = mm->add_instruction(conv2d(), x, w);
    EXPECT_EQ(c->get_shape(), fs({1, 1, 2, 2}));
    auto pool = mm->add_instruction(
        migraphx::make_op("pooling", {{"mode", "max"}, {"global", true}}), c);
    mm->add_return({c, pool});
    p.compile(migraphx::ref::target{});
    auto xv = seq(9, 1, 1, 100, 0); // 1..9
    auto r  = p.eval({{"x", migraphx::argument{fs({1, 1, 3, 3}), xv.data()}}});
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r[0].to_vector<double>(), (dvec{6, 8, 12, 14}));
    EXPECT_EQ(r[1].to_vector<double>(), (dvec{14}));
}
