#ifndef MIGRAPHX_SERVER_SCHEDULER_HPP
#define MIGRAPHX_SERVER_SCHEDULER_HPP

// The queue of one model version and its instance threads. With dynamic batching one idle
// instance at a time collects requests until the batch is full (max_batch_size rows) or the
// oldest request has waited max_queue_delay, then runs them as one batch; the other instances
// run batches collected before. Without it every request runs alone.
#include "server/metrics.hpp"
#include "server/model.hpp"
#include <chrono>
#include <condition_variable>
#include <deque>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace migraphx {
namespace server {

class scheduler
{
    public:
    scheduler(std::shared_ptr<model> m, metrics* stats);
    ~scheduler();
    scheduler(const scheduler&)            = delete;
    scheduler& operator=(const scheduler&) = delete;

    /// Checks the request (throws server_error 400 at once) and queues it. After stop() throws
    /// server_error 503.
    std::future<infer_response> submit(infer_request r);
    /// Stops waiting for batches to fill: what is queued runs now (shutdown).
    void flush();
    /// Stops taking requests, runs every queued one, joins the instance threads.
    void stop();
    const model& get_model() const { return *m_model; }
    std::size_t queued() const;

    private:
    using clock = std::chrono::steady_clock;
    struct item
    {
        infer_request request;
        std::size_t rows = 1;
        std::promise<infer_response> promise;
        clock::time_point queued_at;
    };
    void worker(std::size_t instance);
    std::vector<std::unique_ptr<item>> collect(std::unique_lock<std::mutex>& lk);

    std::shared_ptr<model> m_model;
    metrics* m_stats;
    mutable std::mutex m_mutex;
    std::condition_variable m_cv;
    std::deque<std::unique_ptr<item>> m_queue;
    bool m_stopping   = false;
    bool m_flush      = false;
    bool m_collecting = false;
    std::vector<std::thread> m_workers;
};

} // namespace server
} // namespace migraphx

#endif
