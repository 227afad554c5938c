#include "driver/progress.hpp"
#include <cstdio>
#include <iostream>
#include <unistd.h>

namespace migraphx {
namespace driver {

progress::progress(bool quiet, std::string what) : m_what(std::move(what)), m_tty(isatty(fileno(stderr)) != 0)
{
    if(not quiet)
        m_thread = std::thread([this] { loop(); });
}

progress::~progress()
{
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_done = true;
    }
    m_cv.notify_all();
    if(m_thread.joinable())
        m_thread.join();
}

void progress::loop()
{
    std::unique_lock<std::mutex> lock(m_mutex);
    long next    = 1;
    bool printed = false;
    while(not m_cv.wait_until(lock, m_start + std::chrono::seconds(next), [this] { return m_done; }))
    {
        if(m_tty)
            std::cerr << "\r" << m_what << " ... " << next << "s" << std::flush;
        else
            std::cerr << m_what << " ... " << next << "s" << std::endl;
        printed = true;
        next    = m_tty ? next + 1 : next * 2;
    }
    if(printed and m_tty)
    {
        auto s = std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
        std::cerr << "\r" << m_what << " ... done in " << s << "s" << std::endl;
    }
}

} // namespace driver
} // namespace migraphx
