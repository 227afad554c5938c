#include "targets/gpu/device_literals.hpp"
#include "targets/gpu/cuda_check.hpp"
#include "ir/shared_literals.hpp"
#include <map>
#include <mutex>
#include <tuple>

namespace migraphx {
namespace gpu {

namespace {

struct copies
{
    struct entry
    {
        std::weak_ptr<char> buffer;
        std::shared_ptr<CUevent_st> uploaded; // recorded after the upload on its stream
    };
    std::mutex m;
    std::map<std::tuple<std::size_t, const char*, std::size_t>, entry> entries; // device, host data, bytes

    static copies& get()
    {
        static copies c;
        return c;
    }
};

std::shared_ptr<char> upload(gpu_context& g, const literal& l)
{
    auto bytes  = l.get_shape().bytes();
    auto buffer = device_alloc(bytes);
    if(bytes > 0)
        MIGX_CUDA_CHECK(cudaMemcpyAsync(buffer.get(), l.data(), bytes, cudaMemcpyHostToDevice, g.stream()));
    return buffer;
}

} // namespace

std::shared_ptr<char> device_literal(gpu_context& g, const literal& l)
{
    auto bytes = l.get_shape().bytes();
    if(bytes < shared_literal_min_bytes)
        return upload(g, l);
    auto& c  = copies::get();
    auto key = std::make_tuple(g.device_id, l.data(), bytes);
    std::lock_guard<std::mutex> lock(c.m);
    for(auto it = c.entries.begin(); it != c.entries.end();)
        it = it->second.buffer.expired() ? c.entries.erase(it) : std::next(it);
    auto found = c.entries.find(key);
    if(found != c.entries.end())
    {
        // (its last holder may have let go since the sweep, on another thread)
        if(auto live = found->second.buffer.lock())
        {
            // another program's stream may still be uploading it
            MIGX_CUDA_CHECK(cudaStreamWaitEvent(g.stream(), found->second.uploaded.get(), 0));
            return live;
        }
    }
    auto buffer       = upload(g, l);
    cudaEvent_t event = nullptr;
    MIGX_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
    std::shared_ptr<CUevent_st> uploaded(event, [](cudaEvent_t e) { cudaEventDestroy(e); });
    MIGX_CUDA_CHECK(cudaEventRecord(event, g.stream()));
    c.entries[key] = {buffer, uploaded};
    return buffer;
}

} // namespace gpu
} // namespace migraphx
