#ifndef MIGRAPHX_PASSES_LAYERNORM_MATCH_HPP
#define MIGRAPHX_PASSES_LAYERNORM_MATCH_HPP

#include <migraphx/instruction_ref.hpp>
#include <optional>

namespace migraphx {

/// The ONNX importer's LayerNormalization without its scale and shift: mean over the last axis,
/// d = x - mean, var = mean(d * d), y = d * rsqrt(var + epsilon). x: what is normalized; y: the
/// instruction computing the normalized x; any element type (the caller decides).
struct layernorm_match
{
    instruction_ref x;
    instruction_ref y;
    float epsilon = 1e-5f;
};

/// The pattern starting at the reduce_mean `mean`, if it is one (each intermediate used only
/// within the pattern).
std::optional<layernorm_match> match_layernorm(instruction_ref mean);

} // namespace migraphx

#endif
