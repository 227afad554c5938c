#include "driver/step_eval.hpp"
#include "ir/actual_sizes.hpp"
#include "ir/last_use.hpp"
#include <migraphx/errors.hpp>
#include <migraphx/instruction.hpp>
#include <migraphx/module.hpp>

namespace migraphx {
namespace driver {

const std::string& step_evaluator::param_name(const module& m, instruction_ref ins)
{
    auto it = m_names.find(&m);
    if(it == m_names.end())
        it = m_names.emplace(&m, m.instruction_names()).first;
    return it->second.at(&*ins);
}

std::vector<argument> step_evaluator::run(const parameter_map& params, const step_hook& hook)
{
    auto r = run_module(*m_prog->get_main_module(), params, nullptr, &hook);
    m_prog->get_context().finish();
    return r;
}

std::vector<argument> step_evaluator::run_module(const module& m,
                                                 const parameter_map& params,
                                                 const results_map* outer,
                                                 const step_hook* hook)
{
    context& ctx = m_prog->get_context();
    results_map results;
    results.reserve(m.size());
    auto lookup = [&](instruction_ref x) -> const argument& {
        auto it = results.find(&*x);
        if(it != results.end())
            return it->second;
        if(outer != nullptr)
        {
            auto jt = outer->find(&*x);
            if(jt != outer->end())
                return jt->second;
        }
        MIGRAPHX_THROW("step_eval: instruction " + x->name() + " used before it was computed");
    };
    // As eval: each result is dropped after its last reader, so per-instruction times see the
    // same warm memory a plain run does.
    auto found = m_last_uses.find(&m);
    if(found == m_last_uses.end())
        found = m_last_uses.emplace(&m, last_use_points(m)).first;
    const auto& last_uses = found->second;
    std::size_t pos      = 0;
    for(auto ins = m.begin(); ins != m.end(); ++ins, ++pos)
    {
        const auto& n = ins->name();
        if(n == "@return")
        {
            std::vector<argument> r;
            for(auto in : ins->inputs())
                r.push_back(lookup(in));
            return r;
        }
        std::function<argument()> compute = [&]() -> argument {
            if(n == "@literal")
                return ins->get_literal().get_argument();
            if(n == "@param")
            {
                const auto& pname = param_name(m, ins);
                auto it           = params.find(pname);
                if(it == params.end())
                    MIGRAPHX_THROW("step_eval: parameter '" + pname + "' was not given");
                return it->second;
            }
            std::vector<argument> args;
            args.reserve(ins->inputs().size());
            for(auto in : ins->inputs())
                args.push_back(lookup(in));
            // A result of data-dependent size (nonzero's rows) is smaller than declared: the op
            // computes for what it got, as eval does, or its views would overrun.
            if(ins->module_inputs().empty())
                return compute_sized(ins, args, &ctx);
            // Sub-modules run whole, inside their instruction's time.
            run_module_fn fn = [&](module_ref sub, const parameter_map& p) {
                return run_module(*sub, p, &results, nullptr);
            };
            return ins->get_operator().compute(ins->get_shape(), args, ins->module_inputs(), fn);
        };
        results[&*ins] = (hook != nullptr and *hook) ? (*hook)(ins, compute) : compute();
        for(const auto* x : last_uses[pos])
            results.erase(x);
    }
    if(m.empty())
        return {};
    return {lookup(std::prev(m.end()))};
}

} // namespace driver
} // namespace migraphx
