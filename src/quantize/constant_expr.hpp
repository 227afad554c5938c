#ifndef MIGRAPHX_QUANTIZE_CONSTANT_EXPR_HPP
#define MIGRAPHX_QUANTIZE_CONSTANT_EXPR_HPP

// Constant expressions of an uncompiled program, as the quantizers see them: a product's weights
// are a literal or ops of literals (a transposed or reshaped literal, a converted one after
// quantize_fp16), which the quantizers compute once and store quantized.

#include <migraphx/argument.hpp>
#include <migraphx/instruction.hpp>
#include <optional>

namespace migraphx {

/// The value of a constant expression (literals and ops of literals, at most 16 deep), or nothing.
std::optional<argument> eval_constant(instruction_ref x, int depth = 0);

/// Whether x is a constant expression (what eval_constant computes), without computing it.
bool is_constant(instruction_ref x, int depth = 0);

} // namespace migraphx

#endif
