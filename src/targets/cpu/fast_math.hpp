#ifndef MIGRAPHX_CPU_FAST_MATH_HPP
#define MIGRAPHX_CPU_FAST_MATH_HPP

// Vectorisable float math for the cpu kernels: loops calling these compile to SIMD code, where
// std::exp and friends would keep them scalar.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace migraphx {
namespace cpu {

/// exp: Cephes-style range reduction and polynomial, about 1 ulp. Below -87.3 it gives about
/// 1e-38 (not 0); above float's range, +inf.
[[gnu::always_inline]] inline float fast_exp(float x)
{
    float big = x > 88.7228391f ? std::numeric_limits<float>::infinity() : 1.0f;
    x         = std::min(std::max(x, -87.3f), 88.7f);
    // round to nearest by the 1.5 * 2^23 trick: plain SSE2, so the loop vectorises everywhere
    float k = (x * 1.44269504f + 12582912.0f) - 12582912.0f;
    float r = x - k * 0.693359375f + k * 2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p       = p * r + 1.3981999507e-3f;
    p       = p * r + 8.3334519073e-3f;
    p       = p * r + 4.1665795894e-2f;
    p       = p * r + 1.6666665459e-1f;
    p       = p * r + 5.0000001201e-1f;
    p       = p * r * r + r + 1.0f;
    // 2^(k-1) * 2: k reaches 128 near the top of the range, where 2^k alone is not a float
    auto bits = static_cast<std::int32_t>(k + 126.0f) << 23;
    float scale;
    std::memcpy(&scale, &bits, sizeof(scale));
    return p * scale * 2.0f * big;
}

/// tanh from exp, with a series near 0 where (1 - e) / (1 + e) would cancel.
[[gnu::always_inline]] inline float fast_tanh(float x)
{
    float a  = std::abs(x);
    float e  = fast_exp(-2.0f * a);
    float t  = (1.0f - e) / (1.0f + e);
    float x2 = x * x;
    float s  = x * (1.0f + x2 * (-1.0f / 3 + x2 * (2.0f / 15 + x2 * (-17.0f / 315))));
    return a < 0.0625f ? s : std::copysign(t, x);
}

/// erf: a Taylor series near 0 (where A&S's absolute error would be a large relative one), else
/// Abramowitz & Stegun 7.1.26 (absolute error below 1.5e-7, relative below 3e-7 there).
[[gnu::always_inline]] inline float fast_erf(float x)
{
    float a  = std::abs(x);
    float x2 = x * x;
    float taylor =
        1.1283791671f * x *
        (1.0f + x2 * (-1.0f / 3 + x2 * (1.0f / 10 + x2 * (-1.0f / 42 + x2 * (1.0f / 216 + x2 * (-1.0f / 1320))))));
    float t = 1.0f / (1.0f + 0.3275911f * a);
    float y = 1.0f - (((((1.061405429f * t - 1.453152027f) * t) + 1.421413741f) * t - 0.284496736f) * t +
                      0.254829592f) *
                         t * fast_exp(-a * a);
    return a < 0.5f ? taylor : std::copysign(y, x);
}

} // namespace cpu
} // namespace migraphx

#endif
