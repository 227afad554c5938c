// Binary arithmetic ops: two inputs of one type and equal lens (the ONNX parser inserts
// multibroadcast), any strides; the output is standard and of the inputs' type.
// Integer arithmetic is defined for all inputs: overflow wraps, division by zero gives 0.
#include <migraphx/register_op.hpp>
#include "ops/pointwise.hpp"
#include <cmath>

namespace migraphx {
namespace op {
namespace {

namespace ew = elementwise;
using ew::binary_base;

template <class T>
constexpr bool is_float_v = std::is_floating_point<T>{};

inline value commutative_attributes() { return {{"pointwise", true}, {"commutative", true}}; }

struct add_op : binary_base<add_op>
{
    std::string name() const { return "add"; }
    value attributes() const { return commutative_attributes(); }
    static auto apply()
    {
        return [](auto a, auto b) {
            if constexpr(is_float_v<decltype(a)>)
                return a + b;
            else
                return ew::wrap_add(a, b);
        };
    }
};
MIGRAPHX_REGISTER_OP(add_op)

struct sub_op : binary_base<sub_op>
{
    std::string name() const { return "sub"; }
    static auto apply()
    {
        return [](auto a, auto b) {
            if constexpr(is_float_v<decltype(a)>)
                return a - b;
            else
                return ew::wrap_sub(a, b);
        };
    }
};
MIGRAPHX_REGISTER_OP(sub_op)

struct mul_op : binary_base<mul_op>
{
    std::string name() const { return "mul"; }
    value attributes() const { return commutative_attributes(); }
    static auto apply()
    {
        return [](auto a, auto b) {
            if constexpr(is_float_v<decltype(a)>)
                return a * b;
            else
                return ew::wrap_mul(a, b);
        };
    }
};
MIGRAPHX_REGISTER_OP(mul_op)

// Integers truncate toward zero (as C++ and ONNX Div); x / 0 is 0 for integers.
struct div_op : binary_base<div_op>
{
    std::string name() const { return "div"; }
    static auto apply()
    {
        return [](auto a, auto b) {
            if constexpr(is_float_v<decltype(a)>)
                return a / b;
            else
                return ew::int_div(a, b);
        };
    }
};
MIGRAPHX_REGISTER_OP(div_op)

struct pow_op : binary_base<pow_op>
{
    std::string name() const { return "pow"; }
    static auto apply()
    {
        return [](auto a, auto b) {
            if constexpr(is_float_v<decltype(a)>)
                return std::pow(a, b);
            else
                return ew::int_pow(a, b);
        };
    }
};
MIGRAPHX_REGISTER_OP(pow_op)

// NaN in either input gives NaN (as ONNX Max/Min and numpy.maximum).
struct max_op : binary_base<max_op>
{
    std::string name() const { return "max"; }
    value attributes() const { return commutative_attributes(); }
    static auto apply()
    {
        return [](auto a, auto b) {
            if constexpr(is_float_v<decltype(a)>)
                if(std::isnan(b))
                    return b;
            return a < b ? b : a;
        };
    }
};
MIGRAPHX_REGISTER_OP(max_op)

struct min_op : binary_base<min_op>
{
    std::string name() const { return "min"; }
    value attributes() const { return commutative_attributes(); }
    static auto apply()
    {
        return [](auto a, auto b) {
            if constexpr(is_float_v<decltype(a)>)
                if(std::isnan(b))
                    return b;
            return b < a ? b : a;
        };
    }
};
MIGRAPHX_REGISTER_OP(min_op)

// Remainder with the sign of the divisor (Python %, ONNX Mod with fmod=0).
struct mod_op : binary_base<mod_op>
{
    std::string name() const { return "mod"; }
    static auto apply()
    {
        return [](auto a, auto b) {
            using T = decltype(a);
            if constexpr(is_float_v<T>)
            {
                T r = std::fmod(a, b);
                if(r != T{0} and ((r < T{0}) != (b < T{0})))
                    r += b;
                return r;
            }
            else
                return ew::int_mod(a, b);
        };
    }
};
MIGRAPHX_REGISTER_OP(mod_op)

// Remainder with the sign of the dividend (C fmod, ONNX Mod with fmod=1).
struct fmod_op : binary_base<fmod_op>
{
    std::string name() const { return "fmod"; }
    static auto apply()
    {
        return [](auto a, auto b) {
            if constexpr(is_float_v<decltype(a)>)
                return std::fmod(a, b);
            else
                return ew::int_fmod(a, b);
        };
    }
};
MIGRAPHX_REGISTER_OP(fmod_op)

// (a - b)^2
struct sqdiff_op : binary_base<sqdiff_op>
{
    std::string name() const { return "sqdiff"; }
    value attributes() const { return commutative_attributes(); }
    static auto apply()
    {
        return [](auto a, auto b) {
            if constexpr(is_float_v<decltype(a)>)
                return (a - b) * (a - b);
            else
            {
                auto d = ew::wrap_sub(a, b);
                return ew::wrap_mul(d, d);
            }
        };
    }
};
MIGRAPHX_REGISTER_OP(sqdiff_op)

// x < 0 ? x * slope : x
struct prelu_op : binary_base<prelu_op>
{
    std::string name() const { return "prelu"; }
    static auto apply()
    {
        return [](auto x, auto slope) {
            using T = decltype(x);
            if constexpr(is_float_v<T>)
                return x < T{0} ? x * slope : x;
            else
                return x < T{0} ? ew::wrap_mul(x, slope) : x;
        };
    }
};
MIGRAPHX_REGISTER_OP(prelu_op)

} // namespace
} // namespace op
} // namespace migraphx
