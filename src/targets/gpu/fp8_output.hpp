#ifndef MIGRAPHX_GPU_FP8_OUTPUT_HPP
#define MIGRAPHX_GPU_FP8_OUTPUT_HPP

// A product's epilogue that ends in quantize_fp8's cast of its result: the fp8 product can write
// e4m3 itself (cuBLASLt's D scale), so the next product reads it without a cast kernel between.

#include <migraphx/instruction_ref.hpp>
#include <migraphx/module.hpp>
#include <optional>
#include <vector>

namespace migraphx {
namespace gpu {

/// A pointwise body whose result is convert<fp8e4m3fn>(y / s), convert<fp8e4m3fn>(y * r) or
/// convert<fp8e4m3fn>(y) (a scale of 1), y maybe converted to float first (gpu::fuse_int8's
/// quantize), s and r positive finite constants: y and the factor that scales it (1 / s, r or 1).
struct fp8_output
{
    instruction_ref y;
    float d_scale = 1;
};
std::optional<fp8_output> fp8_output_of(const module& body);

/// The factor quantize_fp8's cast `u` of one value scales it by before rounding to e4m3: u a
/// pointwise kernel of that value alone whose body fp8_output_of matches on its parameter, or a
/// bare convert to fp8e4m3fn (1). Nothing for anything else. What a producer (attention, layer
/// norm) needs to store e4m3 itself.
std::optional<float> e4m3_cast_scale(instruction_ref u);

/// The instructions of a pointwise body that `root` is computed from, root last, parameters
/// left out, in the body's order: the epilogue that an fp8_output's y ends.
std::vector<instruction_ref> instructions_computing(const module& body, instruction_ref root);

} // namespace gpu
} // namespace migraphx

#endif
