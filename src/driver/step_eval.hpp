#ifndef MIGRAPHX_DRIVER_STEP_EVAL_HPP
#define MIGRAPHX_DRIVER_STEP_EVAL_HPP

#include <migraphx/program.hpp>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

namespace migraphx {
namespace driver {

/// Called for each instruction of the main module with a function that computes it; returns
/// the instruction's result (compute() itself to run it, or anything to skip the work).
using step_hook = std::function<argument(instruction_ref, const std::function<argument()>& compute)>;

/// Evaluates a compiled program's main module one instruction at a time, with program::eval's
/// semantics (@literal, @param from params, @return, ops on the program's context, sub-modules
/// through op.compute(out, args, mods, run), ops on data-dependent sizes computed for the sizes
/// they got: sized_for), handing each main-module instruction to hook.
/// params must already fit the program (as made by make_params). Keep one evaluator for
/// repeated runs: it works out each module's parameter names once.
class step_evaluator
{
    public:
    explicit step_evaluator(const program& p) : m_prog(&p) {}
    std::vector<argument> run(const parameter_map& params, const step_hook& hook);

    private:
    using results_map = std::unordered_map<const instruction*, argument>;
    std::vector<argument>
    run_module(const module& m, const parameter_map& params, const results_map* outer, const step_hook* hook);
    const std::string& param_name(const module& m, instruction_ref ins);

    const program* m_prog;
    std::unordered_map<const module*, std::unordered_map<const instruction*, std::string>> m_names;
    std::unordered_map<const module*, std::vector<std::vector<const instruction*>>> m_last_uses; // per module, once
};

} // namespace driver
} // namespace migraphx

#endif
