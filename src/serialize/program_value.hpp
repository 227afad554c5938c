#ifndef MIGRAPHX_SERIALIZE_PROGRAM_VALUE_HPP
#define MIGRAPHX_SERIALIZE_PROGRAM_VALUE_HPP

// program <-> value tree: the content of an .mxr file, whatever its encoding (docs/mxr.md).

#include <migraphx/program.hpp>
#include <migraphx/value.hpp>
#include "serialize/msgpack_value.hpp"
#include <cstddef>

namespace migraphx {
namespace serialize {

enum class literal_encoding
{
    raw,   // literal bytes as they are, in a string (msgpack)
    base64 // literal bytes as base64 text (json)
};

value program_to_value(const program& p, literal_encoding enc);

/// Rebuilds the program. A compiled one gets its target and context back and is finalized
/// (ops rebuild their runtime state), not compiled. device_id is for gpu programs. Throws
/// migraphx::exception naming the module and instruction where the content is wrong.
///
/// A literal's "data" is a string of its bytes, or (msgpack_to_value with byte_refs) a
/// placeholder {"@bytes": i} for refs->spans[i]. With refs->owner, a literal whose span is
/// aligned to 16 bytes shares those bytes (and so keeps the owner alive); otherwise, and always
/// without an owner, its bytes are copied once.
program program_from_value(const value& v, std::size_t device_id, const byte_refs* refs = nullptr);

} // namespace serialize
} // namespace migraphx

#endif
