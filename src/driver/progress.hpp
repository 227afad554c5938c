#ifndef MIGRAPHX_DRIVER_PROGRESS_HPP
#define MIGRAPHX_DRIVER_PROGRESS_HPP

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace migraphx {
namespace driver {

/// While alive, says "<what> ... Ns" on stderr once the work has taken more than a second:
/// rewritten in place each second on a terminal, else a line at 1, 2, 4, 8... seconds.
class progress
{
    public:
    progress(bool quiet, std::string what);
    ~progress();
    progress(const progress&)            = delete;
    progress& operator=(const progress&) = delete;

    private:
    void loop();
    std::string m_what;
    bool m_tty = false;
    bool m_done = false;
    std::mutex m_mutex;
    std::condition_variable m_cv;
    std::chrono::steady_clock::time_point m_start = std::chrono::steady_clock::now();
    std::thread m_thread;
};

} // namespace driver
} // namespace migraphx

#endif
