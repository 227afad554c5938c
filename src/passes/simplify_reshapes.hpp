#ifndef MIGRAPHX_PASSES_SIMPLIFY_RESHAPES_HPP
#define MIGRAPHX_PASSES_SIMPLIFY_RESHAPES_HPP

#include <migraphx/module.hpp>
#include <string>

namespace migraphx {

/// Shortens chains of layout ops:
///   transpose(transpose(x)) -> one transpose, or x when the permutations cancel;
///   a chain of reshape/squeeze/unsqueeze/flatten -> one reshape;
///   any of those, or multibroadcast/transpose/contiguous, whose result has x's shape -> x;
///   contiguous of an already standard input -> the input; identity(x) -> x;
///   reshape(slice(y)) of a standard y, where the reshape only splits dims -> slice(reshape(y)),
///   two views instead of a copy (a fused Q/K/V projection split into heads).
/// Instructions left unused are left for dead_code_elimination.
struct simplify_reshapes
{
    std::string name() const { return "simplify_reshapes"; }
    void apply(module& m) const;
};

} // namespace migraphx

#endif
