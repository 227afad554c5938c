#ifndef MIGRAPHX_GPU_LOWERING_HPP
#define MIGRAPHX_GPU_LOWERING_HPP

#include <migraphx/module.hpp>
#include <string>

namespace migraphx {
namespace gpu {

/// Rewrites the main module into gpu ops (see gpu_ops.hpp): literals become device copies made
/// at finalize; dot -> gpu::gemm, convolution -> gpu::convolution, fused `pointwise` (float,
/// half) and contiguous -> gpu::code_object; view ops stay (they only move pointers); every other
/// op -> gpu::ref::<op> (host fallback). Each result gets a hip::hip_allocate_memory output
/// buffer, which memory_coloring then plans into one scratch buffer.
/// offload_copy=true: parameters are copied in (hip::copy_to_gpu) and results out
/// (hip::copy_from_gpu, hip::sync_stream). false: parameters are device buffers, and each output
/// is written into a parameter named as the output (program::get_output_names()), which the
/// caller allocates (migraphx::gpu::allocate_gpu).
/// A program with control flow (If/Loop...) or dynamic shapes runs whole on the host: nothing is
/// lowered, except (offload_copy=false) copies from the device parameters and into the outputs.
struct lowering
{
    bool offload_copy = false;
    std::string name() const { return "gpu::lowering"; }
    void apply(module& m) const;
};

} // namespace gpu
} // namespace migraphx

#endif
