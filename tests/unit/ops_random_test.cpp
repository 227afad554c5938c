#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/ref/target.hpp>
#include <gtest/gtest.h>
#include <cmath>

namespace {
using migraphx::shape;
using lvec = std::vector<std::size_t>;
} // namespace

TEST(ops_random, shapes_and_bad_inputs)
{
    auto m = migraphx::make_op("multinomial", {{"sample_size", 5}});
    shape logits{shape::float_type, {2, 3}};
    EXPECT_EQ(m.compute_shape({logits}), (shape{shape::int32_type, {2, 5}}));
    EXPECT_EQ(m.compute_shape({logits, shape{shape::float_type, {2, 7}}}), (shape{shape::int32_type, {2, 7}}));
    EXPECT_THROW(m.compute_shape({logits, shape{shape::float_type, {3, 7}}}), migraphx::exception);
    EXPECT_THROW(m.compute_shape({shape{shape::float_type, {3}}}), migraphx::exception);
    EXPECT_THROW(migraphx::make_op("multinomial", {{"dtype", static_cast<int>(shape::float_type)}}).compute_shape({logits}),
                 migraphx::exception);
    auto u = migraphx::make_op("random_uniform", {{"shape", {2, 3}}, {"dtype", static_cast<int>(shape::double_type)}});
    EXPECT_EQ(u.compute_shape({}), (shape{shape::double_type, {2, 3}}));
    EXPECT_EQ(u.compute_shape({shape{shape::half_type, {4}}}), (shape{shape::double_type, {4}}));
    EXPECT_THROW(u.compute_shape({logits, logits}), migraphx::exception);
    std::ostringstream ss;
    ss << migraphx::make_op("multinomial");
    EXPECT_EQ(ss.str(), "multinomial[dtype=8,sample_size=1,seed=0]");
}

TEST(ops_random, multinomial_cdf_form)
{
    auto m = migraphx::make_op("multinomial");
    // cdf of probabilities {0.2, 0.3, 0.5} (unnormalised x2) for two rows.
    std::vector<float> cdf{0.4f, 1.0f, 2.0f, 1, 1, 1};
    std::vector<float> dist{0.1f, 0.25f, 0.9f, 0.0f, 0.5f, 0.99f};
    shape cs{shape::float_type, {2, 3}}, ds{shape::float_type, {2, 3}};
    migraphx::argument a{cs, cdf.data()}, b{ds, dist.data()};
    auto out = m.compute_shape({cs, ds});
    EXPECT_EQ(m.compute(out, {a, b}).to_vector<int>(), (std::vector<int>{0, 1, 2, 0, 0, 0}));
}

TEST(ops_random, multinomial_logits_form_follows_probabilities)
{
    auto m = migraphx::make_op("multinomial", {{"sample_size", 4000}, {"seed", 3.0}, {"dtype", static_cast<int>(shape::int64_type)}});
    // Row 0 always class 1; row 1 classes 0 and 2 equally likely.
    std::vector<float> logits{-100, 10, -100, 0, -100, 0};
    shape ls{shape::float_type, {2, 3}};
    migraphx::argument a{ls, logits.data()};
    auto out = m.compute_shape({ls});
    auto r   = m.compute(out, {a}).to_vector<std::int64_t>();
    auto r2  = m.compute(out, {a}).to_vector<std::int64_t>();
    EXPECT_EQ(r, r2);
    std::size_t ones = 0, zeros = 0;
    for(std::size_t i = 0; i < 4000; i++)
    {
        EXPECT_EQ(r[i], 1);
        EXPECT_NE(r[4000 + i], 1);
        zeros += r[4000 + i] == 0 ? 1 : 0;
        ones += r[i] == 1 ? 1 : 0;
    }
    EXPECT_EQ(ones, 4000u);
    EXPECT_NEAR(static_cast<double>(zeros) / 4000, 0.5, 0.05);
}

TEST(ops_random, uniform_and_normal_are_deterministic_and_in_range)
{
    auto u  = migraphx::make_op("random_uniform", {{"shape", {10000}}, {"low", -2.0}, {"high", 3.0}, {"seed", 7.0}});
    auto su = u.compute_shape({});
    auto a  = u.compute(su, {}).to_vector<float>();
    EXPECT_EQ(a, u.compute(su, {}).to_vector<float>());
    double mean = 0;
    for(float x : a)
    {
        EXPECT_GE(x, -2.0f);
        EXPECT_LT(x, 3.0f);
        mean += x / a.size();
    }
    EXPECT_NEAR(mean, 0.5, 0.1);
    auto u2 = migraphx::make_op("random_uniform", {{"shape", {10000}}, {"low", -2.0}, {"high", 3.0}, {"seed", 8.0}});
    EXPECT_NE(a, u2.compute(su, {}).to_vector<float>());

    auto n  = migraphx::make_op("random_normal", {{"mean", 1.0}, {"scale", 2.0}, {"seed", 1.0}});
    shape like{shape::float_type, {20000}};
    auto sn = n.compute_shape({like});
    auto v  = n.compute(sn, {migraphx::argument{like}}).to_vector<double>();
    double m = 0, var = 0;
    for(double x : v)
        m += x / v.size();
    for(double x : v)
        var += (x - m) * (x - m) / v.size();
    EXPECT_NEAR(m, 1.0, 0.05);
    EXPECT_NEAR(std::sqrt(var), 2.0, 0.05);
}

TEST(ops_random, program_multinomial_from_logits)
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto x   = mm->add_literal(migraphx::literal{shape{shape::float_type, {1, 2}}, std::vector<float>{50, -50}});
    mm->add_return({mm->add_instruction(migraphx::make_op("multinomial", {{"sample_size", 3}}), x)});
    p.compile(migraphx::ref::target{});
    auto r = p.eval({}).back();
    EXPECT_EQ(r.get_shape().lens(), (lvec{1, 3}));
    EXPECT_EQ(r.to_vector<int>(), (std::vector<int>{0, 0, 0}));
}
