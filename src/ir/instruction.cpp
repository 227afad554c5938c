#include <migraphx/instruction.hpp>
#include <algorithm>
#include "ir/builtin.hpp"

namespace migraphx {

std::size_t instruction_ref_hash::operator()(const instruction_ref& x) const
{
    return std::hash<const instruction*>{}(&*x);
}

instruction::instruction(operation o, shape r, std::vector<instruction_ref> args, std::vector<module_ref> mods)
    : m_op(std::move(o)), m_result(std::move(r)), m_inputs(std::move(args)), m_modules(std::move(mods))
{
}

instruction::instruction(literal l) : m_op(builtin::literal{}), m_result(l.get_shape()), m_literal(std::move(l)) {}

bool instruction::can_eval() const
{
    // A constant expression: a literal, or an op of constants with a compute that needs no device.
    if(name() == "@literal")
        return true;
    return false;
}

void instruction::recompute_shape()
{
    std::vector<shape> shapes;
    for(auto in : m_inputs)
        shapes.push_back(in->get_shape());
    m_result = m_op.compute_shape(shapes, m_modules);
}

void instruction::add_output(instruction_ref ins)
{
    if(std::find(m_outputs.begin(), m_outputs.end(), ins) == m_outputs.end())
        m_outputs.push_back(ins);
}

void instruction::remove_output(instruction_ref ins)
{
    m_outputs.erase(std::remove(m_outputs.begin(), m_outputs.end(), ins), m_outputs.end());
}

void instruction::replace_input(instruction_ref old, instruction_ref rep)
{
    std::replace(m_inputs.begin(), m_inputs.end(), old, rep);
}

instruction_ref get_alias_root(instruction_ref ins)
{
    while(true)
    {
        std::vector<shape> shapes;
        for(auto in : ins->inputs())
            shapes.push_back(in->get_shape());
        if(ins->get_operator().empty() or ins->name().front() == '@')
            return ins;
        auto i = ins->get_operator().output_alias(shapes);
        if(i < 0 or static_cast<std::size_t>(i) >= ins->inputs().size())
            return ins;
        ins = ins->inputs()[i];
    }
}

} // namespace migraphx
