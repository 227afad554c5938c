#ifndef MIGRAPHX_CPU_POINTWISE_KERNEL_HPP
#define MIGRAPHX_CPU_POINTWISE_KERNEL_HPP

// cpu::pointwise: a chain of float elementwise ops run as one pass over memory. The chain is a
// small program over slots (the op's inputs, then constants, then each step's result), run tile
// by tile so intermediate values stay in cache; tiles are spread over the OpenMP threads.

#include <migraphx/argument.hpp>
#include <migraphx/shape.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace migraphx {
namespace cpu {

struct pointwise_kernel
{
    std::size_t inputs = 0;
    std::vector<float> constants;     // slots inputs .. inputs+constants-1
    std::vector<std::string> ops;     // one per step; step i writes slot inputs+constants+i
    std::vector<std::int64_t> args;   // each step's input slots, concatenated
    std::vector<std::int64_t> arity;  // how many slots each step reads
    std::vector<float> alpha;         // each step's attribute (leaky_relu alpha...), else 0
    bool planned = false;             // the output buffer is the last input (cpu::plan_memory)

    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.inputs, "inputs");
        f(self.constants, "constants");
        f(self.ops, "ops");
        f(self.args, "args");
        f(self.arity, "arity");
        f(self.alpha, "alpha");
        f(self.planned, "planned");
    }
    std::string name() const { return "cpu::pointwise"; }
    std::ptrdiff_t output_alias(const std::vector<shape>& in) const
    {
        return planned ? static_cast<std::ptrdiff_t>(in.size()) - 1 : -1;
    }
    shape compute_shape(const std::vector<shape>& in) const;
    argument compute(const shape& out, const std::vector<argument>& args) const;

    /// Runs the steps over n dense elements in one tile (compute's small case).
    void run_small(float* dst, std::size_t n, const std::vector<argument>& in) const;

    /// Whether the kernel has a loop for this op name (and its arity).
    static bool supports(const std::string& op, std::size_t arity);

    /// Each step's loop, found by name on the kernel's first run (a small call spent ~0.2 us on
    /// the names alone). Not reflected, and not copied: a copy, whose steps may be changed
    /// before it runs, finds its own.
    std::shared_ptr<const std::vector<int>> step_codes() const;

    private:
    struct code_cache
    {
        std::shared_ptr<const std::vector<int>> list;
        code_cache() = default;
        code_cache(const code_cache&) {}
        code_cache& operator=(const code_cache&)
        {
            list.reset();
            return *this;
        }
    };
    mutable code_cache m_codes;
};

} // namespace cpu
} // namespace migraphx

#endif
