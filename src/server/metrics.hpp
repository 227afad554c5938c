#ifndef MIGRAPHX_SERVER_METRICS_HPP
#define MIGRAPHX_SERVER_METRICS_HPP

// Counters and histograms per model, written in the Prometheus text exposition format (0.0.4)
// at GET /metrics.
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace migraphx {
namespace server {

struct histogram
{
    std::vector<double> bounds; // upper bounds, ascending; +Inf is implicit
    std::vector<std::uint64_t> counts; // per bound (not cumulative), plus one for +Inf
    double sum          = 0;
    std::uint64_t count = 0;
    explicit histogram(std::vector<double> b) : bounds(std::move(b)), counts(bounds.size() + 1, 0) {}
    void observe(double x);
};

struct model_stats
{
    std::uint64_t requests_success = 0;
    std::uint64_t requests_failure = 0;
    std::uint64_t executions       = 0;
    histogram queue_seconds;
    histogram compute_seconds;
    histogram batch_size;
    bool ready = false;
    model_stats();
};

class metrics
{
    public:
    void set_ready(const std::string& model, const std::string& version, bool ready);
    void request_done(const std::string& model, const std::string& version, bool ok);
    /// One run of a batch holding `rows` rows in all; queue_s: each request's time in the queue.
    void execution(const std::string& model, const std::string& version, std::size_t rows,
                   const std::vector<double>& queue_s, double compute_s);
    /// An error answer of a front end (any status >= 400, within a model or not).
    void frontend_error(const std::string& protocol, int status);
    std::string prometheus_text() const;
    model_stats snapshot(const std::string& model, const std::string& version) const;

    private:
    mutable std::mutex m_mutex;
    std::map<std::pair<std::string, std::string>, model_stats> m_models;
    std::map<std::pair<std::string, int>, std::uint64_t> m_errors;
};

} // namespace server
} // namespace migraphx

#endif
