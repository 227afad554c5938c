#ifndef MIGRAPHX_PASSES_DEAD_CODE_ELIMINATION_HPP
#define MIGRAPHX_PASSES_DEAD_CODE_ELIMINATION_HPP

#include <migraphx/module.hpp>
#include <string>

namespace migraphx {

/// Removes instructions whose results nobody uses. Parameters, @return, ops with
/// {"side_effects": true} and, in a module without @return, the last instruction (its output)
/// are kept.
struct dead_code_elimination
{
    std::string name() const { return "dead_code_elimination"; }
    void apply(module& m) const;
};

} // namespace migraphx

#endif
