// The cpu target's GEMM kernel against a naive triple loop: sizes that are not multiples of the
// 6x16 tile, K = 1, N = 1, K blocks, row/panel sub-ranges, strided and transposed B, and every
// epilogue step; the AVX2 kernel (where the CPU has it) and the portable one.
#ifdef MIGRAPHX_HAVE_CPU
#include "targets/cpu/fast_math.hpp"
#include "targets/cpu/gemm_kernel.hpp"
#include <gtest/gtest.h>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

using migraphx::cpu::gemm_args;
using migraphx::cpu::gemm_isa;
using migraphx::cpu::gemm_step;

namespace {

std::vector<float> random_floats(std::size_t n, unsigned seed)
{
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    std::vector<float> v(n);
    for(auto& x : v)
        x = d(gen);
    return v;
}

std::vector<gemm_isa> isas()
{
    std::vector<gemm_isa> r{gemm_isa::generic};
    if(migraphx::cpu::gemm_best_isa() == gemm_isa::avx2)
        r.push_back(gemm_isa::avx2);
    return r;
}

double step_ref(double v, const gemm_step& s, double summand)
{
    switch(s.kind)
    {
    case gemm_step::sum: return v + summand;
    case gemm_step::relu: return v < 0 ? (s.alpha == 0 ? 0.0 : s.alpha * v) : v;
    case gemm_step::clip: return std::min(std::max(v, double(s.alpha)), double(s.beta));
    case gemm_step::logistic: return 1 / (1 + std::exp(-v));
    case gemm_step::tanh: return std::tanh(v);
    case gemm_step::gelu_erf: return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
    }
    return v;
}

struct problem
{
    std::size_t m, n, k;
    bool bias                   = false;
    std::vector<gemm_step> steps = {};
    bool transposed_b            = false; // B given as its transpose (columns contiguous)
    std::size_t lda_pad          = 0;     // extra floats at the end of each row of A
    std::size_t kc               = 0;
};

/// Runs the kernel (whole C, or as the four quarters of rows x panels) and compares.
void check(const problem& p, gemm_isa isa, bool quarters = false)
{
    SCOPED_TRACE("m=" + std::to_string(p.m) + " n=" + std::to_string(p.n) + " k=" + std::to_string(p.k) +
                 " isa=" + std::to_string(int(isa)) + " kc=" + std::to_string(p.kc));
    std::size_t lda = p.k + p.lda_pad;
    auto a          = random_floats(p.m * lda, 1);
    auto b          = random_floats(p.k * p.n, 2);
    auto bias       = random_floats(p.n, 3);
    auto sum        = random_floats(p.m * p.n, 4);
    // b(i, j) at b[i * rs + j * cs]
    std::ptrdiff_t rs = p.transposed_b ? 1 : static_cast<std::ptrdiff_t>(p.n);
    std::ptrdiff_t cs = p.transposed_b ? static_cast<std::ptrdiff_t>(p.k) : 1;
    std::size_t np    = (p.n + 15) / 16;
    std::vector<float> packed(migraphx::cpu::gemm_packed_size(p.k, p.n), -7.0f);
    ASSERT_EQ(packed.size(), np * 16 * p.k);
    migraphx::cpu::gemm_pack_b(b.data(), rs, cs, p.k, p.n, packed.data(), 0, np);
    std::vector<float> c(p.m * p.n, std::numeric_limits<float>::quiet_NaN());
    gemm_args g;
    g.m = p.m, g.n = p.n, g.k = p.k, g.a = a.data(), g.lda = static_cast<std::ptrdiff_t>(lda);
    g.b = packed.data(), g.c = c.data(), g.ldc = static_cast<std::ptrdiff_t>(p.n);
    g.bias = p.bias ? bias.data() : nullptr;
    g.sum = sum.data(), g.ldsum = static_cast<std::ptrdiff_t>(p.n);
    g.steps = p.steps.data(), g.nsteps = p.steps.size();
    if(quarters)
    {
        std::size_t mh = p.m / 2, ph = np / 2;
        migraphx::cpu::gemm_block(g, 0, mh, 0, ph, isa, p.kc);
        migraphx::cpu::gemm_block(g, mh, p.m, 0, ph, isa, p.kc);
        migraphx::cpu::gemm_block(g, 0, mh, ph, np, isa, p.kc);
        migraphx::cpu::gemm_block(g, mh, p.m, ph, np, isa, p.kc);
    }
    else
        migraphx::cpu::gemm(g, isa, p.kc);
    std::size_t bad = 0;
    for(std::size_t i = 0; i < p.m; i++)
    {
        for(std::size_t j = 0; j < p.n; j++)
        {
            double v = 0;
            for(std::size_t l = 0; l < p.k; l++)
                v += double(a[i * lda + l]) * b[l * rs + j * cs];
            if(p.bias)
                v += bias[j];
            for(const auto& s : p.steps)
                v = step_ref(v, s, sum[i * p.n + j]);
            double got = c[i * p.n + j];
            if(not(std::abs(got - v) <= 2e-5 * std::sqrt(double(p.k) + 1) + 2e-5 * std::abs(v)))
            {
                if(bad++ < 5)
                    ADD_FAILURE() << "C(" << i << ", " << j << ") = " << got << ", want " << v;
            }
        }
    }
    EXPECT_EQ(bad, 0u);
}

} // namespace

TEST(cpu_gemm_kernel, packing_pads_the_last_panel_with_zeros)
{
    // 3 x 18: two panels, the second holds columns 16, 17 and 14 zeros
    std::vector<float> b(3 * 18);
    for(std::size_t i = 0; i < b.size(); i++)
        b[i] = float(i + 1);
    std::vector<float> p(migraphx::cpu::gemm_packed_size(3, 18), -1.0f);
    ASSERT_EQ(p.size(), 2u * 3 * 16);
    migraphx::cpu::gemm_pack_b(b.data(), 18, 1, 3, 18, p.data(), 0, 2);
    EXPECT_EQ(p[0], 1.0f);             // (0, 0)
    EXPECT_EQ(p[16 + 15], 18 + 16.0f); // (1, 15)
    EXPECT_EQ(p[3 * 16 + 0], 17.0f);   // panel 1, (0, 16)
    EXPECT_EQ(p[3 * 16 + 2 * 16 + 1], 2 * 18 + 18.0f); // panel 1, (2, 17)
    for(std::size_t r = 0; r < 3; r++)
        for(std::size_t j = 2; j < 16; j++)
            EXPECT_EQ(p[3 * 16 + r * 16 + j], 0.0f);
}

TEST(cpu_gemm_kernel, odd_sizes_match_a_naive_loop)
{
    for(auto isa : isas())
        for(std::size_t m : {1, 2, 5, 6, 7, 13})
            for(std::size_t n : {1, 3, 8, 15, 16, 17, 40})
                for(std::size_t k : {1, 2, 7, 33})
                    check({m, n, k}, isa);
}

TEST(cpu_gemm_kernel, k_blocks_rows_and_panels_in_parts)
{
    for(auto isa : isas())
    {
        problem p{29, 70, 45};
        p.kc = 8; // six K blocks, the last a short one
        check(p, isa);
        check(p, isa, true);
        p.bias  = true;
        p.steps = {{gemm_step::sum}, {gemm_step::relu}};
        check(p, isa, true); // the epilogue runs once, after the last block
        check({128, 256, 1024}, isa); // the default K block of long K
    }
}

TEST(cpu_gemm_kernel, strided_a_and_transposed_b)
{
    for(auto isa : isas())
    {
        problem p{11, 37, 19};
        p.lda_pad      = 5;
        p.transposed_b = true;
        check(p, isa);
        p.k = 1;
        check(p, isa);
    }
}

TEST(cpu_gemm_kernel, every_epilogue_step)
{
    const std::vector<std::vector<gemm_step>> cases = {
        {},
        {{gemm_step::relu}},
        {{gemm_step::relu, 0.1f}},
        {{gemm_step::clip, -0.5f, 0.25f}},
        {{gemm_step::logistic}},
        {{gemm_step::tanh}},
        {{gemm_step::gelu_erf}},
        {{gemm_step::sum}},
        {{gemm_step::sum}, {gemm_step::gelu_erf}},
        {{gemm_step::tanh}, {gemm_step::sum}, {gemm_step::clip, 0.0f, 6.0f}},
    };
    for(auto isa : isas())
        for(const auto& steps : cases)
            for(bool bias : {false, true})
            {
                problem p{9, 21, 10, bias, steps};
                check(p, isa);
            }
}

TEST(cpu_gemm_kernel, k_zero_gives_the_epilogue_of_zero)
{
    for(auto isa : isas())
    {
        std::vector<float> bias = {1.0f, -2.0f, 3.0f};
        std::vector<float> c(2 * 3, 99.0f);
        std::vector<gemm_step> steps = {{gemm_step::relu}};
        gemm_args g;
        g.m = 2, g.n = 3, g.k = 0, g.b = nullptr, g.c = c.data(), g.ldc = 3, g.bias = bias.data();
        g.steps = steps.data(), g.nsteps = 1;
        std::vector<float> a(1), packed(1);
        g.a = a.data(), g.b = packed.data();
        migraphx::cpu::gemm(g, isa);
        EXPECT_EQ(c, (std::vector<float>{1, 0, 3, 1, 0, 3}));
    }
}

TEST(cpu_gemm_kernel, vector_math_agrees_with_the_scalar_functions)
{
    // GELU, tanh and logistic steps on values across their ranges, NaN and infinities: the AVX2
    // epilogue against the portable one (which uses fast_math.hpp)
    if(migraphx::cpu::gemm_best_isa() != gemm_isa::avx2)
        GTEST_SKIP() << "no AVX2/FMA here";
    std::vector<float> x = {0.0f, -0.0f, 1e-8f, 0.03f, -0.06f, 0.3f, -0.49f, 0.5f, 0.51f, 1.0f, -1.7f, 3.0f,
                            -5.0f, 9.0f, -30.0f, 88.0f, -100.0f, 200.0f,
                            std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN()};
    std::size_t n = x.size();
    // C = x (as a 1 x n product: A = 1, K = 1, B = x) and then the step
    std::vector<float> packed(migraphx::cpu::gemm_packed_size(1, n));
    migraphx::cpu::gemm_pack_b(x.data(), 1, 1, 1, n, packed.data(), 0, (n + 15) / 16);
    std::vector<float> one = {1.0f};
    for(auto kind : {gemm_step::gelu_erf, gemm_step::tanh, gemm_step::logistic, gemm_step::relu, gemm_step::clip})
    {
        gemm_step s{kind, -1.0f, 2.0f};
        if(kind == gemm_step::relu)
            s.alpha = 0;
        std::vector<float> c1(n), c2(n);
        gemm_args g;
        g.m = 1, g.n = n, g.k = 1, g.a = one.data(), g.lda = 1, g.b = packed.data(), g.ldc = n;
        g.steps = &s, g.nsteps = 1;
        g.c = c1.data();
        migraphx::cpu::gemm(g, gemm_isa::generic);
        g.c = c2.data();
        migraphx::cpu::gemm(g, gemm_isa::avx2);
        for(std::size_t i = 0; i < n; i++)
        {
            SCOPED_TRACE("kind " + std::to_string(int(kind)) + ", x = " + std::to_string(x[i]));
            if(std::isnan(c1[i]))
                EXPECT_TRUE(std::isnan(c2[i]));
            else if(std::isinf(c1[i]))
                EXPECT_EQ(c2[i], c1[i]);
            else
                EXPECT_NEAR(c2[i], c1[i], 4e-7 * std::max(1.0f, std::abs(c1[i])));
        }
    }
}

TEST(cpu_gemm_kernel, steps_by_name)
{
    EXPECT_EQ(migraphx::cpu::gemm_step_of("gelu_erf", 0, 0)->kind, gemm_step::gelu_erf);
    EXPECT_EQ(migraphx::cpu::gemm_step_of("relu", 0.2f, 0)->alpha, 0.2f);
    EXPECT_FALSE(migraphx::cpu::gemm_step_of("swish", 1, 0).has_value());
    EXPECT_FALSE(migraphx::cpu::gemm_step_of("clip", 2, 1).has_value()); // an empty range
}
#endif
