// ONNX's FLOAT8E4M3FN (data type 17, opset 19+): initializers (int32_data and raw_data), Cast to
// and from it, QuantizeLinear/DequantizeLinear with an e4m3 zero point or output_dtype, and the
// errors for what migx does not take (saturate=0, the other float8 types).
#ifdef MIGX_TEST_HAVE_ONNX

#include "onnx_test_model.hpp"
#include <migraphx/errors.hpp>
#include <gtest/gtest.h>
#include <cmath>

using migx_test::onnx_model;
using onnx::TensorProto;

namespace {

constexpr int float8e4m3fn = 17;
constexpr int float8e5m2   = 19;

// {0x38, 0x7e, 0xb0, 0x01}: 1, 448, -0.5, 2^-9
const std::vector<int> weight_bits = {0x38, 0x7e, 0xb0, 0x01};

TensorProto fp8_tensor(const std::string& name, const std::vector<int>& bits, bool raw)
{
    TensorProto t;
    t.set_name(name);
    t.set_data_type(float8e4m3fn);
    t.add_dims(static_cast<std::int64_t>(bits.size()));
    if(raw)
    {
        std::string bytes;
        for(auto b : bits)
            bytes.push_back(static_cast<char>(b));
        t.set_raw_data(bytes);
    }
    else
        for(auto b : bits)
            t.add_int32_data(b);
    return t;
}

TensorProto fp8_scalar(const std::string& name, int bits)
{
    TensorProto t;
    t.set_name(name);
    t.set_data_type(float8e4m3fn);
    t.add_int32_data(bits);
    return t;
}

std::string error_of(const onnx_model& m)
{
    try
    {
        m.parse();
    }
    catch(const migraphx::exception& e)
    {
        return e.what();
    }
    return "(no exception)";
}

} // namespace

TEST(onnx_float8, initializers_dequantize_in_both_encodings)
{
    for(bool raw : {false, true})
    {
        onnx_model m(19);
        m.initializer(fp8_tensor("w", weight_bits, raw));
        m.initializer(onnx_model::tensor("s", {}, {2.0f}));
        m.initializer(fp8_scalar("z", 0));
        m.node("DequantizeLinear", {"w", "s", "z"}, {"y"});
        m.output("y");
        auto y = migx_test::run(m.parse(), {});
        EXPECT_EQ(y, (std::vector<float>{2.0f, 896.0f, -1.0f, std::ldexp(1.0f, -8)})) << (raw ? "raw" : "int32");
    }
}

TEST(onnx_float8, cast_rounds_to_even_and_saturates)
{
    onnx_model m(19);
    m.input("x", TensorProto::FLOAT, {4});
    onnx_model::attr(m.node("Cast", {"x"}, {"q"}), "to", std::int64_t{float8e4m3fn});
    onnx_model::attr(m.node("Cast", {"q"}, {"y"}), "to", std::int64_t{TensorProto::FLOAT});
    m.output("y");
    auto y = migx_test::run(m.parse(), {{"x", {1.0625f, 500.0f, -0.3f, -1e9f}}});
    EXPECT_EQ(y, (std::vector<float>{1.0f, 448.0f, -0.3125f, -448.0f}));
}

TEST(onnx_float8, quantize_linear_to_e4m3_by_zero_point_or_output_dtype)
{
    for(bool by_dtype : {false, true})
    {
        onnx_model m(by_dtype ? 21 : 19);
        m.input("x", TensorProto::FLOAT, {3});
        m.initializer(onnx_model::tensor("s", {}, {0.5f}));
        std::vector<std::string> in = {"x", "s"};
        if(not by_dtype)
        {
            m.initializer(fp8_scalar("z", 0));
            in.push_back("z");
        }
        auto& q = m.node("QuantizeLinear", in, {"q"});
        if(by_dtype)
            onnx_model::attr(q, "output_dtype", std::int64_t{float8e4m3fn});
        m.output("q");
        auto p = m.parse();
        EXPECT_EQ(p.get_output_shapes().front().type(), migraphx::shape::fp8e4m3fn_type);
        // x / 0.5: 0.53125 -> 1.0625 -> 1 (tie, even); 300 -> 600 -> 448; -0.15 -> -0.3 -> -0.3125
        EXPECT_EQ(migx_test::run(p, {{"x", {0.53125f, 300.0f, -0.15f}}}), (std::vector<float>{1.0f, 448.0f, -0.3125f}));
    }
}

TEST(onnx_float8, unsupported_forms_are_named)
{
    {
        onnx_model m(19);
        m.input("x", TensorProto::FLOAT, {2});
        auto& c = m.node("Cast", {"x"}, {"y"});
        onnx_model::attr(c, "to", std::int64_t{float8e4m3fn});
        onnx_model::attr(c, "saturate", std::int64_t{0});
        m.output("y");
        EXPECT_NE(error_of(m).find("saturate=0"), std::string::npos) << error_of(m);
    }
    {
        onnx_model m(19);
        m.input("x", TensorProto::FLOAT, {2});
        onnx_model::attr(m.node("Cast", {"x"}, {"y"}), "to", std::int64_t{float8e5m2});
        m.output("y");
        EXPECT_NE(error_of(m).find("FLOAT8E5M2"), std::string::npos) << error_of(m);
    }
    {
        onnx_model m(19);
        m.initializer(fp8_tensor("w", {1, 2, 3}, false));
        m.graph().mutable_initializer(0)->set_dims(0, 4); // 3 values, dims say 4
        m.node("Identity", {"w"}, {"y"});
        m.output("y");
        EXPECT_NE(error_of(m).find("values but its dims need 4"), std::string::npos) << error_of(m);
    }
}

#endif
