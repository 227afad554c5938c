#ifndef MIGRAPHX_SERIALIZE_MSGPACK_VALUE_HPP
#define MIGRAPHX_SERIALIZE_MSGPACK_VALUE_HPP

// migraphx::value <-> MessagePack bytes (msgpack-cxx). Strings are written as msgpack str and may
// hold any bytes (literal data); str and bin both read back as strings.
//
// Literal data is the bulk of a file, so it is neither copied while decoding nor misaligned:
// - value_to_msgpack puts a string of at least aligned_string_min bytes that is the value of a
//   map key "data" at an offset of the output that is a multiple of data_alignment, by writing a
//   padding entry "@pad" (a string) just before it in the same map;
// - msgpack_to_value drops "@pad" entries, and, given a byte_refs, leaves the value of every
//   "data" key in the input: the value gets {"@bytes": i} instead, i indexing byte_refs::spans.

#include <migraphx/value.hpp>
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

namespace migraphx {
namespace serialize {

constexpr std::size_t data_alignment     = 64;
constexpr std::size_t aligned_string_min = 1024;
constexpr const char* pad_key            = "@pad";
constexpr const char* bytes_key          = "@bytes";

/// Bytes left in the decoded input instead of copied into the value tree.
struct byte_refs
{
    /// (pointer into the input, size), indexed by the placeholders' "@bytes".
    std::vector<std::pair<const char*, std::size_t>> spans;
    /// Keeps the input alive for as long as something shares it. Null: the input is only
    /// borrowed for the decoding, and whatever keeps its bytes must copy them.
    std::shared_ptr<char> owner;
};

/// Appends v, as one MessagePack object, to out (out.size() counts as the offset of the first
/// byte written, for the alignment of literal data).
void value_to_msgpack(const value& v, std::vector<char>& out);

/// Reads one MessagePack object from data[offset, size) and advances offset past it. Throws
/// migraphx::exception for truncated or malformed bytes, maps with non-string keys, ext types,
/// nesting deeper than 64, or sizes the remaining bytes cannot hold. With refs, the values of
/// "data" keys that are strings stay in the input (see above); a map with a key "@bytes" in the
/// input is then an error.
value msgpack_to_value(const char* data, std::size_t size, std::size_t& offset, byte_refs* refs = nullptr);

} // namespace serialize
} // namespace migraphx

#endif
