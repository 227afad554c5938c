#ifndef MIGRAPHX_SERIALIZE_DYNAMIC_VALUE_HPP
#define MIGRAPHX_SERIALIZE_DYNAMIC_VALUE_HPP

// A dynamic program's source (ir/dynamic_program.hpp) in an .mxr file: its input ranges, the
// kind of source, its options and its bytes (the ONNX model), so that a loaded program
// specialises per shape like the one saved.

#include <migraphx/value.hpp>
#include <memory>
#include "ir/dynamic_program.hpp"
#include "serialize/msgpack_value.hpp"
#include "serialize/program_value.hpp"

namespace migraphx {
namespace serialize {

value dynamic_to_value(const dynamic_source& source, literal_encoding enc);
/// Throws migraphx::exception saying what is wrong; refs as for program_from_value.
std::shared_ptr<dynamic_source> dynamic_from_value(const value& v, const byte_refs* refs);

} // namespace serialize
} // namespace migraphx

#endif
