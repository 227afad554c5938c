#include "targets/gpu/shared_scratch.hpp"
#include "ir/env.hpp"
#include <map>
#include <mutex>
#include <utility>

namespace migraphx {
namespace gpu {

namespace {

struct groups
{
    struct entry
    {
        std::weak_ptr<char> buffer;
        std::size_t bytes = 0;
    };
    std::mutex m;
    std::map<std::pair<std::size_t, std::string>, entry> entries; // device, group

    static groups& get()
    {
        static groups g;
        return g;
    }
};

} // namespace

std::shared_ptr<char> group_scratch(gpu_context& g, const std::string& group, std::size_t bytes)
{
    if(group.empty() or env_enabled("MIGRAPHX_DISABLE_SCRATCH_GROUPS"))
        return device_alloc(bytes);
    auto& gs = groups::get();
    std::lock_guard<std::mutex> lock(gs.m);
    for(auto it = gs.entries.begin(); it != gs.entries.end();)
        it = it->second.buffer.expired() ? gs.entries.erase(it) : std::next(it);
    auto& e = gs.entries[{g.device_id, group}];
    if(auto live = e.buffer.lock(); live and e.bytes >= bytes)
        return live;
    auto buffer = device_alloc(bytes);
    e           = {buffer, bytes};
    return buffer;
}

} // namespace gpu
} // namespace migraphx
