#include "server/config.hpp"
#include <gtest/gtest.h>

using namespace migraphx::server;

TEST(server_config, reads_triton_fields_and_skips_the_rest)
{
    auto c = parse_model_config(R"(
        name: "resnet"
        platform: "onnxruntime_onnx"
        max_batch_size: 8
        input [ { name: "x" data_type: TYPE_FP32 dims: [ 3, 224, 224 ] } ]
        output [ { name: "y" data_type: TYPE_FP32 dims: [ 1000 ] } ]
        instance_group [ { count: 2 kind: KIND_CPU }, { count: 1 } ]
        dynamic_batching { max_queue_delay_microseconds: 500 preferred_batch_size: [ 3 ] }
        optimization { execution_accelerators { cpu_execution_accelerator : [ { name : "x" } ] } }
    )");
    EXPECT_EQ(c.max_batch_size, 8u);
    EXPECT_TRUE(c.dynamic_batching);
    EXPECT_EQ(c.max_queue_delay.count(), 500);
    EXPECT_EQ(c.instances, 3u);
    EXPECT_EQ(compiled_batch_sizes(c), (std::vector<std::size_t>{1, 2, 3, 4, 8}));
}

TEST(server_config, defaults_and_batch_sizes)
{
    auto c = parse_model_config("");
    EXPECT_EQ(c.max_batch_size, 0u);
    EXPECT_FALSE(c.dynamic_batching);
    EXPECT_EQ(c.instances, 0u);
    EXPECT_EQ(compiled_batch_sizes(c), (std::vector<std::size_t>{0}));
    auto d = parse_model_config("max_batch_size: 6");
    EXPECT_FALSE(d.dynamic_batching); // batch dimension, but no dynamic_batching block
    EXPECT_EQ(compiled_batch_sizes(d), (std::vector<std::size_t>{1, 2, 4, 6}));
    // dynamic_batching without a batch dimension does nothing
    EXPECT_FALSE(parse_model_config("dynamic_batching { }").dynamic_batching);
}

TEST(server_config, errors_name_the_line)
{
    try
    {
        parse_model_config("max_batch_size: 4\nmax_batch_size: {");
        FAIL() << "no error";
    }
    catch(const std::runtime_error& e)
    {
        EXPECT_NE(std::string(e.what()).find("line 2"), std::string::npos) << e.what();
    }
    EXPECT_THROW(parse_model_config("max_batch_size: -1"), std::runtime_error);
    EXPECT_THROW(parse_model_config("max_batch_size: 4 dynamic_batching { preferred_batch_size: [ 5 ] }"),
                 std::runtime_error);
}
