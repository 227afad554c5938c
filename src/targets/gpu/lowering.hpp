#ifndef MIGRAPHX_GPU_LOWERING_HPP
#define MIGRAPHX_GPU_LOWERING_HPP

#include "targets/gpu/codegen.hpp"
#include <migraphx/module.hpp>
#include <migraphx/pass.hpp>
#include <functional>
#include <optional>
#include <string>

namespace migraphx {
namespace gpu {

/// Rewrites the main module into gpu ops (see gpu_ops.hpp): literals become device copies made
/// at finalize; dot -> gpu::gemm (dot + per-column bias add [+ relu] -> one gpu::gemm with a
/// cuBLASLt epilogue; a strided batch with a bias per batch too: gemm_per_batch_bias),
/// convolution(_backwards) -> gpu::convolution(_backwards), fused `pointwise` (float/half math,
/// and bool/integer values: comparisons, logic, where, converts, integer arithmetic),
/// contiguous, reductions, softmax, pooling, concat, gather, pad -> gpu::code_object; view ops
/// stay (they only move pointers); every other op -> gpu::ref::<op> (host fallback), as is
/// every non-view op computed from a data-dependent result (attribute dynamic_output). Each
/// result gets a hip::hip_allocate_memory output buffer, which memory_coloring then plans into
/// one scratch buffer.
/// offload_copy=true: parameters are copied in (hip::copy_to_gpu) and results out
/// (hip::copy_from_gpu, hip::sync_stream); a literal output is returned from the host as it is.
/// false: parameters are device buffers, and each output
/// is written into a parameter named as the output (program::get_output_names()), which the
/// caller allocates (migraphx::gpu::allocate_gpu).
/// A program with control flow (If/Loop...) or dynamic shapes runs whole on the host: nothing is
/// lowered, except (offload_copy=false) copies from the device parameters and into the outputs.
struct lowering
{
    bool offload_copy = false;
    bool fast_math    = true; // compile_options::fast_math (lower_dot_gelu)
    int sm            = 0;    // the device's compute capability, major * 10 + minor (0: unknown)
    std::string name() const { return "gpu::lowering"; }
    void apply(module& m) const;
};

/// After lowering: ref_fallback::host_only for the sizes computed on the host that no instruction
/// reads on the device (every reader takes the host's note: host ops, Shape, Expand/Reshape's
/// sizes, topk's k), so that no launch writes them (SSDlite: ~450 launches a run). A size read on
/// the device (an output, an elementwise kernel's operand, a gather's indices) is still written.
struct host_only_values
{
    std::string name() const { return "gpu::host_only_values"; }
    void apply(module& m) const;
};

/// The gpu target's compile passes that need no device: simplify_passes, fuse_layernorm,
/// merge_parallel_dots, DCE, fuse_pointwise, fuse_depthwise, layout_nhwc, DCE, lowering, DCE,
/// host_only_values, early_nonzero (early_nonzero.hpp)
/// (target::get_passes adds memory_coloring and a last DCE after them). Host tools and tests
/// run these to see what the target makes of a program (tools/gpu/lowering_check.cpp: which
/// ops would run on the host).
/// `sm`: the device's compute capability (major * 10 + minor; 0 where there is none, as in host
/// tools), for kernels made for one architecture (generate_attention_wgmma).
std::vector<pass> passes_before_device(bool offload_copy, bool fast_math = true, int sm = 0);

/// Whether bias (of the product's output shape out) can be the bias epilogue of a x b as a
/// strided batch of products (not gemm::one_product): a row vector per batch (broadcast over the
/// rows, packed along them), the batches' vectors one stride apart, 16-byte aligned
/// (CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE), as merge_parallel_dots stacks the biases of the
/// products it merges. Defined in gemm.cpp.
bool gemm_per_batch_bias(const shape& a, const shape& b, const shape& bias, const shape& out);

/// Whether ins is a view op whose compute only re-describes its input's memory (never reads it).
bool device_view(const instruction& ins);

/// The generated kernel for a reduction, softmax, pooling, concat, gather or pad, if one fits
/// (lower_generated.cpp); nothing for other ops, types the generators lack, or empty results.
std::optional<kernel_source> generate_for(instruction_ref ins);
/// The same writing `out` (ins's lens and type, packed in another layout, e.g. NHWC): pooling and
/// pad only (nothing for other ops or a non-packed out).
std::optional<kernel_source> generate_for(instruction_ref ins, const shape& out);
/// A half layernorm's kernel that also writes an fp8e4m3fn copy of its result times `e4m3_scale`
/// after it in its buffer (generate_layernorm's e4m3_scale); nothing where it does not fit.
std::optional<kernel_source> generate_layernorm_with_e4m3(instruction_ref ins, float e4m3_scale);

/// The generated kernel k as a gpu::code_object (its inputs, then the output buffer).
operation make_kernel(const kernel_source& k);
/// The same, with a kernel of the same parameters for devices that cannot run k (code_object::fallback).
operation make_kernel(const kernel_source& k, const kernel_source& fallback);

/// Every attention of the unlowered main module m, dot(softmax(dot(Q, K^T) with scalar scales
/// and a mask added), V) (then maybe transposed into a contiguous copy), becomes one generated
/// kernel (lower_attention.cpp) writing a hip::hip_allocate_memory buffer; what it replaced is
/// removed. `skip` names instructions that must stay (data-dependent results). Returns how many.
/// MIGRAPHX_DISABLE_ATTENTION_FUSION=1 turns it off. `sm` as in passes_before_device.
std::size_t lower_attention(module& m, const std::function<bool(instruction_ref)>& skip, int sm = 0);

} // namespace gpu
} // namespace migraphx

#endif
