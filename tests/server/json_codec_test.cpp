#include "server/error.hpp"
#include "server/json_codec.hpp"
#include <gtest/gtest.h>
#include <cstring>

using namespace migraphx::server;
using migraphx::shape;

namespace {

template <class T>
std::vector<T> values(const tensor& t)
{
    std::vector<T> r(t.data.size() / sizeof(T));
    std::memcpy(r.data(), t.data.data(), t.data.size());
    return r;
}

int status_of(const std::string& body, std::size_t hl = no_header_length)
{
    try
    {
        parse_infer_request(body, hl);
    }
    catch(const server_error& e)
    {
        return e.status;
    }
    return 0;
}

} // namespace

TEST(server_json_codec, parses_json_tensors_nested_or_flat)
{
    auto r = parse_infer_request(R"({"id":"q1","inputs":[
        {"name":"x","datatype":"FP32","shape":[2,2],"data":[[1,2],[3,4.5]]},
        {"name":"i","datatype":"INT64","shape":[3],"data":[-1,0,9007199254740993]},
        {"name":"b","datatype":"BOOL","shape":[2],"data":[true,false]}],
        "outputs":[{"name":"y","parameters":{"binary_data":true}},{"name":"z"}]})",
                                 no_header_length);
    EXPECT_EQ(r.id, "q1");
    ASSERT_EQ(r.inputs.size(), 3u);
    EXPECT_EQ(r.inputs[0].type, shape::float_type);
    EXPECT_EQ(r.inputs[0].shape, (std::vector<std::int64_t>{2, 2}));
    EXPECT_EQ(values<float>(r.inputs[0]), (std::vector<float>{1, 2, 3, 4.5f}));
    EXPECT_EQ(values<std::int64_t>(r.inputs[1]), (std::vector<std::int64_t>{-1, 0, 9007199254740993LL}));
    EXPECT_EQ(values<std::uint8_t>(r.inputs[2]), (std::vector<std::uint8_t>{1, 0}));
    ASSERT_EQ(r.outputs.size(), 2u);
    EXPECT_TRUE(r.outputs[0].binary);
    EXPECT_FALSE(r.outputs[1].binary);
}

TEST(server_json_codec, parses_binary_tensors_after_the_json)
{
    std::string json = R"({"inputs":[{"name":"x","datatype":"FP32","shape":[3],"parameters":{"binary_data_size":12}},
        {"name":"y","datatype":"INT8","shape":[2],"data":[-128,127]}],"parameters":{"binary_data_output":true}})";
    float f[3] = {1.5f, -2, 3};
    std::string body = json + std::string(reinterpret_cast<const char*>(f), sizeof(f));
    auto r = parse_infer_request(body, json.size());
    EXPECT_EQ(values<float>(r.inputs[0]), (std::vector<float>{1.5f, -2, 3}));
    EXPECT_EQ(values<std::int8_t>(r.inputs[1]), (std::vector<std::int8_t>{-128, 127}));
    EXPECT_TRUE(r.binary_outputs);
    // a byte too many, too few, or binary data without the header
    EXPECT_EQ(status_of(body + "x", json.size()), 400);
    EXPECT_EQ(status_of(body.substr(0, body.size() - 1), json.size()), 400);
    EXPECT_EQ(status_of(body), 400);
    EXPECT_EQ(status_of(body, body.size() + 1), 400);
}

TEST(server_json_codec, rejects_bad_requests_with_400)
{
    EXPECT_EQ(status_of("{not json"), 400);
    EXPECT_EQ(status_of("[1,2]"), 400);
    EXPECT_EQ(status_of(R"({"inputs":{}})"), 400);
    EXPECT_EQ(status_of(R"({"inputs":[{"name":"x","datatype":"FP33","shape":[1],"data":[1]}]})"), 400);
    EXPECT_EQ(status_of(R"({"inputs":[{"name":"x","datatype":"BYTES","shape":[1],"data":["a"]}]})"), 400);
    EXPECT_EQ(status_of(R"({"inputs":[{"name":"x","datatype":"FP32","shape":[2],"data":[1]}]})"), 400);
    EXPECT_EQ(status_of(R"({"inputs":[{"name":"x","datatype":"FP32","shape":[-1],"data":[]}]})"), 400);
    EXPECT_EQ(status_of(R"({"inputs":[{"name":"x","datatype":"FP32","shape":[1],"data":["a"]}]})"), 400);
    EXPECT_EQ(status_of(R"({"inputs":[{"name":"x","datatype":"UINT8","shape":[1],"data":[256]}]})"), 400);
    EXPECT_EQ(status_of(R"({"inputs":[{"name":"x","datatype":"INT8","shape":[1],"data":[1.5]}]})"), 400);
    EXPECT_EQ(status_of(R"({"inputs":[{"name":"x","datatype":"FP32","shape":[1]}]})"), 400);
    EXPECT_EQ(status_of(R"({"inputs":[{"datatype":"FP32","shape":[1],"data":[1]}]})"), 400);
    EXPECT_EQ(status_of(R"({"inputs":[{"name":"x","datatype":"FP32","shape":[4294967296,4294967296],"data":[]}]})"), 400);
    // a shape claiming 2^31 doubles with one value: refused, nothing of that size allocated
    EXPECT_EQ(status_of(R"({"inputs":[{"name":"x","datatype":"FP64","shape":[2147483648],"data":[1]}]})"), 400);
    std::string deep(200, '[');
    EXPECT_EQ(status_of(R"({"inputs":[{"name":"x","datatype":"FP32","shape":[1],"data":)" + deep + "1" +
                        std::string(200, ']') + "}]}"),
              400);
}

TEST(server_json_codec, writes_json_and_binary_outputs)
{
    infer_response r;
    r.model   = "m";
    r.version = "1";
    r.id      = "abc";
    tensor a;
    a.name  = "a";
    a.type  = shape::float_type;
    a.shape = {2};
    float av[2] = {0.5f, -1};
    a.data.assign(reinterpret_cast<const char*>(av), sizeof(av));
    tensor b = a;
    b.name   = "b";
    b.binary = true;
    r.outputs = {a, b};
    std::size_t jl = 0;
    auto body      = write_infer_response(r, jl);
    ASSERT_EQ(body.size(), jl + 8);
    auto j = nlohmann::json::parse(body.substr(0, jl));
    EXPECT_EQ(j["model_name"], "m");
    EXPECT_EQ(j["id"], "abc");
    EXPECT_EQ(j["outputs"][0]["data"], nlohmann::json::parse("[0.5,-1.0]"));
    EXPECT_EQ(j["outputs"][0]["datatype"], "FP32");
    EXPECT_EQ(j["outputs"][1]["parameters"]["binary_data_size"], 8);
    EXPECT_FALSE(j["outputs"][1].contains("data"));
    EXPECT_EQ(body.substr(jl), a.data);
}

TEST(server_json_codec, error_json)
{
    EXPECT_EQ(nlohmann::json::parse(error_json("bad \"x\""))["error"], "bad \"x\"");
}
