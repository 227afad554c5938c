#ifndef MIGX_BENCH_UTIL_HPP
#define MIGX_BENCH_UTIL_HPP

// What the benchmark programs share: input values, a millisecond clock, and how alike two
// programs' outputs are.
#include <migraphx/argument.hpp>
#include <migraphx/generate.hpp>
#include <migraphx/shape.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

namespace migx_bench {

using clock_type = std::chrono::steady_clock;

inline double ms_since(clock_type::time_point t0)
{
    return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

/// Integer inputs (token ids, masks) get i % 100; float inputs pseudo-random values.
inline migraphx::argument make_input(const migraphx::shape& s, unsigned seed)
{
    if(migraphx::shape::is_integral(s.type()))
    {
        migraphx::argument a{s};
        a.visit([](auto v) {
            using T = typename decltype(v)::value_type;
            for(std::size_t i = 0; i < v.size(); i++)
                v[i] = static_cast<T>(static_cast<int>(i % 100));
        });
        return a;
    }
    return migraphx::generate_argument(s, seed);
}

/// Every output's values, in order, as one vector.
inline std::vector<double> flat_outputs(const std::vector<migraphx::argument>& outs)
{
    std::vector<double> r;
    for(const auto& o : outs)
    {
        auto v = o.to_vector<double>();
        r.insert(r.end(), v.begin(), v.end());
    }
    return r;
}

/// How alike a program's outputs are to fp32's over several inputs: cosine similarity over all
/// of them and the smallest per input, the largest absolute difference; NaN or a size mismatch
/// scores 0.
struct agreement
{
    double dot = 0, aa = 0, bb = 0; // over everything
    double min_cos = 2;
    double max_abs = 0;
    double max_ref = 0; // largest |fp32| value, for scale
    bool nan       = false;

    void add(const std::vector<double>& ref, const std::vector<double>& q)
    {
        double d = 0, a = 0, b = 0;
        for(std::size_t i = 0; i < ref.size() and i < q.size(); i++)
        {
            if(std::isnan(q[i]))
                nan = true;
            d += ref[i] * q[i];
            a += ref[i] * ref[i];
            b += q[i] * q[i];
            max_abs = std::max(max_abs, std::abs(ref[i] - q[i]));
            max_ref = std::max(max_ref, std::abs(ref[i]));
        }
        if(ref.size() != q.size())
            nan = true;
        dot += d;
        aa += a;
        bb += b;
        min_cos = std::min(min_cos, cosine(d, a, b));
    }
    static double cosine(double d, double a, double b) { return a > 0 and b > 0 ? d / std::sqrt(a * b) : 0.0; }
    double cos() const { return nan ? 0.0 : cosine(dot, aa, bb); }
    double worst() const { return nan ? 0.0 : min_cos; }
};

} // namespace migx_bench

#endif
