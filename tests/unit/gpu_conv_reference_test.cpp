// conv_reference.hpp: the exact result of a convolution problem at sampled outputs (checked
// against the ref target's convolution), and the accuracy measure the convolution search uses
// to refuse an engine that rounds more than a half result must (checked on results rounded
// once, with float sums, rounded twice, and by half-precision Winograd arithmetic). On a device:
// a half convolution compiled for gpu is within the limit of the exact result.
#include <gtest/gtest.h>
#ifdef MIGRAPHX_HAVE_GPU
#include "gpu_test_util.hpp"
#include "scoped_env.hpp"
#include "targets/gpu/conv_reference.hpp"
#include <migraphx/errors.hpp>
#include <migraphx/half.hpp>
#include <migraphx/literal.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/compile_options.hpp>
#include <array>
#include <iostream>
#include <random>
#include <sstream>
#include <cmath>
#include <limits>
#include <map>

using migraphx::half;
using migraphx::make_op;
using migraphx::shape;
namespace dnn = migraphx::gpu::dnn;

namespace {

/// Standard (NCHW) or channels-last (NHWC) strides of lens.
std::vector<std::size_t> strides_of(const std::vector<std::size_t>& lens, bool channels_last)
{
    std::vector<std::size_t> order(lens.size());
    for(std::size_t i = 0; i < lens.size(); i++)
        order[i] = i;
    if(channels_last) // N, spatial..., C
    {
        order.erase(order.begin() + 1);
        order.push_back(1);
    }
    std::vector<std::size_t> s(lens.size());
    std::size_t step = 1;
    for(auto it = order.rbegin(); it != order.rend(); ++it)
    {
        s[*it] = step;
        step *= lens[*it];
    }
    return s;
}

/// Every logical index of dims, in standard order.
std::vector<std::vector<std::int64_t>> all_indices(const std::vector<std::int64_t>& dims)
{
    std::vector<std::vector<std::int64_t>> r;
    std::vector<std::int64_t> i(dims.size(), 0);
    std::int64_t total = 1;
    for(auto d : dims)
        total *= d;
    for(std::int64_t n = 0; n < total; n++)
    {
        r.push_back(i);
        for(auto d = dims.size(); d-- > 0;)
        {
            if(++i[d] < dims[d])
                break;
            i[d] = 0;
        }
    }
    return r;
}

std::int64_t offset_of(const dnn::tensor_spec& t, const std::vector<std::int64_t>& i)
{
    std::int64_t o = 0;
    for(std::size_t d = 0; d < i.size(); d++)
        o += i[d] * t.strides[d];
    return o;
}

/// A tensor as the search's buffer holds it (the pattern by memory offset), in standard order
/// of the logical lens (the spec's dims cut back to `rank`).
migraphx::literal logical_literal(const dnn::tensor_spec& t, const dnn::fill_pattern& p, const std::vector<std::size_t>& lens)
{
    std::vector<float> v;
    for(const auto& i : all_indices(t.dims))
        v.push_back(static_cast<float>(p.at(offset_of(t, i))));
    return migraphx::literal{shape{shape::float_type, lens}, v};
}

struct problem
{
    std::vector<std::size_t> x, w, padding, stride, dilation;
    bool channels_last = false, bias = false, z = false, relu = false;
};

struct built
{
    dnn::conv_graph_spec spec;
    dnn::fill_pattern px, pw, pb, pz;
    shape ys;
};

built build(const problem& pr)
{
    auto kd = pr.x.size() - 2;
    shape xs{shape::half_type, pr.x, strides_of(pr.x, pr.channels_last)};
    shape ws{shape::half_type, pr.w, strides_of(pr.w, pr.channels_last)};
    std::vector<std::size_t> yl{pr.x[0], pr.w[0]};
    for(std::size_t d = 0; d < kd; d++)
    {
        auto span = pr.dilation[d] * (pr.w[d + 2] - 1) + 1;
        yl.push_back((pr.x[d + 2] + pr.padding[d] + pr.padding[d + kd] - span) / pr.stride[d] + 1);
    }
    shape ys{shape::half_type, yl, strides_of(yl, pr.channels_last)};
    built b{dnn::make_conv_spec(xs, ws, ys, pr.padding, pr.stride, pr.dilation, pr.bias, pr.z, pr.relu),
            dnn::fill_pattern::make(xs.elements(), 1.0f, 1),
            dnn::fill_pattern::make(ws.elements(), 0.5f, 2),
            dnn::fill_pattern::make(pr.w[0], 1.0f, 3),
            dnn::fill_pattern::make(ys.elements(), 1.0f, 4),
            ys};
    return b;
}

/// The ref target's float result of the problem on the search's inputs, by y's memory offset.
std::map<std::int64_t, double> ref_result(const problem& pr, const built& b)
{
    migraphx::program p;
    auto* m  = p.get_main_module();
    auto y_l = b.ys.lens();
    auto x   = m->add_literal(logical_literal(b.spec.x, b.px, pr.x));
    auto w   = m->add_literal(logical_literal(b.spec.w, b.pw, pr.w));
    auto group = static_cast<std::int64_t>(pr.x[1] / pr.w[1]);
    auto r = m->add_instruction(make_op("convolution", {{"padding", pr.padding},
                                                        {"stride", pr.stride},
                                                        {"dilation", pr.dilation},
                                                        {"group", group}}),
                                x, w);
    if(pr.bias)
    {
        std::vector<float> bv;
        for(std::size_t k = 0; k < pr.w[0]; k++)
            bv.push_back(static_cast<float>(b.pb.at(static_cast<std::int64_t>(k))));
        auto bl = m->add_literal(migraphx::literal{shape{shape::float_type, {pr.w[0]}}, bv});
        r = m->add_instruction(make_op("add"), r,
                               m->add_instruction(make_op("broadcast", {{"axis", 1}, {"out_lens", y_l}}), bl));
    }
    if(pr.z)
        r = m->add_instruction(make_op("add"), r, m->add_literal(logical_literal(b.spec.z, b.pz, y_l)));
    if(pr.relu)
        r = m->add_instruction(make_op("relu"), r);
    m->add_return({r});
    p.compile(migraphx::ref::target{});
    auto out = p.eval({}).back().to_vector<double>();
    std::map<std::int64_t, double> by_offset;
    auto idx = all_indices(b.spec.y.dims);
    for(std::size_t i = 0; i < idx.size(); i++)
        by_offset[offset_of(b.spec.y, idx[i])] = out[i];
    return by_offset;
}

void expect_reference_matches_ref(const problem& pr, const std::string& what, std::size_t samples = 256)
{
    auto b     = build(pr);
    auto limit = b.ys.elements();
    auto r     = dnn::make_conv_reference(b.spec, b.px, b.pw, b.pb, b.pz, limit, samples);
    ASSERT_EQ(r.offsets.size(), samples) << what;
    ASSERT_EQ(r.exact.size(), r.offsets.size()) << what;
    EXPECT_GT(r.rounding_rms, 0) << what;
    auto want = ref_result(pr, b);
    std::size_t nonzero = 0;
    for(std::size_t i = 0; i < r.offsets.size(); i++)
    {
        ASSERT_LT(r.offsets[i], limit) << what;
        auto w = want.at(static_cast<std::int64_t>(r.offsets[i]));
        EXPECT_NEAR(r.exact[i], w, 1e-5 * (1 + std::fabs(w))) << what << ": sample " << i << " (offset " << r.offsets[i] << ")";
        nonzero += r.exact[i] != 0 ? 1 : 0;
    }
    EXPECT_GT(nonzero, r.offsets.size() / 4) << what << ": the samples are not all padding or relu zeros";
}

/// y as halves (its first `limit` elements) with value(i) at each sampled offset i of r.
template <class F>
std::vector<std::uint16_t> result_of(const dnn::exact_samples& r, std::size_t limit, F value)
{
    std::vector<std::uint16_t> y(limit, 0);
    for(std::size_t i = 0; i < r.offsets.size(); i++)
        y[r.offsets[i]] = half(static_cast<float>(value(i))).bits;
    return y;
}

/// A half's spacing at v (one unit in the last place).
double ulp(double v)
{
    int e = 0;
    std::frexp(std::max(std::fabs(v), 6.1e-5), &e);
    return std::ldexp(1.0, e - 11);
}

} // namespace

TEST(gpu_conv_reference, exact_results_match_ref_nchw_bias_residual_relu)
{
    expect_reference_matches_ref({{2, 8, 9, 9}, {6, 8, 3, 3}, {1, 1, 1, 1}, {2, 2}, {1, 1}, false, true, true, true},
                                 "NCHW, stride 2, bias + z, relu");
}

TEST(gpu_conv_reference, exact_results_match_ref_nhwc_groups_dilation)
{
    expect_reference_matches_ref({{2, 8, 10, 7}, {6, 4, 3, 2}, {2, 0, 1, 1}, {1, 1}, {2, 1}, true, false, false, false},
                                 "NHWC, 2 groups, dilation 2, asymmetric kernel");
    expect_reference_matches_ref({{1, 6, 7, 7}, {6, 1, 3, 3}, {1, 1, 1, 1}, {1, 1}, {1, 1}, true, true, false, false},
                                 "NHWC depthwise + bias");
}

TEST(gpu_conv_reference, exact_results_match_ref_one_and_three_spatial_dims)
{
    expect_reference_matches_ref({{2, 5, 17}, {4, 5, 3}, {1, 1}, {1}, {1}, false, false, false, true}, "1-d, relu");
    expect_reference_matches_ref({{1, 3, 5, 6, 4}, {4, 3, 3, 3, 1}, {1, 1, 0, 1, 1, 0}, {1, 2, 1}, {1, 1, 1}, false,
                                  true, false, false},
                                 "3-d + bias");
}

// Over a million terms the samples are computed by several threads.
TEST(gpu_conv_reference, exact_results_match_ref_on_a_problem_large_enough_for_threads)
{
    expect_reference_matches_ref({{1, 256, 8, 8}, {64, 256, 3, 3}, {1, 1, 1, 1}, {1, 1}, {1, 1}, true, true, true, true},
                                 "NHWC 3x3x256, bias + z, relu", 512);
}

TEST(gpu_conv_reference, samples_stay_below_the_limit_and_int8_is_not_described)
{
    problem pr{{4, 8, 6, 6}, {8, 8, 1, 1}, {0, 0, 0, 0}, {1, 1}, {1, 1}, true};
    auto b = build(pr);
    auto r = dnn::make_conv_reference(b.spec, b.px, b.pw, b.pb, b.pz, 100, 64);
    ASSERT_EQ(r.offsets.size(), 64u);
    for(auto o : r.offsets)
        EXPECT_LT(o, 100u);
    shape x8{shape::int8_type, {1, 4, 4, 4}, {64, 1, 16, 4}}, w8{shape::int8_type, {4, 4, 1, 1}, {4, 1, 4, 4}};
    shape y8{shape::float_type, {1, 4, 4, 4}, {64, 1, 16, 4}};
    auto s8 = dnn::make_int8_conv_spec(x8, w8, y8, {0, 0, 0, 0}, {1, 1}, {1, 1}, false, false, false);
    EXPECT_TRUE(dnn::make_conv_reference(s8, b.px, b.pw, b.pb, b.pz, 64).offsets.empty());
}

// A half result rounded once from the exact value is the measure's unit; float sums (as
// tensor-core engines accumulate), and an epilogue applied to a rounded convolution, stay under
// the default limit; Winograd F(4,3) with its transforms in half, several ulps off, and NaN do not.
TEST(gpu_conv_reference, accuracy_separates_engines_that_round_more)
{
    // A 1-d problem of 64 channels, kernel 3, so that Winograd's 4-wide output tiles apply.
    problem pr{{2, 64, 66}, {32, 64, 3}, {0, 0}, {1}, {1}, false, true, true, false};
    auto b     = build(pr);
    auto limit = b.ys.elements();
    auto r     = dnn::make_conv_reference(b.spec, b.px, b.pw, b.pb, b.pz, limit, 512);
    ASSERT_EQ(r.offsets.size(), 512u);
    auto rounded_once = dnn::measure_accuracy(r, result_of(r, limit, [&](auto i) { return r.exact[i]; }).data());
    EXPECT_NEAR(rounded_once.ratio, 1.0, 1e-9);
    EXPECT_TRUE(dnn::accurate_enough(rounded_once, 2));

    // The sampled element's terms, for the engines simulated below.
    auto x_at = [&](std::int64_t n, std::int64_t c, std::int64_t p) {
        return b.px.at(n * b.spec.x.strides[0] + c * b.spec.x.strides[1] + p * b.spec.x.strides[2]);
    };
    auto w_at = [&](std::int64_t k, std::int64_t c, std::int64_t s) {
        return b.pw.at(k * b.spec.w.strides[0] + c * b.spec.w.strides[1] + s * b.spec.w.strides[2]);
    };
    auto where = [&](std::size_t i) {
        auto o = static_cast<std::int64_t>(r.offsets[i]);
        std::int64_t n = o / b.spec.y.strides[0], k = o % b.spec.y.strides[0] / b.spec.y.strides[1],
                     p = o % b.spec.y.strides[1];
        return std::array<std::int64_t, 3>{n, k, p};
    };
    auto epilogue = [&](std::size_t i, double conv) {
        return conv + b.pb.at(where(i)[1]) + b.pz.at(static_cast<std::int64_t>(r.offsets[i]));
    };
    auto float_sums = dnn::measure_accuracy(r, result_of(r, limit, [&](auto i) {
        auto [n, k, p] = where(i);
        float acc      = 0;
        for(std::int64_t c = 0; c < 64; c++)
            for(std::int64_t s = 0; s < 3; s++)
                acc += static_cast<float>(x_at(n, c, p + s) * w_at(k, c, s));
        return static_cast<double>(epilogue(i, acc));
    }).data());
    EXPECT_LT(float_sums.ratio, 1.1) << float_sums.str();

    auto rounded_twice = dnn::measure_accuracy(r, result_of(r, limit, [&](auto i) {
        auto [n, k, p] = where(i);
        double conv    = 0;
        for(std::int64_t c = 0; c < 64; c++)
            for(std::int64_t s = 0; s < 3; s++)
                conv += x_at(n, c, p + s) * w_at(k, c, s);
        return epilogue(i, static_cast<float>(half(static_cast<float>(conv))));
    }).data());
    EXPECT_TRUE(dnn::accurate_enough(rounded_twice, 2)) << rounded_twice.str();

    // Winograd F(4,3) (Lavin and Gray's points 0, +-1, +-2): the input and filter transforms
    // rounded to half, products summed in float, the output transform in float.
    auto winograd_with = [&](bool half_transforms) {
        auto hr = [&](double v) {
            return half_transforms ? static_cast<double>(static_cast<float>(half(static_cast<float>(v)))) : v;
    };
    return dnn::measure_accuracy(r, result_of(r, limit, [&](auto i) {
        auto [n, k, p] = where(i);
        auto tile      = p / 4 * 4; // the 4 outputs p belongs to read inputs tile..tile+5
        std::array<float, 6> m{};
        for(std::int64_t c = 0; c < 64; c++)
        {
            std::array<double, 6> d{};
            for(std::int64_t j = 0; j < 6; j++)
                d[j] = tile + j < 66 ? x_at(n, c, tile + j) : 0.0;
            std::array<double, 6> v{4 * d[0] - 5 * d[2] + d[4],
                                    -4 * d[1] - 4 * d[2] + d[3] + d[4],
                                    4 * d[1] - 4 * d[2] - d[3] + d[4],
                                    -2 * d[1] - d[2] + 2 * d[3] + d[4],
                                    2 * d[1] - d[2] - 2 * d[3] + d[4],
                                    4 * d[1] - 5 * d[3] + d[5]};
            double g0 = w_at(k, c, 0), g1 = w_at(k, c, 1), g2 = w_at(k, c, 2);
            std::array<double, 6> u{g0 / 4,
                                    -(g0 + g1 + g2) / 6,
                                    -(g0 - g1 + g2) / 6,
                                    g0 / 24 + g1 / 12 + g2 / 6,
                                    g0 / 24 - g1 / 12 + g2 / 6,
                                    g2};
            for(std::size_t j = 0; j < 6; j++)
                m[j] += static_cast<float>(hr(v[j]) * hr(u[j]));
        }
        std::array<double, 4> out{m[0] + m[1] + m[2] + m[3] + m[4],
                                  m[1] - m[2] + 2.0 * (m[3] - m[4]),
                                  m[1] + m[2] + 4.0 * (m[3] + m[4]),
                                  m[1] - m[2] + 8.0 * (m[3] - m[4]) + m[5]};
        return epilogue(i, out[static_cast<std::size_t>(p - tile)]);
    }).data());
    };
    // The simulation is a Winograd convolution: with its transforms exact it rounds about once
    // (float sums), so what the half transforms add is their rounding.
    auto winograd_exact = winograd_with(false);
    EXPECT_LT(winograd_exact.ratio, 1.1) << winograd_exact.str();
    auto winograd = winograd_with(true);
    EXPECT_FALSE(dnn::accurate_enough(winograd, 2)) << winograd.str();

    auto off_by_ulps = dnn::measure_accuracy(r, result_of(r, limit, [&](auto i) {
        return r.exact[i] + (i % 2 == 0 ? 3 : -3) * ulp(r.exact[i]);
    }).data());
    EXPECT_FALSE(dnn::accurate_enough(off_by_ulps, 2)) << off_by_ulps.str();
    EXPECT_TRUE(dnn::accurate_enough(off_by_ulps, 0)) << "a limit of 0 turns the check off";

    auto y = result_of(r, limit, [&](auto i) { return r.exact[i]; });
    y[r.offsets[7]] = 0x7e00; // NaN
    EXPECT_TRUE(std::isinf(dnn::measure_accuracy(r, y.data()).ratio));
    std::cout << "[ ratios ] float sums " << float_sums.ratio << ", rounded twice " << rounded_twice.ratio
              << ", Winograd F(4,3) exact " << winograd_exact.ratio << ", in half " << winograd.ratio << ", 3 ulps " << off_by_ulps.ratio << "\n";
}

// On a device: half convolutions of ResNet's kinds, compiled for gpu (the search picks their
// engines), come within the default limit of a single rounding of the exact result (RMS over
// every output).
TEST(gpu_conv_reference, compiled_half_convolutions_round_like_a_single_rounding)
{
    MIGX_REQUIRE_GPU();
    struct conv_case
    {
        std::vector<std::size_t> x, w;
        std::size_t pad, stride;
    };
    for(const auto& c : {conv_case{{8, 64, 28, 28}, {64, 64, 3, 3}, 1, 1},
                         conv_case{{8, 128, 28, 28}, {128, 128, 3, 3}, 1, 2},
                         conv_case{{8, 256, 14, 14}, {256, 256, 3, 3}, 1, 1},
                         conv_case{{4, 3, 56, 56}, {64, 3, 7, 7}, 3, 2}})
    {
        std::mt19937 gen(5);
        std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
        auto values = [&](std::size_t n, float scale) {
            std::vector<double> v(n);
            for(auto& e : v)
                e = static_cast<float>(half(scale * dist(gen)));
            return v;
        };
        shape xs{shape::half_type, c.x}, ws{shape::half_type, c.w};
        auto xv = values(xs.elements(), 1.0f), wv = values(ws.elements(), 0.5f);
        auto conv = make_op("convolution", {{"padding", {c.pad, c.pad}}, {"stride", {c.stride, c.stride}}});
        // The exact result: the same values in double on ref.
        migraphx::program d;
        {
            auto* m = d.get_main_module();
            auto x  = m->add_literal(migraphx::literal{shape{shape::double_type, c.x}, xv});
            auto w  = m->add_literal(migraphx::literal{shape{shape::double_type, c.w}, wv});
            m->add_return({m->add_instruction(conv, x, w)});
        }
        d.compile(migraphx::ref::target{});
        auto want = d.eval({}).back().to_vector<double>();
        migraphx::program p;
        {
            auto* m = p.get_main_module();
            auto x  = m->add_parameter("x", xs);
            auto w  = m->add_literal(migraphx::literal{ws, wv});
            m->add_return({m->add_instruction(conv, x, w)});
        }
        migraphx::compile_options opts;
        opts.offload_copy = true;
        p.compile(migraphx::get_target("gpu"), opts);
        migraphx::argument xa{xs};
        auto* xh = reinterpret_cast<half*>(xa.data());
        for(std::size_t i = 0; i < xv.size(); i++)
            xh[i] = half(static_cast<float>(xv[i]));
        auto got = p.eval({{"x", xa}}).back().to_vector<double>();
        ASSERT_EQ(got.size(), want.size());
        double err = 0, rounding = 0;
        for(std::size_t i = 0; i < got.size(); i++)
        {
            err += (got[i] - want[i]) * (got[i] - want[i]);
            auto once = static_cast<double>(static_cast<float>(half(static_cast<float>(want[i]))));
            rounding += (once - want[i]) * (once - want[i]);
        }
        auto ratio = std::sqrt(err / rounding);
        std::ostringstream what_os;
        what_os << "x " << xs << ", w " << ws;
        auto what = what_os.str();
        EXPECT_LE(ratio, 2.0) << what << ": error " << ratio << "x a single rounding";
        std::cout << "[ ratio ] " << what << ": " << ratio << "\n";
    }
}

#else
TEST(gpu_conv_reference, skipped) { GTEST_SKIP() << "built without CUDA"; }
#endif
