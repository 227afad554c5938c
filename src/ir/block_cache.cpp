// block_cache.hpp: large zeroed blocks, reused across runs.
#include "ir/block_cache.hpp"
#include "ir/env.hpp"
#include "ir/parallel_for.hpp"
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <new>

namespace migraphx {
namespace {

struct block_cache
{
    std::mutex m;
    std::multimap<std::size_t, char*> kept; // by capacity
    block_cache_stats stats;
    std::size_t limit = limit_from_env();

    static std::size_t limit_from_env()
    {
        auto v = env_string("MIGRAPHX_BLOCK_CACHE_MB");
        if(v.empty())
            return std::size_t{1024} << 20;
        auto mb = env_level("MIGRAPHX_BLOCK_CACHE_MB");
        return mb > 0 ? static_cast<std::size_t>(mb) << 20 : 0;
    }

    // Never destroyed: an argument may be freed during or after static destruction.
    static block_cache& get()
    {
        static auto* c = new block_cache;
        return *c;
    }

    void give_back(char* p, std::size_t capacity)
    {
        {
            std::lock_guard<std::mutex> lock(m);
            if(stats.kept_bytes + capacity <= limit)
            {
                kept.emplace(capacity, p);
                stats.kept_bytes += capacity;
                stats.kept_blocks++;
                return;
            }
        }
        std::free(p);
    }
};

char* checked_calloc(std::size_t n)
{
    auto* p = static_cast<char*>(std::calloc(n, 1));
    if(p == nullptr)
        throw std::bad_alloc();
    return p;
}

std::shared_ptr<char> allocate_block(std::size_t n, bool zeroed)
{
    if(n < block_cache_threshold)
        return {checked_calloc(n == 0 ? 1 : n), [](char* p) { std::free(p); }};
    auto& cache = block_cache::get();
    std::size_t capacity = n;
    char* p              = nullptr;
    {
        // The kept block's own capacity is what goes back to the cache.
        std::lock_guard<std::mutex> lock(cache.m);
        auto it = cache.kept.lower_bound(n);
        if(it != cache.kept.end() and it->first <= 2 * n)
        {
            capacity = it->first;
            p        = it->second;
            cache.stats.kept_bytes -= capacity;
            cache.stats.kept_blocks--;
            cache.stats.reused++;
            cache.kept.erase(it);
        }
        else
            cache.stats.fresh_large++;
    }
    if(p != nullptr and zeroed)
    {
        // Warm memory: one write, on several cores where it is large.
        constexpr std::size_t grain = std::size_t{4} << 20;
        parallel_for(n, grain, [p](std::size_t b, std::size_t e) { std::memset(p + b, 0, e - b); });
    }
    else
        p = checked_calloc(n); // fresh pages from the kernel: already zero, calloc does not write them
    return {p, [capacity](char* q) { block_cache::get().give_back(q, capacity); }};
}
} // namespace

std::shared_ptr<char> allocate_zeroed(std::size_t n) { return allocate_block(n, true); }

std::shared_ptr<char> allocate_uninitialized(std::size_t n) { return allocate_block(n, false); }

block_cache_stats block_cache_statistics()
{
    auto& c = block_cache::get();
    std::lock_guard<std::mutex> lock(c.m);
    return c.stats;
}

void clear_block_cache()
{
    auto& c = block_cache::get();
    std::multimap<std::size_t, char*> gone;
    {
        std::lock_guard<std::mutex> lock(c.m);
        gone.swap(c.kept);
        c.stats.kept_bytes  = 0;
        c.stats.kept_blocks = 0;
    }
    for(auto& [capacity, p] : gone)
        std::free(p);
}

} // namespace migraphx
