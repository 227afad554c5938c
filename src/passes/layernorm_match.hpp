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

/// The scale and shift a layer norm's output `y` goes through next: mul(y, scale), then
/// add(that, shift), either operand order, where scale and shift hold one value per position of
/// the last axis (their other dims broadcast: stride 0 or length 1) and have y's type. `out` is
/// the add, or the mul where no such add follows; y and the mul are used only there.
struct layernorm_affine
{
    instruction_ref scale;
    std::optional<instruction_ref> shift;
    instruction_ref out;
};

std::optional<layernorm_affine> match_layernorm_affine(instruction_ref y);

} // namespace migraphx

#endif
