#include "driver/progress.hpp"
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <unistd.h>

namespace migraphx {
namespace driver {

namespace {

// MIGRAPHX_DRIVER_PROGRESS_DELAY_MS: how long a compile may take before progress shows.
std::chrono::milliseconds progress_delay()
{
    const char* v = std::getenv("MIGRAPHX_DRIVER_PROGRESS_DELAY_MS");
    if(v == nullptr or *v == '\0')
        return std::chrono::milliseconds{1000};
    char* end = nullptr;
    long ms   = std::strtol(v, &end, 10);
    if(end == v or *end != '\0' or ms < 0)
        return std::chrono::milliseconds{1000};
    return std::chrono::milliseconds{ms};
}

double seconds_since(std::chrono::steady_clock::time_point t)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

} // namespace

progress::progress(bool quiet, std::string what)
    : m_what(std::move(what)),
      m_tty(isatty(fileno(stderr)) != 0),
      m_exceptions(std::uncaught_exceptions()),
      m_delay(progress_delay())
{
    if(quiet)
        return;
    if(m_delay.count() == 0)
    {
        // At once, not when the thread gets to run: however short the work, it shows.
        std::cerr << m_what << " ... 0s" << (m_tty ? "" : "\n") << std::flush;
        m_printed = true;
    }
    m_thread = std::thread([this] { loop(); });
}

progress::~progress()
{
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_done   = true;
        m_failed = std::uncaught_exceptions() > m_exceptions;
    }
    m_cv.notify_all();
    if(m_thread.joinable())
        m_thread.join();
}

void progress::loop()
{
    using ms = std::chrono::milliseconds;
    std::unique_lock<std::mutex> lock(m_mutex);
    ms next = m_printed ? ms{1000} : m_delay;
    while(not m_cv.wait_until(lock, m_start + next, [this] { return m_done; }))
    {
        auto s = static_cast<long>(seconds_since(m_start));
        if(m_tty)
            std::cerr << "\r" << m_what << " ... " << s << "s" << std::flush;
        else
            std::cerr << m_what << " ... " << s << "s" << std::endl;
        m_printed = true;
        // Each second on a terminal; else at doubling times, so a log stays short.
        next = m_tty ? next + ms{1000} : std::max(next * 2, next + ms{1000});
    }
    if(m_printed and m_failed and m_tty)
        std::cerr << std::endl; // the error starts on a line of its own
    else if(m_printed and not m_failed)
        std::cerr << (m_tty ? "\r" : "") << m_what << " ... done in " << seconds_since(m_start) << "s" << std::endl;
}

} // namespace driver
} // namespace migraphx
