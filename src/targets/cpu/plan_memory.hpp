#ifndef MIGRAPHX_CPU_PLAN_MEMORY_HPP
#define MIGRAPHX_CPU_PLAN_MEMORY_HPP

#include <migraphx/module.hpp>
#include <string>

namespace migraphx {
namespace cpu {

/// The results of the cpu target's own ops go into one scratch buffer a run, at offsets that
/// memory_coloring plans (results live at the same time apart, the others sharing memory), instead
/// of a new heap buffer each: a run then touches only its peak of live results, the same memory
/// every run (cpu::allocate keeps the buffer between runs), so what an op writes is mostly still
/// in cache. Each planned op gets its output buffer as one more input and `planned=1`. Left
/// alone: results that reach @return (the caller keeps them; they get memory of their own), ops
/// writing into their summand (cpu::sum_in_place), ops without a planned form.
struct plan_memory
{
    std::string name() const { return "cpu::plan_memory"; }
    void apply(module& m) const;
};

} // namespace cpu
} // namespace migraphx

#endif
