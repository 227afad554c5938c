#ifndef MIGRAPHX_PASSES_CONSTANT_VALUES_HPP
#define MIGRAPHX_PASSES_CONSTANT_VALUES_HPP

// Reading constants behind view ops, as the int8 lowerings (cpu::lower_dnnl_int8,
// gpu::fuse_int8) need them to fold quantize_int8's scales, zero points and biases into kernels.

#include <migraphx/argument.hpp>
#include <migraphx/instruction.hpp>
#include <optional>
#include <vector>

namespace migraphx {
namespace pass_utils {

/// x's one user, or a default instruction_ref when it has none or several.
instruction_ref only_user(instruction_ref x);

/// The value of a constant behind view ops (broadcasts, reshapes...), or nothing.
std::optional<argument> constant_value(instruction_ref x);

/// A constant that varies only along axis (or not at all): its n values along the axis.
std::optional<std::vector<float>> along_axis(instruction_ref c, std::size_t axis, std::size_t n);

/// A constant whose elements are all one value: that value.
std::optional<float> uniform_constant(instruction_ref c);

} // namespace pass_utils
} // namespace migraphx

#endif
