#ifndef MIGRAPHX_GPU_GEMM_SEARCH_HPP
#define MIGRAPHX_GPU_GEMM_SEARCH_HPP

// Choosing a product's cuBLASLt algorithm by measurement. cuBLASLt's heuristic ranks its
// candidates by a model; for the few shapes a network multiplies thousands of times its first
// pick is not always the fastest (how tiles fill the SMs' waves, split-K). finalize measures the
// heuristic's first few candidates on scratch buffers of the real sizes, as the convolutions'
// searches do, and keeps the fastest; gemm.cpp keeps the choice in the tuning cache and the .mxr.
//   MIGRAPHX_DISABLE_GEMM_SEARCH=1: the heuristic's first candidate, unmeasured (as before).
//   MIGRAPHX_GPU_GEMM_CANDIDATES=N: how many of the heuristic's candidates to measure (default 8,
//     or 64 under compile_options::exhaustive_tune; 1 to 64).
//   MIGRAPHX_GPU_GEMM_SEARCH_DATA=random: measure on random values in [-1, 1] rather than zeros
//     (tensor cores draw less power on zeros, so a power-limited device runs faster on them).
// Settings other than the defaults are part of the tuning cache's key.
// A half product's candidates must also come within MIGRAPHX_GPU_ACCURACY_LIMIT (2x) of a single
// rounding of the exact result (half_accuracy.hpp, gemm_reference.hpp): fastest first, the first
// within it is kept (split-K partial sums added in half can exceed it); none: the most accurate.

#include "targets/gpu/cuda_check.hpp"
#include "targets/gpu/gemm_reference.hpp"
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace migraphx {
namespace gpu {

/// One product as cublasLtMatmul receives it, with the bytes each operand spans.
struct gemm_call
{
    cublasLtHandle_t lt         = nullptr;
    cublasLtMatmulDesc_t desc   = nullptr;
    cublasLtMatrixLayout_t a    = nullptr, b = nullptr, c = nullptr;
    cublasLtMatrixLayout_t d    = nullptr; // nullptr: D is laid out as C (else an e4m3 D of a half C)
    std::size_t a_bytes = 0, b_bytes = 0, c_bytes = 0, bias_bytes = 0; // bias_bytes 0: no bias
    std::size_t d_bytes = 0;                                            // 0: c_bytes
    cublasLtMatrixLayout_t d_layout() const { return d != nullptr ? d : c; }
    std::size_t d_size() const { return d_bytes > 0 ? d_bytes : c_bytes; }
    float alpha = 1, beta = 0;
    bool int_scale = false; // int8 products: alpha and beta are int32, always 1 and 0
    static constexpr std::int32_t int_alpha = 1, int_beta = 0;
    /// A half product as the host can compute it (gemm_reference.hpp): the search checks its
    /// candidates' accuracy. Unset for other types.
    std::optional<dnn::gemm_problem> problem;
    const void* alpha_ptr() const { return int_scale ? static_cast<const void*>(&int_alpha) : &alpha; }
    const void* beta_ptr() const { return int_scale ? static_cast<const void*>(&int_beta) : &beta; }
};

/// Whether finalize measures candidates (unless MIGRAPHX_DISABLE_GEMM_SEARCH=1).
bool gemm_search_enabled();

/// How finalize measures: the environment's settings (defaults: 8 candidates, zeroed data).
struct gemm_search_settings
{
    static constexpr int max_candidates = 64;
    int candidates   = 8;
    bool random_data = false;
    /// exhaustive (compile_options::exhaustive_tune): max_candidates unless the environment names a count.
    static gemm_search_settings from_env(bool exhaustive = false);
    /// "" for the defaults, else what differs (appended to the tuning cache's key).
    std::string key_suffix() const;
};

/// Up to `count` of the heuristic's candidates for pointers aligned to `align` bytes, using at
/// most max_workspace bytes, best ranked first; empty when cuBLASLt has none.
std::vector<cublasLtMatmulHeuristicResult_t>
gemm_heuristics(const gemm_call& call, std::uint32_t align, int count, std::size_t max_workspace);

/// Milliseconds per call of each candidate on zeroed scratch buffers, on stream s (nullopt where
/// a candidate fails); the bias pointer in call.desc is set to scratch memory, which holds zeros
/// or (random_data) random halves in [-1, 1] in every 16-bit word (finite for every type).
std::vector<std::optional<double>> time_gemm_candidates(const gemm_call& call,
                                                        const std::vector<cublasLtMatmulHeuristicResult_t>& cands,
                                                        cudaStream_t s,
                                                        bool random_data = false);

/// The index of the candidate to keep: of those timed (times[i] set), fastest first (ties in
/// the heuristic's order), the first within `limit` of a single rounding on the search's known
/// inputs where call.problem is set and limit > 0 (dnn::first_accurate; each candidate checked
/// gets its accuracy in `checked`), else the fastest; 0 when none was timed.
std::size_t keep_gemm_candidate(const gemm_call& call,
                                const std::vector<cublasLtMatmulHeuristicResult_t>& cands,
                                const std::vector<std::optional<double>>& times,
                                cudaStream_t s,
                                double limit,
                                std::vector<std::optional<dnn::half_accuracy>>& checked);

/// An algorithm and the workspace bytes it needs.
struct gemm_choice
{
    cublasLtMatmulAlgo_t algo{};
    std::size_t workspace = 0;
};

/// The workspace algorithm a needs for `call`, where cuBLASLt accepts it (a saved or cached
/// choice: same library and architecture, as a rule) within max_workspace bytes.
std::optional<std::size_t> accepted_workspace(const gemm_call& call, const cublasLtMatmulAlgo_t& a,
                                              std::size_t max_workspace);

/// The algorithm for `call` (16-byte aligned pointers) under `key` (the problem and the device):
/// this process's choice, else the tuning cache's, either where cuBLASLt still accepts it, else
/// the fastest measured of the heuristic's first few (gemm_search_settings; written to the tuning
/// cache). Throws when cuBLASLt has no candidate.
gemm_choice searched_algorithm(const gemm_call& call,
                               const std::string& key,
                               cudaStream_t s,
                               std::size_t max_workspace,
                               bool exhaustive = false);

/// Forgets this process's choices (tuning_cache.hpp's forget_tuning_choices calls it).
void forget_gemm_choices();

/// An algorithm as text for the tuning cache (128 hex digits) and back (nullopt unless exactly that).
std::string algo_text(const cublasLtMatmulAlgo_t& a);
std::optional<cublasLtMatmulAlgo_t> algo_from_text(const std::string& s);

} // namespace gpu
} // namespace migraphx

#endif
