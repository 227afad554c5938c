#ifndef MIGX_TESTS_ONNX_TENSOR_IO_HPP
#define MIGX_TESTS_ONNX_TENSOR_IO_HPP

// Reads the ONNX test data's TensorProto files into migraphx arguments (independently of the
// parser, so that the runner checks the parser rather than sharing its code).

#include <migraphx/argument.hpp>
#include <migraphx/errors.hpp>
#include <migraphx/half.hpp>
#include <onnx/onnx_pb.h>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace migx_test {

inline migraphx::shape::type_t tensor_type(int t)
{
    using migraphx::shape;
    switch(t)
    {
    case onnx::TensorProto::FLOAT: return shape::float_type;
    case onnx::TensorProto::UINT8: return shape::uint8_type;
    case onnx::TensorProto::INT8: return shape::int8_type;
    case onnx::TensorProto::UINT16: return shape::uint16_type;
    case onnx::TensorProto::INT16: return shape::int16_type;
    case onnx::TensorProto::INT32: return shape::int32_type;
    case onnx::TensorProto::INT64: return shape::int64_type;
    case onnx::TensorProto::BOOL: return shape::bool_type;
    case onnx::TensorProto::FLOAT16: return shape::half_type;
    case onnx::TensorProto::DOUBLE: return shape::double_type;
    case onnx::TensorProto::UINT32: return shape::uint32_type;
    case onnx::TensorProto::UINT64: return shape::uint64_type;
    default: break;
    }
    throw migraphx::exception("test data: unsupported tensor type " + std::to_string(t));
}

template <class T, class Field>
void fill_from(const migraphx::argument& a, const Field& field)
{
    if(static_cast<std::size_t>(field.size()) != a.get_shape().elements())
        throw migraphx::exception("test data: value count does not match dims");
    a.visit([&](auto v) {
        using U = typename decltype(v)::value_type;
        for(std::size_t i = 0; i < v.size(); i++)
        {
            if constexpr(std::is_same<U, migraphx::half>{} and std::is_same<T, std::int32_t>{})
                v[i] = migraphx::half::from_bits(static_cast<std::uint16_t>(field.Get(static_cast<int>(i))));
            else
                v[i] = migraphx::type_cast<U>(static_cast<T>(field.Get(static_cast<int>(i))));
        }
    });
}

inline migraphx::argument to_argument(const onnx::TensorProto& t)
{
    std::vector<std::size_t> dims(t.dims().begin(), t.dims().end());
    auto type = tensor_type(t.data_type());
    migraphx::shape s = dims.empty() ? migraphx::shape{type} : migraphx::shape{type, dims};
    migraphx::argument a{s};
    if(t.has_raw_data())
    {
        if(t.raw_data().size() != s.bytes())
            throw migraphx::exception("test data: raw data size does not match dims");
        std::memcpy(a.data(), t.raw_data().data(), s.bytes());
        return a;
    }
    switch(t.data_type())
    {
    case onnx::TensorProto::FLOAT: fill_from<float>(a, t.float_data()); break;
    case onnx::TensorProto::DOUBLE: fill_from<double>(a, t.double_data()); break;
    case onnx::TensorProto::INT64: fill_from<std::int64_t>(a, t.int64_data()); break;
    case onnx::TensorProto::UINT32:
    case onnx::TensorProto::UINT64: fill_from<std::uint64_t>(a, t.uint64_data()); break;
    default: fill_from<std::int32_t>(a, t.int32_data()); break;
    }
    return a;
}

inline std::string read_file(const std::string& path)
{
    std::ifstream f(path, std::ios::binary);
    if(not f)
        throw migraphx::exception("cannot open " + path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

/// Reads a TensorProto file; name receives the tensor's name.
inline migraphx::argument load_tensor(const std::string& path, std::string* name = nullptr)
{
    onnx::TensorProto t;
    if(not t.ParseFromString(read_file(path)))
        throw migraphx::exception("test data: " + path + " is not a TensorProto");
    // A SequenceProto or OptionalProto may parse as a TensorProto with nonsense fields.
    std::size_t n = 1;
    bool sane     = onnx::TensorProto::DataType_IsValid(t.data_type()) and t.data_type() != 0 and
                t.data_type() != onnx::TensorProto::STRING and t.dims_size() <= 16;
    for(auto d : t.dims())
    {
        sane = sane and d >= 0 and d < (std::int64_t{1} << 32);
        n *= sane ? static_cast<std::size_t>(d) : 1;
    }
    if(not sane or n > (std::size_t{1} << 30))
        throw migraphx::exception("test data: " + path + " is not a numeric tensor (sequence, optional or string)");
    if(name != nullptr)
        *name = t.name();
    return to_argument(t);
}

} // namespace migx_test

#endif
