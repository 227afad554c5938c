#ifndef MIGRAPHX_PASSES_MEMORY_COLORING_HPP
#define MIGRAPHX_PASSES_MEMORY_COLORING_HPP

#include <migraphx/module.hpp>
#include <string>
#include <unordered_map>
#include <vector>

namespace migraphx {

/// Plans the memory of a lowered module, in which every op writes into an `allocation_op`
/// instruction given as its last input (and returns it through output_alias). An allocation is
/// live from itself to the last instruction that reads it or any view of it (output_alias chains,
/// and values read from inside If/Loop bodies); one that reaches @return stays live to the end.
/// Allocations live at the same time get disjoint byte ranges of one scratch buffer, others reuse
/// freed ranges (largest first, each at the lowest aligned offset that fits). Every allocation
/// becomes `load[offset=N,end=M](scratch)`, and the scratch buffer is
/// `allocate[shape=uint8_type, {total}, {1},scratch=1]` at the start of the module; its size is
/// what program::get_memory_usage() reports. A module already planned is left alone.
struct memory_coloring
{
    std::string allocation_op = "allocate";
    std::size_t alignment     = 64;
    std::string name() const { return "memory_coloring"; }
    void apply(module& m) const;
};

/// Who reads which memory in a module, as memory_coloring and schedule see it. The owner of an
/// instruction's result is the instruction its output_alias chain ends at; the readers of an
/// owner are the instructions of the module that take it or a view of it as input, or read it
/// from inside one of their sub-modules.
struct buffer_readers
{
    explicit buffer_readers(const module& m);
    /// The owner of x's memory (x itself when it is not a view).
    instruction_ref owner(instruction_ref x) const;
    /// Readers of the memory owned by x, each listed once, in no particular order.
    const std::vector<instruction_ref>& readers(instruction_ref owner) const;
    /// Whether the memory owned by x reaches @return.
    bool returned(instruction_ref owner) const;

    private:
    std::unordered_map<const instruction*, instruction_ref> m_owner;
    std::unordered_map<const instruction*, std::vector<instruction_ref>> m_readers;
    std::unordered_map<const instruction*, bool> m_returned;
    std::vector<instruction_ref> m_none;
};

} // namespace migraphx

#endif
