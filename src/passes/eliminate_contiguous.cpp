#include "passes/eliminate_contiguous.hpp"
#include "passes/pass_utils.hpp"
#include <iterator>

namespace migraphx {

namespace {

// Would ins still compute a shape with these input shapes, and would everything downstream of
// it still accept the shape it then has?
bool accepts(instruction_ref ins, const std::vector<shape>& inputs, int depth = 0)
{
    if(pass_utils::is_builtin(ins) or depth > 64)
        return false;
    shape s;
    try
    {
        s = ins->get_operator().compute_shape(inputs, ins->module_inputs());
    }
    catch(const std::exception&)
    {
        return false;
    }
    if(s == ins->get_shape())
        return true;
    for(auto out : ins->outputs())
    {
        auto shapes = pass_utils::input_shapes(out);
        for(std::size_t i = 0; i < shapes.size(); i++)
            if(out->inputs()[i] == ins)
                shapes[i] = s;
        if(not accepts(out, shapes, depth + 1))
            return false;
    }
    return true;
}

} // namespace

void eliminate_contiguous::apply(module& m) const
{
    for(auto ins = m.begin(); ins != m.end();)
    {
        auto next = std::next(ins);
        if(ins->name() != "contiguous" or ins->inputs().size() != 1)
        {
            ins = next;
            continue;
        }
        auto src  = ins->inputs().front();
        auto last = std::prev(m.end());
        auto users = ins->outputs();
        for(auto user : users)
        {
            if(user->name() == "@return")
                continue;
            auto args   = user->inputs();
            auto shapes = pass_utils::input_shapes(user);
            for(std::size_t i = 0; i < args.size(); i++)
                if(args[i] == ins)
                {
                    args[i]   = src;
                    shapes[i] = src->get_shape();
                }
            if(not accepts(user, shapes))
                continue;
            // The output of a module without @return keeps its layout too.
            if(user == last and m.get_return() == m.end() and
               user->get_operator().compute_shape(shapes, user->module_inputs()) != user->get_shape())
                continue;
            m.replace_instruction(user, user->get_operator(), args, user->module_inputs());
        }
        if(ins->outputs().empty() and ins != last)
            m.remove_instruction(ins);
        ins = next;
    }
}

} // namespace migraphx
