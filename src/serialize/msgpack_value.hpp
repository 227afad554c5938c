#ifndef MIGRAPHX_SERIALIZE_MSGPACK_VALUE_HPP
#define MIGRAPHX_SERIALIZE_MSGPACK_VALUE_HPP

// migraphx::value <-> MessagePack bytes (msgpack-cxx). Strings are written as msgpack str and may
// hold any bytes (literal data); str and bin both read back as strings.

#include <migraphx/value.hpp>
#include <cstddef>
#include <vector>

namespace migraphx {
namespace serialize {

/// Appends v, as one MessagePack object, to out.
void value_to_msgpack(const value& v, std::vector<char>& out);

/// Reads one MessagePack object from data[offset, size) and advances offset past it. Throws
/// migraphx::exception for truncated or malformed bytes, maps with non-string keys, ext types,
/// nesting deeper than 64, or sizes the remaining bytes cannot hold.
value msgpack_to_value(const char* data, std::size_t size, std::size_t& offset);

} // namespace serialize
} // namespace migraphx

#endif
