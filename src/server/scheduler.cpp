#include "server/scheduler.hpp"
#include "server/error.hpp"

namespace migraphx {
namespace server {

scheduler::scheduler(std::shared_ptr<model> m, metrics* stats) : m_model(std::move(m)), m_stats(stats)
{
    for(std::size_t i = 0; i < m_model->instance_count(); i++)
        m_workers.emplace_back([this, i] { worker(i); });
}

scheduler::~scheduler() { stop(); }

std::size_t scheduler::queued() const
{
    std::lock_guard<std::mutex> lk(m_mutex);
    return m_queue.size();
}

std::future<infer_response> scheduler::submit(infer_request r)
{
    auto it = std::make_unique<item>();
    try
    {
        it->rows = m_model->check(r);
    }
    catch(...)
    {
        if(m_stats)
            m_stats->request_done(m_model->name(), m_model->version(), false);
        throw;
    }
    it->request   = std::move(r);
    it->queued_at = clock::now();
    auto f        = it->promise.get_future();
    {
        std::lock_guard<std::mutex> lk(m_mutex);
        if(m_stopping)
            throw unavailable("the server is shutting down");
        m_queue.push_back(std::move(it));
    }
    m_cv.notify_all();
    return f;
}

void scheduler::flush()
{
    {
        std::lock_guard<std::mutex> lk(m_mutex);
        m_flush = true;
    }
    m_cv.notify_all();
}

void scheduler::stop()
{
    {
        std::lock_guard<std::mutex> lk(m_mutex);
        m_stopping = true;
    }
    m_cv.notify_all();
    for(auto& t : m_workers)
        if(t.joinable())
            t.join();
}

// Called with the lock held, the queue not empty and m_collecting set.
std::vector<std::unique_ptr<scheduler::item>> scheduler::collect(std::unique_lock<std::mutex>& lk)
{
    std::vector<std::unique_ptr<item>> batch;
    const auto& cfg = m_model->config();
    std::size_t max = m_model->max_rows();
    std::size_t rows = 0;
    batch.push_back(std::move(m_queue.front()));
    m_queue.pop_front();
    rows += batch.back()->rows;
    if(not cfg.dynamic_batching)
        return batch;
    auto deadline = batch.front()->queued_at + cfg.max_queue_delay;
    while(rows < max)
    {
        if(not m_queue.empty())
        {
            if(rows + m_queue.front()->rows > max)
                break; // the next request starts the next batch
            rows += m_queue.front()->rows;
            batch.push_back(std::move(m_queue.front()));
            m_queue.pop_front();
            continue;
        }
        if(m_stopping or m_flush or clock::now() >= deadline)
            break;
        m_cv.wait_until(lk, deadline, [&] { return m_stopping or m_flush or not m_queue.empty(); });
    }
    return batch;
}

void scheduler::worker(std::size_t instance)
{
    std::unique_lock<std::mutex> lk(m_mutex);
    for(;;)
    {
        m_cv.wait(lk, [&] { return (m_stopping and m_queue.empty()) or (not m_collecting and not m_queue.empty()); });
        if(m_queue.empty())
            return; // stopping, and everything queued has run
        m_collecting = true;
        auto batch   = collect(lk);
        m_collecting = false;
        lk.unlock();
        m_cv.notify_all(); // another instance may collect the next batch

        auto start = clock::now();
        std::vector<double> queue_s;
        std::vector<const infer_request*> reqs;
        std::size_t rows = 0;
        for(const auto& it : batch)
        {
            queue_s.push_back(std::chrono::duration<double>(start - it->queued_at).count());
            reqs.push_back(&it->request);
            rows += it->rows;
        }
        bool ok = true;
        try
        {
            auto responses = m_model->run(instance, reqs);
            auto compute_s = std::chrono::duration<double>(clock::now() - start).count();
            if(m_stats)
                m_stats->execution(m_model->name(), m_model->version(), rows, queue_s, compute_s);
            for(std::size_t i = 0; i < batch.size(); i++)
                batch[i]->promise.set_value(std::move(responses[i]));
        }
        catch(const std::exception& e)
        {
            ok = false;
            auto err = std::make_exception_ptr(server_error(500, "inference failed: " + std::string(e.what())));
            for(auto& it : batch)
                it->promise.set_exception(err);
        }
        if(m_stats)
            for(std::size_t i = 0; i < batch.size(); i++)
                m_stats->request_done(m_model->name(), m_model->version(), ok);
        lk.lock();
    }
}

} // namespace server
} // namespace migraphx
