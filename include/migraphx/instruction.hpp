#ifndef MIGRAPHX_INSTRUCTION_HPP
#define MIGRAPHX_INSTRUCTION_HPP

#include <migraphx/instruction_ref.hpp>
#include <migraphx/literal.hpp>
#include <migraphx/operation.hpp>
#include <migraphx/shape.hpp>
#include <vector>

namespace migraphx {

/// One SSA instruction: an operation applied to earlier instructions (and optionally sub-modules).
/// @param, @literal and @return are instructions too, with builtin operations.
struct instruction
{
    instruction() = default;
    instruction(operation o, shape r, std::vector<instruction_ref> args, std::vector<module_ref> mods = {});
    instruction(literal l);

    const operation& get_operator() const { return m_op; }
    std::string name() const { return m_op.name(); }
    const shape& get_shape() const { return m_result; }
    const std::vector<instruction_ref>& inputs() const { return m_inputs; }
    const std::vector<module_ref>& module_inputs() const { return m_modules; }
    /// Instructions that use this one (unique, in no particular order).
    const std::vector<instruction_ref>& outputs() const { return m_outputs; }
    const literal& get_literal() const { return m_literal; }
    bool can_eval() const;

    /// Recomputes the shape from the inputs; throws if the op rejects them.
    void recompute_shape();

    // Mutation is done through module, which keeps inputs and outputs in step.
    void set_operator(operation o) { m_op = std::move(o); }
    void set_shape(shape s) { m_result = std::move(s); }
    void set_inputs(std::vector<instruction_ref> args) { m_inputs = std::move(args); }
    void set_module_inputs(std::vector<module_ref> mods) { m_modules = std::move(mods); }
    void add_output(instruction_ref ins);
    void remove_output(instruction_ref ins);
    void clear_outputs() { m_outputs.clear(); }
    void replace_input(instruction_ref old, instruction_ref rep);

    private:
    operation m_op{};
    shape m_result{};
    std::vector<instruction_ref> m_inputs{};
    std::vector<module_ref> m_modules{};
    std::vector<instruction_ref> m_outputs{};
    literal m_literal{};
};

/// Follows output_alias through views to the instruction that owns the memory.
instruction_ref get_alias_root(instruction_ref ins);

} // namespace migraphx

#endif
