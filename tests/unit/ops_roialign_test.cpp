#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/ref/target.hpp>
#include <gtest/gtest.h>
#include <cmath>
#include <cstring>
#include <limits>

namespace {
using migraphx::shape;
using lvec = std::vector<std::size_t>;
shape fs(lvec l) { return shape{shape::float_type, std::move(l)}; }
migraphx::operation roi(const std::string& ctm, const std::string& mode, std::int64_t oh, std::int64_t ow, std::int64_t sr)
{
    return migraphx::make_op("roialign",
                             {{"coordinate_transformation_mode", ctm},
                              {"mode", mode},
                              {"output_height", oh},
                              {"output_width", ow},
                              {"sampling_ratio", sr}});
}
void expect_near(const std::vector<float>& a, const std::vector<float>& b, float tol = 1e-4f)
{
    ASSERT_EQ(a.size(), b.size());
    for(std::size_t i = 0; i < a.size(); i++)
        EXPECT_NEAR(a[i], b[i], tol) << "at " << i;
}
} // namespace

TEST(ops_roialign, shape_rules_and_bad_inputs)
{
    auto op = roi("half_pixel", "avg", 3, 2, 0);
    shape bi{shape::int64_type, {5}};
    EXPECT_EQ(op.compute_shape({fs({2, 4, 8, 8}), fs({5, 4}), bi}), fs({5, 4, 3, 2}));
    EXPECT_THROW(op.compute_shape({fs({2, 4, 8}), fs({5, 4}), bi}), migraphx::exception);
    EXPECT_THROW(op.compute_shape({fs({2, 4, 8, 8}), fs({5, 5}), bi}), migraphx::exception);
    EXPECT_THROW(op.compute_shape({fs({2, 4, 8, 8}), fs({4, 4}), bi}), migraphx::exception);
    EXPECT_THROW(op.compute_shape({fs({2, 4, 8, 8}), fs({5, 4}), fs({5})}), migraphx::exception);
    EXPECT_THROW(roi("asymmetric", "avg", 1, 1, 0).compute_shape({fs({2, 4, 8, 8}), fs({5, 4}), bi}),
                 migraphx::exception);
    EXPECT_THROW(roi("half_pixel", "min", 1, 1, 0).compute_shape({fs({2, 4, 8, 8}), fs({5, 4}), bi}),
                 migraphx::exception);
    std::ostringstream ss;
    ss << migraphx::make_op("roialign");
    EXPECT_EQ(ss.str(), "roialign[coordinate_transformation_mode=half_pixel,mode=avg,output_height=1,output_width=1,"
                        "sampling_ratio=0,spatial_scale=1]");
    // A batch index out of range is caught when the op runs.
    std::vector<float> x(4, 1.0f), rois{0, 0, 1, 1};
    std::vector<std::int64_t> b{1};
    shape bs{shape::int64_type, {1}};
    EXPECT_THROW(op.compute(fs({1, 1, 3, 2}), {{fs({1, 1, 2, 2}), x.data()}, {fs({1, 4}), rois.data()}, {bs, b.data()}}),
                 migraphx::exception);
}

TEST(ops_roialign, avg_and_max_by_hand)
{
    // One 2x2 image [[1, 2], [3, 4]]; the roi covers it; one bin, one sample at its centre.
    std::vector<float> x{1, 2, 3, 4}, rois{0, 0, 2, 2};
    std::vector<int> b{0};
    std::vector<migraphx::argument> args{{fs({1, 1, 2, 2}), x.data()}, {fs({1, 4}), rois.data()},
                                         {shape{shape::int32_type, {1}}, b.data()}};
    // half_pixel: roi [-0.5, 1.5], centre 0.5 -> bilinear (1+2+3+4)/4.
    auto op = roi("half_pixel", "avg", 1, 1, 1);
    EXPECT_NEAR(op.compute(fs({1, 1, 1, 1}), args).to_vector<float>()[0], 2.5f, 1e-6f);
    // output_half_pixel: roi [0, 2], centre 1.0 -> clamps to the last pixel row/column: 4.
    op = roi("output_half_pixel", "avg", 1, 1, 1);
    EXPECT_NEAR(op.compute(fs({1, 1, 1, 1}), args).to_vector<float>()[0], 4.0f, 1e-6f);
    // max takes the largest weighted corner term (ONNX Runtime's definition): one sample at the
    // centre weighs each pixel 0.25 -> max(0.25, 0.5, 0.75, 1.0) = 1.
    op = roi("half_pixel", "max", 1, 1, 1);
    EXPECT_NEAR(op.compute(fs({1, 1, 1, 1}), args).to_vector<float>()[0], 1.0f, 1e-6f);
    // 2x2 samples at 0 and 1 land on pixels exactly: the (1, 1) sample gives 4.
    op = roi("half_pixel", "max", 1, 1, 2);
    EXPECT_NEAR(op.compute(fs({1, 1, 1, 1}), args).to_vector<float>()[0], 4.0f, 1e-6f);
    op = roi("half_pixel", "avg", 1, 1, 2);
    EXPECT_NEAR(op.compute(fs({1, 1, 1, 1}), args).to_vector<float>()[0], 2.5f, 1e-6f);
}

TEST(ops_roialign, onnx_aligned_true_and_false)
{
    // X float32 [1, 1, 10, 10]
    std::vector<float> X{0.2764f, 0.714999974f, 0.195800006f, 0.341600001f, 0.463800013f, 0.0259000007f, 0.296299994f, 0.651799977f, 0.485599995f, 0.725000024f, 0.963699996f, 0.0895000026f, 0.291900009f, 0.675300002f, 0.0233999994f, 0.613200009f, 0.808499992f, 0.532400012f, 0.899200022f, 0.446700007f, 0.326499999f, 0.847899973f, 0.969799995f, 0.247099996f, 0.933600008f, 0.187800005f, 0.476599991f, 0.430799991f, 0.340000004f, 0.216199994f, 0.0206000004f, 0.172000006f, 0.215499997f, 0.439399987f, 0.0653000027f, 0.340600014f, 0.772400022f, 0.392100006f, 0.254099995f, 0.579900026f, 0.406199992f, 0.219400004f, 0.447299987f, 0.468699992f, 0.710900009f, 0.932699978f, 0.98150003f, 0.632000029f, 0.172800004f, 0.611899972f, 0.309700012f, 0.128299996f, 0.498400003f, 0.506799996f, 0.427899987f, 0.0173000004f, 0.438800007f, 0.0430000015f, 0.467099994f, 0.711899996f, 0.101099998f, 0.8477f, 0.472600013f, 0.177699998f, 0.992299974f, 0.404199988f, 0.186900005f, 0.779500008f, 0.994599998f, 0.968900025f, 0.136600003f, 0.3671f, 0.701099992f, 0.623399973f, 0.986699998f, 0.558499992f, 0.698499978f, 0.560899973f, 0.878799975f, 0.992799997f, 0.569700003f, 0.851100028f, 0.67110002f, 0.940599978f, 0.875100017f, 0.749599993f, 0.165000007f, 0.104900002f, 0.155900002f, 0.251399994f, 0.701200008f, 0.405600011f, 0.787899971f, 0.346100003f, 0.0414999984f, 0.299800009f, 0.50940001f, 0.372700006f, 0.548200011f, 0.0502000004f};
    // rois float32 [3, 4]
    std::vector<float> rois{0.0f, 0.0f, 9.0f, 9.0f, 0.0f, 5.0f, 4.0f, 9.0f, 5.0f, 5.0f, 9.0f, 9.0f};
    // batch_indices int64 [3]
    std::vector<std::int64_t> batch_indices{0, 0, 0};
    // Y float32 [3, 1, 5, 5]
    std::vector<float> Y_true{0.517799973f, 0.343400002f, 0.322899997f, 0.447400004f, 0.63440001f, 0.403100014f, 0.536599994f, 0.442799985f, 0.486099988f, 0.4023f, 0.251199991f, 0.400200009f, 0.515500009f, 0.6954f, 0.346500009f, 0.335000008f, 0.460099995f, 0.588100016f, 0.343899995f, 0.684899986f, 0.493200004f, 0.714100003f, 0.821699977f, 0.471899986f, 0.403899997f, 0.307000011f, 0.218700007f, 0.333700001f, 0.488000005f, 0.486999989f, 0.187099993f, 0.491400003f, 0.556100011f, 0.419200003f, 0.368600011f, 0.143299997f, 0.460799992f, 0.597100019f, 0.531000018f, 0.498199999f, 0.278800011f, 0.438600004f, 0.602199972f, 0.699999988f, 0.752399981f, 0.577400029f, 0.702400029f, 0.725099981f, 0.733799994f, 0.816299975f, 0.239299998f, 0.407499999f, 0.337900013f, 0.252499998f, 0.474299997f, 0.3671f, 0.270200014f, 0.41049999f, 0.641900003f, 0.830799997f, 0.555599988f, 0.454299986f, 0.556400001f, 0.750199974f, 0.930000007f, 0.662599981f, 0.561699986f, 0.481299996f, 0.495400012f, 0.666299999f, 0.663600028f, 0.372099996f, 0.205599993f, 0.1928f, 0.247799993f};
    std::vector<float> Y_false{0.466399997f, 0.44659999f, 0.340499997f, 0.568799973f, 0.60680002f, 0.371399999f, 0.4296f, 0.38350001f, 0.556200027f, 0.351000011f, 0.276800007f, 0.488299996f, 0.522199988f, 0.5528f, 0.417100012f, 0.471300006f, 0.484400004f, 0.690400004f, 0.492000014f, 0.877399981f, 0.623899996f, 0.712499976f, 0.628899992f, 0.335500002f, 0.3495f, 0.30219999f, 0.430500001f, 0.469599992f, 0.397799999f, 0.542299986f, 0.36559999f, 0.704999983f, 0.516499996f, 0.317200005f, 0.701499999f, 0.291200012f, 0.505900025f, 0.647599995f, 0.62349999f, 0.829900026f, 0.591600001f, 0.738900006f, 0.70480001f, 0.837199986f, 0.889299989f, 0.622699976f, 0.6153f, 0.709699988f, 0.615400016f, 0.458499998f, 0.238399997f, 0.337900013f, 0.371699989f, 0.610000014f, 0.760100007f, 0.376700014f, 0.378500015f, 0.714699984f, 0.924300015f, 0.9727f, 0.574899971f, 0.582599998f, 0.570900023f, 0.761900008f, 0.876999974f, 0.53549999f, 0.256599993f, 0.214100003f, 0.279599994f, 0.360000014f, 0.436500013f, 0.350400001f, 0.288700014f, 0.366100013f, 0.234899998f};
    shape bs{shape::int64_type, {3}};
    std::vector<migraphx::argument> args{{fs({1, 1, 10, 10}), X.data()}, {fs({3, 4}), rois.data()}, {bs, batch_indices.data()}};
    expect_near(roi("half_pixel", "avg", 5, 5, 2).compute(fs({3, 1, 5, 5}), args).to_vector<float>(), Y_true);
    expect_near(roi("output_half_pixel", "avg", 5, 5, 2).compute(fs({3, 1, 5, 5}), args).to_vector<float>(), Y_false);

    // Through a program, with the rois read from a transposed literal.
    migraphx::program p;
    auto* mm = p.get_main_module();
    std::vector<float> rois_t(12);
    for(std::size_t i = 0; i < 3; i++)
        for(std::size_t j = 0; j < 4; j++)
            rois_t[j * 3 + i] = rois[i * 4 + j];
    auto xl = mm->add_literal(migraphx::literal{fs({1, 1, 10, 10}), X});
    auto rl = mm->add_literal(migraphx::literal{fs({4, 3}), rois_t});
    auto rt = mm->add_instruction(migraphx::make_op("transpose", {{"permutation", {1, 0}}}), rl);
    auto bl = mm->add_literal(migraphx::literal{bs, batch_indices});
    mm->add_return({mm->add_instruction(roi("half_pixel", "avg", 5, 5, 2), xl, rt, bl)});
    p.compile(migraphx::ref::target{});
    expect_near(p.eval({}).back().to_vector<float>(), Y_true);
}

namespace {
// The ONNX definition one output at a time, every sample's position computed where it is used
// (as the op computed before it shared positions across channels): the op must agree bit for bit.
std::vector<float> roialign_by_definition(const std::vector<float>& x, lvec xl, const std::vector<float>& rois,
                                          const std::vector<std::int64_t>& bidx, bool half, bool is_max,
                                          std::size_t oh, std::size_t ow, std::int64_t sr, double scale)
{
    std::size_t C = xl[1], H = xl[2], W = xl[3], R = bidx.size();
    std::vector<float> out(R * C * oh * ow);
    for(std::size_t n = 0; n < R; n++)
    {
        double off = half ? 0.5 : 0.0;
        double x1 = rois[n * 4] * scale - off, y1 = rois[n * 4 + 1] * scale - off;
        double rw = rois[n * 4 + 2] * scale - off - x1, rh = rois[n * 4 + 3] * scale - off - y1;
        if(not half)
            rw = std::max(rw, 1.0), rh = std::max(rh, 1.0);
        double bh = rh / oh, bw = rw / ow;
        auto gh = static_cast<std::size_t>(sr > 0 ? sr : std::max(0.0, std::ceil(rh / oh)));
        auto gw = static_cast<std::size_t>(sr > 0 ? sr : std::max(0.0, std::ceil(rw / ow)));
        double count = std::max<double>(gh * gw, 1);
        for(std::size_t c = 0; c < C; c++)
            for(std::size_t ph = 0; ph < oh; ph++)
                for(std::size_t pw = 0; pw < ow; pw++)
                {
                    double acc = 0;
                    bool first = true;
                    for(std::size_t iy = 0; iy < gh; iy++)
                        for(std::size_t ix = 0; ix < gw; ix++)
                        {
                            double y = y1 + ph * bh + (iy + 0.5) * bh / gh, xx = x1 + pw * bw + (ix + 0.5) * bw / gw;
                            double v[4] = {0, 0, 0, 0};
                            if(not(y < -1.0 or y > double(H) or xx < -1.0 or xx > double(W)))
                            {
                                y = std::max(y, 0.0), xx = std::max(xx, 0.0);
                                auto yl = static_cast<std::size_t>(y), xl0 = static_cast<std::size_t>(xx);
                                std::size_t yh = yl + 1, xh = xl0 + 1;
                                if(yl >= H - 1)
                                    yh = yl = H - 1, y = double(yl);
                                if(xl0 >= W - 1)
                                    xh = xl0 = W - 1, xx = double(xl0);
                                double ly = y - yl, lx = xx - xl0, hy = 1 - ly, hx = 1 - lx;
                                const float* p = x.data() + (static_cast<std::size_t>(bidx[n]) * C + c) * H * W;
                                v[0] = hy * hx * double(p[yl * W + xl0]);
                                v[1] = hy * lx * double(p[yl * W + xh]);
                                v[2] = ly * hx * double(p[yh * W + xl0]);
                                v[3] = ly * lx * double(p[yh * W + xh]);
                            }
                            if(is_max)
                            {
                                double m = std::max(std::max(v[0], v[1]), std::max(v[2], v[3]));
                                acc = first ? m : std::max(acc, m);
                                first = false;
                            }
                            else
                                acc += v[0] + v[1] + v[2] + v[3];
                        }
                    out[((n * C + c) * oh + ph) * ow + pw] = static_cast<float>(is_max ? acc : acc / count);
                }
    }
    return out;
}
} // namespace

TEST(ops_roialign, many_rois_and_channels_equal_the_definition_bit_for_bit)
{
    // 5 channels: one block of channels a RoI; 37: three blocks (the last partial), so threads
    // take (RoI, channel block) items and meet a RoI more than once.
    for(std::size_t channels : {5, 37})
    {
        lvec xl{2, channels, 9, 11};
        std::vector<float> x(2 * channels * 9 * 11);
        for(std::size_t i = 0; i < x.size(); i++)
            x[i] = static_cast<float>((i * 37) % 101) * 0.1f - 3.0f;
        x[0] = std::numeric_limits<float>::infinity(); // read by no sample outside the image
        // boxes inside, across the border, wholly outside (all samples 0), empty, and in image 1
        std::vector<float> rois{1, 1, 7, 6, -3, -2, 4, 12, 20, 20, 30, 28, 3, 3, 3, 3, 0.5f, 2, 10, 8, 5, 1, 9, 4};
        std::vector<std::int64_t> bidx{0, 1, 0, 1, 1, 0};
        rois[8] = 40, rois[9] = 40, rois[10] = 50, rois[11] = 50;
        for(bool half : {true, false})
            for(bool is_max : {false, true})
                for(std::int64_t sr : {0, 2})
                {
                    auto op = migraphx::make_op("roialign",
                                                {{"coordinate_transformation_mode", half ? "half_pixel" : "output_half_pixel"},
                                                 {"mode", is_max ? "max" : "avg"},
                                                 {"output_height", 3},
                                                 {"output_width", 4},
                                                 {"sampling_ratio", sr},
                                                 {"spatial_scale", 0.5}});
                    std::vector<migraphx::argument> args{{fs(xl), x.data()}, {fs({6, 4}), rois.data()},
                                                         {shape{shape::int64_type, {6}}, bidx.data()}};
                    auto got  = op.compute(fs({6, channels, 3, 4}), args).to_vector<float>();
                    auto want = roialign_by_definition(x, xl, rois, bidx, half, is_max, 3, 4, sr, 0.5);
                    ASSERT_EQ(got.size(), want.size());
                    std::size_t differ = 0;
                    for(std::size_t i = 0; i < got.size(); i++)
                        differ += std::memcmp(&got[i], &want[i], sizeof(float)) != 0 ? 1 : 0;
                    EXPECT_EQ(differ, 0u) << channels << " channels, half " << half << " max " << is_max
                                          << " sampling " << sr;
                }
    }
}
