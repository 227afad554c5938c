#include "passes/dead_code_elimination.hpp"
#include "passes/pass_utils.hpp"
#include <iterator>

namespace migraphx {

void dead_code_elimination::apply(module& m) const
{
    if(m.empty())
        return;
    // Users always follow what they use, so one sweep from the back removes whole dead chains:
    // by the time an instruction is reached, its dead users are already gone.
    auto last = std::prev(m.end());
    auto it   = last;
    while(true)
    {
        bool at_front = it == m.begin();
        auto prev     = at_front ? it : std::prev(it);
        bool dead     = it != last and it->outputs().empty() and it->name() != "@param" and
                    it->name() != "@return" and not pass_utils::has_side_effects(it->get_operator());
        if(dead)
            m.remove_instruction(it);
        if(at_front)
            break;
        it = prev;
    }
}

} // namespace migraphx
