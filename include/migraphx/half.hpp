#ifndef MIGRAPHX_HALF_HPP
#define MIGRAPHX_HALF_HPP

#include <cstdint>
#include <cstring>
#include <iosfwd>
#include <type_traits>

namespace migraphx {

/// IEEE 754 binary16, stored as bits; arithmetic goes through float.
struct half
{
    std::uint16_t bits = 0;

    half() = default;
    half(float f) : bits(from_float(f)) {} // NOLINT: implicit like a builtin float type
    half(double d) : half(static_cast<float>(d)) {} // NOLINT
    half(int i) : half(static_cast<float>(i)) {} // NOLINT
    operator float() const { return to_float(bits); } // NOLINT

    static half from_bits(std::uint16_t b)
    {
        half h;
        h.bits = b;
        return h;
    }

    static std::uint16_t from_float(float f)
    {
        std::uint32_t x;
        std::memcpy(&x, &f, 4);
        std::uint32_t sign = (x >> 16) & 0x8000u;
        std::uint32_t exp  = (x >> 23) & 0xffu;
        std::uint32_t man  = x & 0x7fffffu;
        if(exp == 0xff) // inf or nan
            return static_cast<std::uint16_t>(sign | 0x7c00u | (man != 0 ? 0x200u | (man >> 13) : 0u));
        int e = static_cast<int>(exp) - 127 + 15;
        if(e >= 31) // overflow -> inf
            return static_cast<std::uint16_t>(sign | 0x7c00u);
        if(e <= 0)
        {
            if(e < -10)
                return static_cast<std::uint16_t>(sign);
            man |= 0x800000u;
            int shift           = 14 - e;
            std::uint32_t r     = man >> shift;
            std::uint32_t rem   = man & ((1u << shift) - 1u);
            std::uint32_t halfw = 1u << (shift - 1);
            if(rem > halfw || (rem == halfw && (r & 1u)))
                r++;
            return static_cast<std::uint16_t>(sign | r);
        }
        std::uint32_t r   = (static_cast<std::uint32_t>(e) << 10) | (man >> 13);
        std::uint32_t rem = man & 0x1fffu;
        if(rem > 0x1000u || (rem == 0x1000u && (r & 1u)))
            r++; // may carry into the exponent, which rounds correctly up to inf
        return static_cast<std::uint16_t>(sign | r);
    }

    static float to_float(std::uint16_t h)
    {
        std::uint32_t sign = (h & 0x8000u) << 16;
        std::uint32_t exp  = (h >> 10) & 0x1fu;
        std::uint32_t man  = h & 0x3ffu;
        std::uint32_t x;
        if(exp == 0)
        {
            if(man == 0)
                x = sign;
            else
            {
                int e = -1;
                do
                {
                    e++;
                    man <<= 1;
                } while((man & 0x400u) == 0);
                x = sign | (static_cast<std::uint32_t>(127 - 15 - e) << 23) | ((man & 0x3ffu) << 13);
            }
        }
        else if(exp == 0x1f)
            x = sign | 0x7f800000u | (man << 13);
        else
            x = sign | ((exp - 15 + 127) << 23) | (man << 13);
        float f;
        std::memcpy(&f, &x, 4);
        return f;
    }
};

std::ostream& operator<<(std::ostream& os, half h);

/// static_cast that also goes through float for the narrow floating types stored as bits
/// (half, fp8e4m3fn: the element types that are classes), whose constructors are deliberately few.
template <class To, class From>
To type_cast(From x)
{
    if constexpr(std::is_same<To, From>{})
        return x;
    else if constexpr(std::is_class<To>{})
        return To(static_cast<float>(x));
    else if constexpr(std::is_class<From>{})
        return static_cast<To>(static_cast<float>(x));
    else
        return static_cast<To>(x);
}

} // namespace migraphx

#endif
