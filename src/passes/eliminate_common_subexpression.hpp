#ifndef MIGRAPHX_PASSES_ELIMINATE_COMMON_SUBEXPRESSION_HPP
#define MIGRAPHX_PASSES_ELIMINATE_COMMON_SUBEXPRESSION_HPP

#include <migraphx/module.hpp>
#include <string>

namespace migraphx {

/// Merges instructions that compute the same thing: an equal operation on the same inputs and
/// sub-modules, or equal literals. Users of the later one are moved to the earlier one, and the
/// later one is removed. Ops with {"side_effects": true} are never merged.
struct eliminate_common_subexpression
{
    std::string name() const { return "eliminate_common_subexpression"; }
    void apply(module& m) const;
};

} // namespace migraphx

#endif
