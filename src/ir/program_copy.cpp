#include "ir/program_impl.hpp"
#include <unordered_map>
#include "ir/builtin.hpp"
#include "ir/dynamic_program.hpp"
#include "ir/last_use.hpp"

namespace migraphx {

void copy_program_impl(const program::impl& from, program::impl& to)
{
    std::unordered_map<const module*, module*> mod_map;
    to.modules.clear();
    for(const auto& m : from.modules)
    {
        to.modules.push_back(std::make_unique<module>(m->name()));
        mod_map[m.get()] = to.modules.back().get();
    }
    // Instructions may refer to instructions of enclosing modules, so one map serves all.
    std::unordered_map<const instruction*, instruction_ref> ins_map;
    for(const auto& m : from.modules)
    {
        auto* dst = mod_map.at(m.get());
        for(auto it = m->begin(); it != m->end(); ++it)
        {
            instruction_ref copy;
            if(it->name() == "@literal")
                copy = dst->insert_literal(dst->end(), it->get_literal());
            else if(it->name() == "@param")
                copy = dst->insert_parameter(dst->end(), it->get_operator().any_cast<builtin::param>()->parameter,
                                             it->get_shape());
            else
            {
                std::vector<instruction_ref> args;
                for(auto in : it->inputs())
                {
                    auto found = ins_map.find(&*in);
                    if(found == ins_map.end())
                        MIGRAPHX_THROW("program copy: instruction input not found (module order)");
                    args.push_back(found->second);
                }
                if(it->name() == "@return")
                    copy = dst->add_return(args);
                else
                {
                    std::vector<module_ref> mods;
                    for(auto* sm : it->module_inputs())
                        mods.push_back(mod_map.at(sm));
                    // Sub-modules may not be copied yet, so keep the recorded shape.
                    copy = dst->insert_instruction_unchecked(dst->end(), it->get_operator(), it->get_shape(), args, mods);
                }
            }
            ins_map[&*it] = copy;
        }
    }
    to.output_names           = from.output_names;
    to.output_param_names     = from.output_param_names;
    to.original_output_shapes = from.original_output_shapes;
    to.target_ref             = from.target_ref;
    to.ctx                    = from.target_ref.empty() ? from.ctx : from.target_ref.get_context();
    to.options                = from.options;
    to.compiled               = from.compiled;
    to.dynamic                = from.dynamic;
    to.variants               = from.dynamic ? std::make_shared<variant_cache>() : nullptr;
    to.lifetimes              = from.lifetimes ? std::make_shared<last_use_cache>() : nullptr;
}

} // namespace migraphx
