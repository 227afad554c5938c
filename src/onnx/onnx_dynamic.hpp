#ifndef MIGRAPHX_ONNX_ONNX_DYNAMIC_HPP
#define MIGRAPHX_ONNX_ONNX_DYNAMIC_HPP

// Which ONNX inputs are dynamic, and the options that parse the model at given dims.

#include <migraphx/onnx.hpp>
#include "ir/dynamic_program.hpp"
#include "onnx/onnx_parser.hpp"

namespace migraphx {
namespace onnx {

/// Ranges of every input that has a non-fixed dim: from map_dyn_input_dims; from map_input_dims
/// for the model's symbolic dims (the value given is the maximum, the minimum is 1: spec 9.1.2);
/// from default_dyn_dim_value for other symbolic dims when default_dim_value is 0.
input_ranges_map dynamic_input_ranges(const pb::ModelProto& model, const onnx_options& options);

/// options with the dynamic inputs fixed at dims (ranges are dropped: the parse is static).
onnx_options options_at(const onnx_options& options, const input_dims_map& dims);

/// Parses an ONNX model at fixed dims (no dynamic inputs).
program parse_static_bytes(const void* data, std::size_t size, const onnx_options& options, const std::string& dir);

/// Makes p (parsed from bytes with options) dynamic over ranges.
void attach_onnx_source(program& p,
                        std::shared_ptr<const std::string> bytes,
                        const onnx_options& options,
                        const std::string& dir,
                        input_ranges_map ranges);

} // namespace onnx
} // namespace migraphx

#endif
