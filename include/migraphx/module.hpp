#ifndef MIGRAPHX_MODULE_HPP
#define MIGRAPHX_MODULE_HPP

#include <migraphx/instruction.hpp>
#include <migraphx/literal.hpp>
#include <migraphx/operation.hpp>
#include <iosfwd>
#include <cstdint>
#include <list>
#include <string>
#include <unordered_map>
#include <vector>

namespace migraphx {

/// A graph (the main one or a sub-graph): a linear list of SSA instructions.
struct module
{
    explicit module(std::string name = "main");
    module(const module&)            = delete;
    module& operator=(const module&) = delete;

    const std::string& name() const { return m_name; }
    /// How many times the module was changed through its methods: what is made from a module
    /// once (eval's tables, recorded runs) notes this to know that it is still current.
    std::uint64_t edits() const { return m_edits; }

    instruction_ref add_parameter(std::string name, shape s);
    instruction_ref add_literal(literal l);
    instruction_ref add_instruction(const operation& op, std::vector<instruction_ref> args);
    instruction_ref add_instruction(const operation& op,
                                    std::vector<instruction_ref> args,
                                    std::vector<module_ref> module_args);
    template <class... Ts>
    instruction_ref add_instruction(const operation& op, instruction_ref a, Ts... rest)
    {
        return add_instruction(op, std::vector<instruction_ref>{a, rest...});
    }
    instruction_ref add_return(std::vector<instruction_ref> args);

    instruction_ref insert_instruction(instruction_ref pos, const operation& op, std::vector<instruction_ref> args);
    instruction_ref insert_instruction(instruction_ref pos,
                                       const operation& op,
                                       std::vector<instruction_ref> args,
                                       std::vector<module_ref> module_args);
    template <class... Ts>
    instruction_ref insert_instruction(instruction_ref pos, const operation& op, instruction_ref a, Ts... rest)
    {
        return insert_instruction(pos, op, std::vector<instruction_ref>{a, rest...});
    }
    /// Inserts with a given result shape, without asking the op (copying, loading saved programs).
    instruction_ref insert_instruction_unchecked(instruction_ref pos,
                                                 const operation& op,
                                                 shape result,
                                                 std::vector<instruction_ref> args,
                                                 std::vector<module_ref> module_args = {});
    instruction_ref insert_literal(instruction_ref pos, literal l);
    instruction_ref insert_parameter(instruction_ref pos, std::string name, shape s);

    /// Changes ins in place to op(args); users keep pointing at it.
    instruction_ref replace_instruction(instruction_ref ins, const operation& op, std::vector<instruction_ref> args);
    instruction_ref replace_instruction(instruction_ref ins,
                                        const operation& op,
                                        std::vector<instruction_ref> args,
                                        std::vector<module_ref> module_args);
    /// Makes every user of ins use rep instead; returns rep.
    instruction_ref replace_instruction(instruction_ref ins, instruction_ref rep);
    instruction_ref replace_return(std::vector<instruction_ref> args);
    /// Removes ins, which must have no users.
    instruction_ref remove_instruction(instruction_ref ins);
    instruction_ref remove_instructions(instruction_ref first, instruction_ref last);
    /// Moves ins to just before pos.
    instruction_ref move_instruction(instruction_ref ins, instruction_ref pos);

    instruction_ref begin() const;
    instruction_ref end() const;
    std::size_t size() const { return m_instructions.size(); }
    bool empty() const { return m_instructions.empty(); }
    bool has_instruction(instruction_ref ins) const;
    instruction_ref get_return() const; // end() if none

    instruction_ref get_parameter(const std::string& name) const; // end() if none
    /// Parameter names in the order they were added.
    std::vector<std::string> get_parameter_names() const;
    std::unordered_map<std::string, shape> get_parameter_shapes() const;
    std::vector<shape> get_output_shapes() const;

    /// Throws if an instruction uses one defined after it or in another module, or if
    /// inputs/outputs are out of step, or a shape disagrees with its op.
    void validate() const;
    /// Printing names: parameters by their name, others as module:@index.
    std::unordered_map<const instruction*, std::string> instruction_names() const;
    void print(std::ostream& os) const;
    /// Prints one instruction the way print() does.
    void print_instruction(std::ostream& os,
                           instruction_ref ins,
                           const std::unordered_map<const instruction*, std::string>& names) const;

    friend bool operator==(const module& a, const module& b);
    friend bool operator!=(const module& a, const module& b) { return not(a == b); }
    friend std::ostream& operator<<(std::ostream& os, const module& m);

    private:
    instruction_ref link(instruction_ref ins);
    std::string m_name;
    mutable std::list<instruction> m_instructions;
    std::uint64_t m_edits = 0;
};

} // namespace migraphx

#endif
