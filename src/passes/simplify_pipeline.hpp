#ifndef MIGRAPHX_PASSES_SIMPLIFY_PIPELINE_HPP
#define MIGRAPHX_PASSES_SIMPLIFY_PIPELINE_HPP

#include <migraphx/pass.hpp>
#include <vector>

namespace migraphx {

/// The target-independent clean-up every target runs first: simplify_reshapes,
/// simplify_algebra, propagate_constant, eliminate_common_subexpression,
/// dead_code_elimination, twice over (the first round exposes work for the second: folded
/// constants become mergeable literals, merged instructions line up more reshapes).
std::vector<pass> simplify_passes();

} // namespace migraphx

#endif
