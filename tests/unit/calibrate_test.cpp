// Calibration for quantize_int8: ranges, histograms, per-channel means and clipping thresholds.
#include "quantize/calibrate.hpp"
#include "scoped_env.hpp"
#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/ref/target.hpp>
#include <gtest/gtest.h>
#ifdef MIGRAPHX_HAVE_CPU
#include <migraphx/cpu/target.hpp>
#endif
#include <cmath>
#include <sstream>

namespace {
using migraphx::make_op;
using migraphx::shape;

migraphx::value_range uniform(float top, std::size_t count_per_bin = 10)
{
    migraphx::value_range r;
    r.abs_max = top;
    r.hist.assign(migraphx::hist_bins, static_cast<double>(count_per_bin));
    return r;
}

TEST(calibrate, max_is_the_largest_value)
{
    auto r = uniform(3.0f);
    EXPECT_EQ(migraphx::choose_threshold(r, 127, "max"), 3.0f);
    migraphx::value_range no_hist;
    no_hist.abs_max = 2.0f;
    EXPECT_EQ(migraphx::choose_threshold(no_hist, 127, "mse"), 2.0f) << "no histogram: max";
}

TEST(calibrate, percentile)
{
    auto r = uniform(4.0f);
    EXPECT_NEAR(migraphx::choose_threshold(r, 127, "percentile:50"), 2.0f, 4.0 / migraphx::hist_bins);
    EXPECT_NEAR(migraphx::choose_threshold(r, 127, "percentile:100"), 4.0f, 1e-6);
    EXPECT_THROW(migraphx::choose_threshold(r, 127, "percentile:0"), migraphx::exception);
    EXPECT_THROW(migraphx::choose_threshold(r, 127, "percentile:101"), migraphx::exception);
    EXPECT_THROW(migraphx::choose_threshold(r, 127, "percentile:x"), migraphx::exception);
    EXPECT_THROW(migraphx::choose_threshold(r, 127, "kl"), migraphx::exception);
}

TEST(calibrate, mse_clips_rare_outliers_but_not_uniform_data)
{
    // uniform data: clipping only hurts, the whole range stays
    EXPECT_NEAR(migraphx::choose_threshold(uniform(1.0f), 127, "mse"), 1.0f, 0.01);
    // a bulk in [0, 0.1] and one value at 1: the range shrinks to about the bulk
    migraphx::value_range r;
    r.abs_max = 1.0f;
    r.hist.assign(migraphx::hist_bins, 0.0);
    for(std::size_t b = 0; b < migraphx::hist_bins / 10; b++)
        r.hist[b] = 1e6;
    r.hist.back() = 1;
    auto t = migraphx::choose_threshold(r, 127, "mse");
    EXPECT_GT(t, 0.09f);
    EXPECT_LT(t, 0.15f);
    // with fewer values in the bulk, the outlier's clipping error matters more: a wider range
    auto few = r;
    for(std::size_t b = 0; b < migraphx::hist_bins / 10; b++)
        few.hist[b] = 1000;
    EXPECT_GT(migraphx::choose_threshold(few, 127, "mse"), 0.3f);
    // more levels (uint8) make clipping relatively costlier: the threshold never shrinks
    EXPECT_GE(migraphx::choose_threshold(r, 255, "mse"), t);
}

TEST(calibrate, relu_zeros_cost_nothing)
{
    // half the values are exact zeros (bin 0): they must not pull the threshold down
    auto r = uniform(1.0f);
    r.hist[0] += 1e6;
    EXPECT_NEAR(migraphx::choose_threshold(r, 255, "mse"), 1.0f, 0.02);
}

TEST(calibrate, ranges_histograms_means_and_outputs)
{
    // x {2, 3, 2, 2} -> relu -> return; watch x (channel means along axis 1) and the relu
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto x   = mm->add_parameter("x", shape{shape::float_type, {2, 3, 2, 2}});
    auto r   = mm->add_instruction(make_op("relu"), x);
    mm->add_return({r});
    std::vector<float> a(24), b(24);
    for(std::size_t i = 0; i < 24; i++)
    {
        a[i] = static_cast<float>(i % 4) - 1.0f + static_cast<float>((i / 4) % 3); // channel c: c - 1 .. c + 2
        b[i] = a[i] + 1.0f;
    }
    std::vector<migraphx::parameter_map> cal = {{{"x", migraphx::argument{shape{shape::float_type, {2, 3, 2, 2}}, a.data()}}},
                                                {{"x", migraphx::argument{shape{shape::float_type, {2, 3, 2, 2}}, b.data()}}}};
    std::vector<std::string> targets = {"ref"};
#ifdef MIGRAPHX_HAVE_CPU
    targets.push_back("cpu");
#endif
    for(const auto& tn : targets)
    {
        auto q = p;
        auto* qm = q.get_main_module();
        std::vector<migraphx::instruction_ref> watched;
        for(auto ins = qm->begin(); ins != qm->end(); ++ins)
            if(ins->name() == "@param" or ins->name() == "relu")
                watched.push_back(ins);
        std::vector<std::vector<double>> outs;
        auto ranges = migraphx::calibrate_ranges(q, migraphx::get_target(tn), cal, watched, true, {1, -1}, 1, &outs);
        ASSERT_EQ(ranges.size(), 2u);
        EXPECT_FLOAT_EQ(ranges[0].abs_max, 5.0f) << tn;
        EXPECT_FLOAT_EQ(ranges[1].abs_max, 5.0f) << tn;
        // channel c: mean c + 0.5 in the first map, c + 1.5 in the second
        ASSERT_EQ(ranges[0].channel_mean.size(), 3u) << tn;
        for(std::size_t c = 0; c < 3; c++)
            EXPECT_NEAR(ranges[0].channel_mean[c], c + 1.0, 1e-12) << tn;
        EXPECT_TRUE(ranges[1].channel_mean.empty());
        double total = 0;
        for(auto c : ranges[0].hist)
            total += c;
        EXPECT_EQ(total, 48) << tn;
        ASSERT_EQ(outs.size(), 1u) << "only the first map's outputs";
        ASSERT_EQ(outs[0].size(), 24u);
        EXPECT_EQ(outs[0][0], 0.0); // relu(-1)
        EXPECT_EQ(outs[0][3], 2.0);
        // the program itself is left as it was
        std::ostringstream before, after;
        before << p;
        after << q;
        EXPECT_EQ(before.str(), after.str()) << tn;
    }
}

TEST(calibrate, views_are_read_in_logical_order)
{
    // x {2, 3, 2, 2} viewed as NHWC {2, 2, 2, 3} (a transpose: strided, not standard); channel
    // means along the view's last axis are x's per-channel means
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto x   = mm->add_parameter("x", shape{shape::float_type, {2, 3, 2, 2}});
    auto t   = mm->add_instruction(make_op("transpose", {{"permutation", {0, 2, 3, 1}}}), x);
    mm->add_return({mm->add_instruction(make_op("relu"), t)});
    std::vector<float> a(24);
    for(std::size_t i = 0; i < 24; i++)
        a[i] = static_cast<float>((i / 4) % 3) * 2.0f - static_cast<float>(i % 2); // channel c: 2c - 1, 2c
    std::vector<migraphx::parameter_map> cal = {{{"x", migraphx::argument{shape{shape::float_type, {2, 3, 2, 2}}, a.data()}}}};
    std::vector<migraphx::instruction_ref> watched;
    for(auto ins = mm->begin(); ins != mm->end(); ++ins)
        if(ins->name() == "transpose")
            watched.push_back(ins);
    ASSERT_FALSE(watched.front()->get_shape().standard());
    auto ranges = migraphx::calibrate_ranges(p, migraphx::ref::target{}, cal, watched, true, {3});
    ASSERT_EQ(ranges.size(), 1u);
    EXPECT_FLOAT_EQ(ranges[0].abs_max, 4.0f);
    ASSERT_EQ(ranges[0].channel_mean.size(), 3u);
    for(std::size_t c = 0; c < 3; c++)
        EXPECT_NEAR(ranges[0].channel_mean[c], 2.0 * c - 0.5, 1e-12) << c;
    double total = 0;
    for(auto h : ranges[0].hist)
        total += h;
    EXPECT_EQ(total, 24);
}

TEST(calibrate, phase_timer_prints_only_when_asked)
{
    {
        migx_test::scoped_env off("MIGRAPHX_TIME_QUANTIZE", "0");
        testing::internal::CaptureStderr();
        migraphx::phase_timer t;
        t.lap("calibration compile");
        EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
    }
    migx_test::scoped_env on("MIGRAPHX_TIME_QUANTIZE", "1");
    testing::internal::CaptureStderr();
    migraphx::phase_timer t;
    t.lap("calibration compile");
    t.lap("rewrite");
    auto err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(err.rfind("quantize_int8: calibration compile: ", 0), 0u) << err;
    EXPECT_NE(err.find(" ms\nquantize_int8: rewrite: "), std::string::npos) << err;
    EXPECT_EQ(err.back(), '\n');
}

TEST(calibrate, cosine_similarity)
{
    EXPECT_DOUBLE_EQ(migraphx::cosine_similarity({1, 0}, {2, 0}), 1.0);
    EXPECT_NEAR(migraphx::cosine_similarity({1, 0}, {0, 3}), 0.0, 1e-15);
    EXPECT_EQ(migraphx::cosine_similarity({1, 2}, {1}), 0.0);
    EXPECT_EQ(migraphx::cosine_similarity({0, 0}, {0, 0}), 1.0);
    EXPECT_EQ(migraphx::cosine_similarity({NAN, 1}, {1, 1}), 0.0);
}

} // namespace
