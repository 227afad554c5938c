#ifndef MIGRAPHX_SERIALIZE_JSON_VALUE_HPP
#define MIGRAPHX_SERIALIZE_JSON_VALUE_HPP

// migraphx::value <-> JSON text for the "json" .mxr format, plus the base64 that carries literal
// bytes there (JSON strings cannot hold arbitrary bytes).

#include <migraphx/value.hpp>
#include <cstddef>
#include <string>

namespace migraphx {
namespace serialize {

std::string value_to_json_text(const value& v);
/// Throws migraphx::exception naming what is wrong (malformed JSON, nesting too deep...).
value json_text_to_value(const char* data, std::size_t size);

std::string base64_encode(const char* data, std::size_t size);
/// Throws migraphx::exception for a character outside the alphabet or a bad length.
std::string base64_decode(const std::string& text);

} // namespace serialize
} // namespace migraphx

#endif
