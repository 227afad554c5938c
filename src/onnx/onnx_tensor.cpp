// ONNX element types and TensorProto -> literal, including tensors stored in external files.

#include "onnx/onnx_parser.hpp"
#include <cstring>
#include <fstream>
#include <limits>

namespace migraphx {
namespace onnx {

namespace {

// Parse-time constants above this size are refused (a corrupt or hostile file must not make us
// allocate without bound).
constexpr std::size_t max_literal_bytes = std::size_t{1} << 32;

std::size_t checked_elements(const std::vector<std::size_t>& dims, const std::string& what)
{
    std::size_t n = 1;
    for(auto d : dims)
    {
        if(d != 0 and n > std::numeric_limits<std::size_t>::max() / d)
            throw exception(what + ": dims overflow");
        n *= d;
    }
    return n;
}

template <class T, class Src>
literal literal_from_field(const shape& s, const Src& field, const std::string& what)
{
    if(static_cast<std::size_t>(field.size()) != s.elements())
        throw exception(what + ": has " + std::to_string(field.size()) + " values but its dims need " +
                        std::to_string(s.elements()));
    std::vector<T> v(field.begin(), field.end());
    return literal{s, v};
}

/// A half or fp8 tensor's int32_data: each value holds one element's bits.
template <class T, class Bits, class Src>
literal literal_from_bits(const shape& s, const Src& field, const std::string& what)
{
    if(static_cast<std::size_t>(field.size()) != s.elements())
        throw exception(what + ": has " + std::to_string(field.size()) + " values but its dims need " +
                        std::to_string(s.elements()));
    std::vector<T> v;
    v.reserve(s.elements());
    for(auto x : field)
        v.push_back(T::from_bits(static_cast<Bits>(x)));
    return literal{s, v};
}

literal literal_from_bytes(const shape& s, const char* data, std::size_t size, const std::string& what)
{
    if(size != s.bytes())
        throw exception(what + ": has " + std::to_string(size) + " bytes of data but its shape needs " +
                        std::to_string(s.bytes()));
    argument a{s};
    if(size > 0)
        std::memcpy(a.data(), data, size);
    return literal{a};
}

std::string read_external(const pb::TensorProto& t, const std::string& model_dir, const std::string& what)
{
    std::string location;
    std::size_t offset = 0;
    std::int64_t length = -1;
    for(const auto& kv : t.external_data())
    {
        if(kv.key() == "location")
            location = kv.value();
        else if(kv.key() == "offset")
            offset = std::stoull(kv.value());
        else if(kv.key() == "length")
            length = std::stoll(kv.value());
    }
    if(location.empty())
        throw exception(what + ": external data without a location");
    // Data files sit next to the model: refuse paths that climb out of its folder.
    if(location.front() == '/' or location.find("..") != std::string::npos)
        throw exception(what + ": external data location '" + location + "' is outside the model's folder");
    std::string path = model_dir.empty() ? location : model_dir + "/" + location;
    std::ifstream f(path, std::ios::binary);
    if(not f)
        throw exception(what + ": cannot open external data file '" + path + "'");
    f.seekg(0, std::ios::end);
    auto file_size = static_cast<std::size_t>(f.tellg());
    if(offset > file_size)
        throw exception(what + ": external data offset " + std::to_string(offset) + " is past the end of '" + path +
                        "'");
    std::size_t n = length < 0 ? file_size - offset : static_cast<std::size_t>(length);
    if(n > file_size - offset)
        throw exception(what + ": external data of '" + path + "' is shorter than its length " +
                        std::to_string(n));
    if(n > max_literal_bytes)
        throw exception(what + ": external data is too large");
    std::string data(n, '\0');
    f.seekg(static_cast<std::streamoff>(offset));
    f.read(data.data(), static_cast<std::streamsize>(n));
    if(not f)
        throw exception(what + ": cannot read external data file '" + path + "'");
    return data;
}

} // namespace

shape::type_t get_onnx_type(int onnx_type)
{
    switch(onnx_type)
    {
    case pb::TensorProto::FLOAT: return shape::float_type;
    case pb::TensorProto::UINT8: return shape::uint8_type;
    case pb::TensorProto::INT8: return shape::int8_type;
    case pb::TensorProto::UINT16: return shape::uint16_type;
    case pb::TensorProto::INT16: return shape::int16_type;
    case pb::TensorProto::INT32: return shape::int32_type;
    case pb::TensorProto::INT64: return shape::int64_type;
    case pb::TensorProto::BOOL: return shape::bool_type;
    case pb::TensorProto::FLOAT16: return shape::half_type;
    case pb::TensorProto::DOUBLE: return shape::double_type;
    case pb::TensorProto::UINT32: return shape::uint32_type;
    case pb::TensorProto::UINT64: return shape::uint64_type;
    case onnx_float8e4m3fn: return shape::fp8e4m3fn_type;
    default: break;
    }
    throw exception("unsupported ONNX data type " + onnx_type_name(onnx_type));
}

std::string onnx_type_name(int onnx_type)
{
    // ONNX 1.14's float8 types, which the protos this is built against may predate
    switch(onnx_type)
    {
    case onnx_float8e4m3fn: return "FLOAT8E4M3FN";
    case onnx_float8e4m3fn + 1: return "FLOAT8E4M3FNUZ";
    case onnx_float8e4m3fn + 2: return "FLOAT8E5M2";
    case onnx_float8e4m3fn + 3: return "FLOAT8E5M2FNUZ";
    default: break;
    }
    if(pb::TensorProto::DataType_IsValid(onnx_type))
        return pb::TensorProto::DataType_Name(static_cast<pb::TensorProto::DataType>(onnx_type));
    return std::to_string(onnx_type);
}

literal onnx_parser::parse_tensor(const pb::TensorProto& t) const { return tensor_literal(t, model_dir); }

literal tensor_literal(const pb::TensorProto& t, const std::string& model_dir)
{
    std::string what = "tensor '" + t.name() + "'";
    auto type        = get_onnx_type(t.data_type());
    std::vector<std::size_t> dims;
    for(auto d : t.dims())
    {
        if(d < 0)
            throw exception(what + ": negative dim " + std::to_string(d));
        dims.push_back(static_cast<std::size_t>(d));
    }
    auto n = checked_elements(dims, what);
    if(n > max_literal_bytes / shape::type_size(type))
        throw exception(what + ": is too large (" + std::to_string(n) + " elements)");
    shape s = dims.empty() ? shape{type} : shape{type, dims};
    if(t.data_location() == pb::TensorProto::EXTERNAL)
    {
        auto data = read_external(t, model_dir, what);
        return literal_from_bytes(s, data.data(), data.size(), what);
    }
    if(t.has_raw_data())
        return literal_from_bytes(s, t.raw_data().data(), t.raw_data().size(), what);
    switch(t.data_type())
    {
    case pb::TensorProto::FLOAT: return literal_from_field<float>(s, t.float_data(), what);
    case pb::TensorProto::DOUBLE: return literal_from_field<double>(s, t.double_data(), what);
    case pb::TensorProto::INT64: return literal_from_field<std::int64_t>(s, t.int64_data(), what);
    case pb::TensorProto::UINT32:
    case pb::TensorProto::UINT64: return literal_from_field<std::uint64_t>(s, t.uint64_data(), what);
    case pb::TensorProto::FLOAT16: return literal_from_bits<half, std::uint16_t>(s, t.int32_data(), what);
    case onnx_float8e4m3fn: return literal_from_bits<fp8e4m3fn, std::uint8_t>(s, t.int32_data(), what);
    default: return literal_from_field<std::int64_t>(s, t.int32_data(), what);
    }
}

std::int64_t normalize_onnx_axis(std::int64_t axis, std::size_t rank, const node_info& info)
{
    auto r = static_cast<std::int64_t>(rank);
    if(axis < -r or axis >= r)
        info.fail("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
    return axis < 0 ? axis + r : axis;
}

} // namespace onnx
} // namespace migraphx
