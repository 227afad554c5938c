#ifndef MIGRAPHX_SERVER_JSON_CODEC_HPP
#define MIGRAPHX_SERVER_JSON_CODEC_HPP

// The HTTP/REST encoding of inference requests and responses: JSON tensors
// ({"name", "shape", "datatype", "data"}) and the binary-tensor extension (a tensor's bytes after
// the JSON, its size in parameters.binary_data_size, the JSON's length in the
// Inference-Header-Content-Length header).
#include "server/tensor.hpp"
#include <nlohmann/json.hpp>
#include <cstddef>
#include <string>

namespace migraphx {
namespace server {

constexpr std::size_t no_header_length = static_cast<std::size_t>(-1);

/// Parses a request body. header_length: the Inference-Header-Content-Length header's value, or
/// no_header_length when absent (then the whole body is JSON). Throws server_error 400.
infer_request parse_infer_request(const std::string& body, std::size_t header_length);

/// The response body; json_length gets the JSON part's size (the whole body when no output is
/// binary).
std::string write_infer_response(const infer_response& r, std::size_t& json_length);

/// Appends a JSON "data" array (nested or flat) as bytes of type t; throws server_error 400 for a
/// value that does not fit the type.
void append_json_data(const nlohmann::json& data, shape::type_t t, std::string& out);
/// A flat JSON array of the tensor's elements.
nlohmann::json json_data(const tensor& t);

/// {"error": msg}
std::string error_json(const std::string& msg);

} // namespace server
} // namespace migraphx

#endif
