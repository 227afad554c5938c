#include <migraphx/module.hpp>
#include <migraphx/errors.hpp>
#include <algorithm>
#include <ostream>
#include <sstream>
#include <unordered_set>
#include "ir/builtin.hpp"

namespace migraphx {

module::module(std::string name) : m_name(std::move(name)) {}

instruction_ref module::begin() const { return m_instructions.begin(); }
instruction_ref module::end() const { return m_instructions.end(); }

bool module::has_instruction(instruction_ref ins) const
{
    for(auto it = begin(); it != end(); ++it)
        if(it == ins)
            return true;
    return false;
}

static std::string describe_inputs(const std::vector<instruction_ref>& args)
{
    std::ostringstream ss;
    for(std::size_t i = 0; i < args.size(); i++)
        ss << (i ? "; " : "") << "{" << args[i]->get_shape() << "}";
    return ss.str();
}

static shape compute_shape_of(const operation& op,
                              const std::vector<instruction_ref>& args,
                              const std::vector<module_ref>& mods)
{
    std::vector<shape> shapes;
    shapes.reserve(args.size());
    for(auto a : args)
        shapes.push_back(a->get_shape());
    try
    {
        return op.compute_shape(shapes, mods);
    }
    catch(const exception&)
    {
        throw;
    }
    catch(const std::exception& e)
    {
        MIGRAPHX_THROW(op.name() + ": " + e.what() + "; inputs: (" + describe_inputs(args) + ")");
    }
}

instruction_ref module::link(instruction_ref ins)
{
    m_edits++;
    for(auto in : ins->inputs())
        in->add_output(ins);
    return ins;
}

instruction_ref module::add_parameter(std::string name, shape s) { return insert_parameter(begin(), std::move(name), std::move(s)); }

instruction_ref module::insert_parameter(instruction_ref pos, std::string name, shape s)
{
    if(name.empty())
        MIGRAPHX_THROW("module " + m_name + ": a parameter needs a name");
    if(get_parameter(name) != end())
        MIGRAPHX_THROW("module " + m_name + ": parameter '" + name + "' already exists");
    auto order = static_cast<std::uint32_t>(get_parameter_names().size());
    m_edits++;
    return m_instructions.emplace(pos, builtin::param{std::move(name), order}, std::move(s), std::vector<instruction_ref>{});
}

instruction_ref module::add_literal(literal l) { return insert_literal(begin(), std::move(l)); }

instruction_ref module::insert_literal(instruction_ref pos, literal l)
{
    if(l.empty() and l.get_shape().elements() != 0)
        MIGRAPHX_THROW("module " + m_name + ": empty literal");
    m_edits++;
    return m_instructions.emplace(pos, std::move(l));
}

instruction_ref module::add_instruction(const operation& op, std::vector<instruction_ref> args)
{
    return insert_instruction(end(), op, std::move(args), {});
}

instruction_ref module::add_instruction(const operation& op,
                                        std::vector<instruction_ref> args,
                                        std::vector<module_ref> module_args)
{
    return insert_instruction(end(), op, std::move(args), std::move(module_args));
}

instruction_ref module::insert_instruction(instruction_ref pos, const operation& op, std::vector<instruction_ref> args)
{
    return insert_instruction(pos, op, std::move(args), {});
}

instruction_ref module::insert_instruction(instruction_ref pos,
                                           const operation& op,
                                           std::vector<instruction_ref> args,
                                           std::vector<module_ref> module_args)
{
    if(op.empty())
        MIGRAPHX_THROW("module " + m_name + ": cannot add an empty operation");
    auto n = op.name();
    if(n == "@param" or n == "@literal" or n == "@return")
        MIGRAPHX_THROW("module " + m_name + ": use add_parameter/add_literal/add_return for " + n);
    auto s = compute_shape_of(op, args, module_args);
    return link(m_instructions.emplace(pos, op, std::move(s), std::move(args), std::move(module_args)));
}

instruction_ref module::insert_instruction_unchecked(instruction_ref pos,
                                                     const operation& op,
                                                     shape result,
                                                     std::vector<instruction_ref> args,
                                                     std::vector<module_ref> module_args)
{
    return link(m_instructions.emplace(pos, op, std::move(result), std::move(args), std::move(module_args)));
}

instruction_ref module::add_return(std::vector<instruction_ref> args)
{
    if(get_return() != end())
        MIGRAPHX_THROW("module " + m_name + ": already has a @return");
    auto s = builtin::returns{}.compute_shape([&] {
        std::vector<shape> shapes;
        for(auto a : args)
            shapes.push_back(a->get_shape());
        return shapes;
    }());
    return link(m_instructions.emplace(end(), builtin::returns{}, s, std::move(args)));
}

instruction_ref module::replace_return(std::vector<instruction_ref> args)
{
    auto ret = get_return();
    if(ret == end())
        return add_return(std::move(args));
    for(auto in : ret->inputs())
        in->remove_output(ret);
    ret->set_inputs(std::move(args));
    link(ret);
    return ret;
}

// Recomputes the shapes of users whose input shapes changed.
static void update_users(instruction_ref ins)
{
    for(auto out : ins->outputs())
    {
        if(out->name() == "@return")
            continue;
        auto old = out->get_shape();
        out->recompute_shape();
        if(out->get_shape() != old)
            update_users(out);
    }
}

instruction_ref module::replace_instruction(instruction_ref ins, const operation& op, std::vector<instruction_ref> args)
{
    return replace_instruction(ins, op, std::move(args), ins->module_inputs());
}

instruction_ref module::replace_instruction(instruction_ref ins,
                                            const operation& op,
                                            std::vector<instruction_ref> args,
                                            std::vector<module_ref> module_args)
{
    auto s = compute_shape_of(op, args, module_args);
    for(auto in : ins->inputs())
        in->remove_output(ins);
    auto old = ins->get_shape();
    ins->set_operator(op);
    ins->set_shape(s);
    ins->set_inputs(std::move(args));
    ins->set_module_inputs(std::move(module_args));
    link(ins);
    if(old != s)
        update_users(ins);
    return ins;
}

instruction_ref module::replace_instruction(instruction_ref ins, instruction_ref rep)
{
    if(ins == rep)
        return rep;
    m_edits++;
    auto outputs = ins->outputs();
    for(auto out : outputs)
    {
        if(out == rep)
            continue;
        out->replace_input(ins, rep);
        rep->add_output(out);
        ins->remove_output(out);
    }
    if(ins->get_shape() != rep->get_shape())
        update_users(rep);
    return rep;
}

instruction_ref module::remove_instruction(instruction_ref ins)
{
    if(not ins->outputs().empty())
        MIGRAPHX_THROW("module " + m_name + ": cannot remove an instruction (" + ins->name() + ") that is still used");
    for(auto in : ins->inputs())
        in->remove_output(ins);
    m_edits++;
    return m_instructions.erase(ins);
}

instruction_ref module::remove_instructions(instruction_ref first, instruction_ref last)
{
    // Remove back to front so users go before what they use.
    std::vector<instruction_ref> doomed;
    for(auto it = first; it != last; ++it)
        doomed.push_back(it);
    for(auto it = doomed.rbegin(); it != doomed.rend(); ++it)
        remove_instruction(*it);
    return last;
}

instruction_ref module::move_instruction(instruction_ref ins, instruction_ref pos)
{
    m_instructions.splice(pos, m_instructions, ins);
    m_edits++;
    return ins;
}

instruction_ref module::get_return() const
{
    if(m_instructions.empty())
        return end();
    auto last = std::prev(end());
    return last->name() == "@return" ? last : end();
}

instruction_ref module::get_parameter(const std::string& name) const
{
    for(auto it = begin(); it != end(); ++it)
        if(it->name() == "@param" and it->get_operator().any_cast<builtin::param>()->parameter == name)
            return it;
    return end();
}

std::vector<std::string> module::get_parameter_names() const
{
    std::vector<std::pair<std::uint32_t, std::string>> ps;
    for(const auto& ins : m_instructions)
        if(ins.name() == "@param")
        {
            const auto* p = ins.get_operator().any_cast<builtin::param>();
            ps.emplace_back(p->order, p->parameter);
        }
    std::stable_sort(ps.begin(), ps.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::string> r;
    for(auto& p : ps)
        r.push_back(p.second);
    return r;
}

std::unordered_map<std::string, shape> module::get_parameter_shapes() const
{
    std::unordered_map<std::string, shape> r;
    for(const auto& ins : m_instructions)
        if(ins.name() == "@param")
            r.emplace(ins.get_operator().any_cast<builtin::param>()->parameter, ins.get_shape());
    return r;
}

std::vector<shape> module::get_output_shapes() const
{
    auto ret = get_return();
    if(ret != end())
    {
        std::vector<shape> r;
        for(auto in : ret->inputs())
            r.push_back(in->get_shape());
        return r;
    }
    if(m_instructions.empty())
        return {};
    return {m_instructions.back().get_shape()};
}

void module::validate() const
{
    std::unordered_set<const instruction*> seen;
    std::unordered_set<const instruction*> mine;
    for(const auto& ins : m_instructions)
        mine.insert(&ins);
    auto names = instruction_names();
    std::size_t index = 0;
    for(auto it = begin(); it != end(); ++it, ++index)
    {
        auto where = "module " + m_name + ": instruction " + names.at(&*it) + " (" + it->name() + ")";
        for(auto in : it->inputs())
        {
            if(mine.count(&*in) and not seen.count(&*in))
                MIGRAPHX_THROW(where + " uses an instruction defined after it");
            const auto& outs = in->outputs();
            if(std::find(outs.begin(), outs.end(), it) == outs.end())
                MIGRAPHX_THROW(where + " is not listed among the users of its input");
        }
        for(auto out : it->outputs())
        {
            const auto& ins = out->inputs();
            if(std::find(ins.begin(), ins.end(), it) == ins.end())
                MIGRAPHX_THROW(where + " lists a user that does not use it");
        }
        if(it->name() != "@param" and it->name() != "@literal" and it->name() != "@return")
        {
            std::vector<shape> shapes;
            for(auto in : it->inputs())
                shapes.push_back(in->get_shape());
            auto s = it->get_operator().compute_shape(shapes, it->module_inputs());
            if(s != it->get_shape())
                MIGRAPHX_THROW(where + " has a shape that its operation no longer computes");
        }
        if(it->name() == "@return" and std::next(it) != end())
            MIGRAPHX_THROW(where + ": @return must be the last instruction");
        seen.insert(&*it);
    }
}

std::unordered_map<const instruction*, std::string> module::instruction_names() const
{
    std::unordered_map<const instruction*, std::string> names;
    std::size_t i = 0;
    for(const auto& ins : m_instructions)
    {
        if(ins.name() == "@param")
            names[&ins] = ins.get_operator().any_cast<builtin::param>()->parameter;
        else
            names[&ins] = m_name + ":@" + std::to_string(i);
        i++;
    }
    return names;
}

void module::print_instruction(std::ostream& os,
                               instruction_ref ins,
                               const std::unordered_map<const instruction*, std::string>& names) const
{
    auto name_of = [&](instruction_ref x) {
        auto it = names.find(&*x);
        return it == names.end() ? std::string("?") : it->second;
    };
    os << name_of(ins) << " = ";
    if(ins->name() == "@literal")
    {
        os << "@literal";
        if(ins->get_shape().elements() > 10)
            os << "{ ... }";
        else
            os << "{" << ins->get_literal() << "}";
    }
    else if(ins->name() == "@param")
        os << "@param:" << ins->get_operator().any_cast<builtin::param>()->parameter;
    else
        os << ins->get_operator();
    if(not ins->inputs().empty() or ins->name() == "@return")
    {
        os << "(";
        bool first = true;
        for(auto in : ins->inputs())
        {
            os << (first ? "" : ",") << name_of(in);
            first = false;
        }
        os << ")";
    }
    if(not ins->module_inputs().empty())
    {
        os << ", [";
        bool first = true;
        for(auto* m : ins->module_inputs())
        {
            os << (first ? "" : ", ") << m->name();
            first = false;
        }
        os << "]";
    }
    if(ins->name() != "@return")
        os << " -> " << ins->get_shape();
}

void module::print(std::ostream& os) const
{
    auto names = instruction_names();
    os << "module: \"" << m_name << "\"\n";
    for(auto it = begin(); it != end(); ++it)
    {
        print_instruction(os, it, names);
        os << "\n";
    }
}

std::ostream& operator<<(std::ostream& os, const module& m)
{
    m.print(os);
    return os;
}

bool operator==(const module& a, const module& b)
{
    std::ostringstream sa, sb;
    a.print(sa);
    b.print(sb);
    return sa.str() == sb.str();
}

} // namespace migraphx
