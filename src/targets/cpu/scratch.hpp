#ifndef MIGRAPHX_CPU_SCRATCH_HPP
#define MIGRAPHX_CPU_SCRATCH_HPP

#include <migraphx/argument.hpp>
#include "ops/allocation.hpp"
#include <memory>
#include <mutex>
#include <ostream>
#include <string>
#include <vector>

namespace migraphx {
namespace cpu {

/// cpu::allocate[shape=S]: memory for results; the form memory_coloring plans (cpu::plan_memory),
/// which leaves one, `scratch=1`, whose buffer holds every planned result of a run at its offset.
/// A run takes an idle buffer of the program's (each concurrent run its own) and gives it back
/// when its last view goes: so a run writes into the memory the previous run used, still in
/// cache, with no page faults (a fresh buffer this size per run would come from mmap for 32 MB
/// and more). Not zeroed (every planned op writes its whole result).
struct scratch_allocate : allocation_fields
{
    std::string name() const { return "cpu::allocate"; }
    void print_attributes(std::ostream& os) const;
    shape compute_shape(const std::vector<shape>& inputs) const { return allocated_shape(name(), inputs); }
    argument compute(const shape& out, const std::vector<argument>&) const;

    struct idle_buffers
    {
        std::mutex m;
        std::vector<std::shared_ptr<char>> buffers;
    };
    std::shared_ptr<idle_buffers> idle = std::make_shared<idle_buffers>();
};

} // namespace cpu
} // namespace migraphx

#endif
