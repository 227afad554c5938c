#ifndef MIGRAPHX_GPU_SEARCH_LIMITS_HPP
#define MIGRAPHX_GPU_SEARCH_LIMITS_HPP

// How far a cuDNN engine search goes for one problem: how many of the heuristics' configurations
// it asks for, how many it builds and times, and when it stops. The defaults keep a compile quick
// (ResNet-50 in seconds); compile_options::exhaustive_tune raises every limit, so that a compile
// may take minutes but tries what cuDNN offers. The limits are part of the tuning cache's keys: a
// choice made under the defaults never stands in for an exhaustive one.

#include <string>

namespace migraphx {
namespace gpu {

struct engine_search_limits
{
    int heuristic_configs = 0; // of the heuristics' mode A list
    int fallback_configs  = 0; // of the fallback list, after those
    int precompiled       = 0; // built and timed, at most
    int runtime_compiled  = 0; // built (a kernel compiled at plan time) and timed, at most
    double budget_ms      = 0; // no more plan builds once a problem has taken this long
    /// "candidates A+F, timed P+R, budget B ms": the text the tuning cache's keys carry.
    std::string text() const;
};

/// A half convolution's engines (convolution.cpp), against cuDNN's legacy algorithms.
engine_search_limits convolution_engine_limits(bool exhaustive);
/// A fused int8 convolution's engines (int8_convolution.cpp): every such engine compiles at plan
/// time, so more of them are tried than for convolution_engine_limits.
engine_search_limits int8_engine_limits(bool exhaustive);

} // namespace gpu
} // namespace migraphx

#endif
