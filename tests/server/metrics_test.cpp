#include "server/metrics.hpp"
#include <gtest/gtest.h>

using namespace migraphx::server;

TEST(server_metrics, histogram_buckets)
{
    histogram h({1, 2, 4});
    for(double x : {0.5, 1.0, 3.0, 100.0})
        h.observe(x);
    EXPECT_EQ(h.counts, (std::vector<std::uint64_t>{2, 0, 1, 1}));
    EXPECT_EQ(h.count, 4u);
    EXPECT_DOUBLE_EQ(h.sum, 104.5);
}

TEST(server_metrics, prometheus_text)
{
    metrics m;
    m.set_ready("tiny", "1", true);
    m.request_done("tiny", "1", true);
    m.request_done("tiny", "1", true);
    m.request_done("tiny", "1", false);
    m.execution("tiny", "1", 2, {0.001, 0.002}, 0.01);
    m.frontend_error("http", 404);
    auto t = m.prometheus_text();
    auto has = [&](const std::string& s) { return t.find(s) != std::string::npos; };
    EXPECT_TRUE(has("migraphx_model_ready{model=\"tiny\",version=\"1\"} 1\n"));
    EXPECT_TRUE(has("migraphx_inference_requests_total{model=\"tiny\",version=\"1\",outcome=\"success\"} 2\n"));
    EXPECT_TRUE(has("migraphx_inference_failures_total{model=\"tiny\",version=\"1\"} 1\n"));
    EXPECT_TRUE(has("migraphx_inference_executions_total{model=\"tiny\",version=\"1\"} 1\n"));
    EXPECT_TRUE(has("migraphx_inference_batch_size_bucket{model=\"tiny\",version=\"1\",le=\"1\"} 0\n"));
    EXPECT_TRUE(has("migraphx_inference_batch_size_bucket{model=\"tiny\",version=\"1\",le=\"2\"} 1\n"));
    EXPECT_TRUE(has("migraphx_inference_queue_seconds_count{model=\"tiny\",version=\"1\"} 2\n"));
    EXPECT_TRUE(has("migraphx_inference_compute_seconds_bucket{model=\"tiny\",version=\"1\",le=\"+Inf\"} 1\n"));
    EXPECT_TRUE(has("# TYPE migraphx_inference_queue_seconds histogram\n"));
    EXPECT_TRUE(has("migraphx_server_request_errors_total{protocol=\"http\",status=\"404\"} 1\n"));
    m.set_ready("a\"b", "1", false);
    EXPECT_NE(m.prometheus_text().find("model=\"a\\\"b\""), std::string::npos);
}
