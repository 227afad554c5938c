#include "ir/parallel_for.hpp"
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace migraphx {

std::size_t host_thread_count()
{
    for(const char* var : {"MIGRAPHX_CPU_THREADS", "OMP_NUM_THREADS"})
    {
        const char* v = std::getenv(var);
        if(v != nullptr and std::atoi(v) > 0)
            return static_cast<std::size_t>(std::atoi(v));
    }
    // Asked once: glibc answers hardware_concurrency by reading /sys/devices/system/cpu/online,
    // about 6 us a call, which every small parallel_for paid (a 32-input concat of 512-byte rows:
    // 0.2 ms, all of it in that read).
    static const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
    return cores;
}

std::size_t parallel_threads(std::size_t n, std::size_t grain)
{
    return std::max<std::size_t>(1, std::min(host_thread_count(), n / std::max<std::size_t>(grain, 1)));
}

void parallel_for(std::size_t n, std::size_t grain, const std::function<void(std::size_t, std::size_t)>& f)
{
    if(n == 0)
        return;
    std::size_t threads = parallel_threads(n, grain);
    if(threads == 1)
    {
        f(0, n);
        return;
    }
    // Ranges of a quarter of a thread's share: a thread slowed by the machine takes fewer.
    std::size_t step = std::max<std::size_t>(1, n / (threads * 4));
    std::atomic<std::size_t> next{0};
    std::atomic<bool> failed{false};
    std::exception_ptr error;
    std::mutex error_mutex;
    auto work = [&] {
        for(std::size_t b = next.fetch_add(step); b < n and not failed; b = next.fetch_add(step))
        {
            try
            {
                f(b, std::min(n, b + step));
            }
            catch(...)
            {
                std::lock_guard<std::mutex> lock(error_mutex);
                if(not error)
                    error = std::current_exception();
                failed = true;
            }
        }
    };
    std::vector<std::thread> pool;
    try
    {
        for(std::size_t t = 1; t < threads; t++)
            pool.emplace_back(work);
    }
    catch(const std::system_error&) // no more threads to be had: fewer do the work
    {
    }
    work();
    for(auto& t : pool)
        t.join();
    if(error)
        std::rethrow_exception(error);
}

} // namespace migraphx
