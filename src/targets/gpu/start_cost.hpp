#ifndef MIGRAPHX_GPU_START_COST_HPP
#define MIGRAPHX_GPU_START_COST_HPP

// Which measured cuDNN algorithm a convolution keeps, counting what its first use in a process
// costs. cuDNN (>= 9.10) builds some legacy algorithms' engines the first time a process asks
// for them (the workspace query), compiling kernels at run time: on an H200 three of fp32
// ResNet-50's 53 convolutions took 24-66 ms each to start, the other 50 under 0.2 ms, and a saved
// program pays that at every load. So the search times each algorithm's first query before it
// measures them (the compile pays the same builds either way), and where the fastest starts
// slowly an algorithm within `margin` of its speed that starts quickly is kept instead.
//   MIGRAPHX_CUDNN_START_MARGIN=<percent>: the margin (default 5); 0 keeps the fastest always.

#include <cstddef>
#include <string>
#include <vector>

namespace migraphx {
namespace gpu {

/// One algorithm the search measured: its time per call and its first query's time (ms).
struct timed_algorithm
{
    double run_ms   = 0;
    double start_ms = 0;
};

/// How much speed a quick start may cost.
struct start_policy
{
    double margin       = 0.05; // a kept algorithm runs at most this much slower than the fastest
    double slow_start_ms = 2.0; // starts under this are not worth any speed
    bool enabled() const { return margin > 0; }
    /// For the tuning cache's key: choices made under another policy are not reused.
    std::string str() const;
    /// MIGRAPHX_CUDNN_START_MARGIN (percent), else the defaults; a value that is not a number
    /// from 0 to 100 throws naming the variable.
    static start_policy from_env();
};

/// The index to keep among `algos` (the searched algorithms that may run, fastest first): the
/// first, unless it starts slowly, then the quickest starter within the margin of its time (the
/// faster of equal starters). algos must not be empty.
std::size_t keep_algorithm(const std::vector<timed_algorithm>& algos, const start_policy& p);

} // namespace gpu
} // namespace migraphx

#endif
