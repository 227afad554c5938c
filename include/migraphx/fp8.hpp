#ifndef MIGRAPHX_FP8_HPP
#define MIGRAPHX_FP8_HPP

#include <cstdint>
#include <cstring>
#include <iosfwd>
#include <limits>

namespace migraphx {

/// OCP FP8 E4M3 "FN" (ONNX FLOAT8E4M3FN, CUDA __nv_fp8_e4m3): 1 sign bit, 4 exponent bits
/// (bias 7), 3 mantissa bits; no infinities, NaN is S.1111.111, the largest finite value 448.
/// Stored as bits; arithmetic goes through float, as for half.
struct fp8e4m3fn
{
    std::uint8_t bits = 0;

    static constexpr float max_finite = 448.0f;

    fp8e4m3fn() = default;
    fp8e4m3fn(float f) : bits(from_float(f)) {} // NOLINT: implicit like a builtin float type
    fp8e4m3fn(double d) : fp8e4m3fn(static_cast<float>(d)) {} // NOLINT
    fp8e4m3fn(int i) : fp8e4m3fn(static_cast<float>(i)) {} // NOLINT
    operator float() const { return to_float(bits); } // NOLINT

    static constexpr fp8e4m3fn from_bits(std::uint8_t b)
    {
        fp8e4m3fn x;
        x.bits = b;
        return x;
    }

    /// Round to nearest, ties to even. Out of range: +-448 when saturating (ONNX's default for
    /// Cast and QuantizeLinear, CUDA's __NV_SATFINITE), NaN otherwise; inf saturates the same
    /// way; NaN stays NaN with its sign.
    static std::uint8_t from_float(float f, bool saturate = true)
    {
        std::uint32_t x;
        std::memcpy(&x, &f, 4);
        const auto sign = static_cast<std::uint8_t>((x >> 24) & 0x80u);
        const std::uint32_t exp = (x >> 23) & 0xffu;
        const std::uint32_t man = x & 0x7fffffu;
        if(exp == 0xff and man != 0)
            return static_cast<std::uint8_t>(sign | 0x7fu);
        if(exp == 0xff)
            return static_cast<std::uint8_t>(sign | (saturate ? 0x7eu : 0x7fu));
        // Biased e4m3 exponent of f; below 1 the value is subnormal in e4m3 (step 2^-9).
        const int e = static_cast<int>(exp) - 127 + 7;
        std::uint32_t r;
        if(e < 1)
        {
            // f * 2^9 as a fixed-point number with 23 + 1 fractional bits, rounded to an integer.
            if(e < -4) // |f| < 2^-10: rounds to zero (2^-10 itself is the tie at zero, even)
                return sign;
            const std::uint32_t m     = man | 0x800000u;
            const int shift           = 21 - e; // 20 + (1 - e): keep e + 2 of 24 significant bits
            r                         = m >> shift;
            const std::uint32_t rem   = m & ((1u << shift) - 1u);
            const std::uint32_t halfw = 1u << (shift - 1);
            if(rem > halfw or (rem == halfw and (r & 1u) != 0))
                r++; // 8 carries into the smallest normal, whose encoding is 0x08
        }
        else
        {
            r                       = (static_cast<std::uint32_t>(e) << 3) | (man >> 20);
            const std::uint32_t rem = man & 0xfffffu;
            if(rem > 0x80000u or (rem == 0x80000u and (r & 1u) != 0))
                r++;
        }
        if(r > 0x7eu)
            return static_cast<std::uint8_t>(sign | (saturate ? 0x7eu : 0x7fu));
        return static_cast<std::uint8_t>(sign | r);
    }

    static float to_float(std::uint8_t b)
    {
        const std::uint32_t sign = (static_cast<std::uint32_t>(b) & 0x80u) << 24;
        const std::uint32_t exp  = (b >> 3) & 0xfu;
        const std::uint32_t man  = b & 0x7u;
        std::uint32_t x;
        if(exp == 0xf and man == 0x7)
            x = sign | 0x7fc00000u;
        else if(exp == 0)
        {
            // man * 2^-9, exact in float
            float f = static_cast<float>(man) * (1.0f / 512.0f);
            std::memcpy(&x, &f, 4);
            x |= sign;
        }
        else
            x = sign | ((exp - 7 + 127) << 23) | (man << 20);
        float f;
        std::memcpy(&f, &x, 4);
        return f;
    }
};

std::ostream& operator<<(std::ostream& os, fp8e4m3fn x);

} // namespace migraphx

/// So that generic code asking for a type's range (a clip to lowest()/max(), say) gets e4m3's
/// and not the unspecialized template's zeros.
namespace std {
template <>
struct numeric_limits<migraphx::fp8e4m3fn>
{
    using T = migraphx::fp8e4m3fn;
    static constexpr bool is_specialized    = true;
    static constexpr bool is_signed         = true;
    static constexpr bool is_integer        = false;
    static constexpr bool is_exact          = false;
    static constexpr bool has_infinity      = false;
    static constexpr bool has_quiet_NaN     = true;
    static constexpr bool has_signaling_NaN = false;
    static constexpr bool is_iec559         = false;
    static constexpr bool is_bounded        = true;
    static constexpr bool is_modulo         = false;
    static constexpr int digits             = 4; // 3 stored mantissa bits and the implicit one
    static constexpr int radix              = 2;
    static constexpr int min_exponent       = -5; // 2^-6 = 0.5 x 2^-5, as std counts
    static constexpr int max_exponent       = 9;
    static constexpr T min() noexcept { return T::from_bits(0x08); }         // 2^-6
    static constexpr T max() noexcept { return T::from_bits(0x7e); }         // 448
    static constexpr T lowest() noexcept { return T::from_bits(0xfe); }      // -448
    static constexpr T epsilon() noexcept { return T::from_bits(0x20); }     // 2^-3
    static constexpr T round_error() noexcept { return T::from_bits(0x30); } // 0.5
    static constexpr T quiet_NaN() noexcept { return T::from_bits(0x7f); }
    static constexpr T denorm_min() noexcept { return T::from_bits(0x01); } // 2^-9
    static constexpr T infinity() noexcept { return T::from_bits(0x7e); }   // none: saturates to max
};
} // namespace std

#endif
