#include "targets/cpu/sum_in_place.hpp"
#include <migraphx/instruction.hpp>
#include <migraphx/make_op.hpp>
#include "passes/pass_utils.hpp"
#include <unordered_map>

namespace migraphx {
namespace cpu {

namespace {

bool is_sum_op(const instruction& ins, bool in_place)
{
    if(ins.name() != "dnnl::convolution" and ins.name() != "dnnl::matmul")
        return false;
    auto v = ins.get_operator().to_value();
    return v.at("sum").get_bool() and v.at("sum_in_place").get_bool() == in_place;
}

bool is_view(instruction_ref ins)
{
    return ins->get_operator().output_alias(pass_utils::input_shapes(ins)) >= 0;
}

// s's buffer may be overwritten by `reader`: s owns its memory (or writes in place into a summand
// whose other readers, checked when it was made so, all come before s), and every other reader
// of s is in this module, before `reader`, and not a view of it.
bool summand_is_dead_after(instruction_ref s,
                           instruction_ref reader,
                           const std::unordered_map<const instruction*, std::size_t>& position)
{
    if(s->name().front() == '@' or (is_view(s) and not is_sum_op(*s, true)) or not s->module_inputs().empty())
        return false;
    auto here = position.find(&*reader);
    for(auto out : s->outputs())
    {
        if(out == reader)
            continue;
        auto it = position.find(&*out);
        if(it == position.end() or it->second > here->second or out->name().front() == '@' or is_view(out) or
           not out->module_inputs().empty())
            return false;
    }
    // read twice by the same op (x + x): the other operand would see the overwritten buffer
    std::size_t uses = 0;
    for(auto in : reader->inputs())
        uses += in == s ? 1 : 0;
    return uses == 1;
}

} // namespace

void sum_in_place::apply(module& m) const
{
    std::unordered_map<const instruction*, std::size_t> position;
    std::size_t p = 0;
    for(auto& ins : m)
        position.emplace(&ins, p++);
    for(auto ins = m.begin(); ins != m.end(); ++ins)
    {
        if(not is_sum_op(*ins, false) or not summand_is_dead_after(ins->inputs().back(), ins, position))
            continue;
        auto v            = ins->get_operator().to_value();
        v["sum_in_place"] = true;
        m.replace_instruction(ins, make_op(ins->name(), v), ins->inputs());
    }
}

} // namespace cpu
} // namespace migraphx
