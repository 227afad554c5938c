#ifndef MIGRAPHX_DRIVER_PROGRESS_HPP
#define MIGRAPHX_DRIVER_PROGRESS_HPP

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace migraphx {
namespace driver {

/// While alive, says "<what> ... Ns" on stderr once the work has taken more than a moment
/// (1 s, or MIGRAPHX_DRIVER_PROGRESS_DELAY_MS): rewritten in place each second on a terminal,
/// else a line at 1, 2, 4, 8... seconds; then "<what> ... done in Xs" (unless the work threw).
/// Nothing when quiet.
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
    bool m_tty  = false;
    bool m_done = false;
    bool m_failed  = false; // left by an exception: no "done" line
    bool m_printed = false;
    int m_exceptions = 0;
    std::chrono::milliseconds m_delay{1000};
    std::mutex m_mutex;
    std::condition_variable m_cv;
    std::chrono::steady_clock::time_point m_start = std::chrono::steady_clock::now();
    std::thread m_thread;
};

} // namespace driver
} // namespace migraphx

#endif
