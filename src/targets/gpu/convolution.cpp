// gpu::convolution: cuDNN's convolution; gpu::convolution_backwards: its backward-data (a
// transposed convolution). gpu::convolution: NCHW or NHWC (input and output may be strided;
// weights standard, or KRSC for NHWC: layout_nhwc.hpp), 1-d
// convolutions as 2-d with a trailing 1. The algorithm is measured once at finalize
// (cudnnFindConvolutionForwardAlgorithmEx) and kept (for float, one nearly as fast that starts
// quicker where the fastest starts slowly: start_cost.hpp); float runs in plain FMA math (no TF32,
// unless MIGRAPHX_GPU_TF32=1), half on tensor cores with float accumulation. For half,
// finalize also times the cuDNN backend graph API's engine configurations for the same problem
// (with conv_bias_relu's epilogue fused into the graph) and keeps whichever is fastest
// (cudnn_graph.hpp; MIGRAPHX_DISABLE_CUDNN_GRAPH=1: the legacy API only; MIGRAPHX_TRACE_CUDNN=1
// prints the candidates and their times). A half candidate, legacy algorithm or engine, must
// also come within MIGRAPHX_GPU_ACCURACY_LIMIT (2x) of a single rounding of the exact result
// (half_accuracy.hpp). Each choice is also kept in the persistent tuning
// cache (tuning_cache.hpp): a later process compiling the same problem on the same kind of device
// and cuDNN takes it from there instead of measuring (the same choice, so the same bits).
#include "targets/gpu/context.hpp"
#include "targets/gpu/conv_reference.hpp"
#include "targets/gpu/gemm_search.hpp"
#include "targets/gpu/cudnn_graph.hpp"
#include "targets/gpu/gpu_ops.hpp"
#include "targets/gpu/layout_nhwc.hpp"
#include "targets/gpu/rnn.hpp"
#include "targets/gpu/search_limits.hpp"
#include "targets/gpu/start_cost.hpp"
#include "targets/gpu/tuning_cache.hpp"
#include "ir/env.hpp"
#include "serialize/op_serializer.hpp"
#include <migraphx/half.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/reflect.hpp>
#include <migraphx/register_op.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <iostream>
#include <limits>
#include <mutex>
#include <optional>
#include <sstream>
#include <unordered_map>

namespace migraphx {
namespace gpu {

struct convolution::plan
{
    cudnnTensorDescriptor_t x = nullptr, y = nullptr;
    cudnnFilterDescriptor_t w = nullptr;
    cudnnConvolutionDescriptor_t conv = nullptr;
    cudnnConvolutionFwdAlgo_t algo{};
    std::size_t ws = 0;
    /// The backend graph plan finalize chose (nullptr: the legacy call), shared by every op of
    /// the same problem in the process.
    std::shared_ptr<dnn::graph_plan> graph;
    /// A loaded op's plan is completed later (its saved algorithm checked, its graph plan built),
    /// on several threads at the end of finalize (gpu_context::defer), or at the first run of an
    /// op finalized outside a program.
    std::function<void(std::size_t worker)> complete;
    std::function<void(std::size_t worker)> build_graph; // part of complete, where a graph plan was saved
    /// A loaded op that took its saved algorithm unchecked (gpu_context::saved_choices_trusted):
    /// what checks it (and searches again) if cuDNN refuses the call after all (legacy_call).
    mutable std::function<void(gpu_context&)> recheck;
    mutable std::once_flag completed;
    void ensure_complete(std::size_t worker = 0) const
    {
        if(complete)
            std::call_once(completed, complete, worker);
    }
    /// Set where complete ran (a loaded op): the algorithm and engine it ended with.
    std::atomic<bool> completed_late{false};
    std::int64_t late_solution_id = -1;
    std::size_t workspace_needed() const
    {
        return std::max(ws, graph ? static_cast<std::size_t>(graph->workspace) : std::size_t{0});
    }
    ~plan()
    {
        if(x)
            cudnnDestroyTensorDescriptor(x);
        if(y)
            cudnnDestroyTensorDescriptor(y);
        if(w)
            cudnnDestroyFilterDescriptor(w);
        if(conv)
            cudnnDestroyConvolutionDescriptor(conv);
    }
};

struct conv_bias_relu::epilogue
{
    cudnnTensorDescriptor_t bias = nullptr;
    cudnnActivationDescriptor_t act = nullptr;
    ~epilogue()
    {
        if(bias)
            cudnnDestroyTensorDescriptor(bias);
        if(act)
            cudnnDestroyActivationDescriptor(act);
    }
};

namespace {

std::vector<int> to_int(const std::vector<std::size_t>& v)
{
    std::vector<int> r;
    for(auto x : v)
    {
        if(x > static_cast<std::size_t>(std::numeric_limits<int>::max()))
            MIGRAPHX_THROW("gpu::convolution: dimension too large for cuDNN");
        r.push_back(static_cast<int>(x));
    }
    return r;
}

/// lens/strides padded to at least 4 dims with trailing 1s.
void pad4(std::vector<std::size_t>& lens, std::vector<std::size_t>& strides)
{
    while(lens.size() < 4)
    {
        lens.push_back(1);
        strides.push_back(1);
    }
}

cudnnDataType_t dnn_type(shape::type_t t)
{
    if(t == shape::float_type)
        return CUDNN_DATA_FLOAT;
    if(t == shape::half_type)
        return CUDNN_DATA_HALF;
    MIGRAPHX_THROW("gpu::convolution: unsupported element type");
}

/// Scratch buffers of the real sizes for cuDNN's algorithm search (inputs zeroed, on the
/// context's stream so that the search runs after the zeroing).
struct search_buffers
{
    static constexpr std::size_t ws_limit = 256u << 20;
    std::shared_ptr<char> in, w, out, ws;
    search_buffers(const gpu_context& g, const shape& in_s, const shape& w_s, const shape& out_s)
        : in(device_alloc(in_s.bytes())), w(device_alloc(w_s.bytes())), out(device_alloc(out_s.bytes())),
          ws(device_alloc(ws_limit))
    {
        MIGX_CUDA_CHECK(cudaMemsetAsync(in.get(), 0, in_s.bytes(), g.stream()));
        MIGX_CUDA_CHECK(cudaMemsetAsync(w.get(), 0, w_s.bytes(), g.stream()));
    }
};

/// Whether float runs in plain FP32 (no TF32 unless compile_options::tf32 or MIGRAPHX_GPU_TF32=1).
bool plain_float(const gpu_context& g, shape::type_t t) { return t == shape::float_type and not g.float_tf32(); }

/// What a search chose for one problem.
struct algo_choice
{
    int algo = 0;
    std::size_t memory = 0;
    cudnnMathType_t math = CUDNN_DEFAULT_MATH;
};

/// The measured algorithm to keep: of those that succeeded within the workspace limit (no
/// tensor-op math for plain float) and are not refused (by index), fastest first, the fastest,
/// or one nearly as fast that starts quicker (start_cost.hpp; start_ms by algorithm, empty: not
/// measured); nullptr when there is none.
template <class Perf>
const Perf* best_algorithm(const Perf* perf,
                           int returned,
                           bool plain,
                           const std::vector<bool>& refused,
                           const std::vector<double>& start_ms = {},
                           const start_policy& policy      = {})
{
    std::vector<const Perf*> ok;
    std::vector<timed_algorithm> timed;
    for(int i = 0; i < returned; i++)
    {
        if(perf[i].status != CUDNN_STATUS_SUCCESS or perf[i].memory > search_buffers::ws_limit or
           (static_cast<std::size_t>(i) < refused.size() and refused[static_cast<std::size_t>(i)]))
            continue;
        if(plain and perf[i].mathType == CUDNN_TENSOR_OP_MATH)
            continue;
        auto a = static_cast<std::size_t>(perf[i].algo);
        ok.push_back(perf + i);
        timed.push_back({perf[i].time, a < start_ms.size() ? start_ms[a] : 0.0});
    }
    if(ok.empty())
        return nullptr;
    return ok[start_ms.empty() ? 0 : keep_algorithm(timed, policy)];
}

/// Each algorithm's first workspace query in this process, in ms (that query builds its engine:
/// what a loaded program's check of it costs); a large number where cuDNN refuses it.
template <class Workspace>
std::vector<double> first_query_ms(int count, cudnnMathType_t math, Workspace workspace)
{
    std::vector<double> ms(count, 1e9);
    for(int a = 0; a < count; a++)
    {
        algo_choice c;
        c.algo    = a;
        c.math    = math;
        auto t0   = std::chrono::steady_clock::now();
        auto st   = workspace(c, &c.memory);
        auto took = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        if(st == CUDNN_STATUS_SUCCESS)
            ms[a] = took;
    }
    return ms;
}

/// solution_id: the algorithm, plus 256 x cuDNN's math type where the type does not fix it (not
/// plain float). A loaded program's finalize (and a tuning cache entry) gives it instead of a
/// search; it is taken when cuDNN accepts it for the problem (workspace(choice, &bytes)
/// succeeds within the limit); else nullopt (search).
std::int64_t to_solution_id(const algo_choice& c, bool plain)
{
    return c.algo + (plain ? 0 : 256 * static_cast<int>(c.math));
}

template <class Workspace>
std::optional<algo_choice> saved_algorithm(std::int64_t id, bool plain, Workspace workspace)
{
    if(id < 0 or id / 256 > CUDNN_FMA_MATH)
        return std::nullopt;
    algo_choice c;
    c.algo = static_cast<int>(id % 256);
    c.math = plain ? CUDNN_FMA_MATH : static_cast<cudnnMathType_t>(id / 256);
    if(workspace(c, &c.memory) != CUDNN_STATUS_SUCCESS or c.memory > search_buffers::ws_limit)
        return std::nullopt;
    return c;
}

/// The choices made in this process, by problem and device index: a program compiled twice
/// (e.g. a dynamic program's variant and a static program of the same shape) gets the same
/// algorithms, so the same bits, and the second compile neither measures nor reads the disk.
struct choice_memory
{
    std::mutex m;
    std::unordered_map<std::string, algo_choice> algos;   // legacy algorithms
    std::unordered_map<std::string, std::string> engines; // backend engine choices ("": legacy)
    static choice_memory& get()
    {
        static choice_memory c;
        return c;
    }
};

bool trace_cudnn() { return env_enabled("MIGRAPHX_TRACE_CUDNN"); }

/// The problem's text: the op, the device (its index for this process's choices, its identity
/// for the tuning cache), shapes with strides and types, group, TF32, padding, stride and
/// dilation.
std::string problem_key(const std::string& what,
                        const std::string& device,
                        const std::vector<shape>& inputs,
                        const shape& out,
                        const std::vector<std::size_t>& padding,
                        const std::vector<std::size_t>& stride,
                        const std::vector<std::size_t>& dilation,
                        std::int64_t group,
                        bool tf32)
{
    std::ostringstream ss;
    ss << what << " " << device << " x " << inputs[0] << " w " << inputs[1] << " y " << out << " g" << group
       << " tf32 " << tf32;
    for(const auto* v : {&padding, &stride, &dilation})
    {
        ss << " |";
        for(auto x : *v)
            ss << " " << x;
    }
    return ss.str();
}

/// A problem's keys: `mem` for this process's choices (device index), `disk` for the tuning
/// cache (device identity, library versions).
struct problem_keys
{
    std::string mem, disk;
};

problem_keys make_problem_keys(const std::string& what,
                               const gpu_context& g,
                               const std::vector<shape>& inputs,
                               const shape& out,
                               const std::vector<std::size_t>& padding,
                               const std::vector<std::size_t>& stride,
                               const std::vector<std::size_t>& dilation,
                               std::int64_t group)
{
    auto device = g.get().device;
    bool tf32   = g.float_tf32();
    return {problem_key(what, "dev" + std::to_string(device), inputs, out, padding, stride, dilation, group, tf32),
            problem_key(what, device_identity(device), inputs, out, padding, stride, dilation, group, tf32)};
}

/// The half result of an algorithm on the search's inputs measured against the exact one
/// (half_accuracy.hpp); nullopt where it was not checked.
using algorithm_check = std::function<std::optional<dnn::half_accuracy>(search_buffers&, const algo_choice&)>;

/// best_algorithm, taking the first whose result `check` (where given) finds accurate enough
/// under `limit`; where none is, the most accurate. Throws naming `what` when none succeeded.
template <class Perf>
algo_choice accurate_algorithm(Perf* perf,
                               int returned,
                               bool plain,
                               const std::string& what,
                               const std::vector<double>& start_ms,
                               const start_policy& policy,
                               const algorithm_check& check,
                               double limit,
                               search_buffers& buf,
                               const std::string& trace_key)
{
    // The order best_algorithm offers them in as each one before is refused.
    std::vector<bool> refused(static_cast<std::size_t>(std::max(returned, 0)), false);
    std::vector<algo_choice> order;
    while(const Perf* best = best_algorithm(perf, returned, plain, refused, start_ms, policy))
    {
        order.push_back({static_cast<int>(best->algo), best->memory, best->mathType});
        refused[static_cast<std::size_t>(best - perf)] = true;
    }
    auto measure = [&](std::size_t i) -> std::optional<dnn::half_accuracy> {
        const auto& c = order[i];
        auto acc      = check and limit > 0 ? check(buf, c) : std::nullopt;
        if(acc and trace_cudnn())
            std::cerr << "cudnn: " << trace_key << ": algorithm " << c.algo << " math " << static_cast<int>(c.math)
                      << ": " << acc->str() << (dnn::accurate_enough(*acc, limit) ? "" : " (over the limit)") << "\n";
        return acc;
    };
    if(auto kept = dnn::first_accurate(order.size(), measure, limit))
        return order[*kept];
    MIGRAPHX_THROW(what + ": cuDNN found no algorithm");
}

/// The legacy algorithm for a problem: this process's choice, else the tuning cache's (a
/// solution_id, taken where cuDNN accepts it: workspace as for saved_algorithm), else measured
/// by find(buf, perf, count, &returned) on scratch buffers of the real sizes (and written to the
/// tuning cache, replacing an entry cuDNN refused).
template <class Perf, int Count, class Workspace, class Find>
algo_choice choose_algorithm(gpu_context& g,
                             const problem_keys& keys,
                             const std::vector<shape>& inputs,
                             const shape& out,
                             bool plain,
                             const std::string& what,
                             Workspace workspace,
                             Find find,
                             const algorithm_check& check = nullptr)
{
    auto& mem = choice_memory::get();
    auto accuracy_limit = check ? dnn::accuracy_limit_from_env() : 0.0;
    auto mem_key        = keys.mem + dnn::accuracy_key_words(accuracy_limit);
    {
        std::lock_guard<std::mutex> lock(mem.m);
        auto it = mem.algos.find(mem_key);
        if(it != mem.algos.end())
            return it->second;
    }
    auto tc = tuning_cache::from_env();
    // Starts are weighed for plain float only: other math types are chosen per (algorithm, math)
    // pair, and half convolutions mostly run backend engines, whose plans a load rebuilds anyway.
    auto policy = plain ? start_policy::from_env() : start_policy{0};
    auto disk_key = "cudnn legacy algorithm (search limit " + std::to_string(search_buffers::ws_limit) +
                    " bytes" + (policy.enabled() ? ", " + policy.str() : std::string{}) +
                    dnn::accuracy_key_words(accuracy_limit) + "): " + keys.disk;
    std::optional<algo_choice> c;
    if(auto v = tc.read(disk_key))
    {
        char* end = nullptr;
        auto id   = std::strtoll(v->c_str(), &end, 10);
        if(not v->empty() and end == v->c_str() + v->size())
            c = saved_algorithm(static_cast<std::int64_t>(id), plain, workspace);
        if(trace_cudnn())
            std::cerr << "cudnn: " << keys.mem << ": solution_id " << *v
                      << (c ? " from the tuning cache\n" : " in the tuning cache is refused; measuring again\n");
    }
    if(not c)
    {
        // Before find, which builds every algorithm's engine: afterwards every query is quick.
        auto start_ms = policy.enabled() ? first_query_ms(Count, CUDNN_FMA_MATH, workspace) : std::vector<double>{};
        search_buffers buf(g, inputs[0], inputs[1], out);
        Perf perf[Count];
        int returned = 0;
        find(buf, perf, Count, &returned);
        MIGX_CUDA_CHECK(cudaStreamSynchronize(g.stream()));
        MIGX_CUDA_CHECK(cudaDeviceSynchronize());
        if(trace_cudnn())
            for(int i = 0; i < returned; i++)
                std::cerr << "cudnn: " << keys.mem << ": algorithm " << static_cast<int>(perf[i].algo) << " math "
                          << static_cast<int>(perf[i].mathType) << " status " << static_cast<int>(perf[i].status)
                          << " " << perf[i].time << " ms, workspace " << perf[i].memory
                          << (start_ms.empty() ? std::string{}
                                               : ", first query " +
                                                     std::to_string(start_ms[static_cast<std::size_t>(perf[i].algo)]) +
                                                     " ms")
                          << "\n";
        c = accurate_algorithm(perf, returned, plain, what, start_ms, policy, check, accuracy_limit, buf, keys.mem);
        // Set up as a process that reads the entry will (workspace size from cuDNN's query, as
        // for a loaded program), so that both run the very same call.
        if(auto same = saved_algorithm(to_solution_id(*c, plain), plain, workspace))
            c = same;
        auto id  = std::to_string(to_solution_id(*c, plain));
        bool put = tc.write(disk_key, id);
        if(trace_cudnn())
            std::cerr << "cudnn: " << keys.mem << ": solution_id " << id << " measured"
                      << (put ? " (written to the tuning cache: " + tc.file_of(disk_key) + ")" : std::string{})
                      << "\n";
    }
    std::lock_guard<std::mutex> lock(mem.m);
    return mem.algos.emplace(mem_key, *c).first->second;
}

/// The descriptors both ops share: p.x the op's input, p.w its weights, p.y its output, and
/// p.conv the forward convolution, which maps x to y (convolution) or y to x (the transposed
/// convolution, computed as cuDNN's backward-data). Shapes are padded to 4 dims (a 1-d
/// convolution is 2-d with a trailing 1); cuDNN must agree on the forward output's shape.
void describe_convolution(convolution::plan& p,
                          const std::string& what,
                          const shape& x,
                          const shape& w,
                          const shape& y,
                          const std::vector<std::size_t>& padding,
                          const std::vector<std::size_t>& stride,
                          const std::vector<std::size_t>& dilation,
                          std::int64_t group,
                          bool transposed,
                          bool plain)
{
    auto t  = dnn_type(y.type());
    auto kd = x.lens().size() - 2;
    auto xl = x.lens(), xs = x.strides();
    auto wl = w.lens(), ws = w.strides();
    auto yl = y.lens(), ys = y.strides();
    pad4(xl, xs);
    pad4(wl, ws);
    pad4(yl, ys);
    std::vector<std::size_t> pads(padding.begin(), padding.begin() + kd), strides = stride, dil = dilation;
    while(pads.size() < 2)
    {
        pads.push_back(0);
        strides.push_back(1);
        dil.push_back(1);
    }
    MIGX_CUDA_CHECK(cudnnCreateTensorDescriptor(&p.x));
    MIGX_CUDA_CHECK(cudnnCreateTensorDescriptor(&p.y));
    MIGX_CUDA_CHECK(cudnnCreateFilterDescriptor(&p.w));
    MIGX_CUDA_CHECK(cudnnCreateConvolutionDescriptor(&p.conv));
    auto xli = to_int(xl), xsi = to_int(xs), wli = to_int(wl), yli = to_int(yl), ysi = to_int(ys);
    MIGX_CUDA_CHECK(cudnnSetTensorNdDescriptor(p.x, t, static_cast<int>(xli.size()), xli.data(), xsi.data()));
    MIGX_CUDA_CHECK(cudnnSetTensorNdDescriptor(p.y, t, static_cast<int>(yli.size()), yli.data(), ysi.data()));
    // NHWC weights (layout_nhwc.hpp) are KRSC in memory; cuDNN takes their dims as K, C, R, S.
    // Weights laid out as both (1x1, depthwise) follow x.
    bool krsc    = is_nhwc(w) and (not w.standard() or (is_nhwc(x) and not x.standard()));
    auto wformat = krsc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
    MIGX_CUDA_CHECK(cudnnSetFilterNdDescriptor(p.w, t, wformat, static_cast<int>(wli.size()), wli.data()));
    auto pi = to_int(pads), si = to_int(strides), di = to_int(dil);
    MIGX_CUDA_CHECK(cudnnSetConvolutionNdDescriptor(
        p.conv, static_cast<int>(pi.size()), pi.data(), si.data(), di.data(), CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    MIGX_CUDA_CHECK(cudnnSetConvolutionGroupCount(p.conv, static_cast<int>(group)));
    cudnnMathType_t math = y.type() == shape::half_type ? CUDNN_TENSOR_OP_MATH
                           : plain                     ? CUDNN_FMA_MATH
                                                       : CUDNN_DEFAULT_MATH;
    MIGX_CUDA_CHECK(cudnnSetConvolutionMathType(p.conv, math));
    // The forward direction: x -> y, or for the transposed convolution y -> x.
    auto src = transposed ? p.y : p.x;
    const auto& dst = transposed ? xli : yli;
    std::vector<int> got(dst.size());
    MIGX_CUDA_CHECK(cudnnGetConvolutionNdForwardOutputDim(p.conv, src, p.w, static_cast<int>(got.size()), got.data()));
    if(got != dst)
        MIGRAPHX_THROW(what + ": cuDNN computes another output shape than the op");
}

// ---- the backend graph API (half only) ---------------------------------------------------------

bool graph_enabled(const shape& out)
{
    return out.type() == shape::half_type and out.elements() > 0 and
           not env_enabled("MIGRAPHX_DISABLE_CUDNN_GRAPH");
}

/// Device pointers of one run, in the graph's variant-pack order (x, w, y[, bias][, z]).
struct conv_io
{
    void* x    = nullptr;
    void* w    = nullptr;
    void* y    = nullptr;
    void* bias = nullptr;
    void* z    = nullptr;
    std::vector<void*> pointers(const dnn::conv_graph_spec& s) const
    {
        std::vector<void*> r{x, w, y};
        if(s.has_bias)
            r.push_back(bias);
        if(s.has_z)
            r.push_back(z);
        return r;
    }
};

/// Whether every pointer has the alignment the graph's tensors declare (16 bytes).
bool aligned16(const std::vector<void*>& ptrs)
{
    return std::all_of(ptrs.begin(), ptrs.end(), [](void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; });
}

/// Plans by problem and engine choice, built once per process (with the process's building
/// handle of the device) and shared.
struct plan_cache
{
    std::mutex m;
    std::unordered_map<std::string, std::shared_ptr<dnn::graph_plan>> plans;
    static plan_cache& get()
    {
        static plan_cache c;
        return c;
    }
    static std::string key_of(const std::string& key, const dnn::engine_choice& c) { return key + " engine " + c.str(); }
};

/// The plan for a problem and an engine choice (a choice just measured, or a loaded program's);
/// nullptr if cuDNN refuses it. Threads building at once pass different handle indexes.
std::shared_ptr<dnn::graph_plan> cached_plan(const std::string& key,
                                             const dnn::engine_choice& c,
                                             int device,
                                             const dnn::conv_graph_spec& spec,
                                             std::size_t handle_index = 0)
{
    auto& cache = plan_cache::get();
    auto slot_key = plan_cache::key_of(key, c);
    {
        std::lock_guard<std::mutex> lock(cache.m);
        auto it = cache.plans.find(slot_key);
        if(it != cache.plans.end())
            return it->second;
    }
    // Built outside the lock, so that plans build in parallel; two threads building the same
    // plan keep the first.
    std::shared_ptr<dnn::graph_plan> built;
    try
    {
        auto h = dnn::build_handle(device, handle_index);
        auto p = dnn::make_plan(h, dnn::build_graph(h, spec), c);
        if(p->workspace <= static_cast<std::int64_t>(search_buffers::ws_limit))
            built = p;
    }
    catch(const std::exception& e)
    {
        if(trace_cudnn())
            std::cerr << "cudnn: " << key << ": engine " << c.str() << " cannot be rebuilt (" << e.what()
                      << "); the legacy algorithm runs\n";
    }
    std::lock_guard<std::mutex> lock(cache.m);
    return cache.plans.emplace(slot_key, built).first->second;
}

void remember_plan(const std::string& key, const std::shared_ptr<dnn::graph_plan>& p)
{
    auto& cache = plan_cache::get();
    std::lock_guard<std::mutex> lock(cache.m);
    cache.plans[plan_cache::key_of(key, p->choice)] = p;
}

/// What a search fills its inputs with (x, w, and the epilogue's bias and z where spec has
/// them), known to the host so that conv_reference.hpp can compute the exact result.
struct search_inputs
{
    dnn::fill_pattern x, w, bias, z;
    search_inputs(const dnn::conv_graph_spec& spec, const shape& xs, const shape& ws, const shape& ys)
        : x(dnn::fill_pattern::make(xs.bytes() / 2, 1.0f, 1)),
          w(dnn::fill_pattern::make(ws.bytes() / 2, 0.5f, 2)),
          bias(dnn::fill_pattern::make(spec.has_bias ? static_cast<std::size_t>(spec.bias.dims[1]) : 1, 1.0f, 3)),
          z(dnn::fill_pattern::make(spec.has_z ? ys.bytes() / 2 : 1, 1.0f, 4))
    {
    }
    /// The exact result at sampled elements among y's first `limit`.
    dnn::exact_samples reference(const dnn::conv_graph_spec& spec, std::size_t limit) const
    {
        return dnn::make_conv_reference(spec, x, w, bias, z, limit);
    }
};

/// How many of y's first elements a search reads back to check a result.
std::size_t checked_elements(const shape& y) { return std::min<std::size_t>(y.bytes() / 2, 1u << 20); }

// How many candidates the engine search builds and times, and for how long: search_limits.hpp
// (more under compile_options::exhaustive_tune).

/// The time of one call of run on the context's stream, in ms, from the host (nullopt if it
/// failed): a coarse first look before the exact timing.
template <class Run>
std::optional<double> one_call_ms(gpu_context& g, Run run)
{
    auto t0 = std::chrono::steady_clock::now();
    if(not run() or cudaStreamSynchronize(g.stream()) != cudaSuccess)
    {
        (void)cudaGetLastError();
        return std::nullopt;
    }
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

/// The engine choice measured fastest for a problem ("" where the legacy call `legacy` is at
/// least as fast, or no engine configuration works), once per problem in a process: each
/// candidate plan runs on scratch buffers of the real sizes filled with random values, must
/// agree with the legacy call's result and come within the accuracy limit of the exact result
/// (half_accuracy.hpp; a legacy call over it loses to any candidate that works), and is timed
/// as the legacy call is (dnn::time_on_stream).
/// Before measuring, the tuning cache is asked: its engine is taken where cuDNN builds its plan
/// (else measured again and the entry replaced); a completed measurement is written to it.
template <class Legacy>
std::string choose_engine(gpu_context& g,
                          const problem_keys& keys,
                          const dnn::conv_graph_spec& spec,
                          const shape& x,
                          const shape& w,
                          const shape& y,
                          const std::string& legacy_name,
                          Legacy legacy)
{
    auto& mem           = choice_memory::get();
    const auto& problem = keys.mem;
    auto limits         = convolution_engine_limits(g.exhaustive_tune);
    // Tests: the fastest engine configuration that works even where the legacy call is faster.
    bool force = env_enabled("MIGRAPHX_CUDNN_GRAPH_FORCE");
    auto accuracy_limit = dnn::accuracy_limit_from_env();
    const std::string key = problem + (force ? " force" : "") + (g.exhaustive_tune ? " exhaustive" : "") +
                            dnn::accuracy_key_words(accuracy_limit);
    {
        std::lock_guard<std::mutex> lock(mem.m);
        auto it = mem.engines.find(key);
        if(it != mem.engines.end())
            return it->second;
    }
    bool trace    = trace_cudnn();
    auto tc       = tuning_cache::from_env();
    auto disk_key = "cudnn graph engine (" + limits.text() + ", workspace limit " +
                    std::to_string(search_buffers::ws_limit) + (force ? ", force" : "") +
                    dnn::accuracy_key_words(accuracy_limit) + "): " + keys.disk;
    if(auto v = tc.read(disk_key))
    {
        bool ok = v->empty(); // the legacy call won
        if(not ok)
        {
            auto choice = dnn::engine_choice::parse(*v);
            ok          = choice and cached_plan(problem, *choice, g.get().device, spec) != nullptr;
        }
        if(trace)
            std::cerr << "cudnn: " << key << ": " << (v->empty() ? legacy_name : "engine " + *v)
                      << (ok ? " from the tuning cache\n" : " in the tuning cache is refused; measuring again\n");
        if(ok)
        {
            std::lock_guard<std::mutex> lock(mem.m);
            return mem.engines.emplace(key, *v).first->second;
        }
    }
    std::ostringstream log;
    log << "cudnn: " << key << "\n";
    std::string result;
    bool measured = false;
    try
    {
        search_buffers buf(g, x, w, y);
        search_inputs in(spec, x, w, y);
        std::shared_ptr<char> bias, z;
        conv_io io{buf.in.get(), buf.w.get(), buf.out.get(), nullptr, nullptr};
        if(spec.has_bias)
        {
            bias    = device_alloc(static_cast<std::size_t>(spec.bias.dims[1]) * 2);
            io.bias = bias.get();
            dnn::upload_pattern(g.stream(), io.bias, static_cast<std::size_t>(spec.bias.dims[1]), in.bias);
        }
        if(spec.has_z)
        {
            z    = device_alloc(y.bytes());
            io.z = z.get();
            dnn::upload_pattern(g.stream(), io.z, y.bytes() / 2, in.z);
        }
        dnn::upload_pattern(g.stream(), io.x, x.bytes() / 2, in.x);
        dnn::upload_pattern(g.stream(), io.w, w.bytes() / 2, in.w);
        auto out_n   = checked_elements(y);
        auto ref     = accuracy_limit > 0 ? in.reference(spec, out_n) : dnn::exact_samples{};
        auto clear_y = [&] { MIGX_CUDA_CHECK(cudaMemsetAsync(io.y, 0, y.bytes(), g.stream())); };
        clear_y();
        if(not legacy(io, buf.ws.get()))
            MIGRAPHX_THROW("the legacy call failed");
        auto want       = dnn::download_halves(g.stream(), io.y, out_n);
        auto legacy_acc = dnn::measure_accuracy(ref, want.data());
        bool legacy_ok  = dnn::accurate_enough(legacy_acc, accuracy_limit);
        auto legacy_ms  = dnn::time_on_stream(g.stream(), [&] { return legacy(io, buf.ws.get()); });
        log << "  " << legacy_name << ": " << (legacy_ms ? std::to_string(*legacy_ms) + " ms" : "failed")
            << (ref.offsets.empty() ? "" : ", " + legacy_acc.str()) << (legacy_ok ? "" : " (over the limit)") << "\n";
        // The quickest single call seen, from the host (launch and synchronisation included),
        // which is what a candidate's first look is compared with.
        auto best_one = one_call_ms(g, [&] { return legacy(io, buf.ws.get()); });

        auto h     = dnn::build_handle(g.get().device);
        auto graph = dnn::build_graph(h, spec);
        auto cands = dnn::heuristic_candidates(h, *graph, limits.heuristic_configs, limits.fallback_configs);
        std::vector<std::shared_ptr<dnn::graph_plan>> plans;
        std::vector<std::optional<double>> times;
        int compiled = 0, precompiled = 0;
        auto search_start = std::chrono::steady_clock::now();
        for(auto& c : cands)
        {
            auto spent = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - search_start);
            if(spent.count() > limits.budget_ms and (legacy_ms or not times.empty()))
            {
                log << "  search stopped after " << spent.count() << " ms (budget " << limits.budget_ms << " ms)\n";
                break;
            }
            auto name = "engine " + c.choice.str() + (c.runtime_compiled ? " [rt]" : "") +
                        (c.from_fallback ? " [fallback]" : "") + (c.notes.empty() ? "" : " [" + c.notes + "]");
            if(c.reduced_precision or c.nondeterministic)
            {
                log << "  " << name << ": skipped ("
                    << (c.reduced_precision ? "reduced precision" : "nondeterministic") << ")\n";
                continue;
            }
            if(c.runtime_compiled ? compiled >= limits.runtime_compiled : precompiled >= limits.precompiled)
            {
                log << "  " << name << ": skipped (" << (c.runtime_compiled ? limits.runtime_compiled : limits.precompiled)
                    << " such tried)\n";
                continue;
            }
            (c.runtime_compiled ? compiled : precompiled)++;
            auto t0 = std::chrono::steady_clock::now();
            std::shared_ptr<dnn::graph_plan> p;
            try
            {
                p = dnn::make_plan(h, graph, std::move(c));
            }
            catch(const dnn::backend_error& e)
            {
                log << "  " << name << ": no plan (" << e.what() << ")\n";
                continue;
            }
            auto build_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            name += " (plan " + std::to_string(static_cast<int>(build_ms)) + " ms, workspace " +
                    std::to_string(p->workspace) + ")";
            if(p->workspace > static_cast<std::int64_t>(search_buffers::ws_limit))
            {
                log << "  " << name << ": skipped (workspace over the limit)\n";
                continue;
            }
            auto ptrs = io.pointers(spec);
            clear_y();
            auto st = p->execute(g.get().dnn, ptrs, buf.ws.get());
            if(st != CUDNN_STATUS_SUCCESS)
            {
                log << "  " << name << ": failed (" << cudnnGetErrorString(st) << ")\n";
                continue;
            }
            auto got = dnn::download_halves(g.stream(), io.y, out_n);
            if(not dnn::half_close(got.data(), want.data(), out_n))
            {
                log << "  " << name << ": skipped (its result differs from the legacy call's)\n";
                continue;
            }
            // Close to the legacy call's, but perhaps rounded more (Winograd arithmetic on half
            // intermediates): measured against the exact result.
            auto acc = dnn::measure_accuracy(ref, got.data());
            if(not ref.offsets.empty())
                name += ", " + acc.str();
            if(not dnn::accurate_enough(acc, accuracy_limit))
            {
                log << "  " << name << ": skipped (over the accuracy limit, " << accuracy_limit << "x)\n";
                continue;
            }
            // One warm call first: an engine several times slower than the best so far is not
            // timed in full (at batch 256 a poor engine takes tens of ms a call, and timing
            // every one made MobileNetV2's compile take minutes). Compared with the quickest
            // single call, timed the same way: a backend plan's call costs the host 20-50 us, so
            // against the graph-timed best (a few us for a small problem) the first look threw
            // out most engines of ResNet-50 b1's problems at random (H100, session 35).
            if(auto one = one_call_ms(g, [&] { return p->execute(g.get().dnn, ptrs, buf.ws.get()) == CUDNN_STATUS_SUCCESS; }))
            {
                if(best_one and *one > 3 * *best_one + 0.05)
                {
                    log << "  " << name << ": skipped (one call " << *one << " ms, over 3x the quickest one call, "
                        << *best_one << " ms)\n";
                    continue;
                }
                best_one = best_one ? std::min(*best_one, *one) : *one;
            }
            auto ms = dnn::time_on_stream(g.stream(), [&] {
                return p->execute(g.get().dnn, ptrs, buf.ws.get()) == CUDNN_STATUS_SUCCESS;
            });
            log << "  " << name << ": " << (ms ? std::to_string(*ms) + " ms" : "failed (or not capturable)") << "\n";
            if(ms)
            {
                plans.push_back(p);
                times.push_back(ms);
            }
        }
        auto best = dnn::fastest(times);
        if(best >= 0 and (force or not legacy_ms or not legacy_ok or *times[best] < *legacy_ms))
        {
            remember_plan(problem, plans[best]);
            result = plans[best]->choice.str();
        }
        MIGX_CUDA_CHECK(cudaStreamSynchronize(g.stream()));
        measured = true;
    }
    catch(const std::exception& e)
    {
        // Whatever went wrong (no graph for the problem, a failed copy), the legacy call stays.
        (void)cudaGetLastError();
        log << "  graph API: " << e.what() << "\n";
        result.clear();
    }
    log << "  -> " << (result.empty() ? legacy_name : "engine " + result) << "\n";
    // Only a completed measurement is kept on disk: a failure (no graph, a failed allocation)
    // may not happen next time.
    if(measured and tc.write(disk_key, result))
        log << "  (written to the tuning cache: " << tc.file_of(disk_key) << ")\n";
    if(trace)
        std::cerr << log.str() << std::flush;
    std::lock_guard<std::mutex> lock(mem.m);
    return mem.engines.emplace(key, result).first->second;
}

/// call() (a legacy cuDNN call reading p's algorithm and workspace); where cuDNN refuses it and
/// the algorithm was a loaded one taken unchecked, the check it skipped runs (and a search if
/// the saved algorithm does not fit) and the call is made once more.
template <class Call>
cudnnStatus_t legacy_call(const convolution::plan& p, gpu_context& g, Call call)
{
    auto st = call();
    if(st != CUDNN_STATUS_SUCCESS and p.recheck)
    {
        auto check = std::move(p.recheck);
        p.recheck  = nullptr;
        check(g);
        st = call();
    }
    return st;
}

/// conv(x, w) + bias without an activation, the legacy way: cudnnConvolutionBiasActivationForward
/// takes an identity activation with one algorithm only, so a plain convolution, then the bias
/// added in place.
cudnnStatus_t conv_then_bias(cudnnHandle_t dnn,
                             const convolution::plan& p,
                             const conv_bias_relu::epilogue& e,
                             const void* x,
                             const void* w,
                             const void* bias,
                             void* y,
                             void* ws)
{
    float one = 1, zero = 0;
    auto st   = cudnnConvolutionForward(dnn, &one, p.x, x, p.w, w, p.conv, p.algo, ws, p.ws, &zero, p.y, y);
    if(st != CUDNN_STATUS_SUCCESS)
        return st;
    return cudnnAddTensor(dnn, &one, e.bias, bias, &one, p.y, y);
}

/// The check of a legacy algorithm's half result on the search's buffers (nullptr where spec,
/// the plain convolution's graph, is not known): x and w filled as for the engine search, the
/// algorithm run with p's descriptors on context g, y's first elements read back.
algorithm_check legacy_check(gpu_context& g,
                             const convolution::plan& p,
                             const std::optional<dnn::conv_graph_spec>& spec,
                             const shape& x,
                             const shape& w,
                             const shape& y)
{
    if(not spec)
        return nullptr;
    // Made at the first check: the search's buffers filled, the exact result computed.
    auto ref = std::make_shared<std::optional<dnn::exact_samples>>();
    return [&g, &p, ref, s = *spec, x, w, y](search_buffers& buf, const algo_choice& c) -> std::optional<dnn::half_accuracy> {
        auto n = checked_elements(y);
        if(not *ref)
        {
            search_inputs in(s, x, w, y);
            dnn::upload_pattern(g.stream(), buf.in.get(), x.bytes() / 2, in.x);
            dnn::upload_pattern(g.stream(), buf.w.get(), w.bytes() / 2, in.w);
            *ref = in.reference(s, n);
        }
        if((*ref)->offsets.empty())
            return std::nullopt;
        MIGX_CUDA_CHECK(cudaMemsetAsync(buf.out.get(), 0, y.bytes(), g.stream()));
        cudnnSetConvolutionMathType(p.conv, c.math);
        float a = 1, b = 0;
        auto st = cudnnConvolutionForward(g.get().dnn, &a, p.x, buf.in.get(), p.w, buf.w.get(), p.conv,
                                          static_cast<cudnnConvolutionFwdAlgo_t>(c.algo), buf.ws.get(), c.memory, &b,
                                          p.y, buf.out.get());
        if(st != CUDNN_STATUS_SUCCESS)
            return dnn::half_accuracy::failed();
        return dnn::measure_accuracy(**ref, dnn::download_halves(g.stream(), buf.out.get(), n).data());
    };
}

/// finalize of gpu::convolution and gpu::conv_bias_relu (e: its epilogue, nullptr for a plain
/// convolution): the legacy algorithm as before, then for half the graph API's choice.
void finalize_convolution(convolution& op,
                          const std::string& what,
                          context& ctx,
                          const shape& out,
                          const shape& x,
                          const shape& w,
                          const conv_bias_relu::epilogue* e,
                          bool residual,
                          bool relu = true)
{
    auto& g = get_gpu_context(ctx);
    g.make_current();
    // A loaded (or already finalized) op says what to run; a fresh one is measured.
    bool given = op.solution_id >= 0 or not op.engine.empty();
    auto p     = std::make_shared<convolution::plan>();
    bool plain = plain_float(g, out.type());
    describe_convolution(*p, what, x, w, out, op.padding, op.stride, op.dilation, op.group, false, plain);
    std::vector<shape> inputs{x, w};
    auto keys  = make_problem_keys("gpu::convolution", g, inputs, out, op.padding, op.stride,
                                  op.dilation, op.group);
    // The legacy algorithm: a loaded op's saved one where cuDNN accepts it (its workspace query,
    // on handle h, succeeds), else this process's or the tuning cache's choice, else measured
    // with context mg.
    auto* pp      = p.get();
    // A half problem's algorithms are checked against the exact result (conv_reference.hpp).
    std::optional<dnn::conv_graph_spec> check_spec;
    if(out.type() == shape::half_type)
    {
        try
        {
            check_spec = dnn::make_conv_spec(x, w, out, op.padding, op.stride, op.dilation, false, false, false);
        }
        catch(const std::invalid_argument&)
        {
        }
    }
    auto set_algo = [pp, keys, inputs, out, plain, what, check_spec](std::int64_t saved_id, cudnnHandle_t h,
                                                                      gpu_context& mg) {
        auto workspace_on = [pp](cudnnHandle_t hh) {
            return [pp, hh](const algo_choice& a, std::size_t* bytes) {
                cudnnSetConvolutionMathType(pp->conv, a.math);
                return cudnnGetConvolutionForwardWorkspaceSize(
                    hh, pp->x, pp->w, pp->conv, pp->y, static_cast<cudnnConvolutionFwdAlgo_t>(a.algo), bytes);
            };
        };
        auto saved = saved_algorithm(saved_id, plain, workspace_on(h));
        auto c = saved ? *saved : choose_algorithm<cudnnConvolutionFwdAlgoPerf_t, CUDNN_CONVOLUTION_FWD_ALGO_COUNT>(
            mg, keys, inputs, out, plain, what, workspace_on(mg.get().dnn),
            [&](search_buffers& buf, auto* perf, int want, int* returned) {
                MIGX_CUDA_CHECK(cudnnFindConvolutionForwardAlgorithmEx(mg.get().dnn, pp->x, buf.in.get(), pp->w,
                                                                       buf.w.get(), pp->conv, pp->y, buf.out.get(),
                                                                       want, returned, perf, buf.ws.get(),
                                                                       search_buffers::ws_limit));
            },
            legacy_check(mg, *pp, check_spec, inputs[0], inputs[1], out));
        pp->algo = static_cast<cudnnConvolutionFwdAlgo_t>(c.algo);
        pp->ws   = c.memory;
        MIGX_CUDA_CHECK(cudnnSetConvolutionMathType(pp->conv, plain ? CUDNN_FMA_MATH : c.math));
        return c;
    };
    // A loaded op is completed on finalize's deferred thread while the rest of the program
    // finalizes (gpu_context::defer): a process's first workspace query of a problem makes cuDNN
    // build its engine (about 1.7 ms on an H200), which was most of a fresh process's load.
    // Where the file's choices were made for this very device and these libraries
    // (gpu_context::saved_choices_trusted) and it kept the workspace size, nothing is asked of
    // cuDNN: its first call (the first run, which always runs plainly before any recording) pays
    // the engine's first use instead of the load.
    bool deferred = given and op.solution_id >= 0;
    // A loaded op checked after finalize: what it runs with (current_solution_id).
    auto ended_with = [pp, plain](const algo_choice& c) {
        pp->late_solution_id = to_solution_id(c, plain);
        pp->completed_late   = true;
    };
    auto trusted  = deferred and g.saved_choices_trusted and op.saved_workspace >= 0
                        ? saved_algorithm(op.solution_id, plain,
                                          [&](const algo_choice& c, std::size_t* bytes) {
                                              *bytes = static_cast<std::size_t>(op.saved_workspace);
                                              return c.algo < CUDNN_CONVOLUTION_FWD_ALGO_COUNT
                                                         ? CUDNN_STATUS_SUCCESS
                                                         : CUDNN_STATUS_BAD_PARAM;
                                          })
                        : std::nullopt;
    if(trusted)
    {
        p->algo = static_cast<cudnnConvolutionFwdAlgo_t>(trusted->algo);
        p->ws   = trusted->memory;
        MIGX_CUDA_CHECK(cudnnSetConvolutionMathType(p->conv, plain ? CUDNN_FMA_MATH : trusted->math));
        g.reserve_workspace(p->ws);
        p->recheck = [set_algo, ended_with, id = op.solution_id, pp](gpu_context& run_ctx) {
            ended_with(set_algo(id, run_ctx.get().dnn, run_ctx));
            run_ctx.reserve_workspace(pp->ws);
        };
        // Only a saved graph plan is left to build (below).
        p->complete = [pp](std::size_t handle_index) {
            if(pp->build_graph)
                pp->build_graph(handle_index);
        };
    }
    else if(deferred)
    {
        p->complete = [set_algo, ended_with, pp, id = op.solution_id, device = g.device_id](std::size_t handle_index) {
            // Measuring again (a saved algorithm cuDNN refuses: another cuDNN) gets a context of
            // its own: this thread must not use the program's stream or handles.
            gpu_context own;
            own.device_id = device;
            auto c = set_algo(id, dnn::build_handle(static_cast<int>(device), handle_index), own);
            if(pp->build_graph)
                pp->build_graph(handle_index);
            ended_with(c);
        };
    }
    else
    {
        op.solution_id = to_solution_id(set_algo(op.solution_id, g.get().dnn, g), plain);
        g.reserve_workspace(p->ws);
    }

    std::string engine;
    std::swap(engine, op.engine);
    if(graph_enabled(out))
    {
        std::optional<dnn::conv_graph_spec> spec;
        try
        {
            spec = dnn::make_conv_spec(x, w, out, op.padding, op.stride, op.dilation, e != nullptr,
                                       e != nullptr and residual, e != nullptr and relu);
        }
        catch(const std::exception&)
        {
        }
        auto epi   = e == nullptr ? "" : not relu ? " +bias" : residual ? " +bias+z relu" : " +bias relu";
        auto gkeys = problem_keys{keys.mem + epi, keys.disk + epi};
        const auto& gkey = gkeys.mem;
        if(spec and not given)
        {
            auto legacy = [&](const conv_io& io, void* ws) {
                float a1 = 1, a2 = residual ? 1.0f : 0.0f, b = 0;
                if(e == nullptr)
                    return cudnnConvolutionForward(g.get().dnn, &a1, p->x, io.x, p->w, io.w, p->conv, p->algo, ws,
                                                   p->ws, &b, p->y, io.y) == CUDNN_STATUS_SUCCESS;
                if(not relu)
                    return conv_then_bias(g.get().dnn, *p, *e, io.x, io.w, io.bias, io.y, ws) == CUDNN_STATUS_SUCCESS;
                return cudnnConvolutionBiasActivationForward(g.get().dnn, &a1, p->x, io.x, p->w, io.w, p->conv,
                                                             p->algo, ws, p->ws, &a2, p->y, residual ? io.z : io.y,
                                                             e->bias, io.bias, e->act, p->y,
                                                             io.y) == CUDNN_STATUS_SUCCESS;
            };
            engine = choose_engine(g, gkeys, *spec, x, w, out, "legacy algo " + std::to_string(p->algo), legacy);
        }
        auto choice = spec and not engine.empty() ? dnn::engine_choice::parse(engine) : std::nullopt;
        if(choice and deferred)
        {
            // Built with the legacy check (above) at the end of finalize. The saved choice stays
            // in the op (the legacy call runs if cuDNN refuses it).
            p->build_graph = [pp, gkey, c = *choice, device = g.get().device, s = *spec](std::size_t w) {
                pp->graph = cached_plan(gkey, c, device, s, w);
            };
            op.engine = engine;
        }
        else if(choice)
            p->graph = cached_plan(gkey, *choice, g.get().device, *spec);
    }
    if(p->graph)
    {
        op.engine = p->graph->choice.str();
        g.reserve_workspace(static_cast<std::size_t>(p->graph->workspace));
    }
    // Queued once the plan is whole: the job reads build_graph, set just above.
    if(deferred and (not trusted or p->build_graph))
        g.defer(
            [p](std::size_t handle_index) {
                p->ensure_complete(handle_index);
                return p->workspace_needed();
            },
            keys.mem);
    else
        p->complete = nullptr;
    op.cache = p;
}

/// Runs the chosen graph plan; false (nothing queued) where there is none, a pointer is not
/// aligned as the plan declares, or cuDNN refuses the call: the legacy call runs instead.
bool run_graph(const convolution::plan& p, gpu_context& g, const conv_io& io)
{
    p.ensure_complete();
    // Completed at its first run (an op finalized outside a program, whose end_finalize would
    // have reserved it): the run is plain then, not recorded, so it may allocate.
    if(p.workspace_needed() > g.workspace_size())
        g.reserve_workspace(p.workspace_needed());
    if(not p.graph)
        return false;
    auto ptrs = io.pointers(p.graph->graph->spec);
    if(not aligned16(ptrs))
        return false;
    return p.graph->execute(g.get().dnn, ptrs, g.workspace()) == CUDNN_STATUS_SUCCESS;
}

} // namespace

void forget_tuning_choices()
{
    forget_gemm_choices();
    forget_rnn_choices();
    auto& mem = choice_memory::get();
    std::lock_guard<std::mutex> lock(mem.m);
    mem.algos.clear();
    mem.engines.clear();
    // Plans are rebuilt from the engine names, as in a new process (ops keep theirs alive).
    auto& plans = plan_cache::get();
    std::lock_guard<std::mutex> plans_lock(plans.m);
    plans.plans.clear();
}

std::int64_t convolution::current_solution_id() const
{
    return cache and cache->completed_late ? cache->late_solution_id : solution_id;
}

std::int64_t convolution::current_workspace() const
{
    // The plan's, once it knows it: set at finalize, or (a loaded op checked on the deferred
    // thread) when that check ended. Until then the file's.
    bool check_pending = cache and cache->complete and not cache->completed_late;
    return cache and not check_pending ? static_cast<std::int64_t>(cache->ws) : saved_workspace;
}

std::string convolution::current_engine() const
{
    if(not cache or not cache->completed_late)
        return engine;
    return cache->graph ? cache->graph->choice.str() : std::string{};
}

namespace {

/// reflect's attribute text (as operation prints it), with the choices the op runs with.
template <class T>
void print_current(std::ostream& os, const T& op)
{
    T copy           = op;
    copy.solution_id = op.current_solution_id();
    copy.engine      = op.current_engine();
    bool first       = true;
    T::reflect(copy, [&](auto& field, const char* n) {
        os << (first ? "" : ",") << n << "=";
        first = false;
        print_field(os, field);
    });
}

/// A saved convolution stores the choices it runs with (see current_solution_id) and, beside its
/// attributes, the workspace its algorithm needs.
template <class T>
value current_value(const operation& op)
{
    auto v = op.to_value();
    if(const auto* c = op.any_cast<T>())
    {
        v["solution_id"] = c->current_solution_id();
        v["engine"]      = c->current_engine();
        if(c->current_workspace() >= 0)
            v["workspace"] = c->current_workspace();
    }
    return v;
}

/// The op from its attributes, with the saved workspace taken out of them (-1 where a file has
/// none, or one no algorithm could need: finalize then asks cuDNN).
template <class T>
operation saved_op(const std::string& name, const value& attrs, const serialize::module_lookup&)
{
    value rest = value::make_object();
    std::int64_t ws = -1;
    for(const auto& [k, x] : attrs.get_object())
    {
        if(k != "workspace")
            rest[k] = x;
        else if(x.is_integer() and x.get_int64() >= 0 and
                static_cast<std::uint64_t>(x.get_int64()) <= search_buffers::ws_limit)
            ws = x.get_int64();
    }
    auto op = make_op(name, rest);
    if(auto* c = op.any_cast<T>())
        c->saved_workspace = ws;
    return op;
}

template <class T>
void register_conv_serializer()
{
    serialize::op_serializer s;
    s.save = current_value<T>;
    s.load = saved_op<T>;
    serialize::register_op_serializer(T{}.name(), s);
}

const bool conv_serializers_registered = [] {
    register_conv_serializer<convolution>();
    register_conv_serializer<conv_bias_relu>();
    return true;
}();

} // namespace

void convolution::print_attributes(std::ostream& os) const { print_current(os, *this); }
void conv_bias_relu::print_attributes(std::ostream& os) const { print_current(os, *this); }

shape convolution::compute_shape(const std::vector<shape>& inputs) const
{
    if(inputs.size() != 3)
        MIGRAPHX_THROW(name() + ": expects x, w and the output buffer");
    if(not inputs[1].standard() and not is_nhwc(inputs[1]))
        MIGRAPHX_THROW(name() + ": weights must be standard or NHWC");
    return inputs[2];
}

void convolution::finalize(context& ctx, const shape& out, const std::vector<shape>& inputs)
{
    finalize_convolution(*this, name(), ctx, out, inputs[0], inputs[1], nullptr, false);
}

argument convolution::compute(context& ctx, const shape& out, const std::vector<argument>& args) const
{
    if(not cache)
        MIGRAPHX_THROW(name() + ": run before finalize");
    if(out.elements() == 0)
        return args[2];
    auto& g = get_gpu_context(ctx);
    if(run_graph(*cache, g, conv_io{args[0].data(), args[1].data(), args[2].data(), nullptr, nullptr}))
        return args[2];
    float a = 1, b = 0;
    const auto& p = *cache;
    MIGX_CUDA_CHECK(legacy_call(p, g, [&] {
        return cudnnConvolutionForward(g.get().dnn, &a, p.x, args[0].data(), p.w, args[1].data(), p.conv, p.algo,
                                       g.workspace(), p.ws, &b, p.y, args[2].data());
    }));
    return args[2];
}
MIGRAPHX_REGISTER_OP(convolution)

// ---- gpu::conv_bias_relu ----------------------------------------------------------------------

bool conv_bias_relu::supported_bias(const shape& b, const shape& out)
{
    if(b.type() != out.type() or b.lens() != out.lens() or out.lens().size() != 4)
        return false;
    const auto& st = b.strides();
    for(std::size_t d = 0; d < 4; d++)
        if(b.lens()[d] != 1 and st[d] != (d == 1 ? 1u : 0u))
            return false;
    return true;
}

shape conv_bias_relu::compute_shape(const std::vector<shape>& inputs) const
{
    if(residual and not relu)
        MIGRAPHX_THROW(name() + ": a residual needs relu (conv + bias + z alone is not supported)");
    if(inputs.size() != (residual ? 5u : 4u))
        MIGRAPHX_THROW(name() + ": expects x, w, the bias" + (residual ? ", z" : "") + " and the output buffer");
    if(not inputs[1].standard() and not is_nhwc(inputs[1]))
        MIGRAPHX_THROW(name() + ": weights must be standard or NHWC");
    if(not supported_bias(inputs[2], inputs.back()))
        MIGRAPHX_THROW(name() + ": the bias must be one value per output channel");
    if(residual and (inputs[3].lens() != inputs.back().lens() or inputs[3].strides() != inputs.back().strides()))
        MIGRAPHX_THROW(name() + ": z must have the output's shape and layout");
    return inputs.back();
}

void conv_bias_relu::finalize(context& ctx, const shape& out, const std::vector<shape>& inputs)
{
    auto e = std::make_shared<epilogue>();
    MIGX_CUDA_CHECK(cudnnCreateTensorDescriptor(&e->bias));
    int k = static_cast<int>(out.lens()[1]);
    MIGX_CUDA_CHECK(cudnnSetTensor4dDescriptor(e->bias, CUDNN_TENSOR_NCHW, dnn_type(out.type()), 1, k, 1, 1));
    MIGX_CUDA_CHECK(cudnnCreateActivationDescriptor(&e->act));
    MIGX_CUDA_CHECK(cudnnSetActivationDescriptor(e->act, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0));
    finalize_convolution(*this, name(), ctx, out, inputs[0], inputs[1], e.get(), residual, relu);
    fused = e;
}

argument conv_bias_relu::compute(context& ctx, const shape& out, const std::vector<argument>& args) const
{
    if(not cache or not fused)
        MIGRAPHX_THROW(name() + ": run before finalize");
    if(out.elements() == 0)
        return args.back();
    auto& g = get_gpu_context(ctx);
    float a1 = 1, a2 = residual ? 1.0f : 0.0f;
    // Without a residual, z is the output itself, scaled by 0.
    const void* z = residual ? args[3].data() : args.back().data();
    if(run_graph(*cache,
                 g,
                 conv_io{args[0].data(), args[1].data(), args.back().data(), args[2].data(),
                         residual ? args[3].data() : nullptr}))
        return args.back();
    const auto& p = *cache;
    if(not relu)
    {
        MIGX_CUDA_CHECK(legacy_call(p, g, [&] {
            return conv_then_bias(g.get().dnn, p, *fused, args[0].data(), args[1].data(), args[2].data(),
                                  args.back().data(), g.workspace());
        }));
        return args.back();
    }
    MIGX_CUDA_CHECK(legacy_call(p, g, [&] {
        return cudnnConvolutionBiasActivationForward(g.get().dnn, &a1, p.x, args[0].data(), p.w, args[1].data(),
                                                     p.conv, p.algo, g.workspace(), p.ws, &a2, p.y, z, fused->bias,
                                                     args[2].data(), fused->act, p.y, args.back().data());
    }));
    return args.back();
}
MIGRAPHX_REGISTER_OP(conv_bias_relu)

struct convolution_backwards::plan : convolution::plan
{
    cudnnConvolutionBwdDataAlgo_t bwd{};
};

shape convolution_backwards::compute_shape(const std::vector<shape>& inputs) const
{
    if(inputs.size() != 3)
        MIGRAPHX_THROW(name() + ": expects x, w and the output buffer");
    if(not inputs[1].standard())
        MIGRAPHX_THROW(name() + ": weights must be standard");
    return inputs[2];
}

void convolution_backwards::finalize(context& ctx, const shape& out, const std::vector<shape>& inputs)
{
    auto& g = get_gpu_context(ctx);
    g.make_current();
    auto p = std::make_shared<plan>();
    // cuDNN's view: the forward convolution maps dx (our output, p->y) to dy (our input x, p->x).
    bool plain = plain_float(g, out.type());
    describe_convolution(*p, name(), inputs[0], inputs[1], out, padding, stride, dilation, group, true, plain);
    auto keys  = make_problem_keys(name(), g, inputs, out, padding, stride, dilation, group);
    auto workspace = [&](const algo_choice& a, std::size_t* bytes) {
        cudnnSetConvolutionMathType(p->conv, a.math);
        return cudnnGetConvolutionBackwardDataWorkspaceSize(
            g.get().dnn, p->w, p->x, p->conv, p->y, static_cast<cudnnConvolutionBwdDataAlgo_t>(a.algo), bytes);
    };
    auto saved = saved_algorithm(solution_id, plain, workspace);
    auto c = saved ? *saved : choose_algorithm<cudnnConvolutionBwdDataAlgoPerf_t, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT>(
        g, keys, inputs, out, plain, name(), workspace, [&](search_buffers& buf, auto* perf, int want, int* returned) {
            MIGX_CUDA_CHECK(cudnnFindConvolutionBackwardDataAlgorithmEx(
                g.get().dnn, p->w, buf.w.get(), p->x, buf.in.get(), p->conv, p->y, buf.out.get(), want, returned, perf,
                buf.ws.get(), search_buffers::ws_limit));
        });
    p->bwd = static_cast<cudnnConvolutionBwdDataAlgo_t>(c.algo);
    p->ws  = c.memory;
    MIGX_CUDA_CHECK(cudnnSetConvolutionMathType(p->conv, plain ? CUDNN_FMA_MATH : c.math));
    solution_id = to_solution_id(c, plain);
    g.reserve_workspace(p->ws);
    cache = p;
}

argument convolution_backwards::compute(context& ctx, const shape& out, const std::vector<argument>& args) const
{
    if(not cache)
        MIGRAPHX_THROW(name() + ": run before finalize");
    if(out.elements() == 0)
        return args[2];
    auto& g = get_gpu_context(ctx);
    float a = 1, b = 0;
    MIGX_CUDA_CHECK(cudnnConvolutionBackwardData(g.get().dnn, &a, cache->w, args[1].data(), cache->x, args[0].data(),
                                                 cache->conv, cache->bwd, g.workspace(), cache->ws, &b, cache->y,
                                                 args[2].data()));
    return args[2];
}
MIGRAPHX_REGISTER_OP(convolution_backwards)

} // namespace gpu
} // namespace migraphx
