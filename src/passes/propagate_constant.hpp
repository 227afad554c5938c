#ifndef MIGRAPHX_PASSES_PROPAGATE_CONSTANT_HPP
#define MIGRAPHX_PASSES_PROPAGATE_CONSTANT_HPP

#include <migraphx/module.hpp>
#include <string>

namespace migraphx {

/// Folds constant expressions: an instruction whose inputs are all literals or constant
/// expressions is evaluated once on the host (op.compute) and replaced by a literal.
/// Ops with side effects or sub-modules are not folded, nor is an expression whose result is
/// a broadcast of smaller data (a broadcast literal stays a broadcast, the data is not
/// materialised; a non-view op that consumes it is folded). Only the constants that a
/// non-constant instruction (or the output) uses become literals; the rest is left dead for
/// dead_code_elimination.
struct propagate_constant
{
    std::string name() const { return "propagate_constant"; }
    void apply(module& m) const;
};

} // namespace migraphx

#endif
