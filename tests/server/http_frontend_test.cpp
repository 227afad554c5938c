// The HTTP front end in-process: a repository of a saved ref program, served on a free port of
// 127.0.0.1, driven with httplib's client.
#include "server/http_frontend.hpp"
#include "server/json_codec.hpp"
#include "server/repository.hpp"
#include <migraphx/load_save.hpp>
#include <migraphx/make_op.hpp>
#include <httplib.h>
#include <gtest/gtest.h>
#include <filesystem>
#include <fstream>
#include <thread>

using namespace migraphx::server;
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

struct served
{
    fs::path root;
    metrics stats;
    repository repo{&stats};
    std::unique_ptr<http_frontend> http;
    std::thread thread;
    int port = 0;

    served()
    {
        root = fs::temp_directory_path() / ("migx_http_test_" + std::to_string(::getpid()));
        fs::remove_all(root);
        fs::create_directories(root / "neg" / "1");
        migraphx::program p; // y = -x, x: float[2]
        auto* m = p.get_main_module();
        auto x  = m->add_parameter("x", migraphx::shape{migraphx::shape::float_type, {2}});
        m->add_return({m->add_instruction(migraphx::make_op("neg"), x)});
        p.compile(migraphx::get_target("ref"));
        migraphx::save(p, (root / "neg" / "1" / "model.mxr").string());
        load_options lo;
        lo.target = "ref";
        repo.load(root.string(), lo);
        http_options o;
        o.host     = "127.0.0.1";
        o.port     = 0;
        o.threads  = 4;
        o.max_body = 4096;
        http       = std::make_unique<http_frontend>(repo, stats, o);
        port       = http->bind();
        thread     = std::thread([this] { http->run(); });
    }
    ~served()
    {
        repo.begin_shutdown();
        http->stop();
        thread.join();
        repo.stop();
        fs::remove_all(root);
    }
};

} // namespace

TEST(server_http, endpoints_answer_the_protocol)
{
    served s;
    httplib::Client c("127.0.0.1", s.port);
    auto live = c.Get("/v2/health/live");
    ASSERT_TRUE(live);
    EXPECT_EQ(live->status, 200);
    EXPECT_EQ(json::parse(live->body)["live"], true);
    auto meta = c.Get("/v2/models/neg");
    ASSERT_TRUE(meta);
    EXPECT_EQ(meta->status, 200);
    auto j = json::parse(meta->body);
    EXPECT_EQ(j["inputs"][0]["shape"], json::parse("[2]"));
    EXPECT_EQ(j["platform"], "migraphx_mxr");

    auto r = c.Post("/v2/models/neg/infer", R"({"inputs":[{"name":"x","datatype":"FP32","shape":[2],"data":[1.5,-2]}]})",
                    "application/json");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(json::parse(r->body)["outputs"][0]["data"], json::parse("[-1.5, 2.0]"));

    auto bad = c.Post("/v2/models/neg/infer", "{", "application/json");
    ASSERT_TRUE(bad);
    EXPECT_EQ(bad->status, 400);
    EXPECT_TRUE(json::parse(bad->body).contains("error"));
    auto unknown = c.Post("/v2/models/nope/infer", "{}", "application/json");
    ASSERT_TRUE(unknown);
    EXPECT_EQ(unknown->status, 404);
    auto big = c.Post("/v2/models/neg/infer", std::string(8192, ' '), "application/json");
    ASSERT_TRUE(big);
    EXPECT_EQ(big->status, 413);
    EXPECT_NE(json::parse(big->body)["error"].get<std::string>().find("4096"), std::string::npos);
    auto none = c.Get("/v3/nothing");
    ASSERT_TRUE(none);
    EXPECT_EQ(none->status, 404);
    EXPECT_TRUE(json::parse(none->body).contains("error"));

    auto m = c.Get("/metrics");
    ASSERT_TRUE(m);
    EXPECT_NE(m->body.find("migraphx_inference_requests_total{model=\"neg\",version=\"1\",outcome=\"success\"} 1"),
              std::string::npos);
    EXPECT_NE(m->body.find("migraphx_server_request_errors_total{protocol=\"http\",status=\"413\"} 1"),
              std::string::npos);

    s.repo.begin_shutdown();
    auto ready = c.Get("/v2/health/ready");
    ASSERT_TRUE(ready);
    EXPECT_EQ(ready->status, 400);
    auto late = c.Post("/v2/models/neg/infer", R"({"inputs":[{"name":"x","datatype":"FP32","shape":[2],"data":[1,2]}]})",
                       "application/json");
    ASSERT_TRUE(late);
    EXPECT_EQ(late->status, 503);
}
