#ifndef MIGRAPHX_PASSES_HOIST_BROADCASTS_HPP
#define MIGRAPHX_PASSES_HOIST_BROADCASTS_HPP

#include <migraphx/module.hpp>
#include <string>

namespace migraphx {

/// An elementwise op whose inputs are all broadcast (stride 0) along the same dims computes the
/// same value at every index of those dims: it runs once on the inputs taken at index 0 there
/// (slice views) and its result is broadcast back. A padding mask [batch, 1, seq, seq] made from
/// [batch, 1, 1, seq] by Expand, Cast, Sub, Mul stays [batch, 1, 1, seq] and reaches its
/// consumer as a broadcast (the fused attention then reads one row); less work and memory
/// everywhere else. Run before fuse_pointwise; unused instructions are left for
/// dead_code_elimination.
struct hoist_broadcasts
{
    std::string name() const { return "hoist_broadcasts"; }
    void apply(module& m) const;
};

} // namespace migraphx

#endif
