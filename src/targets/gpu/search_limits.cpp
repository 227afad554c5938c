#include "targets/gpu/search_limits.hpp"

namespace migraphx {
namespace gpu {

std::string engine_search_limits::text() const
{
    return "candidates " + std::to_string(heuristic_configs) + "+" + std::to_string(fallback_configs) + ", timed " +
           std::to_string(precompiled) + "+" + std::to_string(runtime_compiled) + ", budget " +
           std::to_string(static_cast<long>(budget_ms)) + " ms";
}

// Exhaustive: every configuration the heuristics list (cuDNN 9 lists tens at most), all of them
// built and timed; 20 s a problem before the search stops.
constexpr int every = 1000;
constexpr double exhaustive_budget_ms = 20000;

engine_search_limits convolution_engine_limits(bool exhaustive)
{
    // Default: 24 configurations of mode A and 2 of the fallback list, of which at most 12
    // precompiled engines and 2 that compile a kernel when their plan is made (tens to hundreds
    // of ms each) are timed, within 1.5 s (a large batch's poor engines and runtime-compiled
    // plans otherwise made a compile take minutes: MobileNetV2 at batch 256).
    if(exhaustive)
        return {every, every, every, every, exhaustive_budget_ms};
    return {24, 2, 12, 2, 1500};
}

engine_search_limits int8_engine_limits(bool exhaustive)
{
    // Default: the heuristics' first 16 configurations and 4 of the fallback list, at most 6 that
    // compile a kernel (every fused int8 engine does; the heuristics' first two ran ResNet-50's
    // 56x56 problems 2-3x slower than the best of the nine that work, on an H200), within 3 s.
    if(exhaustive)
        return {every, every, every, every, exhaustive_budget_ms};
    return {16, 4, every, 6, 3000};
}

} // namespace gpu
} // namespace migraphx
