#ifndef MIGRAPHX_SERVER_TENSOR_HPP
#define MIGRAPHX_SERVER_TENSOR_HPP

// Tensors as the protocol carries them (name, v2 datatype, shape, row-major little-endian bytes)
// and inference requests/responses independent of HTTP or gRPC.
#include <migraphx/shape.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace migraphx {
namespace server {

/// The v2 datatype name of a shape type ("FP32"...); throws for tuple.
std::string datatype_name(shape::type_t t);
/// The shape type of a v2 datatype; throws server_error 400 for an unknown one or BYTES.
shape::type_t parse_datatype(const std::string& name);
/// Elements of a v2 shape; throws server_error 400 for a negative dim or an overflow.
std::size_t element_count(const std::vector<std::int64_t>& shape);

struct tensor
{
    std::string name;
    migraphx::shape::type_t type = migraphx::shape::float_type;
    std::vector<std::int64_t> shape;
    std::string data; // element_count(shape) * type size bytes
    bool binary = false; // (outputs) send as the binary-tensor extension / raw
};

struct requested_output
{
    std::string name;
    bool binary = false;
};

struct infer_request
{
    std::string model;
    std::string version;
    std::string id;
    std::vector<tensor> inputs;
    std::vector<requested_output> outputs; // empty: every output
    bool binary_outputs = false; // request parameter binary_data_output
};

struct infer_response
{
    std::string model;
    std::string version;
    std::string id;
    std::vector<tensor> outputs;
};

} // namespace server
} // namespace migraphx

#endif
