#ifndef MIGRAPHX_INSTRUCTION_REF_HPP
#define MIGRAPHX_INSTRUCTION_REF_HPP

#include <functional>
#include <list>

namespace migraphx {

struct instruction;
/// A stable handle to an instruction in its module (a list iterator).
using instruction_ref = std::list<instruction>::iterator;

/// Hash and order by address, for maps keyed by instruction.
struct instruction_ref_hash
{
    std::size_t operator()(const instruction_ref& x) const;
};

} // namespace migraphx

#endif
