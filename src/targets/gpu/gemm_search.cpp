// gemm_search.hpp: the heuristic's candidates, measured as a compiled program runs them (a
// CUDA graph of repeated calls, dnn::time_on_stream).
#include "targets/gpu/gemm_search.hpp"
#include "targets/gpu/context.hpp"
#include "targets/gpu/cudnn_graph.hpp"
#include "targets/gpu/tuning_cache.hpp"
#include "ir/env.hpp"
#include <algorithm>
#include <array>
#include <functional>
#include <cstring>
#include <iostream>
#include <random>
#include <mutex>
#include <unordered_map>

namespace migraphx {
namespace gpu {

bool gemm_search_enabled() { return not env_enabled("MIGRAPHX_DISABLE_GEMM_SEARCH"); }

gemm_search_settings gemm_search_settings::from_env(bool exhaustive)
{
    gemm_search_settings s;
    if(exhaustive)
        s.candidates = max_candidates;
    if(auto n = env_level("MIGRAPHX_GPU_GEMM_CANDIDATES"); n > 0)
        s.candidates = static_cast<int>(std::min<long>(n, max_candidates));
    s.random_data = env_string("MIGRAPHX_GPU_GEMM_SEARCH_DATA") == "random";
    return s;
}

std::string gemm_search_settings::key_suffix() const
{
    std::string r;
    if(candidates != gemm_search_settings{}.candidates)
        r += ", " + std::to_string(candidates) + " candidates";
    if(random_data)
        r += ", random data";
    return r;
}

namespace {
/// Random halves in [-1, 1] (random sign, 2^-7 to 2^-1 times 1.m, or exactly +-1) in every
/// 16-bit word of n bytes (n rounded up to a whole word), copied to p on stream s.
void fill_random(void* p, std::size_t n, cudaStream_t s)
{
    std::vector<std::uint16_t> host((n + 1) / 2);
    std::mt19937 gen(12345);
    for(auto& h : host)
    {
        auto r = gen();
        auto exp = 15 - static_cast<int>((r >> 10) % 8); // 2^-7 .. 2^0 times 1.m
        h        = static_cast<std::uint16_t>(((r >> 31) << 15) | (exp << 10) | (r & 0x3ff));
        if(exp == 15)
            h = static_cast<std::uint16_t>((h & 0x8000) | 0x3c00); // exactly +-1: stays within [-1, 1]
    }
    MIGX_CUDA_CHECK(cudaMemcpyAsync(p, host.data(), n, cudaMemcpyHostToDevice, s));
    MIGX_CUDA_CHECK(cudaStreamSynchronize(s)); // host is freed on return
}

/// An algorithm's configuration for traces: id, tile, stages, split-K, reduction, swizzle, cluster.
std::string algo_summary(const cublasLtMatmulAlgo_t& a)
{
    auto get = [&](cublasLtMatmulAlgoConfigAttributes_t attr) {
        // The size asked must be the attribute's own (int32, uint32 or uint16): queried first.
        std::size_t size = 0;
        std::uint64_t v  = 0; // little-endian: a smaller attribute fills the low bytes
        if(cublasLtMatmulAlgoConfigGetAttribute(&a, attr, nullptr, 0, &size) != CUBLAS_STATUS_SUCCESS or
           size == 0 or size > sizeof(v) or
           cublasLtMatmulAlgoConfigGetAttribute(&a, attr, &v, size, &size) != CUBLAS_STATUS_SUCCESS)
            return std::string("?");
        return std::to_string(v);
    };
    return "id " + get(CUBLASLT_ALGO_CONFIG_ID) + " tile " + get(CUBLASLT_ALGO_CONFIG_TILE_ID) + " stages " +
           get(CUBLASLT_ALGO_CONFIG_STAGES_ID) + " splitk " + get(CUBLASLT_ALGO_CONFIG_SPLITK_NUM) + " reduction " +
           get(CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME) + " swizzle " + get(CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING) +
           " cluster " + get(CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID);
}
} // namespace

std::vector<cublasLtMatmulHeuristicResult_t>
gemm_heuristics(const gemm_call& call, std::uint32_t align, int count, std::size_t max_workspace)
{
    cublasLtMatmulPreference_t pref = nullptr;
    MIGX_CUDA_CHECK(cublasLtMatmulPreferenceCreate(&pref));
    cublasLtMatmulPreferenceSetAttribute(
        pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &max_workspace, sizeof(max_workspace));
    for(auto a : {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
                  CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
                  CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
                  CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES})
        cublasLtMatmulPreferenceSetAttribute(pref, a, &align, sizeof(align));
    std::vector<cublasLtMatmulHeuristicResult_t> res(static_cast<std::size_t>(std::max(count, 1)));
    int found = 0;
    auto st   = cublasLtMatmulAlgoGetHeuristic(
        call.lt, call.desc, call.a, call.b, call.c, call.d_layout(), pref, count, res.data(), &found);
    cublasLtMatmulPreferenceDestroy(pref);
    if(st != CUBLAS_STATUS_SUCCESS)
        found = 0;
    res.resize(static_cast<std::size_t>(std::max(found, 0)));
    res.erase(std::remove_if(res.begin(), res.end(), [](const auto& r) { return r.state != CUBLAS_STATUS_SUCCESS; }),
              res.end());
    return res;
}

namespace {
/// Scratch operands of a product's real sizes, zeroed, then A, B, C and the bias (operands 0-3)
/// filled by fill(pointer, bytes, operand); the bias pointer in call.desc is set to its scratch.
struct gemm_scratch
{
    std::shared_ptr<char> a, b, c, d, bias, ws;
    std::size_t ws_bytes = 0;
    gemm_scratch(const gemm_call& call,
                 std::size_t ws_need,
                 cudaStream_t s,
                 const std::function<void(void*, std::size_t, int)>& fill)
        : ws_bytes(ws_need)
    {
        auto zeroed = [&](std::size_t n) {
            auto p = device_alloc(std::max<std::size_t>(n, 16));
            MIGX_CUDA_CHECK(cudaMemsetAsync(p.get(), 0, std::max<std::size_t>(n, 16), s));
            return p;
        };
        auto filled = [&](std::size_t n, int operand) {
            auto p = zeroed(n);
            if(n > 0)
                fill(p.get(), n, operand);
            return p;
        };
        a  = filled(call.a_bytes, 0);
        b  = filled(call.b_bytes, 1);
        c  = filled(call.c_bytes, 2);
        d  = zeroed(call.d_size());
        ws = zeroed(ws_bytes);
        if(call.bias_bytes > 0)
        {
            bias            = filled(call.bias_bytes, 3);
            const void* ptr = bias.get();
            MIGX_CUDA_CHECK(
                cublasLtMatmulDescSetAttribute(call.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &ptr, sizeof(ptr)));
        }
        MIGX_CUDA_CHECK(cudaStreamSynchronize(s));
    }
    /// One call of algorithm `algo` into d, on stream s.
    bool run(const gemm_call& call, const cublasLtMatmulAlgo_t& algo, cudaStream_t s) const
    {
        return cublasLtMatmul(call.lt, call.desc, call.alpha_ptr(), a.get(), call.a, b.get(), call.b,
                              call.beta_ptr(), c.get(), call.c, d.get(), call.d_layout(), &algo, ws.get(), ws_bytes,
                              s) == CUBLAS_STATUS_SUCCESS;
    }
};

std::size_t largest_workspace(const std::vector<cublasLtMatmulHeuristicResult_t>& cands)
{
    std::size_t n = 0;
    for(const auto& c : cands)
        n = std::max(n, c.workspaceSize);
    return n;
}
} // namespace

std::vector<std::optional<double>> time_gemm_candidates(const gemm_call& call,
                                                        const std::vector<cublasLtMatmulHeuristicResult_t>& cands,
                                                        cudaStream_t s,
                                                        bool random_data)
{
    gemm_scratch sc(call, largest_workspace(cands), s, [&](void* p, std::size_t n, int) {
        if(random_data)
            fill_random(p, n, s);
    });
    std::vector<std::optional<double>> times;
    for(const auto& cand : cands)
        times.push_back(dnn::time_on_stream(s, [&] { return sc.run(call, cand.algo, s); }, 10));
    return times;
}

std::size_t keep_gemm_candidate(const gemm_call& call,
                                const std::vector<cublasLtMatmulHeuristicResult_t>& cands,
                                const std::vector<std::optional<double>>& times,
                                cudaStream_t s,
                                double limit,
                                std::vector<std::optional<dnn::half_accuracy>>& checked)
{
    checked.assign(cands.size(), std::nullopt);
    std::vector<std::size_t> order;
    for(std::size_t i = 0; i < cands.size() and i < times.size(); i++)
        if(times[i])
            order.push_back(i);
    std::stable_sort(order.begin(), order.end(), [&](auto x, auto y) { return *times[x] < *times[y]; });
    if(order.empty())
        return 0;
    if(not call.problem or limit <= 0)
        return order.front();
    // Known patterns, so that the host can compute the exact result.
    const std::array<dnn::fill_pattern, 4> pattern{dnn::fill_pattern::make(call.a_bytes / 2, 1.0f, 1),
                                                   dnn::fill_pattern::make(call.b_bytes / 2, 0.5f, 2),
                                                   dnn::fill_pattern::make(call.c_bytes / 2, 1.0f, 3),
                                                   dnn::fill_pattern::make(call.bias_bytes / 2, 1.0f, 4)};
    gemm_scratch in(call, largest_workspace(cands), s, [&](void* p, std::size_t n, int operand) {
        dnn::upload_pattern(s, p, n / 2, pattern[static_cast<std::size_t>(operand)]);
    });
    // D's first elements (every column of our output, its first rows) are enough to see how a
    // candidate sums: split-K splits every output alike.
    auto checked_n = std::min<std::size_t>(call.c_bytes / 2, std::size_t{1} << 20);
    auto ref       = dnn::make_gemm_reference(*call.problem, pattern[0], pattern[1], pattern[2], pattern[3], checked_n, true);
    auto measure   = [&](std::size_t k) -> std::optional<dnn::half_accuracy> {
        auto i = order[k];
        MIGX_CUDA_CHECK(cudaMemsetAsync(in.d.get(), 0, std::max<std::size_t>(call.d_size(), 16), s));
        auto a = in.run(call, cands[i].algo, s)
                     ? dnn::measure_accuracy(ref, dnn::download_halves(s, in.d.get(), checked_n).data())
                     : dnn::half_accuracy::failed();
        checked[i] = a;
        return a;
    };
    auto kept = dnn::first_accurate(order.size(), measure, limit);
    return order[kept.value_or(0)];
}

namespace {
struct remembered
{
    std::mutex m;
    std::unordered_map<std::string, cublasLtMatmulAlgo_t> algos;
    static remembered& get()
    {
        static remembered r;
        return r;
    }
};
} // namespace

std::optional<std::size_t> accepted_workspace(const gemm_call& call, const cublasLtMatmulAlgo_t& a,
                                              std::size_t max_workspace)
{
    cublasLtMatmulHeuristicResult_t res{};
    auto st = cublasLtMatmulAlgoCheck(call.lt, call.desc, call.a, call.b, call.c, call.d_layout(), &a, &res);
    if(st != CUBLAS_STATUS_SUCCESS or res.state != CUBLAS_STATUS_SUCCESS or res.workspaceSize > max_workspace)
        return std::nullopt;
    return res.workspaceSize;
}

gemm_choice searched_algorithm(
    const gemm_call& call, const std::string& key, cudaStream_t s, std::size_t max_workspace, bool exhaustive)
{
    auto accepted = [&](const cublasLtMatmulAlgo_t& a) { return accepted_workspace(call, a, max_workspace); };
    auto settings = gemm_search_settings::from_env(exhaustive);
    auto limit    = call.problem ? dnn::accuracy_limit_from_env() : 0.0;
    auto disk_key = key + settings.key_suffix() + dnn::accuracy_key_words(limit);
    auto& mem     = remembered::get();
    {
        std::lock_guard<std::mutex> lock(mem.m);
        auto it = mem.algos.find(disk_key);
        auto w  = it != mem.algos.end() ? accepted(it->second) : std::nullopt;
        if(w)
            return {it->second, *w};
    }
    gemm_choice c;
    auto tc = tuning_cache::from_env();
    std::optional<std::size_t> w;
    if(auto v = tc.read(disk_key))
        if(auto saved = algo_from_text(*v); saved and (w = accepted(*saved)))
            c.algo = *saved;
    if(not w)
    {
        auto cands = gemm_heuristics(call, 16, settings.candidates, max_workspace);
        if(cands.empty())
            MIGRAPHX_THROW("gpu::gemm: cuBLASLt has no algorithm for this product");
        auto times = time_gemm_candidates(call, cands, s, settings.random_data);
        std::vector<std::optional<dnn::half_accuracy>> checked;
        auto best = keep_gemm_candidate(call, cands, times, s, limit, checked);
        if(env_enabled("MIGRAPHX_TRACE_GEMM_SEARCH"))
            for(std::size_t i = 0; i < cands.size(); i++)
                std::cerr << "gemm search: " << disk_key << ": candidate " << i << " (" << algo_summary(cands[i].algo)
                          << ", waves " << cands[i].wavesCount << ") "
                          << (times[i] ? std::to_string(*times[i]) + " ms" : std::string("failed"))
                          << (checked[i] ? ", " + checked[i]->str() +
                                               (dnn::accurate_enough(*checked[i], limit) ? "" : " (over the limit)")
                                         : std::string{})
                          << (i == best ? " (kept)" : "") << "\n";
        c.algo = cands[best].algo;
        w      = cands[best].workspaceSize;
        tc.write(disk_key, algo_text(c.algo));
    }
    c.workspace = *w;
    std::lock_guard<std::mutex> lock(mem.m);
    mem.algos[disk_key] = c.algo;
    return c;
}

void forget_gemm_choices()
{
    auto& mem = remembered::get();
    std::lock_guard<std::mutex> lock(mem.m);
    mem.algos.clear();
}

std::string algo_text(const cublasLtMatmulAlgo_t& a)
{
    static const char* digits = "0123456789abcdef";
    unsigned char bytes[sizeof(a)];
    std::memcpy(bytes, &a, sizeof(a));
    std::string s;
    for(auto b : bytes)
    {
        s += digits[b >> 4];
        s += digits[b & 15];
    }
    return s;
}

std::optional<cublasLtMatmulAlgo_t> algo_from_text(const std::string& s)
{
    cublasLtMatmulAlgo_t a{};
    if(s.size() != 2 * sizeof(a))
        return std::nullopt;
    unsigned char bytes[sizeof(a)];
    auto digit = [](char c) -> int {
        if(c >= '0' and c <= '9')
            return c - '0';
        if(c >= 'a' and c <= 'f')
            return c - 'a' + 10;
        return -1;
    };
    for(std::size_t i = 0; i < sizeof(a); i++)
    {
        int hi = digit(s[2 * i]), lo = digit(s[2 * i + 1]);
        if(hi < 0 or lo < 0)
            return std::nullopt;
        bytes[i] = static_cast<unsigned char>(hi * 16 + lo);
    }
    std::memcpy(&a, bytes, sizeof(a));
    return a;
}

} // namespace gpu
} // namespace migraphx
