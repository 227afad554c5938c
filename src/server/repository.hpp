#ifndef MIGRAPHX_SERVER_REPOSITORY_HPP
#define MIGRAPHX_SERVER_REPOSITORY_HPP

// The model repository (DIR/<name>/<version>/model.{onnx,mxr}, DIR/<name>/config.pbtxt): every
// model version with its scheduler, or the reason it failed to load. The front ends (HTTP,
// gRPC) answer from here.
#include "server/metrics.hpp"
#include "server/model.hpp"
#include "server/scheduler.hpp"
#include <atomic>
#include <future>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace migraphx {
namespace server {

struct model_entry
{
    std::string name;
    std::string version;
    std::string error; // why it failed to load ("" when ready)
    std::unique_ptr<scheduler> sched;
    bool ready() const { return sched != nullptr; }
};

class repository
{
    public:
    explicit repository(metrics* stats) : m_stats(stats) {}
    /// Loads every model version under dir; a model that fails is recorded (not ready) and the
    /// others load. Throws only when dir itself cannot be read.
    void load(const std::string& dir, const load_options& options);

    /// The version asked for, or (version "") the highest ready one (the highest if none is
    /// ready). Throws server_error 404 for an unknown model or version.
    const model_entry& find(const std::string& name, const std::string& version) const;
    /// Versions of a model, ascending (numerically).
    std::vector<std::string> versions(const std::string& name) const;
    std::vector<const model_entry*> entries() const;

    /// Queues a request on its model (throws server_error 400/404/503).
    std::future<infer_response> infer(infer_request r);

    bool live() const { return true; }
    /// Loading finished and not shutting down (with strict: and every model loaded).
    bool ready() const;
    void set_strict_readiness(bool strict) { m_strict = strict; }
    /// Stops taking requests (ready turns false); queued requests run without waiting for
    /// their batches to fill.
    void begin_shutdown();
    /// Runs what is queued and stops every model's instances.
    void stop();

    private:
    metrics* m_stats;
    std::map<std::string, std::map<std::string, std::unique_ptr<model_entry>>> m_models;
    std::atomic<bool> m_loaded{false};
    std::atomic<bool> m_shutting_down{false};
    bool m_strict = false;
};

} // namespace server
} // namespace migraphx

#endif
