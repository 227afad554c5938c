#ifndef MIGRAPHX_COMPILE_OPTIONS_HPP
#define MIGRAPHX_COMPILE_OPTIONS_HPP

#include <cstddef>

namespace migraphx {

/// Settings for program::compile.
struct compile_options
{
    /// Insert host<->device copies so parameters and results live on the host (gpu target).
    bool offload_copy = false;
    /// Allow faster, slightly less exact math (e.g. approximate exp in fused kernels).
    bool fast_math = true;
    /// Try every algorithm when choosing kernels (gpu: every cuDNN engine and cuBLASLt algorithm
    /// the heuristics offer is built and timed; the compile may take minutes).
    bool exhaustive_tune = false;
    /// Record a run once and replay it after (CUDA graphs on gpu: one launch instead of one per
    /// kernel). Also off with MIGRAPHX_DISABLE_CUDA_GRAPH=1.
    bool cuda_graph = true;
    /// Which GPU to use.
    std::size_t device_id = 0;
    /// Let float convolutions, products and recurrences use TF32 tensor cores (gpu; ~1e-3
    /// relative error, several times faster). Off: plain FP32 math.
    /// (Last, so that positional initialisation of the fields above keeps its meaning.)
    bool tf32 = false;
};

} // namespace migraphx

#endif
