#include "server/error.hpp"
#include "server/grpc_frontend.hpp"
#include "grpc_predict_v2.pb.h"
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <cstring>

using namespace migraphx::server;

namespace {

inference::ModelInferRequest request(const std::string& dtype, std::vector<std::int64_t> shape)
{
    inference::ModelInferRequest q;
    q.set_model_name("m");
    q.set_model_version("2");
    q.set_id("i");
    auto* in = q.add_inputs();
    in->set_name("x");
    in->set_datatype(dtype);
    for(auto d : shape)
        in->add_shape(d);
    return q;
}

int status_of(const inference::ModelInferRequest& q)
{
    try
    {
        from_proto(q);
    }
    catch(const server_error& e)
    {
        return e.status;
    }
    return 0;
}

} // namespace

TEST(server_grpc, raw_and_typed_contents)
{
    auto q = request("FP32", {2});
    float v[2] = {1.5f, -2};
    q.add_raw_input_contents(std::string(reinterpret_cast<const char*>(v), sizeof(v)));
    q.add_outputs()->set_name("y");
    auto r = from_proto(q);
    EXPECT_EQ(r.model, "m");
    EXPECT_EQ(r.version, "2");
    EXPECT_EQ(r.id, "i");
    ASSERT_EQ(r.inputs.size(), 1u);
    EXPECT_EQ(r.inputs[0].shape, (std::vector<std::int64_t>{2}));
    EXPECT_EQ(r.inputs[0].data, std::string(reinterpret_cast<const char*>(v), sizeof(v)));
    ASSERT_EQ(r.outputs.size(), 1u);
    EXPECT_EQ(r.outputs[0].name, "y");

    auto t = request("INT16", {3});
    for(int x : {-5, 0, 300})
        t.mutable_inputs(0)->mutable_contents()->add_int_contents(x);
    auto rt = from_proto(t);
    std::int16_t s[3];
    ASSERT_EQ(rt.inputs[0].data.size(), sizeof(s));
    std::memcpy(s, rt.inputs[0].data.data(), sizeof(s));
    EXPECT_EQ(s[0], -5);
    EXPECT_EQ(s[2], 300);
}

TEST(server_grpc, bad_requests)
{
    auto q = request("INT8", {1});
    q.mutable_inputs(0)->mutable_contents()->add_int_contents(200); // does not fit INT8
    EXPECT_EQ(status_of(q), 400);
    auto h = request("FP16", {1});
    EXPECT_EQ(status_of(h), 400); // FP16 only raw
    auto c = request("FP32", {2});
    c.mutable_inputs(0)->mutable_contents()->add_fp32_contents(1); // one value for two
    EXPECT_EQ(status_of(c), 400);
    auto r = request("FP32", {1});
    r.add_raw_input_contents(std::string(4, '\0'));
    r.add_raw_input_contents(std::string(4, '\0')); // two for one input
    EXPECT_EQ(status_of(r), 400);
    auto b = request("FP32", {1});
    b.add_raw_input_contents(std::string(4, '\0'));
    b.mutable_inputs(0)->mutable_contents()->add_fp32_contents(1); // both kinds
    EXPECT_EQ(status_of(b), 400);
    auto u = request("BYTES", {1});
    EXPECT_EQ(status_of(u), 400);
}

TEST(server_grpc, status_codes)
{
    EXPECT_EQ(grpc_code(400), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_EQ(grpc_code(404), grpc::StatusCode::NOT_FOUND);
    EXPECT_EQ(grpc_code(503), grpc::StatusCode::UNAVAILABLE);
    EXPECT_EQ(grpc_code(500), grpc::StatusCode::INTERNAL);
}
