#ifndef MIGX_TESTS_UNIT_QUANTIZE_TEST_UTIL_HPP
#define MIGX_TESTS_UNIT_QUANTIZE_TEST_UTIL_HPP

// What the quantizers' tests share: seeded values, counting a program's ops, its text, cosine.

#include <migraphx/program.hpp>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

namespace migx_quantize_test {

/// n values in [lo, hi) from a linear congruential sequence seeded by seed.
inline std::vector<float> values(std::size_t n, float lo, float hi, unsigned seed)
{
    std::vector<float> v(n);
    unsigned s = seed;
    for(auto& x : v)
    {
        s = s * 1664525u + 1013904223u;
        x = lo + (hi - lo) * static_cast<float>(s >> 8) / static_cast<float>(1u << 24);
    }
    return v;
}

/// How many instructions of p's main module are named `name`.
inline std::size_t count(const migraphx::program& p, const std::string& name)
{
    std::size_t n = 0;
    const auto& m = *p.get_main_module();
    for(auto ins = m.begin(); ins != m.end(); ++ins)
        n += ins->name() == name ? 1 : 0;
    return n;
}

inline std::string text(const migraphx::program& p)
{
    std::ostringstream ss;
    ss << p;
    return ss.str();
}

/// Cosine similarity of two equally long vectors.
inline double cosine(const std::vector<float>& a, const std::vector<float>& b)
{
    double ab = 0, aa = 0, bb = 0;
    for(std::size_t i = 0; i < a.size(); i++)
    {
        ab += double(a[i]) * b[i];
        aa += double(a[i]) * a[i];
        bb += double(b[i]) * b[i];
    }
    return ab / std::sqrt(aa * bb);
}

} // namespace migx_quantize_test

#endif
