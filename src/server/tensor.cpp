#include "server/tensor.hpp"
#include "server/error.hpp"
#include <limits>
#include <utility>

namespace migraphx {
namespace server {

namespace {

const std::pair<shape::type_t, const char*> datatypes[] = {
    {shape::bool_type, "BOOL"},     {shape::uint8_type, "UINT8"},   {shape::uint16_type, "UINT16"},
    {shape::uint32_type, "UINT32"}, {shape::uint64_type, "UINT64"}, {shape::int8_type, "INT8"},
    {shape::int16_type, "INT16"},   {shape::int32_type, "INT32"},   {shape::int64_type, "INT64"},
    {shape::half_type, "FP16"},     {shape::float_type, "FP32"},    {shape::double_type, "FP64"},
};

} // namespace

std::string datatype_name(shape::type_t t)
{
    for(const auto& [type, name] : datatypes)
        if(type == t)
            return name;
    throw std::runtime_error("no v2 datatype for shape type " + shape::type_name(t));
}

shape::type_t parse_datatype(const std::string& name)
{
    for(const auto& [type, n] : datatypes)
        if(name == n)
            return type;
    if(name == "BYTES")
        throw bad_request("datatype BYTES is not supported (migx models take numeric tensors)");
    throw bad_request("unknown datatype '" + name + "'");
}

std::size_t element_count(const std::vector<std::int64_t>& shape)
{
    std::size_t n = 1;
    for(auto d : shape)
    {
        if(d < 0)
            throw bad_request("negative dimension " + std::to_string(d) + " in a tensor shape");
        auto u = static_cast<std::size_t>(d);
        if(u != 0 and n > std::numeric_limits<std::uint32_t>::max() / u)
            throw bad_request("tensor shape too large");
        n *= u;
    }
    return n;
}

} // namespace server
} // namespace migraphx
