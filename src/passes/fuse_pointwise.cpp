#include "passes/fuse_pointwise.hpp"
#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <algorithm>
#include <set>
#include <unordered_map>
#include "passes/pass_manager.hpp"
#include "passes/pass_utils.hpp"

namespace migraphx {

namespace {

bool is_pointwise(instruction_ref ins) { return pass_utils::is_elementwise(ins); }

/// x is a one-element literal, or a broadcast of one: the literal, else end.
instruction_ref scalar_constant(instruction_ref x, instruction_ref end)
{
    auto l = pass_utils::broadcast_literal(x, end);
    if(l == end or l->get_shape().elements() != 1 or l->get_shape().type() == shape::tuple_type)
        return end;
    return l;
}

bool is_pointwise_body(const program& p, const module& m)
{
    if(&m == p.get_main_module())
        return false;
    for(const auto* pm : p.get_modules())
        for(auto it = pm->begin(); it != pm->end(); ++it)
            if(it->name() == "pointwise" and
               std::find(it->module_inputs().begin(), it->module_inputs().end(), &m) != it->module_inputs().end())
                return true;
    return false;
}

std::string free_module_name(const program& p, const std::string& base, std::size_t& counter)
{
    std::set<std::string> taken;
    for(const auto* pm : p.get_modules())
        taken.insert(pm->name());
    while(taken.count(base + std::to_string(counter)))
        counter++;
    return base + std::to_string(counter++);
}

/// Groups of pointwise instructions, members in program order, the last one the group's only
/// instruction used outside it.
std::vector<std::vector<instruction_ref>> find_groups(module& m)
{
    std::unordered_map<const instruction*, std::size_t> position;
    std::unordered_map<const instruction*, std::size_t> group_of;
    std::vector<std::vector<instruction_ref>> groups;
    std::size_t pos = 0;
    for(auto ins = m.begin(); ins != m.end(); ++ins)
    {
        position[&*ins] = pos++;
        if(not is_pointwise(ins))
            continue;
        // Pull in a producer's chain when every user of the producer ends up in this chain. A
        // producer turned down may qualify once more members join, so it is tried again then.
        std::vector<instruction_ref> members{ins};
        std::set<const instruction*> is_member{&*ins};
        auto try_merge = [&](instruction_ref in) {
            auto it = group_of.find(&*in);
            if(it == group_of.end() or is_member.count(&*in))
                return false;
            const auto& outs = in->outputs();
            if(not std::all_of(outs.begin(), outs.end(), [&](instruction_ref u) { return is_member.count(&*u) > 0; }))
                return false;
            auto& g = groups[it->second];
            for(auto x : g)
                is_member.insert(&*x);
            members.insert(members.end(), g.begin(), g.end());
            g.clear();
            return true;
        };
        std::vector<instruction_ref> turned_down;
        for(std::size_t scanned = 0; scanned < members.size();)
        {
            for(; scanned < members.size(); scanned++)
                for(auto in : members[scanned]->inputs())
                    if(not try_merge(in) and group_of.count(&*in) and not is_member.count(&*in))
                        turned_down.push_back(in);
            for(auto in : turned_down)
                try_merge(in);
        }
        std::sort(members.begin(), members.end(), [&](instruction_ref a, instruction_ref b) {
            return position.at(&*a) < position.at(&*b);
        });
        for(auto x : members)
            group_of[&*x] = groups.size();
        groups.push_back(std::move(members));
    }
    groups.erase(std::remove_if(groups.begin(), groups.end(), [](const auto& g) { return g.empty(); }),
                 groups.end());
    return groups;
}

void fuse_group(module& m, program& p, const std::vector<instruction_ref>& members, std::size_t& counter)
{
    std::set<const instruction*> in_group;
    for(auto x : members)
        in_group.insert(&*x);
    // External inputs, in order of first use; broadcast one-element literals become constants.
    std::vector<instruction_ref> inputs;
    std::vector<instruction_ref> constants;
    for(auto x : members)
        for(auto in : x->inputs())
        {
            if(in_group.count(&*in))
                continue;
            auto& list = scalar_constant(in, m.end()) != m.end() ? constants : inputs;
            if(std::find(list.begin(), list.end(), in) == list.end())
                list.push_back(in);
        }
    if(inputs.empty())
        return; // all constant: propagate_constant's business
    auto* pm = p.create_module(free_module_name(p, m.name() + ":pointwise", counter));
    std::unordered_map<const instruction*, instruction_ref> inside;
    for(std::size_t i = 0; i < inputs.size(); i++)
    {
        const auto& s          = inputs[i]->get_shape();
        std::string name       = "x"; // (appended: GCC 12's -Wrestrict misfires on "x" + std::string&&)
        name += std::to_string(i);
        inside[&*inputs[i]] = pm->add_parameter(name, shape{s.type(), s.lens()});
    }
    for(auto c : constants)
    {
        auto lit = scalar_constant(c, m.end());
        auto l   = pm->add_literal(lit->get_literal());
        inside[&*c] = lit == c ? l : pm->add_instruction(c->get_operator(), l);
    }
    for(auto x : members)
    {
        std::vector<instruction_ref> args;
        for(auto in : x->inputs())
            args.push_back(inside.at(&*in));
        inside[&*x] = pm->add_instruction(x->get_operator(), args);
    }
    pm->add_return({inside.at(&*members.back())});

    m.replace_instruction(members.back(), make_op("pointwise"), inputs, {pm});
    for(auto it = std::next(members.rbegin()); it != members.rend(); ++it)
        m.remove_instruction(*it);
    // Constants that nothing else uses any more.
    for(auto c : constants)
    {
        if(not c->outputs().empty())
            continue;
        auto lit = scalar_constant(c, m.end());
        m.remove_instruction(c);
        if(lit != c and lit->outputs().empty())
            m.remove_instruction(lit);
    }
}

} // namespace

void fuse_pointwise::apply(module& m) const
{
    program* p = prog != nullptr ? prog : current_program();
    if(p == nullptr)
        MIGRAPHX_THROW("fuse_pointwise: needs the program to create sub-modules in; run it through "
                       "run_passes(program&, ...) or set fuse_pointwise::prog");
    auto mods = p->get_modules();
    if(std::find(mods.begin(), mods.end(), &m) == mods.end())
        MIGRAPHX_THROW("fuse_pointwise: module " + m.name() + " does not belong to the program");
    if(is_pointwise_body(*p, m))
        return;
    std::size_t counter = 0;
    for(const auto& g : find_groups(m))
        fuse_group(m, *p, g, counter);
}

} // namespace migraphx
