#ifndef MIGRAPHX_PASSES_SIMPLIFY_ALGEBRA_HPP
#define MIGRAPHX_PASSES_SIMPLIFY_ALGEBRA_HPP

#include <migraphx/module.hpp>
#include <string>

namespace migraphx {

/// Algebraic rewrites that save work at run time:
///   batch_norm_inference(convolution(x, w) [+ per-channel bias b], scale, bias, mean, var),
///     all literal and spatial
///     -> add(convolution(x, w * f), broadcast(bias - (mean - b) * f)), f = scale / sqrt(var + eps);
///   batch_norm_inference(x, ...) otherwise, all literal and spatial
///     -> add(mul(x, broadcast(f)), broadcast(bias - mean * f));
///   mul(convolution(x, w), c) with w literal and c a per-channel broadcast literal
///     -> convolution(x, w * c);
///   add(add(x, c1), c2) -> add(x, add(c1, c2)) for constants c1, c2 (mul likewise);
///   mul(add(x, c1), c2) -> add(mul(x, c2), mul(c1, c2));
///   add(x, 0), sub(x, 0), mul(x, 1), div(x, 1) -> x.
/// New constant expressions are left for propagate_constant, dead code for
/// dead_code_elimination.
struct simplify_algebra
{
    std::string name() const { return "simplify_algebra"; }
    void apply(module& m) const;
};

} // namespace migraphx

#endif
