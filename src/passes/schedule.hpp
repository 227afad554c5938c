#ifndef MIGRAPHX_PASSES_SCHEDULE_HPP
#define MIGRAPHX_PASSES_SCHEDULE_HPP

#include <migraphx/module.hpp>
#include <string>

namespace migraphx {

/// Reorders a module so that less memory is live at once, keeping every dependency: data
/// inputs, values read from inside sub-modules, the order of ops with side effects, and the order
/// between a buffer's readers and any later instruction that aliases (and so may write) it.
///
/// Greedy list scheduling: at each step it runs the ready instruction that adds the fewest bytes
/// net (its own result, plus the allocation it writes into, minus the buffers it is the last
/// reader of). Instructions without inputs that own memory (allocate) wait until just before their
/// first user. Parameters and literals go first, @return stays last. Memory is counted as in
/// peak_live_bytes; the new order is kept only if its peak is lower than the old one's.
///
/// Run it before memory_coloring: a module that already has a scratch buffer is left alone.
struct schedule
{
    std::string name() const { return "schedule"; }
    void apply(module& m) const;
};

/// The most bytes live at once when m runs in its current order: every result that owns memory
/// (not a view, parameter or literal) from its instruction to the last instruction reading it or
/// a view of it; results that reach @return stay live to the end.
std::size_t peak_live_bytes(const module& m);

} // namespace migraphx

#endif
