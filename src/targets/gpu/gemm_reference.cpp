// gemm_reference.hpp: the exact result of a cuBLASLt product at sampled outputs.
#include "targets/gpu/gemm_reference.hpp"
#include <algorithm>
#include <cmath>
#include <random>

namespace migraphx {
namespace gpu {
namespace dnn {

bool gemm_problem::consistent() const
{
    auto shaped = [](const gemm_operand& o, std::int64_t r, std::int64_t c) {
        auto rows = o.transposed ? c : r, cols = o.transposed ? r : c;
        return o.rows == rows and o.cols == cols and o.ld >= std::max<std::int64_t>(rows, 1) and o.batch_stride >= 0;
    };
    return m > 0 and n > 0 and k > 0 and batches > 0 and shaped(a, m, k) and shaped(b, k, n) and
           (not bias or bias_stride >= 0);
}

namespace {

/// op(X)[i, j]'s offset in X's buffer (batch `batch`).
std::int64_t element(const gemm_operand& o, std::int64_t batch, std::int64_t i, std::int64_t j)
{
    return batch * o.batch_stride + (o.transposed ? j + i * o.ld : i + j * o.ld);
}

double activate(gemm_problem::activation act, double v)
{
    switch(act)
    {
    case gemm_problem::activation::relu: return std::max(v, 0.0);
    case gemm_problem::activation::gelu:
        return 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
    case gemm_problem::activation::none: break;
    }
    return v;
}

} // namespace

exact_samples make_gemm_reference(const gemm_problem& p,
                                  const fill_pattern& a,
                                  const fill_pattern& b,
                                  const fill_pattern& c,
                                  const fill_pattern& bias,
                                  std::size_t limit,
                                  bool half_result,
                                  std::size_t samples)
{
    exact_samples r;
    if(not p.consistent())
        return r;
    auto total = p.batches * p.m * p.n;
    auto below = std::min<std::int64_t>(total, static_cast<std::int64_t>(limit));
    if(below <= 0)
        return r;
    std::mt19937_64 gen(11);
    std::uniform_int_distribution<std::int64_t> pick(0, below - 1);
    for(std::size_t s = 0; s < samples; s++)
    {
        auto o     = pick(gen);
        auto batch = o / (p.m * p.n);
        auto i     = o % p.m;
        auto j     = (o / p.m) % p.n;
        double acc = 0; // exact: products of halves, summed in double, for any k this search sees
        for(std::int64_t l = 0; l < p.k; l++)
            acc += a.at(element(p.a, batch, i, l)) * b.at(element(p.b, batch, l, j));
        double v = p.alpha * acc;
        if(p.beta != 0)
            v += p.beta * c.at(o);
        if(p.bias)
            v += bias.at(batch * p.bias_stride + i);
        r.offsets.push_back(static_cast<std::size_t>(o));
        r.exact.push_back(activate(p.act, v));
    }
    set_rounding(r, half_result);
    return r;
}

} // namespace dnn
} // namespace gpu
} // namespace migraphx
