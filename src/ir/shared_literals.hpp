#ifndef MIGRAPHX_IR_SHARED_LITERALS_HPP
#define MIGRAPHX_IR_SHARED_LITERALS_HPP

// Literals of the same shape and bytes share one buffer among the programs alive in the process:
// a dynamic program's variants (each compiled again from the same model, docs/dynamic-shapes.md),
// and a model compiled or loaded more than once, hold their weights once instead of once a
// program. A literal never changes after it is made, so its buffer may be read by any number.
// Only literals of shared_literal_min_bytes or more take part (the lookup reads a few samples of
// the bytes and, for a candidate, compares all of them). MIGRAPHX_DISABLE_SHARED_LITERALS=1 turns
// it off (each program keeps buffers of its own, as before).

#include <migraphx/literal.hpp>
#include <cstddef>

namespace migraphx {

struct program;

constexpr std::size_t shared_literal_min_bytes = 64 * 1024;

/// A literal equal to l (its shape and every byte) whose buffer is that of a live literal passed
/// here before; else l itself, remembered for later calls (as long as its buffer lives). Literals
/// under shared_literal_min_bytes, and ones that do not own their memory, come back as they are.
literal share_literal(const literal& l);

/// Every @literal of p's modules through share_literal; how many bytes now come from another
/// literal's buffer.
std::size_t share_literals(program& p);

} // namespace migraphx

#endif
