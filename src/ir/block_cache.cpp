// block_cache.hpp: large zeroed blocks, reused across runs.
#include "ir/block_cache.hpp"
#include "ir/env.hpp"
#include "ir/parallel_for.hpp"
#include <cstdlib>
#include <cstring>
#include <list>
#include <map>
#include <mutex>
#include <new>
#include <sys/mman.h>
#include <vector>

namespace migraphx {
namespace {

/// A large block straight from the kernel: page-aligned and zero, its pages touched first by
/// whoever writes them.
char* map_block(std::size_t n)
{
    void* p = ::mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if(p == MAP_FAILED)
        throw std::bad_alloc();
    return static_cast<char*>(p);
}

void unmap(char* p, std::size_t n) { ::munmap(p, n); }

struct kept_block
{
    std::size_t capacity;
    char* p;
};

struct block_cache
{
    std::mutex m;
    std::list<kept_block> by_age; // oldest first
    std::multimap<std::size_t, std::list<kept_block>::iterator> by_size;
    block_cache_stats stats;
    std::size_t limit = limit_from_env();

    static std::size_t limit_from_env()
    {
        if(env_string("MIGRAPHX_BLOCK_CACHE_MB").empty())
            return block_cache_default_mb << 20;
        auto mb = env_level("MIGRAPHX_BLOCK_CACHE_MB");
        return mb > 0 ? static_cast<std::size_t>(mb) << 20 : 0;
    }

    // Never destroyed: an argument may be freed during or after static destruction.
    static block_cache& get()
    {
        static auto* c = new block_cache;
        return *c;
    }

    void forget(std::multimap<std::size_t, std::list<kept_block>::iterator>::iterator it)
    {
        stats.kept_bytes -= it->first;
        stats.kept_blocks--;
        by_age.erase(it->second);
        by_size.erase(it);
    }

    /// The smallest kept block of at least n bytes and at most 2n, taken out into `out`; false
    /// (and one more fresh block counted) if there is none.
    bool take(std::size_t n, kept_block& out)
    {
        std::lock_guard<std::mutex> lock(m);
        auto it = by_size.lower_bound(n);
        if(it == by_size.end() or it->first > 2 * n)
        {
            stats.fresh_large++;
            return false;
        }
        out = *it->second;
        forget(it);
        stats.reused++;
        return true;
    }

    /// Keeps the block, evicting the oldest kept ones while the cache holds more than the limit
    /// (a block larger than the limit is freed at once).
    void give_back(char* p, std::size_t capacity)
    {
        std::vector<kept_block> evicted;
        {
            std::lock_guard<std::mutex> lock(m);
            if(capacity <= limit)
            {
                by_age.push_back({capacity, p});
                by_size.emplace(capacity, std::prev(by_age.end()));
                stats.kept_bytes += capacity;
                stats.kept_blocks++;
                p = nullptr;
            }
            while(stats.kept_bytes > limit)
            {
                auto oldest = by_age.front();
                auto range  = by_size.equal_range(oldest.capacity);
                for(auto it = range.first; it != range.second; ++it)
                    if(it->second == by_age.begin())
                    {
                        forget(it);
                        break;
                    }
                evicted.push_back(oldest);
                stats.evicted++;
            }
        }
        if(p != nullptr)
            unmap(p, capacity);
        for(auto& b : evicted)
            unmap(b.p, b.capacity);
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
    kept_block b{n, nullptr};
    if(cache.take(n, b))
    {
        if(zeroed)
        {
            // Warm memory: one write, on several cores where it is large.
            constexpr std::size_t grain = std::size_t{4} << 20;
            parallel_for(n, grain, [p = b.p](std::size_t s, std::size_t e) { std::memset(p + s, 0, e - s); });
        }
    }
    else
        b.p = map_block(n);
    return {b.p, [capacity = b.capacity](char* q) { block_cache::get().give_back(q, capacity); }};
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
    std::list<kept_block> gone;
    {
        std::lock_guard<std::mutex> lock(c.m);
        gone.swap(c.by_age);
        c.by_size.clear();
        c.stats.kept_bytes  = 0;
        c.stats.kept_blocks = 0;
    }
    for(auto& b : gone)
        unmap(b.p, b.capacity);
}

} // namespace migraphx
