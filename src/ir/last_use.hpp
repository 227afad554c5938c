#ifndef MIGRAPHX_IR_LAST_USE_HPP
#define MIGRAPHX_IR_LAST_USE_HPP
// When a run may drop each result: right after the last instruction that reads it. Dropping
// results early lets the target's allocator hand their memory to the next result while it is
// still in cache (the cpu target's buffer pool), instead of every result of a run staying alive
// to its end (ResNet-50: ~100 MB touched per run, none of it warm).

#include <migraphx/module.hpp>
#include <cstddef>
#include <vector>

namespace migraphx {

/// For each position p of m (in instruction order), the instructions whose results nothing reads
/// after the instruction at p. Results read from other modules (the sub-modules of If or Loop
/// read outer values directly), results nothing reads (a module's last value) and returned
/// results are never listed; nor is anything in a module that runs sub-modules.
std::vector<std::vector<const instruction*>> last_use_points(const module& m);

} // namespace migraphx

#endif
