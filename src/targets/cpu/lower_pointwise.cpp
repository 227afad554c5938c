#include "targets/cpu/lower_pointwise.hpp"
#include "passes/pass_utils.hpp"
#include "targets/cpu/pointwise_kernel.hpp"
#include <migraphx/operation.hpp>
#include <optional>
#include <unordered_map>

namespace migraphx {
namespace cpu {
namespace {

/// The single value of a scalar constant (a one-element literal, maybe broadcast), if x is one.
std::optional<float> scalar_constant(instruction_ref x) { return pass_utils::scalar_value(x); }

float alpha_of(instruction_ref ins)
{
    auto v = ins->get_operator().to_value();
    return v.is_object() and v.contains("alpha") ? static_cast<float>(v.at("alpha").get_float()) : 0.0f;
}

/// Builds a kernel over a list of instructions (in order) whose values come from `slot_of`.
struct kernel_builder
{
    pointwise_kernel k;
    std::vector<instruction_ref> inputs; // the kernel's tensor inputs, in the outer module
    std::unordered_map<const instruction*, std::int64_t> slot;
    std::vector<std::pair<std::string, std::vector<std::int64_t>>> steps;
    std::vector<float> alphas;

    std::int64_t constant(float c)
    {
        k.constants.push_back(c);
        return -static_cast<std::int64_t>(k.constants.size()); // fixed up in finish()
    }
    std::int64_t input(instruction_ref outer)
    {
        inputs.push_back(outer);
        return static_cast<std::int64_t>(inputs.size() - 1);
    }
    std::int64_t step(const std::string& op, std::vector<std::int64_t> a, float alpha)
    {
        steps.emplace_back(op, std::move(a));
        alphas.push_back(alpha);
        return 1000000 + static_cast<std::int64_t>(steps.size() - 1);
    }
    /// The steps of op `ins` on slots a: the kernel's own step, or for hardsigmoid (two
    /// attributes, the kernel's steps carry one) clip(x * alpha + beta, 0, 1) as the reference
    /// op computes it. Returns the result's slot.
    std::int64_t op_steps(instruction_ref ins, const std::vector<std::int64_t>& a)
    {
        if(ins->name() != "hardsigmoid")
            return step(ins->name(), a, alpha_of(ins));
        auto v  = ins->get_operator().to_value();
        auto ax = step("mul", {a.at(0), constant(static_cast<float>(v.at("alpha").get_float()))}, 0);
        auto y  = step("add", {ax, constant(static_cast<float>(v.at("beta").get_float()))}, 0);
        return step("clip", {y, constant(0.0f), constant(1.0f)}, 0);
    }
    /// Slots: inputs, then constants, then steps.
    pointwise_kernel finish()
    {
        auto ni = static_cast<std::int64_t>(inputs.size());
        auto nc = static_cast<std::int64_t>(k.constants.size());
        k.inputs = inputs.size();
        for(auto& [op, a] : steps)
        {
            k.ops.push_back(op);
            k.arity.push_back(static_cast<std::int64_t>(a.size()));
            for(auto s : a)
                k.args.push_back(s < 0 ? ni + (-s - 1) : s >= 1000000 ? ni + nc + (s - 1000000) : s);
        }
        k.alpha = alphas;
        return k;
    }
};

bool float_op(instruction_ref ins) { return ins->get_shape().type() == shape::float_type; }

/// Ops the kernel runs as one step, or as a few (kernel_builder::op_steps).
bool kernel_can_run(instruction_ref ins)
{
    return pointwise_kernel::supports(ins->name(), ins->inputs().size()) or
           (ins->name() == "hardsigmoid" and ins->inputs().size() == 1);
}

/// A kernel for a fused `pointwise` instruction: its sub-module's params are its inputs in order.
std::optional<std::pair<pointwise_kernel, std::vector<instruction_ref>>> from_module(instruction_ref ins)
{
    const auto* sub = ins->module_inputs().front();
    kernel_builder b;
    // Parameters in the order of the instruction's inputs (fuse_pointwise names them x0, x1...).
    std::vector<instruction_ref> params;
    for(auto it = sub->begin(); it != sub->end(); ++it)
        if(it->name() == "@param")
            params.push_back(it);
    if(params.size() != ins->inputs().size())
        return std::nullopt;
    std::sort(params.begin(), params.end(), [](auto a, auto b) {
        auto num = [](instruction_ref p) {
            auto n = p->get_operator().to_value().at("parameter").get_string();
            return n.size() > 1 ? std::stoll(n.substr(1)) : 0LL;
        };
        return num(a) < num(b);
    });
    for(std::size_t i = 0; i < params.size(); i++)
    {
        if(not float_op(ins->inputs()[i]))
            return std::nullopt;
        b.slot[&*params[i]] = b.input(ins->inputs()[i]);
    }
    std::int64_t result = -1000;
    for(auto it = sub->begin(); it != sub->end(); ++it)
    {
        auto n = it->name();
        if(n == "@param")
            continue;
        if(n == "@return")
        {
            if(it->inputs().size() != 1)
                return std::nullopt;
            result = b.slot.at(&*it->inputs().front());
            continue;
        }
        if(n == "@literal" or n == "broadcast" or n == "multibroadcast")
        {
            auto c = scalar_constant(it);
            if(not c)
                return std::nullopt;
            b.slot[&*it] = b.constant(*c);
            continue;
        }
        if(not float_op(it) or not kernel_can_run(it))
            return std::nullopt;
        std::vector<std::int64_t> a;
        for(auto x : it->inputs())
        {
            if(b.slot.count(&*x) == 0)
                return std::nullopt;
            a.push_back(b.slot.at(&*x));
        }
        b.slot[&*it] = b.op_steps(it, a);
    }
    if(result < 1000000 or result != 1000000 + static_cast<std::int64_t>(b.steps.size()) - 1)
    {
        if(result == -1000)
            return std::nullopt;
        b.step("identity", {result}, 0); // the result is an input or an earlier step
    }
    auto inputs = b.inputs;
    return std::make_pair(b.finish(), inputs);
}

/// A kernel for one elementwise op.
std::optional<std::pair<pointwise_kernel, std::vector<instruction_ref>>> from_op(instruction_ref ins)
{
    auto n = ins->name();
    if(not float_op(ins) or not kernel_can_run(ins))
        return std::nullopt;
    kernel_builder b;
    std::vector<std::int64_t> a;
    for(auto x : ins->inputs())
    {
        if(not float_op(x))
            return std::nullopt;
        auto c = scalar_constant(x);
        a.push_back(c ? b.constant(*c) : b.input(x));
    }
    if(b.inputs.empty())
        return std::nullopt; // all constant: propagate_constant's business
    b.op_steps(ins, a);
    auto inputs = b.inputs;
    return std::make_pair(b.finish(), inputs);
}

bool is_elementwise(instruction_ref ins)
{
    auto a = ins->get_operator().attributes();
    return (a.is_object() and a.contains("pointwise") and ins->module_inputs().empty()) or ins->name() == "contiguous";
}

} // namespace

std::optional<std::pair<pointwise_kernel, std::vector<instruction_ref>>> pointwise_kernel_for(instruction_ref ins)
{
    if(ins->name() == "pointwise" and ins->module_inputs().size() == 1)
        return from_module(ins);
    if(is_elementwise(ins))
        return from_op(ins);
    return std::nullopt;
}

void lower_pointwise::apply(module& m) const
{
    // fuse_pointwise's bodies ("main:pointwise0") are read whole by the instruction that owns
    // them; lowering their ops one by one first would stop that.
    if(m.name().find(":pointwise") != std::string::npos)
        return;
    auto dd = pass_utils::data_dependent(m); // lower_actual_sizes' business (unplanned kernels)
    for(auto ins = m.begin(); ins != m.end(); ++ins)
    {
        if(dd.count(&*ins) > 0)
            continue;
        auto k = pointwise_kernel_for(ins);
        if(k)
            m.replace_instruction(ins, operation{k->first}, k->second, {});
    }
}

} // namespace cpu
} // namespace migraphx
