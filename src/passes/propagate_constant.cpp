#include "passes/propagate_constant.hpp"
#include "passes/pass_utils.hpp"
#include <iterator>
#include <unordered_map>
#include <unordered_set>

namespace migraphx {

namespace {

bool foldable_op(instruction_ref ins)
{
    if(pass_utils::is_builtin(ins) or ins->inputs().empty() or not ins->module_inputs().empty())
        return false;
    const auto& op = ins->get_operator();
    if(pass_utils::has_side_effects(op))
        return false;
    auto attrs = op.attributes();
    if(attrs.is_object() and attrs.contains("scratch"))
        return false;
    return ins->get_shape().type() != shape::tuple_type and not ins->get_shape().dynamic();
}

// A result that only spreads fewer values over more elements (a broadcast, or a view or
// reshape of one) is cheaper to keep as an expression than as materialised data.
bool skip_fold(instruction_ref ins)
{
    while(true)
    {
        const auto& s = ins->get_shape();
        if(s.broadcasted() and s.element_space() < s.elements())
            return true;
        if(ins->name() == "contiguous" or ins->name() == "reshape")
        {
            ins = ins->inputs().front();
            continue;
        }
        if(pass_utils::is_builtin(ins))
            return false;
        auto alias = ins->get_operator().output_alias(pass_utils::input_shapes(ins));
        if(alias < 0 or static_cast<std::size_t>(alias) >= ins->inputs().size())
            return false;
        ins = ins->inputs()[alias];
    }
}

} // namespace

void propagate_constant::apply(module& m) const
{
    if(m.empty())
        return;
    // Forward: the value of every constant expression, each computed once from its inputs'.
    std::unordered_map<const instruction*, argument> values;
    for(auto ins = m.begin(); ins != m.end(); ++ins)
    {
        if(ins->name() == "@literal")
        {
            values.emplace(&*ins, ins->get_literal().get_argument());
            continue;
        }
        if(not foldable_op(ins))
            continue;
        std::vector<argument> args;
        bool all_const = true;
        for(auto in : ins->inputs())
        {
            auto it = values.find(&*in);
            if(it == values.end())
            {
                all_const = false;
                break;
            }
            args.push_back(it->second);
        }
        if(not all_const)
            continue;
        try
        {
            auto r = ins->get_operator().compute(ins->get_shape(), args);
            if(r.empty() or r.get_shape() != ins->get_shape())
                continue; // dynamic-output ops: keep them as they are
            values.emplace(&*ins, std::move(r));
        }
        catch(const std::exception&)
        {
            // No host compute (a target op) or an input it rejects: not a constant.
        }
    }

    // A constant worth folding: not one kept as an expression.
    auto folds = [&](instruction_ref ins) {
        return ins->name() != "@literal" and values.count(&*ins) != 0 and not skip_fold(ins);
    };
    auto last = std::prev(m.end());
    std::vector<instruction_ref> to_fold;
    for(auto ins = m.begin(); ins != m.end(); ++ins)
    {
        if(not folds(ins))
            continue;
        // Fold where the constant meets something that is not folded itself (or is the output);
        // a constant whose users are all folded is only needed by them.
        bool needed = ins == last;
        for(auto out : ins->outputs())
            needed = needed or not(values.count(&*out) != 0 and not skip_fold(out));
        if(needed)
            to_fold.push_back(ins);
    }
    for(auto ins : to_fold)
    {
        literal l{values.at(&*ins)};
        auto lit = ins == last ? m.insert_literal(m.end(), std::move(l)) : m.add_literal(std::move(l));
        m.replace_instruction(ins, lit);
    }
}

} // namespace migraphx
