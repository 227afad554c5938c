#include "server/options.hpp"
#include <gtest/gtest.h>

using namespace migraphx::server;

namespace {

int parse(std::vector<std::string> args, server_options& o)
{
    args.insert(args.begin(), "migraphx-server");
    std::vector<char*> argv;
    for(auto& a : args)
        argv.push_back(a.data());
    return parse_options(static_cast<int>(argv.size()), argv.data(), o);
}

} // namespace

TEST(server_options, flags)
{
    server_options o;
    EXPECT_EQ(parse({"--model-repository", "/m", "--http-port", "0", "--grpc-port", "-1", "--cpu", "--instances", "3",
                     "--max-body", "2048", "--strict-readiness"},
                    o),
              -1);
    EXPECT_EQ(o.model_repository, "/m");
    EXPECT_EQ(o.http.port, 0);
    EXPECT_EQ(o.grpc.port, -1);
    EXPECT_EQ(o.target(), "cpu");
    EXPECT_EQ(o.instances, 3u);
    EXPECT_EQ(o.grpc.max_message, 2048u); // one limit for both protocols
    EXPECT_TRUE(o.strict_readiness);
    server_options d;
    EXPECT_EQ(parse({"--model-repository", "/m"}, d), -1);
    EXPECT_EQ(d.http.port, 8000);
    EXPECT_EQ(d.grpc.port, 8001);
    EXPECT_EQ(d.http.max_body, 64u << 20);
}

TEST(server_options, usage_errors)
{
    testing::internal::CaptureStderr();
    testing::internal::CaptureStdout();
    server_options o;
    EXPECT_EQ(parse({}, o), 2);                                                 // no repository
    EXPECT_EQ(parse({"--model-repository", "/m", "--cpu", "--gpu"}, o), 2);     // two targets
    EXPECT_EQ(parse({"--model-repository", "/m", "--instances", "0"}, o), 2);   // out of range
    EXPECT_EQ(parse({"--help"}, o), 0);
    testing::internal::GetCapturedStdout();
    testing::internal::GetCapturedStderr();
}
