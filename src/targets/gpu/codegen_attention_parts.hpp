// What the two fused attention generators share (codegen_attention.cpp, the mma.sync kernel for
// any device; codegen_attention_wgmma.cpp, the Hopper kernel): shape tests, the batch offset and
// score-step code, and the device helpers both kernels call.
#ifndef MIGX_TARGETS_GPU_CODEGEN_ATTENTION_PARTS_HPP
#define MIGX_TARGETS_GPU_CODEGEN_ATTENTION_PARTS_HPP

#include "targets/gpu/codegen.hpp"
#include <string>

namespace migraphx {
namespace gpu {
namespace attention_parts {

inline bool half(const shape& s) { return not s.dynamic() and s.type() == shape::half_type; }

/// The stride of the dim `from_end` places from the last (1 = the last).
inline std::size_t stride(const shape& s, std::size_t from_end) { return s.strides()[s.lens().size() - from_end]; }

/// The batch offset of `s` (rank r, batch dims 0..r-3) in the digits b0.. (or `digit`0..) as code.
std::string batch_offset(const shape& s, const std::string& digit = "b");

/// Whether 16 bytes of consecutive elements along the innermost of the last two dims load as one
/// vector wherever a row starts: unit stride there and every other stride a multiple of the
/// vector's element count.
bool rows_vectorize(const shape& s, std::size_t inner_from_end, std::size_t inner_len);

/// Whether the spec's operands are ones a fused kernel takes: half Q, K^T, V and output of one
/// batch shape, D and DV multiples of 16 up to 128, a mask (half or float) of the scores' lens,
/// steps of + - * / only. Sets M (query rows), D, N (keys) and DV.
bool supported(const attention_spec& a, std::size_t& m, std::size_t& d, std::size_t& n, std::size_t& dv);

/// Whether the scores times log2 e can go through the steps at once (every step but
/// "constant / score": sums scale their operand by it, products do not change).
bool steps_fold_log2e(const attention_spec& a);

/// Lines that turn `float v` (a raw score Q.K) into the base-2 exponent the softmax takes:
/// scale, the steps (a mask operand is `mv`), times log2 e. Each line starts with `indent`.
std::string score_code(const attention_spec& a, const std::string& indent);

/// The device helpers both kernels use: smem_addr, cp.async, half packing, the mask's pairs, ex2.
extern const char* device_common;

} // namespace attention_parts
} // namespace gpu
} // namespace migraphx

#endif
