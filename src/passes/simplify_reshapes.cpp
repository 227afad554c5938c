#include "passes/simplify_reshapes.hpp"
#include <migraphx/make_op.hpp>
#include <algorithm>
#include <iterator>
#include <set>
#include <string>

namespace migraphx {

namespace {

bool is_reshaper(instruction_ref ins)
{
    static const std::set<std::string> names = {"reshape", "squeeze", "unsqueeze", "flatten"};
    return names.count(ins->name()) != 0;
}

// Ops that only relabel the memory of their input: with an unchanged shape they do nothing.
bool is_noop_when_same_shape(instruction_ref ins)
{
    static const std::set<std::string> names = {
        "reshape", "squeeze", "unsqueeze", "flatten", "transpose", "multibroadcast", "contiguous"};
    return names.count(ins->name()) != 0;
}

std::vector<std::int64_t> permutation_of(instruction_ref ins)
{
    return ins->get_operator().to_value().at("permutation").to_vector<std::int64_t>();
}

bool is_identity(const std::vector<std::int64_t>& perm)
{
    for(std::size_t i = 0; i < perm.size(); i++)
        if(perm[i] != static_cast<std::int64_t>(i))
            return false;
    return true;
}

enum class result
{
    none,
    replaced, // users moved to another instruction; ins is now unused
    changed   // ins rewritten in place; it may simplify further
};

result simplify(module& m, instruction_ref ins)
{
    if(ins->name() == "identity" and ins->inputs().size() == 1)
    {
        m.replace_instruction(ins, ins->inputs().front());
        return result::replaced;
    }
    if(ins->inputs().size() != 1 or not ins->module_inputs().empty())
        return result::none;
    auto x = ins->inputs().front();

    if(is_noop_when_same_shape(ins) and x->get_shape() == ins->get_shape())
    {
        m.replace_instruction(ins, x);
        return result::replaced;
    }
    if(ins->name() == "contiguous" and x->get_shape().standard() and
       x->get_shape().lens() == ins->get_shape().lens())
    {
        m.replace_instruction(ins, x);
        return result::replaced;
    }
    if(ins->name() == "transpose" and x->name() == "transpose")
    {
        auto outer = permutation_of(ins);
        auto inner = permutation_of(x);
        std::vector<std::int64_t> perm(outer.size());
        for(std::size_t i = 0; i < outer.size(); i++)
            perm[i] = inner[outer[i]];
        auto src = x->inputs().front();
        if(is_identity(perm))
        {
            m.replace_instruction(ins, src);
            return result::replaced;
        }
        m.replace_instruction(ins, make_op("transpose", {{"permutation", perm}}), {src});
        return result::changed;
    }
    if(is_reshaper(ins) and is_reshaper(x))
    {
        // Every op of the chain keeps the row-major order of the elements, so one reshape to the
        // final lens is the same. A reshape's result is standard whatever its input; the other
        // ops are views and agree with a reshape only over a standard source.
        auto src = x;
        while(is_reshaper(src))
            src = src->inputs().front();
        if(ins->name() != "reshape" and not src->get_shape().standard())
            return result::none;
        if(src->get_shape() == ins->get_shape())
        {
            m.replace_instruction(ins, src);
            return result::replaced;
        }
        const auto& lens = ins->get_shape().lens();
        std::vector<std::int64_t> dims(lens.begin(), lens.end());
        m.replace_instruction(ins, make_op("reshape", {{"dims", dims}}), {src});
        return result::changed;
    }
    return result::none;
}

} // namespace

void simplify_reshapes::apply(module& m) const
{
    // Forward, so a chain is folded into its last op; an op changed in place is looked at
    // again, as its new input may combine with it once more.
    for(auto ins = m.begin(); ins != m.end(); ++ins)
    {
        if(ins->name() == "@return" or ins->name() == "@param" or ins->name() == "@literal")
            continue;
        // Each in-place change shortens the chain above ins, so this ends.
        while(simplify(m, ins) == result::changed)
        {
        }
    }
}

} // namespace migraphx
