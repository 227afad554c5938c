// gemm_reference.hpp: the exact result of a cuBLASLt product at sampled outputs, checked against
// the ref target's dot on the same inputs, for products described as gemm.cpp describes them
// (cuBLASLt's A is our B, its B our A, each the column-major matrix its memory is): plain,
// transposed weights, a strided batch with a broadcast operand, alpha, C with beta, a bias per
// batch, relu and GELU.
#include <gtest/gtest.h>
#ifdef MIGRAPHX_HAVE_GPU
#include "targets/gpu/gemm_reference.hpp"
#include <migraphx/literal.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/ref/target.hpp>
#include <cmath>
#include <functional>

using migraphx::make_op;
using migraphx::shape;
namespace dnn = migraphx::gpu::dnn;

namespace {

/// Our row-major product Y[t] = A[t] (M x K) B[t] (K x N), t < batches, as gemm.cpp hands it to
/// cuBLASLt: D = Y^T column-major (m = N, n = M).
struct case_spec
{
    std::int64_t batches = 1, M = 0, K = 0, N = 0;
    bool b_transposed = false; // B stored as N x K (a transposed weight)
    bool b_shared     = false; // one B for every batch (stride 0)
    double alpha = 1, beta = 0;
    bool bias = false;
    dnn::gemm_problem::activation act = dnn::gemm_problem::activation::none;
};

dnn::gemm_problem problem_of(const case_spec& c)
{
    dnn::gemm_problem p;
    // cuBLASLt's A: our B. Row-major K x N is column-major N x K (ld N); stored N x K row-major
    // it is column-major K x N (ld K), used transposed.
    p.a = c.b_transposed ? dnn::gemm_operand{true, c.K, c.N, c.K, c.b_shared ? 0 : c.K * c.N}
                         : dnn::gemm_operand{false, c.N, c.K, c.N, c.b_shared ? 0 : c.K * c.N};
    p.b       = dnn::gemm_operand{false, c.K, c.M, c.K, c.M * c.K}; // our A: column-major K x M
    p.m       = c.N;
    p.n       = c.M;
    p.k       = c.K;
    p.batches = c.batches;
    p.alpha   = c.alpha;
    p.beta    = c.beta;
    p.bias    = c.bias;
    p.bias_stride = c.N + 8; // batches' vectors apart by more than their length
    p.act     = c.act;
    return p;
}

/// A buffer's logical [batches, r, c] values by offset(t, i, j), as a float literal.
migraphx::literal literal_of(std::int64_t batches,
                             std::int64_t r,
                             std::int64_t c,
                             const std::function<double(std::int64_t, std::int64_t, std::int64_t)>& at)
{
    std::vector<float> v;
    for(std::int64_t t = 0; t < batches; t++)
        for(std::int64_t i = 0; i < r; i++)
            for(std::int64_t j = 0; j < c; j++)
                v.push_back(static_cast<float>(at(t, i, j)));
    return migraphx::literal{shape{shape::float_type,
                                   {static_cast<std::size_t>(batches), static_cast<std::size_t>(r),
                                    static_cast<std::size_t>(c)}},
                             v};
}

double erf_gelu(double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }

void expect_matches_ref(const case_spec& c, const std::string& what)
{
    auto pa = dnn::fill_pattern::make(1 << 16, 1.0f, 1), pb = dnn::fill_pattern::make(1 << 16, 0.5f, 2),
         pc = dnn::fill_pattern::make(1 << 16, 1.0f, 3), pbias = dnn::fill_pattern::make(1 << 16, 1.0f, 4);
    auto p = problem_of(c);
    ASSERT_TRUE(p.consistent()) << what;
    auto total = static_cast<std::size_t>(c.batches * c.M * c.N);
    // cuBLASLt's A holds our B, its B our A.
    auto r     = dnn::make_gemm_reference(p, pb, pa, pc, pbias, total, true, 300);
    ASSERT_EQ(r.offsets.size(), 300u) << what;
    EXPECT_GT(r.rounding_rms, 0) << what;

    // The same product from the patterns by logical index, on ref (float), before the activation.
    migraphx::program prog;
    auto* m = prog.get_main_module();
    auto a  = m->add_literal(literal_of(c.batches, c.M, c.K, [&](auto t, auto i, auto j) {
        return pa.at(t * c.M * c.K + i * c.K + j);
    }));
    auto bs = c.b_shared ? 0 : c.K * c.N;
    auto b  = m->add_literal(literal_of(c.batches, c.K, c.N, [&](auto t, auto i, auto j) {
        return pb.at(t * bs + (c.b_transposed ? j * c.K + i : i * c.N + j));
    }));
    auto y = m->add_instruction(make_op("dot"), a, b);
    m->add_return({y});
    prog.compile(migraphx::ref::target{});
    auto dot = prog.eval({}).back().to_vector<double>();

    std::size_t nonzero = 0;
    for(std::size_t s = 0; s < r.offsets.size(); s++)
    {
        auto o = static_cast<std::int64_t>(r.offsets[s]);
        ASSERT_LT(r.offsets[s], total) << what;
        auto t = o / (c.M * c.N), col = o % c.N; // Y[t][row][col] is at t * M * N + row * N + col
        double want = c.alpha * dot[static_cast<std::size_t>(o)];
        if(c.beta != 0)
            want += c.beta * pc.at(o);
        if(c.bias)
            want += pbias.at(t * p.bias_stride + col);
        double tol = 1e-4 * (1 + std::fabs(want)); // ref's float sums
        if(c.act == dnn::gemm_problem::activation::relu)
            want = std::max(want, 0.0);
        if(c.act == dnn::gemm_problem::activation::gelu)
        {
            want = erf_gelu(want);
            tol += 4.8e-4; // cuBLASLt's tanh form against erf's, at most 4.7e-4 apart
        }
        EXPECT_NEAR(r.exact[s], want, tol) << what << ": sample " << s << " (offset " << o << ")";
        nonzero += r.exact[s] != 0 ? 1 : 0;
    }
    EXPECT_GT(nonzero, r.offsets.size() / 4) << what;
}

} // namespace

TEST(gpu_gemm_reference, exact_results_match_ref_plain_and_transposed_weights)
{
    expect_matches_ref({1, 24, 40, 16}, "plain");
    case_spec t{1, 24, 40, 16};
    t.b_transposed = true;
    expect_matches_ref(t, "transposed weights");
}

TEST(gpu_gemm_reference, exact_results_match_ref_strided_batch_and_shared_weights)
{
    case_spec b{3, 10, 33, 12};
    expect_matches_ref(b, "strided batch");
    b.b_shared = true;
    b.b_transposed = true;
    expect_matches_ref(b, "a batch over one transposed weight");
}

TEST(gpu_gemm_reference, exact_results_match_ref_with_epilogues)
{
    case_spec e{2, 16, 64, 24};
    e.alpha = 0.5;
    e.beta  = 1;
    expect_matches_ref(e, "alpha, C with beta 1");
    e.bias = true;
    e.act  = dnn::gemm_problem::activation::relu;
    expect_matches_ref(e, "bias per batch, relu");
    e.beta = 0;
    e.act  = dnn::gemm_problem::activation::gelu;
    expect_matches_ref(e, "bias, GELU");
}

TEST(gpu_gemm_reference, inconsistent_problems_and_limits)
{
    auto pat = dnn::fill_pattern::make(100, 1.0f, 1);
    auto p   = problem_of({1, 8, 16, 4});
    auto bad = p;
    bad.k    = 15; // op(A) is m x 16
    EXPECT_FALSE(bad.consistent());
    EXPECT_TRUE(dnn::make_gemm_reference(bad, pat, pat, pat, pat, 32, true).offsets.empty());
    bad     = p;
    bad.a.ld = 2; // below its rows
    EXPECT_FALSE(bad.consistent());

    auto r = dnn::make_gemm_reference(p, pat, pat, pat, pat, 5, true, 64);
    ASSERT_EQ(r.offsets.size(), 64u);
    for(auto o : r.offsets)
        EXPECT_LT(o, 5u) << "samples stay below the limit";
    auto f = dnn::make_gemm_reference(p, pat, pat, pat, pat, 32, false, 16);
    EXPECT_EQ(f.rounding_rms, 0.0) << "a float result is not rounded to half";
}

// A split-K product whose partial sums are rounded to half and added in half (cuBLASLt's
// in-place and output-type reductions) against one accumulated in float: the measure tells them
// apart by how many partials there are.
TEST(gpu_gemm_reference, partial_sums_added_in_half_round_more)
{
    case_spec c{1, 64, 3072, 48};
    auto p  = problem_of(c);
    auto pa = dnn::fill_pattern::make(1 << 16, 1.0f, 1), pb = dnn::fill_pattern::make(1 << 16, 0.5f, 2);
    auto r  = dnn::make_gemm_reference(p, pa, pb, pa, pa, static_cast<std::size_t>(c.M * c.N), true, 512);
    auto to_half = [](double v) { return migraphx::half(static_cast<float>(v)); };
    auto result  = [&](int parts) {
        std::vector<std::uint16_t> y(static_cast<std::size_t>(c.M * c.N), 0);
        for(auto o64 : r.offsets)
        {
            auto o = static_cast<std::int64_t>(o64);
            auto i = o % p.m, j = o / p.m;
            auto chunk = p.k / parts;
            float sum  = 0; // half partials added in half, as a float holding halves
            for(int s = 0; s < parts; s++)
            {
                float partial = 0;
                for(std::int64_t l = s * chunk; l < (s + 1) * chunk; l++)
                    partial += static_cast<float>(pa.at(i + l * p.a.ld) * pb.at(l + j * p.b.ld));
                sum = parts == 1 ? partial : static_cast<float>(to_half(sum + static_cast<float>(to_half(partial))));
            }
            y[o64] = to_half(sum).bits;
        }
        return dnn::measure_accuracy(r, y.data());
    };
    auto whole = result(1), two = result(2), eight = result(8);
    EXPECT_LT(whole.ratio, 1.05) << whole.str();
    EXPECT_GT(two.ratio, 1.1) << two.str();
    EXPECT_GT(eight.ratio, 1.5) << eight.str();
    EXPECT_GT(eight.ratio, two.ratio);
    std::cout << "[ ratios ] float sum " << whole.ratio << ", 2 half partials " << two.ratio << ", 8 half partials "
              << eight.ratio << "\n";
}

#else
TEST(gpu_gemm_reference, skipped) { GTEST_SKIP() << "built without CUDA"; }
#endif
