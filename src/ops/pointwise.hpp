#ifndef MIGRAPHX_OPS_POINTWISE_HPP
#define MIGRAPHX_OPS_POINTWISE_HPP

// Shared machinery of the elementwise ops (unary math, activations, binary, clip, where, convert):
// walking inputs of equal lens and arbitrary strides into an output, the element-type dispatch,
// and integer arithmetic that is defined for every input (wrapping, division by zero gives 0),
// because a reference op must never hit undefined behaviour whatever the data.

#include <migraphx/argument.hpp>
#include <migraphx/errors.hpp>
#include <migraphx/half.hpp>
#include <migraphx/shape.hpp>
#include <migraphx/value.hpp>
#include "ops/check_shapes.hpp"
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace migraphx {
namespace elementwise {

/// The type an element is computed in: the narrow floating types stored as bits (half,
/// fp8e4m3fn: the element types that are classes) go through float, everything else is itself.
template <class T>
using compute_t = std::conditional_t<std::is_class<T>{}, float, T>;

/// The type transcendental functions are evaluated in: integers and bool go through double.
template <class T>
using math_t = std::conditional_t<std::is_floating_point<T>{}, T, double>;

template <class T>
math_t<T> to_math(T x)
{
    return static_cast<math_t<T>>(x);
}

/// Conversion between element types that is defined for every input: NaN or out-of-range
/// floating values become 0 for integer targets, anything nonzero becomes true for bool,
/// double beyond float's range becomes +-inf; integers wrap.
template <class To, class From>
To safe_cast(From x)
{
    if constexpr(std::is_same<To, From>{})
        return x;
    else if constexpr(std::is_class<From>{}) // half, fp8e4m3fn
        return safe_cast<To>(static_cast<float>(x));
    else if constexpr(std::is_same<To, bool>{})
        return x != From{0};
    else if constexpr(std::is_class<To>{}) // half (inf beyond its range), fp8e4m3fn (saturates)
        return To(safe_cast<float>(x));
    else if constexpr(std::is_integral<To>{} and std::is_floating_point<From>{})
    {
        if(not std::isfinite(x))
            return To{0};
        double t        = std::trunc(static_cast<double>(x));
        const double hi = std::ldexp(1.0, std::numeric_limits<To>::digits);
        const double lo = std::is_signed<To>{} ? -hi : 0.0;
        if(t < lo or t >= hi)
            return To{0};
        return static_cast<To>(t);
    }
    else if constexpr(std::is_same<To, float>{} and std::is_same<From, double>{})
    {
        constexpr double fmax = std::numeric_limits<float>::max();
        if(x > fmax)
            return std::numeric_limits<float>::infinity();
        if(x < -fmax)
            return -std::numeric_limits<float>::infinity();
        return static_cast<float>(x);
    }
    else
        return static_cast<To>(x);
}

// ---------------------------------------------------------------------------------------------
// Integer arithmetic with results defined for all inputs. Signed overflow wraps (done in an
// unsigned type at least as wide as unsigned int, so small types do not promote to signed int).

template <class T, bool Small = (sizeof(T) < sizeof(unsigned))>
struct wrap_type
{
    using type = unsigned;
};
template <class T>
struct wrap_type<T, false>
{
    using type = std::make_unsigned_t<T>;
};
template <class T>
using wrap_t = typename wrap_type<T>::type;

template <class T>
T wrap_add(T a, T b)
{
    return static_cast<T>(static_cast<wrap_t<T>>(a) + static_cast<wrap_t<T>>(b));
}
template <class T>
T wrap_sub(T a, T b)
{
    return static_cast<T>(static_cast<wrap_t<T>>(a) - static_cast<wrap_t<T>>(b));
}
template <class T>
T wrap_mul(T a, T b)
{
    return static_cast<T>(static_cast<wrap_t<T>>(a) * static_cast<wrap_t<T>>(b));
}
template <class T>
T wrap_neg(T a)
{
    return static_cast<T>(wrap_t<T>{0} - static_cast<wrap_t<T>>(a));
}
/// Truncating division; x / 0 is 0 and MIN / -1 wraps to MIN.
template <class T>
T int_div(T a, T b)
{
    if(b == T{0})
        return T{0};
    if constexpr(std::is_signed<T>{})
        if(b == T(-1))
            return wrap_neg(a);
    return static_cast<T>(a / b);
}
/// C remainder (sign of the dividend, as std::fmod); x % 0 is 0.
template <class T>
T int_fmod(T a, T b)
{
    if(b == T{0})
        return T{0};
    if constexpr(std::is_signed<T>{})
        if(b == T(-1))
            return T{0};
    return static_cast<T>(a % b);
}
/// Python remainder (sign of the divisor); x mod 0 is 0.
template <class T>
T int_mod(T a, T b)
{
    T r = int_fmod(a, b);
    if constexpr(std::is_signed<T>{})
        if(r != T{0} and ((r < T{0}) != (b < T{0})))
            r = static_cast<T>(r + b);
    return r;
}
/// Integer power by squaring, wrapping; negative exponents give the truncated reciprocal (0
/// unless |base| is 1; 0 for base 0).
template <class T>
T int_pow(T base, T e)
{
    if constexpr(std::is_signed<T>{})
    {
        if(e < T{0})
        {
            if(base == T{1})
                return T{1};
            if(base == T(-1))
                return (e % 2 == 0) ? T{1} : T(-1);
            return T{0};
        }
    }
    T r = T{1};
    auto n = static_cast<wrap_t<T>>(e);
    while(n != 0)
    {
        if(n & 1u)
            r = wrap_mul(r, base);
        base = wrap_mul(base, base);
        n >>= 1u;
    }
    return r;
}

template <class T>
constexpr bool is_int_v = std::is_integral<T>{} and not std::is_same<T, bool>{};

// ---------------------------------------------------------------------------------------------
// Walking elements.

/// Calls f(off) for each logical element, in row-major order, where off[k] is the element's
/// offset in shapes[k]. All shapes must have lens equal to `lens`.
template <std::size_t N, class F>
void walk(const std::vector<std::size_t>& lens, const std::array<const shape*, N>& shapes, F&& f)
{
    std::size_t n = 1;
    for(auto l : lens)
        n *= l;
    if(n == 0)
        return;
    bool all_standard = true;
    for(const auto* s : shapes)
        all_standard = all_standard and s->standard();
    std::array<std::size_t, N> off{};
    if(all_standard or lens.empty())
    {
        for(std::size_t i = 0; i < n; i++)
        {
            off.fill(i);
            f(off);
        }
        return;
    }
    const std::size_t nd = lens.size();
    std::array<const std::size_t*, N> strides{};
    for(std::size_t k = 0; k < N; k++)
        strides[k] = shapes[k]->strides().data();
    std::vector<std::size_t> idx(nd, 0);
    for(std::size_t i = 0; i < n; i++)
    {
        f(off);
        for(std::size_t d = nd; d-- > 0;)
        {
            idx[d]++;
            if(idx[d] < lens[d])
            {
                for(std::size_t k = 0; k < N; k++)
                    off[k] += strides[k][d];
                break;
            }
            for(std::size_t k = 0; k < N; k++)
                off[k] -= strides[k][d] * (lens[d] - 1);
            idx[d] = 0;
        }
    }
}

/// Typed read access to one input.
template <class T>
struct input
{
    const T* data;
    const shape* s;
};
template <class T>
input<T> make_input(const argument& a)
{
    return {reinterpret_cast<const T*>(a.data()), &a.get_shape()};
}

/// out[i] = f(ins[i]...) over all logical elements; out_shape may be strided too.
template <class U, class F, class... Ts>
void apply(U* out, const shape& out_shape, F&& f, input<Ts>... ins)
{
    constexpr std::size_t n = sizeof...(Ts);
    std::array<const shape*, n + 1> shapes{ins.s..., &out_shape};
    auto datas = std::make_tuple(ins.data...);
    walk<n + 1>(out_shape.lens(), shapes, [&](const std::array<std::size_t, n + 1>& off) {
        [&]<std::size_t... Is>(std::index_sequence<Is...>) {
            out[off[n]] = f(std::get<Is>(datas)[off[Is]]...);
        }(std::make_index_sequence<n>{});
    });
}

/// Checks what compute receives, so a direct call with wrong arguments throws instead of
/// reading out of bounds.
inline void check_args(const std::string& name, const shape& out, const std::vector<argument>& args, std::size_t n)
{
    if(args.size() != n)
        MIGRAPHX_THROW(name + ": expects " + std::to_string(n) + " argument(s), got " +
                       std::to_string(args.size()));
    for(const auto& a : args)
        if(a.get_shape().lens() != out.lens() or a.get_shape().type() == shape::tuple_type)
            MIGRAPHX_THROW(name + ": argument lens differ from the output lens");
}

/// The N arguments share one element type T; the output has type Out (T if Out is void).
/// out[i] = safe_cast<out type>(f(compute_t<T>(args[k][i])...)).
template <std::size_t N, class Out, class F>
argument transform(const std::string& name, const shape& out_shape, const std::vector<argument>& args, F f)
{
    check_args(name, out_shape, args, N);
    argument result{out_shape};
    args.front().get_shape().visit_type([&](auto as) {
        using T = typename decltype(as)::type;
        using U = std::conditional_t<std::is_void<Out>{}, T, Out>;
        if(result.get_shape().type() != shape::get_type<U>())
            MIGRAPHX_THROW(name + ": output type " + result.get_shape().type_string() + " is not the expected " +
                           shape::type_name(shape::get_type<U>()));
        for(const auto& a : args)
            if(a.get_shape().type() != shape::get_type<T>())
                MIGRAPHX_THROW(name + ": arguments must share one type");
        auto* out = reinterpret_cast<U*>(result.data());
        auto g    = [&](auto... xs) { return safe_cast<U>(f(static_cast<compute_t<T>>(xs)...)); };
        [&]<std::size_t... Is>(std::index_sequence<Is...>) {
            apply(out, out_shape, g, make_input<T>(args[Is])...);
        }(std::make_index_sequence<N>{});
    });
    return result;
}

/// Base of an op whose N inputs share one type and equal lens (any strides); the output is
/// standard, of the inputs' type or of Out. Derived provides name() and apply() (a function
/// of N compute_t values) and may restrict types with a static accepts(type_t).
template <class Derived, std::size_t N, class Out = void>
struct op_base
{
    static bool accepts(shape::type_t) { return true; }
    value attributes() const { return {{"pointwise", true}}; }
    shape compute_shape(const std::vector<shape>& inputs) const
    {
        const auto& self = static_cast<const Derived&>(*this);
        check_shapes cs{inputs, self};
        cs.has(N).not_tuple().static_only().same_type().same_dims();
        if(not Derived::accepts(inputs.front().type()))
            cs.fail("unsupported input type " + inputs.front().type_string());
        if constexpr(std::is_void<Out>{})
            return {inputs.front().type(), inputs.front().lens()};
        else
            return {shape::get_type<Out>(), inputs.front().lens()};
    }
    argument compute(const shape& out, const std::vector<argument>& args) const
    {
        const auto& self = static_cast<const Derived&>(*this);
        if(not args.empty() and not Derived::accepts(args.front().get_shape().type()))
            MIGRAPHX_THROW(self.name() + ": unsupported argument type " + args.front().get_shape().type_string());
        return transform<N, Out>(self.name(), out, args, self.apply());
    }
};

template <class Derived, class Out = void>
using unary_base = op_base<Derived, 1, Out>;
template <class Derived, class Out = void>
using binary_base = op_base<Derived, 2, Out>;

} // namespace elementwise
} // namespace migraphx

#endif
