#include "ir/shared_literals.hpp"
#include "ir/env.hpp"
#include <migraphx/program.hpp>
#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>
#include <vector>

namespace migraphx {

namespace {

/// A hash of up to three 4 KiB windows (start, middle, end), 8 bytes a step: equal literals give
/// equal keys; a candidate is then compared in full. (Byte by byte it cost a fresh load of
/// ResNet-50 ~1 ms.)
std::uint64_t sample_hash(const char* p, std::size_t n)
{
    constexpr std::size_t window = 4096;
    std::uint64_t h              = n;
    auto mix                     = [&](std::size_t from) {
        auto to = std::min(n, from + window);
        std::size_t i = from;
        for(; i + 8 <= to; i += 8)
        {
            std::uint64_t w;
            std::memcpy(&w, p + i, 8);
            h = (h ^ w) * 0x9e3779b97f4a7c15ull;
            h ^= h >> 29;
        }
        for(; i < to; i++)
            h = (h ^ static_cast<unsigned char>(p[i])) * 1099511628211ull;
    };
    mix(0);
    if(n > window)
        mix(n / 2 - window / 2);
    if(n > 2 * window)
        mix(n - window);
    return h;
}

std::string key_of(const literal& l)
{
    const auto& s = l.get_shape();
    std::ostringstream ss;
    ss << s.type_string() << ":";
    for(auto x : s.lens())
        ss << x << ",";
    ss << ":";
    for(auto x : s.strides())
        ss << x << ",";
    ss << ":" << sample_hash(l.data(), s.bytes());
    return ss.str();
}

struct pool
{
    std::mutex m;
    std::map<std::string, std::vector<std::weak_ptr<char>>> buffers;

    static pool& get()
    {
        static pool p;
        return p;
    }
};

} // namespace

literal share_literal(const literal& l)
{
    const auto& s    = l.get_shape();
    auto data        = l.get_argument().share_data(); // a copy: get_argument() is a temporary
    if(s.bytes() < shared_literal_min_bytes or data.use_count() == 0 or s.dynamic() or
       env_enabled("MIGRAPHX_DISABLE_SHARED_LITERALS"))
        return l;
    auto key = key_of(l);
    auto& p  = pool::get();
    std::lock_guard<std::mutex> lock(p.m);
    // forget the buffers no literal holds any more (the map stays as large as what is alive)
    for(auto it = p.buffers.begin(); it != p.buffers.end();)
    {
        auto& ws = it->second;
        ws.erase(std::remove_if(ws.begin(), ws.end(), [](const auto& w) { return w.expired(); }), ws.end());
        it = ws.empty() ? p.buffers.erase(it) : std::next(it);
    }
    auto& bucket = p.buffers[key];
    for(const auto& w : bucket)
    {
        auto live = w.lock();
        if(live == data)
            return l; // it is the registered one
        if(live and std::memcmp(live.get(), l.data(), s.bytes()) == 0)
            return literal::adopt(s, live);
    }
    bucket.push_back(data);
    return l;
}

std::size_t share_literals(program& p)
{
    std::size_t shared = 0;
    for(const auto* cm : p.get_modules())
    {
        auto* m = p.get_module(cm->name());
        std::vector<instruction_ref> literals;
        for(auto ins = m->begin(); ins != m->end(); ++ins)
            if(ins->name() == "@literal")
                literals.push_back(ins);
        for(auto ins : literals)
        {
            auto l = share_literal(ins->get_literal());
            if(l.data() == ins->get_literal().data())
                continue;
            shared += l.get_shape().bytes();
            m->replace_instruction(ins, m->insert_literal(ins, l));
            m->remove_instruction(ins);
        }
    }
    return shared;
}

} // namespace migraphx
