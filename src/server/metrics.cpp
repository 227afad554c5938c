#include "server/metrics.hpp"
#include <algorithm>
#include <sstream>

namespace migraphx {
namespace server {

void histogram::observe(double x)
{
    auto it = std::lower_bound(bounds.begin(), bounds.end(), x);
    counts[static_cast<std::size_t>(it - bounds.begin())]++;
    sum += x;
    count++;
}

model_stats::model_stats()
    : queue_seconds({1e-4, 2.5e-4, 5e-4, 1e-3, 2.5e-3, 5e-3, 1e-2, 2.5e-2, 5e-2, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}),
      compute_seconds({1e-4, 2.5e-4, 5e-4, 1e-3, 2.5e-3, 5e-3, 1e-2, 2.5e-2, 5e-2, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}),
      batch_size({1, 2, 4, 8, 16, 32, 64, 128})
{
}

void metrics::set_ready(const std::string& model, const std::string& version, bool ready)
{
    std::lock_guard<std::mutex> lk(m_mutex);
    m_models[{model, version}].ready = ready;
}

void metrics::request_done(const std::string& model, const std::string& version, bool ok)
{
    std::lock_guard<std::mutex> lk(m_mutex);
    auto& s = m_models[{model, version}];
    (ok ? s.requests_success : s.requests_failure)++;
}

void metrics::execution(const std::string& model, const std::string& version, std::size_t rows,
                        const std::vector<double>& queue_s, double compute_s)
{
    std::lock_guard<std::mutex> lk(m_mutex);
    auto& s = m_models[{model, version}];
    s.executions++;
    s.batch_size.observe(static_cast<double>(rows));
    s.compute_seconds.observe(compute_s);
    for(double q : queue_s)
        s.queue_seconds.observe(q);
}

void metrics::frontend_error(const std::string& protocol, int status)
{
    std::lock_guard<std::mutex> lk(m_mutex);
    m_errors[{protocol, status}]++;
}

model_stats metrics::snapshot(const std::string& model, const std::string& version) const
{
    std::lock_guard<std::mutex> lk(m_mutex);
    auto it = m_models.find({model, version});
    return it == m_models.end() ? model_stats{} : it->second;
}

namespace {

std::string escape(const std::string& s)
{
    std::string r;
    for(char c : s)
    {
        if(c == '\\' or c == '"')
            r += '\\';
        if(c == '\n')
        {
            r += "\\n";
            continue;
        }
        r += c;
    }
    return r;
}

std::string number(double x)
{
    std::ostringstream ss;
    ss.precision(17);
    ss << x;
    return ss.str();
}

void write_histogram(std::ostringstream& os, const std::string& name, const std::string& labels, const histogram& h)
{
    std::uint64_t cum = 0;
    for(std::size_t i = 0; i < h.bounds.size(); i++)
    {
        cum += h.counts[i];
        os << name << "_bucket{" << labels << ",le=\"" << number(h.bounds[i]) << "\"} " << cum << "\n";
    }
    cum += h.counts.back();
    os << name << "_bucket{" << labels << ",le=\"+Inf\"} " << cum << "\n";
    os << name << "_sum{" << labels << "} " << number(h.sum) << "\n";
    os << name << "_count{" << labels << "} " << h.count << "\n";
}

} // namespace

std::string metrics::prometheus_text() const
{
    std::lock_guard<std::mutex> lk(m_mutex);
    std::ostringstream os;
    auto labels = [](const auto& key) {
        return "model=\"" + escape(key.first) + "\",version=\"" + escape(key.second) + "\"";
    };
    os << "# HELP migraphx_model_ready Whether the model version is loaded and serving (1) or not (0).\n"
       << "# TYPE migraphx_model_ready gauge\n";
    for(const auto& [k, s] : m_models)
        os << "migraphx_model_ready{" << labels(k) << "} " << (s.ready ? 1 : 0) << "\n";
    os << "# HELP migraphx_inference_requests_total Inference requests answered, by outcome.\n"
       << "# TYPE migraphx_inference_requests_total counter\n";
    for(const auto& [k, s] : m_models)
    {
        os << "migraphx_inference_requests_total{" << labels(k) << ",outcome=\"success\"} " << s.requests_success << "\n";
        os << "migraphx_inference_requests_total{" << labels(k) << ",outcome=\"failure\"} " << s.requests_failure << "\n";
    }
    os << "# HELP migraphx_inference_failures_total Inference requests that failed (bad input or a failed run).\n"
       << "# TYPE migraphx_inference_failures_total counter\n";
    for(const auto& [k, s] : m_models)
        os << "migraphx_inference_failures_total{" << labels(k) << "} " << s.requests_failure << "\n";
    os << "# HELP migraphx_inference_executions_total Program runs (one per batch).\n"
       << "# TYPE migraphx_inference_executions_total counter\n";
    for(const auto& [k, s] : m_models)
        os << "migraphx_inference_executions_total{" << labels(k) << "} " << s.executions << "\n";
    os << "# HELP migraphx_inference_queue_seconds Time a request waited in the model's queue.\n"
       << "# TYPE migraphx_inference_queue_seconds histogram\n";
    for(const auto& [k, s] : m_models)
        write_histogram(os, "migraphx_inference_queue_seconds", labels(k), s.queue_seconds);
    os << "# HELP migraphx_inference_compute_seconds Time of one program run (a whole batch), inputs and outputs copied.\n"
       << "# TYPE migraphx_inference_compute_seconds histogram\n";
    for(const auto& [k, s] : m_models)
        write_histogram(os, "migraphx_inference_compute_seconds", labels(k), s.compute_seconds);
    os << "# HELP migraphx_inference_batch_size Rows per program run (before padding).\n"
       << "# TYPE migraphx_inference_batch_size histogram\n";
    for(const auto& [k, s] : m_models)
        write_histogram(os, "migraphx_inference_batch_size", labels(k), s.batch_size);
    os << "# HELP migraphx_server_request_errors_total Error answers by protocol and HTTP status (also those outside any model).\n"
       << "# TYPE migraphx_server_request_errors_total counter\n";
    for(const auto& [k, n] : m_errors)
        os << "migraphx_server_request_errors_total{protocol=\"" << k.first << "\",status=\"" << k.second << "\"} " << n << "\n";
    return os.str();
}

} // namespace server
} // namespace migraphx
