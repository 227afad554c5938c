#include "passes/eliminate_common_subexpression.hpp"
#include "passes/pass_utils.hpp"
#include <functional>
#include <sstream>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace migraphx {

namespace {

// A hash key: equal instructions always get equal keys; candidates are then compared exactly.
std::string key_of(instruction_ref ins)
{
    std::ostringstream ss;
    if(ins->name() == "@literal")
    {
        const auto& l = ins->get_literal();
        ss << "@literal " << l.get_shape() << " ";
        if(l.data() != nullptr)
            ss << std::hash<std::string_view>{}(std::string_view(l.data(), l.get_shape().bytes()));
        return ss.str();
    }
    ss << ins->get_operator();
    for(auto in : ins->inputs())
        ss << " " << static_cast<const void*>(&*in);
    for(auto* sub : ins->module_inputs())
        ss << " [" << static_cast<const void*>(sub) << "]";
    return ss.str();
}

bool same(instruction_ref a, instruction_ref b)
{
    if(a->name() == "@literal" or b->name() == "@literal")
        return a->name() == b->name() and a->get_shape() == b->get_shape() and
               a->get_literal() == b->get_literal();
    return a->get_operator() == b->get_operator() and a->inputs() == b->inputs() and
           a->module_inputs() == b->module_inputs() and a->get_shape() == b->get_shape();
}

bool mergeable(instruction_ref ins)
{
    if(ins->name() == "@param" or ins->name() == "@return")
        return false;
    return not pass_utils::has_side_effects(ins->get_operator());
}

} // namespace

void eliminate_common_subexpression::apply(module& m) const
{
    // Walking forward, an instruction's inputs have already been merged, so duplicates higher
    // up a chain make their users duplicates too and those are caught in the same sweep.
    std::unordered_map<std::string, std::vector<instruction_ref>> seen;
    auto last = m.empty() ? m.end() : std::prev(m.end());
    for(auto ins = m.begin(); ins != m.end();)
    {
        auto next = std::next(ins);
        if(not mergeable(ins))
        {
            ins = next;
            continue;
        }
        auto& bucket = seen[key_of(ins)];
        instruction_ref found = m.end();
        for(auto c : bucket)
            if(same(c, ins))
            {
                found = c;
                break;
            }
        // The last instruction of a module without @return is its output; keep it in place.
        if(found == m.end() or (ins == last and m.get_return() == m.end()))
            bucket.push_back(ins);
        else
        {
            m.replace_instruction(ins, found);
            m.remove_instruction(ins);
        }
        ins = next;
    }
}

} // namespace migraphx
