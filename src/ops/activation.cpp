// Activation functions, some with attributes (named and defaulted as MIGraphX / ONNX do).
// Computed in math_t (float for half and float, double for double and integers).
#include <migraphx/register_op.hpp>
#include "ops/pointwise.hpp"
#include <algorithm>
#include <cmath>

namespace migraphx {
namespace op {
namespace {

using elementwise::to_math;
using elementwise::unary_base;

struct leaky_relu_op : unary_base<leaky_relu_op>
{
    float alpha = 0.01f;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.alpha, "alpha");
    }
    std::string name() const { return "leaky_relu"; }
    auto apply() const
    {
        return [a = alpha](auto v) {
            auto x = to_math(v);
            return x > 0 ? x : x * static_cast<decltype(x)>(a);
        };
    }
};
MIGRAPHX_REGISTER_OP(leaky_relu_op)

struct elu_op : unary_base<elu_op>
{
    float alpha = 1.0f;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.alpha, "alpha");
    }
    std::string name() const { return "elu"; }
    auto apply() const
    {
        return [a = alpha](auto v) {
            auto x = to_math(v);
            return x < 0 ? static_cast<decltype(x)>(a) * std::expm1(x) : x;
        };
    }
};
MIGRAPHX_REGISTER_OP(elu_op)

// max(0, x) + min(0, alpha * (exp(x / alpha) - 1))
struct celu_op : unary_base<celu_op>
{
    float alpha = 1.0f;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.alpha, "alpha");
    }
    std::string name() const { return "celu"; }
    shape compute_shape(const std::vector<shape>& inputs) const
    {
        if(alpha == 0.0f)
            MIGRAPHX_THROW("celu: alpha must not be 0");
        return unary_base<celu_op>::compute_shape(inputs);
    }
    auto apply() const
    {
        return [a = alpha](auto v) {
            auto x  = to_math(v);
            using T = decltype(x);
            auto al = static_cast<T>(a);
            return x > 0 ? x : al * std::expm1(x / al);
        };
    }
};
MIGRAPHX_REGISTER_OP(celu_op)

// max(0, min(1, alpha * x + beta))
struct hardsigmoid_op : unary_base<hardsigmoid_op>
{
    float alpha = 0.2f;
    float beta  = 0.5f;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.alpha, "alpha");
        f(self.beta, "beta");
    }
    std::string name() const { return "hardsigmoid"; }
    auto apply() const
    {
        return [a = alpha, b = beta](auto v) {
            auto x  = to_math(v);
            using T = decltype(x);
            auto y  = static_cast<T>(a) * x + static_cast<T>(b);
            return y < T{0} ? T{0} : (y > T{1} ? T{1} : y);
        };
    }
};
MIGRAPHX_REGISTER_OP(hardsigmoid_op)

// gamma * (x > 0 ? x : alpha * (exp(x) - 1)); the defaults are ONNX's (float-rounded).
struct selu_op : unary_base<selu_op>
{
    float alpha = 1.67326319217681884765625f;
    float gamma = 1.05070102214813232421875f;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.alpha, "alpha");
        f(self.gamma, "gamma");
    }
    std::string name() const { return "selu"; }
    auto apply() const
    {
        return [a = alpha, g = gamma](auto v) {
            auto x  = to_math(v);
            using T = decltype(x);
            return static_cast<T>(g) * (x > 0 ? x : static_cast<T>(a) * std::expm1(x));
        };
    }
};
MIGRAPHX_REGISTER_OP(selu_op)

struct thresholdedrelu_op : unary_base<thresholdedrelu_op>
{
    float alpha = 1.0f;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.alpha, "alpha");
    }
    std::string name() const { return "thresholdedrelu"; }
    auto apply() const
    {
        return [a = alpha](auto v) {
            auto x = to_math(v);
            return x > static_cast<decltype(x)>(a) ? x : decltype(x){0};
        };
    }
};
MIGRAPHX_REGISTER_OP(thresholdedrelu_op)

// log(1 + exp(x)), written so large |x| neither overflows nor loses the small term.
struct softplus_op : unary_base<softplus_op>
{
    std::string name() const { return "softplus"; }
    static auto apply()
    {
        return [](auto v) {
            auto x  = to_math(v);
            using T = decltype(x);
            return (x > T{0} ? x : T{0}) + std::log1p(std::exp(-std::abs(x)));
        };
    }
};
MIGRAPHX_REGISTER_OP(softplus_op)

// x / (1 + |x|)
struct softsign_op : unary_base<softsign_op>
{
    std::string name() const { return "softsign"; }
    static auto apply()
    {
        return [](auto v) {
            auto x = to_math(v);
            return x / (decltype(x){1} + std::abs(x));
        };
    }
};
MIGRAPHX_REGISTER_OP(softsign_op)

// x * max(0, min(1, x / 6 + 1/2)) (ONNX HardSwish)
struct hardswish_op : unary_base<hardswish_op>
{
    std::string name() const { return "hardswish"; }
    static auto apply()
    {
        return [](auto v) {
            auto x  = to_math(v);
            using T = decltype(x);
            auto y  = x / T{6} + T{0.5};
            return x * (y < T{0} ? T{0} : (y > T{1} ? T{1} : y));
        };
    }
};
MIGRAPHX_REGISTER_OP(hardswish_op)

} // namespace
} // namespace op
} // namespace migraphx
