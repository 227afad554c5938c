#include "server/error.hpp"
#include "server/tensor.hpp"
#include <gtest/gtest.h>

using namespace migraphx::server;
using migraphx::shape;

TEST(server_tensor, datatype_names_round_trip)
{
    for(auto t : {shape::bool_type, shape::half_type, shape::float_type, shape::double_type, shape::uint8_type,
                  shape::int8_type, shape::uint16_type, shape::int16_type, shape::int32_type, shape::int64_type,
                  shape::uint32_type, shape::uint64_type})
        EXPECT_EQ(parse_datatype(datatype_name(t)), t);
    EXPECT_EQ(datatype_name(shape::float_type), "FP32");
    EXPECT_EQ(datatype_name(shape::half_type), "FP16");
    EXPECT_THROW(parse_datatype("fp32"), server_error);
    EXPECT_THROW(parse_datatype("BYTES"), server_error);
    EXPECT_THROW(datatype_name(shape::tuple_type), std::runtime_error);
}

TEST(server_tensor, element_count)
{
    EXPECT_EQ(element_count({}), 1u);
    EXPECT_EQ(element_count({2, 3, 4}), 24u);
    EXPECT_EQ(element_count({2, 0}), 0u);
    EXPECT_THROW(element_count({2, -1}), server_error);
    EXPECT_THROW(element_count({1 << 20, 1 << 20, 1 << 20}), server_error);
}
