// gpu::int8_convolution: ops/int8_convolution.cpp's int8 convolution with its dequantize
// epilogue as one cuDNN backend graph (cudnn_graph.hpp): int8 NHWC data, KRSC weights, int32
// sums scaled per channel in float, + bias, + residual, relu, written as int8, half or float.
// finalize times the heuristics' engine configurations on scratch buffers of the real sizes and
// keeps the fastest, once per problem in a process (quantize_int8's accuracy check compiles a
// program several times) and, through the tuning cache (tuning_cache.hpp), once per machine; a
// saved op names its engine and a loaded one rebuilds that plan.
#include "targets/gpu/gpu_ops.hpp"
#include "targets/gpu/context.hpp"
#include "targets/gpu/cuda_check.hpp"
#include "targets/gpu/cudnn_graph.hpp"
#include "targets/gpu/search_limits.hpp"
#include "targets/gpu/tuning_cache.hpp"
#include "ir/env.hpp"
#include <migraphx/errors.hpp>
#include <migraphx/register_op.hpp>
#include <cuda_runtime.h>
#include <chrono>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>

namespace migraphx {
namespace gpu {

struct int8_convolution::state
{
    std::shared_ptr<dnn::graph_plan> plan;
    float* scales  = nullptr; // K floats on the device
    float* zscales = nullptr; // K copies of z_scale (where the graph scales z)
    ~state()
    {
        if(scales != nullptr)
            cudaFree(scales);
        if(zscales != nullptr)
            cudaFree(zscales);
    }
};

namespace {

// How many engines the search tries, and for how long: search_limits.hpp.
constexpr std::size_t workspace_limit = std::size_t{256} << 20;

/// Device memory freed with the object (scratch buffers of the search).
struct device_buffer
{
    void* p = nullptr;
    explicit device_buffer(std::size_t bytes)
    {
        MIGX_CUDA_CHECK(cudaMalloc(&p, std::max<std::size_t>(bytes, 256)));
        MIGX_CUDA_CHECK(cudaMemset(p, 0, std::max<std::size_t>(bytes, 256)));
    }
    ~device_buffer() { cudaFree(p); }
    device_buffer(const device_buffer&)            = delete;
    device_buffer& operator=(const device_buffer&) = delete;
};

/// The problem as text; `device` names the device (its index in this process, or its identity
/// for the tuning cache).
std::string problem_key(const int8_convolution& op,
                        const shape& out,
                        const std::vector<shape>& inputs,
                        const std::string& device)
{
    std::ostringstream ss;
    ss << "int8_convolution device " << device << " out " << out;
    for(std::size_t i = 0; i + 1 < inputs.size(); i++)
        ss << " in " << inputs[i];
    auto list = [&](const char* n, const std::vector<std::size_t>& v) {
        ss << " " << n;
        for(auto x : v)
            ss << " " << x;
    };
    list("padding", op.padding);
    list("stride", op.stride);
    list("dilation", op.dilation);
    ss << " bias " << op.bias << " residual " << op.residual << " relu " << op.relu
       << " scaled residual " << (op.residual and op.z_scale != 1);
    return ss.str();
}

/// Engine choices made in this process, by problem.
struct choices
{
    std::mutex m;
    std::map<std::string, std::string> engines;
    static choices& get()
    {
        static choices c;
        return c;
    }
};

/// The fastest engine configuration for spec, timed on zeroed scratch buffers of the real sizes
/// on the context's stream; throws naming the problem when cuDNN has none.
std::shared_ptr<dnn::graph_plan> fastest_plan(gpu_context& g,
                                              cudnnHandle_t h,
                                              const std::shared_ptr<dnn::op_graph>& graph,
                                              const shape& out,
                                              const std::vector<shape>& inputs,
                                              const std::string& key,
                                              const engine_search_limits& limits)
{
    bool trace = env_enabled("MIGRAPHX_TRACE_CUDNN");
    std::vector<std::unique_ptr<device_buffer>> bufs;
    auto buffer = [&](const shape& s) {
        bufs.push_back(std::make_unique<device_buffer>(s.element_space() * s.type_size()));
        return bufs.back()->p;
    };
    const auto& spec = graph->spec;
    std::vector<void*> ptrs{buffer(inputs[0]), buffer(inputs[1]), buffer(out)};
    std::size_t next = 2;
    if(spec.has_bias)
        ptrs.push_back(buffer(inputs[next++]));
    if(spec.has_z)
        ptrs.push_back(buffer(inputs[next++]));
    ptrs.push_back(buffer(shape{shape::float_type, {static_cast<std::size_t>(spec.y.dims[1])}}));
    if(spec.has_zscale)
        ptrs.push_back(buffer(shape{shape::float_type, {static_cast<std::size_t>(spec.y.dims[1])}}));
    device_buffer ws(workspace_limit);
    std::shared_ptr<dnn::graph_plan> best;
    double best_ms  = 0;
    int compiled    = 0;
    auto start      = std::chrono::steady_clock::now();
    auto spent_ms   = [&] { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count(); };
    int precompiled = 0;
    for(auto& c : dnn::heuristic_candidates(h, *graph, limits.heuristic_configs, limits.fallback_configs))
    {
        if(best and spent_ms() > limits.budget_ms)
            break;
        auto name = c.choice.str() + (c.notes.empty() ? "" : " [" + c.notes + "]");
        if(c.runtime_compiled ? compiled++ >= limits.runtime_compiled : precompiled++ >= limits.precompiled)
        {
            if(trace)
                std::cerr << "cudnn: " << key << ": int8 engine " << name << " skipped ("
                          << (c.runtime_compiled ? limits.runtime_compiled : limits.precompiled)
                          << (c.runtime_compiled ? " runtime-compiled" : " precompiled") << " tried)\n";
            continue;
        }
        try
        {
            auto p = dnn::make_plan(h, graph, std::move(c));
            if(p->workspace > static_cast<std::int64_t>(workspace_limit))
                continue;
            auto ms = dnn::time_on_stream(g.stream(), [&] {
                return p->execute(g.get().dnn, ptrs, ws.p) == CUDNN_STATUS_SUCCESS;
            });
            if(trace)
                std::cerr << "cudnn: " << key << ": int8 engine " << name << ": "
                          << (ms ? std::to_string(*ms) + " ms" : std::string{"failed"}) << "\n";
            if(ms and (not best or *ms < best_ms))
            {
                best    = p;
                best_ms = *ms;
            }
        }
        catch(const dnn::backend_error& e)
        {
            if(trace)
                std::cerr << "cudnn: " << key << ": int8 engine " << name << " refused: " << e.what() << "\n";
        }
    }
    MIGX_CUDA_CHECK(cudaStreamSynchronize(g.stream()));
    if(not best)
        MIGRAPHX_THROW("gpu::int8_convolution: cuDNN has no int8 engine for " + key +
                       " (MIGRAPHX_DISABLE_INT8_FUSION=1 runs quantized programs without these graphs)");
    return best;
}

} // namespace

shape int8_convolution::compute_shape(const std::vector<shape>& inputs) const
{
    if(inputs.size() != 3 + (bias ? 1u : 0u) + (residual ? 1u : 0u))
        MIGRAPHX_THROW(name() + ": expects x, w[, bias][, z] and the output buffer");
    return inputs.back();
}

void int8_convolution::finalize(context& ctx, const shape& out, const std::vector<shape>& inputs)
{
    auto& g = get_gpu_context(ctx);
    g.make_current();
    auto st  = std::make_shared<state>();
    auto k   = out.lens()[1];
    if(scales.size() != 1 and scales.size() != k)
        MIGRAPHX_THROW(name() + ": expects one scale, or one per output channel");
    std::vector<float> sk(k, scales.front());
    if(scales.size() == k)
        sk = scales;
    MIGX_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&st->scales), k * sizeof(float)));
    MIGX_CUDA_CHECK(cudaMemcpy(st->scales, sk.data(), k * sizeof(float), cudaMemcpyHostToDevice));
    bool z_scaled = residual and z_scale != 1;
    if(z_scaled)
    {
        std::vector<float> zk(k, z_scale);
        MIGX_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&st->zscales), k * sizeof(float)));
        MIGX_CUDA_CHECK(cudaMemcpy(st->zscales, zk.data(), k * sizeof(float), cudaMemcpyHostToDevice));
    }
    dnn::conv_graph_spec spec;
    try
    {
        const shape* z = residual ? &inputs[inputs.size() - 2] : nullptr;
        spec = dnn::make_int8_conv_spec(inputs[0], inputs[1], out, padding, stride, dilation, bias, residual, relu, z,
                                        z_scaled);
    }
    catch(const std::invalid_argument& e)
    {
        MIGRAPHX_THROW(name() + ": " + e.what());
    }
    auto device   = g.get().device;
    auto h        = dnn::build_handle(device);
    auto limits   = int8_engine_limits(g.exhaustive_tune);
    auto key      = problem_key(*this, out, inputs, "dev" + std::to_string(device)) + (g.exhaustive_tune ? " exhaustive" : "");
    auto disk_key = "cudnn int8 graph engine (" + limits.text() + "): " + problem_key(*this, out, inputs, device_identity(device));
    auto tc = tuning_cache::from_env();
    std::shared_ptr<dnn::op_graph> graph;
    try
    {
        graph = dnn::build_graph(h, spec);
    }
    catch(const dnn::backend_error& e)
    {
        MIGRAPHX_THROW(name() + ": cuDNN cannot describe " + key + ": " + e.what());
    }
    auto& mem = choices::get();
    std::string chosen = engine;
    if(chosen.empty())
    {
        std::lock_guard<std::mutex> lock(mem.m);
        auto it = mem.engines.find(key);
        if(it != mem.engines.end())
            chosen = it->second;
    }
    if(chosen.empty())
        chosen = tc.read(disk_key).value_or("");
    if(not chosen.empty())
    {
        auto c = dnn::engine_choice::parse(chosen);
        try
        {
            if(c)
                st->plan = dnn::make_plan(h, graph, *c);
        }
        catch(const dnn::backend_error&)
        {
            st->plan = nullptr; // another cuDNN: measured again
        }
    }
    if(not st->plan)
    {
        st->plan = fastest_plan(g, h, graph, out, inputs, key, limits);
        tc.write(disk_key, st->plan->choice.str());
    }
    engine = st->plan->choice.str();
    {
        std::lock_guard<std::mutex> lock(mem.m);
        mem.engines[key] = engine;
    }
    g.reserve_workspace(static_cast<std::size_t>(st->plan->workspace));
    cache = st;
}

argument int8_convolution::compute(context& ctx, const shape& out, const std::vector<argument>& args) const
{
    if(not cache)
        MIGRAPHX_THROW(name() + ": run before finalize");
    auto& g = get_gpu_context(ctx);
    std::vector<void*> ptrs{args[0].data(), args[1].data(), args.back().data()};
    for(std::size_t i = 2; i + 1 < args.size(); i++)
        ptrs.push_back(args[i].data());
    ptrs.push_back(cache->scales);
    if(cache->zscales != nullptr)
        ptrs.push_back(cache->zscales);
    auto s = cache->plan->execute(g.get().dnn, ptrs, g.workspace());
    if(s != CUDNN_STATUS_SUCCESS)
        MIGRAPHX_THROW(name() + ": cuDNN refused the call: " + cudnnGetErrorString(s));
    (void)out;
    return args.back();
}

MIGRAPHX_REGISTER_OP(int8_convolution)

} // namespace gpu
} // namespace migraphx
