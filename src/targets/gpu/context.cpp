#include "targets/gpu/context.hpp"
#include "ir/env.hpp"
#include <migraphx/gpu/hip.hpp>
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <iostream>
#include <exception>
#include <mutex>
#include <sstream>
#include <thread>
#include <unordered_map>

namespace migraphx {
namespace gpu {

const std::string& device_identity(int device)
{
    static std::mutex m;
    static std::unordered_map<int, std::string> ids;
    std::lock_guard<std::mutex> lock(m);
    auto it = ids.find(device);
    if(it != ids.end())
        return it->second;
    cudaDeviceProp prop{};
    MIGX_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    int rt = 0;
    (void)cudaRuntimeGetVersion(&rt);
    std::ostringstream ss;
    ss << "[" << prop.name << " sm_" << prop.major << prop.minor << " " << prop.multiProcessorCount
       << " SMs, cudnn " << cudnnGetVersion() << ", cudart " << rt << "]";
    return ids.emplace(device, ss.str()).first->second;
}

gpu_state::gpu_state(int device_id) : device(device_id)
{
    int count = 0;
    if(cudaGetDeviceCount(&count) != cudaSuccess or count == 0)
        MIGRAPHX_THROW("gpu: no CUDA device is available");
    if(device_id < 0 or device_id >= count)
        MIGRAPHX_THROW("gpu: device_id " + std::to_string(device_id) + " is out of range; " +
                       std::to_string(count) + " CUDA device(s) present");
    MIGX_CUDA_CHECK(cudaSetDevice(device));
    MIGX_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    MIGX_CUDA_CHECK(cublasLtCreate(&lt));
    MIGX_CUDA_CHECK(cudnnCreate(&dnn));
    MIGX_CUDA_CHECK(cudnnSetStream(dnn, stream));
    cudaDeviceProp prop{};
    MIGX_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    sm_major = prop.major;
    sm_minor = prop.minor;
    sm_count = prop.multiProcessorCount;
}

gpu_state::~gpu_state()
{
    // No throwing from a destructor: failures here leave nothing to recover.
    cudaSetDevice(device);
    if(stream != nullptr)
        cudaStreamSynchronize(stream);
    if(workspace != nullptr)
        cudaFree(workspace);
    if(dnn != nullptr)
        cudnnDestroy(dnn);
    if(lt != nullptr)
        cublasLtDestroy(lt);
    if(stream != nullptr)
        cudaStreamDestroy(stream);
}

count_slot::count_slot() : device(device_alloc(sizeof(std::uint64_t)))
{
    void* p = nullptr;
    MIGX_CUDA_CHECK(cudaMallocHost(&p, sizeof(std::uint64_t)));
    host = static_cast<std::uint64_t*>(p);
    *host = 0;
    if(auto e = cudaEventCreateWithFlags(&copied, cudaEventDisableTiming); e != cudaSuccess)
    {
        cudaFreeHost(host);
        MIGX_CUDA_CHECK(e);
    }
}

count_slot::~count_slot()
{
    cudaEventDestroy(copied);
    cudaFreeHost(host);
}

std::shared_ptr<count_slot> gpu_context::count_slot_for(std::size_t id) const
{
    auto& st = get();
    make_current();
    std::lock_guard<std::mutex> lock(st.slots_m);
    auto& slot = st.count_slots[id];
    if(not slot)
        slot = std::make_shared<count_slot>();
    return slot;
}

void gpu_context::set_device(std::size_t id)
{
    if(m_state and id != device_id)
        m_state.reset();
    device_id = id;
}

gpu_state& gpu_context::get() const
{
    if(not m_state)
        m_state = std::make_shared<gpu_state>(static_cast<int>(device_id));
    return *m_state;
}

void gpu_context::make_current() const
{
    int cur = -1;
    cudaGetDevice(&cur);
    if(cur != get().device)
        MIGX_CUDA_CHECK(cudaSetDevice(get().device));
}

void gpu_context::reserve_workspace(std::size_t n) const
{
    auto& s = get();
    if(n <= s.workspace_len)
        return;
    make_current();
    MIGX_CUDA_CHECK(cudaStreamSynchronize(s.stream));
    if(s.workspace != nullptr)
        MIGX_CUDA_CHECK(cudaFree(s.workspace));
    s.workspace     = nullptr;
    s.workspace_len = 0;
    MIGX_CUDA_CHECK(cudaMalloc(&s.workspace, n));
    s.workspace_len = n;
}

void gpu_context::finish() const
{
    if(m_state)
        MIGX_CUDA_CHECK(cudaStreamSynchronize(m_state->stream));
}

/// The thread that runs deferred jobs, in order of queueing, while the program's other ops
/// finalize (cuBLASLt's heuristics, weight uploads, kernel loads). One: cuDNN builds one engine at
/// a time in a process (on an H200, 8 threads building the plans of ResNet-50 took 2x longer than
/// one), and 4 threads with their own cuDNN handles loaded a saved float ResNet-50 no faster (H100,
/// bench/results/2026-12-06-session34.md).
struct deferred_worker
{
    static constexpr std::size_t handle_index = 1; // cuDNN handle 0 is the compiling thread's
    std::mutex m;
    std::condition_variable cv;
    std::deque<std::pair<std::function<std::size_t(std::size_t)>, std::string>> queue;
    std::vector<std::pair<double, std::string>> times; // MIGRAPHX_TIME_LOAD=2: each job's ms
    bool closing = false, abandoned = false;
    std::size_t jobs = 0, need = 0;
    double busy_ms = 0;
    std::exception_ptr error;
    std::thread thread;

    explicit deferred_worker(int device) : thread([this, device] { loop(device); }) {}
    deferred_worker(const deferred_worker&)            = delete;
    deferred_worker& operator=(const deferred_worker&) = delete;
    /// A finalize that failed before end_finalize still stops its threads; jobs not yet started
    /// are dropped.
    ~deferred_worker()
    {
        {
            std::lock_guard<std::mutex> lock(m);
            abandoned = true;
        }
        close_and_join();
    }

    void close_and_join()
    {
        {
            std::lock_guard<std::mutex> lock(m);
            closing = true;
        }
        cv.notify_all();
        if(thread.joinable())
            thread.join();
    }

    void loop(int device)
    {
        bool ok = true;
        try
        {
            MIGX_CUDA_CHECK(cudaSetDevice(device));
        }
        catch(...)
        {
            std::lock_guard<std::mutex> lock(m);
            if(not error)
                error = std::current_exception();
            ok = false;
        }
        for(;;)
        {
            std::unique_lock<std::mutex> lock(m);
            cv.wait(lock, [&] { return closing or not queue.empty(); });
            if(queue.empty())
                return;
            auto [job, label] = std::move(queue.front());
            queue.pop_front();
            if(not ok or error or abandoned)
                continue; // after a failure the rest are dropped; end_finalize rethrows it
            lock.unlock();
            auto t0 = std::chrono::steady_clock::now();
            std::size_t n = 0;
            std::exception_ptr failed;
            try
            {
                n = job(handle_index);
            }
            catch(...)
            {
                failed = std::current_exception();
            }
            auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            lock.lock();
            need = std::max(need, n);
            if(failed and not error)
                error = failed;
            jobs++;
            busy_ms += ms;
            if(env_level("MIGRAPHX_TIME_LOAD") >= 2)
                times.emplace_back(ms, std::move(label));
        }
    }
};

void gpu_context::defer(std::function<std::size_t(std::size_t)> job, std::string label) const
{
    auto& s = get();
    std::lock_guard<std::mutex> lock(s.deferred_m);
    if(not s.worker)
        s.worker = std::make_shared<deferred_worker>(s.device);
    {
        std::lock_guard<std::mutex> q(s.worker->m);
        s.worker->queue.emplace_back(std::move(job), std::move(label));
    }
    s.worker->cv.notify_one();
}

void gpu_context::end_finalize() const
{
    if(not m_state)
        return;
    std::shared_ptr<deferred_worker> w;
    {
        std::lock_guard<std::mutex> lock(m_state->deferred_m);
        w.swap(m_state->worker);
    }
    if(w)
    {
        auto t0 = std::chrono::steady_clock::now();
        w->close_and_join();
        if(env_enabled("MIGRAPHX_TIME_PASSES") or env_enabled("MIGRAPHX_TIME_LOAD"))
            std::cerr << "gpu end_finalize: " << w->jobs << " deferred jobs took " << w->busy_ms
                      << " ms on their thread; waited for them "
                      << std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count()
                      << " ms\n";
        for(const auto& [ms, label] : w->times)
            std::cerr << "  deferred " << ms << " ms: " << label << "\n";
        if(w->error)
            std::rethrow_exception(w->error);
        reserve_workspace(w->need);
    }
    finish(); // and the literals' uploads, queued by their finalize
}

std::shared_ptr<void> gpu_context::begin_run() const
{
    auto* m = &get().run_m;
    m->lock();
    return {m, [](void* p) { static_cast<std::mutex*>(p)->unlock(); }};
}

bool gpu_context::float_tf32() const { return tf32 or env_enabled("MIGRAPHX_GPU_TF32"); }

value gpu_context::to_value() const
{
    return value::object{{"device", device_identity(static_cast<int>(device_id))}};
}

void gpu_context::from_value(const value& v)
{
    // A file's value may be anything (a corrupted or hand-edited file): only an exact match trusts.
    const auto* d         = v.is_object() ? v.find("device") : nullptr;
    saved_choices_trusted = d != nullptr and d->is_string() and
                            d->get_string() == device_identity(static_cast<int>(device_id)) and
                            not env_enabled("MIGRAPHX_GPU_CHECK_LOADED");
}

gpu_context& get_gpu_context(context& ctx)
{
    if(auto* g = ctx.get_if<gpu_context>())
        return *g;
    static gpu_context fallback;
    return fallback;
}

std::shared_ptr<char> device_alloc(std::size_t n)
{
    void* p = nullptr;
    MIGX_CUDA_CHECK(cudaMalloc(&p, std::max<std::size_t>(n, 1)));
    return {static_cast<char*>(p), [](char* q) { cudaFree(q); }};
}

namespace {
struct own_workspaces
{
    std::mutex m;
    std::map<std::uintptr_t, std::size_t> ranges; // start -> bytes
    static own_workspaces& get()
    {
        static own_workspaces w;
        return w;
    }
};
} // namespace

std::shared_ptr<char> own_workspace(std::size_t n)
{
    auto mem   = device_alloc(n);
    auto start = reinterpret_cast<std::uintptr_t>(mem.get());
    {
        auto& w = own_workspaces::get();
        std::lock_guard<std::mutex> lock(w.m);
        w.ranges[start] = n;
    }
    return {mem.get(), [mem, start](char*) {
                auto& w = own_workspaces::get();
                std::lock_guard<std::mutex> lock(w.m);
                w.ranges.erase(start);
            }};
}

bool in_own_workspace(const void* p)
{
    auto a  = reinterpret_cast<std::uintptr_t>(p);
    auto& w = own_workspaces::get();
    std::lock_guard<std::mutex> lock(w.m);
    auto it = w.ranges.upper_bound(a);
    if(it == w.ranges.begin())
        return false;
    --it;
    return a < it->first + it->second;
}

bool is_device_pointer(const void* p)
{
    if(p == nullptr)
        return false;
    cudaPointerAttributes attr{};
    if(cudaPointerGetAttributes(&attr, p) != cudaSuccess)
    {
        cudaGetLastError(); // clear the sticky-free error of an unknown pointer
        return false;
    }
    return attr.type == cudaMemoryTypeDevice or attr.type == cudaMemoryTypeManaged;
}

// ---- <migraphx/gpu/hip.hpp> ---------------------------------------------------------------

std::size_t get_device_count()
{
    static const std::size_t n = [] {
        int count = 0;
        if(cudaGetDeviceCount(&count) != cudaSuccess)
        {
            cudaGetLastError();
            return std::size_t{0};
        }
        return static_cast<std::size_t>(count);
    }();
    return n;
}

void gpu_sync() { MIGX_CUDA_CHECK(cudaDeviceSynchronize()); }

argument allocate_gpu(const shape& s, bool host)
{
    if(s.type() == shape::tuple_type or s.dynamic())
        MIGRAPHX_THROW("allocate_gpu: cannot allocate a tuple or dynamic shape");
    if(host)
    {
        void* p = nullptr;
        MIGX_CUDA_CHECK(cudaMallocHost(&p, std::max<std::size_t>(s.bytes(), 1)));
        return {s, std::shared_ptr<char>(static_cast<char*>(p), [](char* q) { cudaFreeHost(q); })};
    }
    return {s, device_alloc(s.bytes())};
}

argument to_gpu(const argument& arg, bool host)
{
    const auto& s = arg.get_shape();
    if(s.type() == shape::tuple_type)
    {
        std::vector<argument> subs;
        for(const auto& a : arg.get_sub_objects())
            subs.push_back(to_gpu(a, host));
        return argument{subs};
    }
    auto r = allocate_gpu(s, host);
    if(s.bytes() > 0)
    {
        if(arg.data() == nullptr)
            MIGRAPHX_THROW("to_gpu: the argument has no data");
        MIGX_CUDA_CHECK(cudaMemcpy(r.data(), arg.data(), s.bytes(), cudaMemcpyDefault));
        // cudaMemcpy from pageable memory may return before its DMA has landed, and a program
        // runs on a non-blocking stream that does not wait for the legacy stream: wait here.
        MIGX_CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
    }
    return r;
}

argument from_gpu(const argument& arg)
{
    const auto& s = arg.get_shape();
    if(s.type() == shape::tuple_type)
    {
        std::vector<argument> subs;
        for(const auto& a : arg.get_sub_objects())
            subs.push_back(from_gpu(a));
        return argument{subs};
    }
    std::shared_ptr<char> mem(new char[std::max<std::size_t>(s.bytes(), 1)], std::default_delete<char[]>());
    argument r{s, mem};
    if(s.bytes() > 0)
    {
        if(arg.data() == nullptr)
            MIGRAPHX_THROW("from_gpu: the argument has no data");
        // cudaMemcpyDefault works out the direction, so a host argument is copied too.
        MIGX_CUDA_CHECK(cudaDeviceSynchronize());
        MIGX_CUDA_CHECK(cudaMemcpy(r.data(), arg.data(), s.bytes(), cudaMemcpyDefault));
    }
    return r;
}

} // namespace gpu
} // namespace migraphx
