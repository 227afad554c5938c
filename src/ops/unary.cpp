// Attribute-free unary math ops. Floating types compute in their own type (half through float);
// integer inputs of transcendental functions compute in double and convert back with safe_cast,
// so e.g. sqrt(int32 -1) is 0, never undefined.
#include <migraphx/register_op.hpp>
#include "ops/pointwise.hpp"
#include <cmath>

namespace migraphx {
namespace op {
namespace {

using elementwise::to_math;
using elementwise::unary_base;

// A transcendental function: evaluated in math_t (double for integers).
#define MIGX_MATH_UNARY(type_name, op_name, expr)                          \
    struct type_name : unary_base<type_name>                              \
    {                                                                     \
        std::string name() const { return op_name; }                      \
        static auto apply()                                               \
        {                                                                 \
            return [](auto v) {                                           \
                auto x = to_math(v);                                      \
                return expr;                                              \
            };                                                            \
        }                                                                 \
    };                                                                    \
    MIGRAPHX_REGISTER_OP(type_name)

MIGX_MATH_UNARY(acos_op, "acos", std::acos(x));
MIGX_MATH_UNARY(acosh_op, "acosh", std::acosh(x));
MIGX_MATH_UNARY(asin_op, "asin", std::asin(x));
MIGX_MATH_UNARY(asinh_op, "asinh", std::asinh(x));
MIGX_MATH_UNARY(atan_op, "atan", std::atan(x));
MIGX_MATH_UNARY(atanh_op, "atanh", std::atanh(x));
MIGX_MATH_UNARY(cos_op, "cos", std::cos(x));
MIGX_MATH_UNARY(cosh_op, "cosh", std::cosh(x));
MIGX_MATH_UNARY(erf_op, "erf", std::erf(x));
MIGX_MATH_UNARY(exp_op, "exp", std::exp(x));
MIGX_MATH_UNARY(log_op, "log", std::log(x));
MIGX_MATH_UNARY(sin_op, "sin", std::sin(x));
MIGX_MATH_UNARY(sinh_op, "sinh", std::sinh(x));
MIGX_MATH_UNARY(sqrt_op, "sqrt", std::sqrt(x));
MIGX_MATH_UNARY(tan_op, "tan", std::tan(x));
MIGX_MATH_UNARY(tanh_op, "tanh", std::tanh(x));
MIGX_MATH_UNARY(recip_op, "recip", decltype(x){1} / x);
MIGX_MATH_UNARY(rsqrt_op, "rsqrt", decltype(x){1} / std::sqrt(x));
MIGX_MATH_UNARY(sigmoid_op, "sigmoid", decltype(x){1} / (decltype(x){1} + std::exp(-x)));

#undef MIGX_MATH_UNARY

// Ops below keep integers exact.

struct abs_op : unary_base<abs_op>
{
    std::string name() const { return "abs"; }
    static auto apply()
    {
        return [](auto x) {
            using T = decltype(x);
            if constexpr(std::is_floating_point<T>{})
                return std::abs(x);
            else if constexpr(std::is_signed<T>{})
                return x < T{0} ? elementwise::wrap_neg(x) : x;
            else
                return x;
        };
    }
};
MIGRAPHX_REGISTER_OP(abs_op)

struct neg_op : unary_base<neg_op>
{
    std::string name() const { return "neg"; }
    static auto apply()
    {
        return [](auto x) {
            using T = decltype(x);
            if constexpr(std::is_floating_point<T>{})
                return -x;
            else
                return elementwise::wrap_neg(x);
        };
    }
};
MIGRAPHX_REGISTER_OP(neg_op)

struct ceil_op : unary_base<ceil_op>
{
    std::string name() const { return "ceil"; }
    static auto apply()
    {
        return [](auto x) {
            if constexpr(std::is_floating_point<decltype(x)>{})
                return std::ceil(x);
            else
                return x;
        };
    }
};
MIGRAPHX_REGISTER_OP(ceil_op)

struct floor_op : unary_base<floor_op>
{
    std::string name() const { return "floor"; }
    static auto apply()
    {
        return [](auto x) {
            if constexpr(std::is_floating_point<decltype(x)>{})
                return std::floor(x);
            else
                return x;
        };
    }
};
MIGRAPHX_REGISTER_OP(floor_op)

// Halves round to even (std::nearbyint under the default rounding mode), as ONNX Round.
struct round_op : unary_base<round_op>
{
    std::string name() const { return "round"; }
    static auto apply()
    {
        return [](auto x) {
            if constexpr(std::is_floating_point<decltype(x)>{})
                return std::nearbyint(x);
            else
                return x;
        };
    }
};
MIGRAPHX_REGISTER_OP(round_op)

// NaN stays NaN (as numpy.maximum), unlike std::max(0, x).
struct relu_op : unary_base<relu_op>
{
    std::string name() const { return "relu"; }
    static auto apply()
    {
        return [](auto x) {
            using T = decltype(x);
            return x < T{0} ? T{0} : x;
        };
    }
};
MIGRAPHX_REGISTER_OP(relu_op)

struct sign_op : unary_base<sign_op>
{
    std::string name() const { return "sign"; }
    static auto apply()
    {
        return [](auto x) {
            using T = decltype(x);
            if constexpr(std::is_floating_point<T>{})
                if(std::isnan(x))
                    return x;
            if(x > T{0})
                return T{1};
            if constexpr(std::is_signed<T>{})
                if(x < T{0})
                    return T(-1);
            return T{0};
        };
    }
};
MIGRAPHX_REGISTER_OP(sign_op)

struct isnan_op : unary_base<isnan_op, bool>
{
    std::string name() const { return "isnan"; }
    static auto apply()
    {
        return [](auto x) {
            if constexpr(std::is_floating_point<decltype(x)>{})
                return std::isnan(x);
            else
                return false;
        };
    }
};
MIGRAPHX_REGISTER_OP(isnan_op)

struct isinf_op : unary_base<isinf_op, bool>
{
    std::string name() const { return "isinf"; }
    static auto apply()
    {
        return [](auto x) {
            if constexpr(std::is_floating_point<decltype(x)>{})
                return std::isinf(x);
            else
                return false;
        };
    }
};
MIGRAPHX_REGISTER_OP(isinf_op)

// Logical not: true where the input is zero (false for bool true).
struct not_op : unary_base<not_op, bool>
{
    std::string name() const { return "not"; }
    static auto apply()
    {
        return [](auto x) { return x == decltype(x){0}; };
    }
};
MIGRAPHX_REGISTER_OP(not_op)

// A view of its input: compilers remove it; evaluating it returns the input itself.
struct identity_op
{
    std::string name() const { return "identity"; }
    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes{inputs, *this}.has(1);
        return inputs.front();
    }
    argument compute(const shape&, const std::vector<argument>& args) const
    {
        if(args.size() != 1)
            MIGRAPHX_THROW("identity: expects 1 argument, got " + std::to_string(args.size()));
        return args.front();
    }
    std::ptrdiff_t output_alias(const std::vector<shape>&) const { return 0; }
};
MIGRAPHX_REGISTER_OP(identity_op)

} // namespace
} // namespace op
} // namespace migraphx
