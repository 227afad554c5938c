#ifndef MIGRAPHX_GPU_CUDNN_GRAPH_HPP
#define MIGRAPHX_GPU_CUDNN_GRAPH_HPP

// cuDNN's backend graph API (cudnn_graph.h, plain C; no cudnn_frontend) for gpu::convolution and
// gpu::conv_bias_relu: a convolution, maybe followed by pointwise ops (add the bias, add a
// residual, relu) on float virtual tensors, as one operation graph. Its engine configurations
// (heuristics mode A, then the fallback list) become execution plans that finalize times against
// the legacy API's best algorithm (convolution.cpp). A chosen plan is named by its engine's
// global index and knob choices (engine_choice), which a saved program stores and a loaded one
// rebuilds the plan from without timing.
//
// Every backend failure throws backend_error: the caller skips that candidate.

#include "targets/gpu/cuda_check.hpp"
#include "targets/gpu/cudnn_graph_spec.hpp"
#include <migraphx/shape.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace migraphx {
namespace gpu {
namespace dnn {

struct backend_error : std::runtime_error
{
    cudnnStatus_t status;
    backend_error(const std::string& what, cudnnStatus_t s);
};

/// Throws backend_error naming `what` when s is not success.
void check(cudnnStatus_t s, const char* what);

/// One backend descriptor (created, destroyed with the object; move-only).
class descriptor
{
    public:
    descriptor() = default;
    explicit descriptor(cudnnBackendDescriptorType_t t);
    ~descriptor();
    descriptor(descriptor&& o) noexcept : d_(o.d_) { o.d_ = nullptr; }
    descriptor& operator=(descriptor&& o) noexcept;
    descriptor(const descriptor&)            = delete;
    descriptor& operator=(const descriptor&) = delete;
    cudnnBackendDescriptor_t get() const { return d_; }
    void set(cudnnBackendAttributeName_t a, cudnnBackendAttributeType_t t, std::int64_t n, const void* v);
    void set_i64(cudnnBackendAttributeName_t a, const std::vector<std::int64_t>& v);
    void set_i64(cudnnBackendAttributeName_t a, std::int64_t v) { set_i64(a, std::vector<std::int64_t>{v}); }
    void set_desc(cudnnBackendAttributeName_t a, const descriptor& d);
    void set_descs(cudnnBackendAttributeName_t a, const std::vector<const descriptor*>& ds);
    void finalize();

    private:
    cudnnBackendDescriptor_t d_ = nullptr;
};

/// A built operation graph (its tensors and ops kept alive with it).
struct op_graph
{
    conv_graph_spec spec;
    std::vector<descriptor> parts;
    descriptor graph;
};

/// The backend graph for spec, finalized with handle h.
std::shared_ptr<op_graph> build_graph(cudnnHandle_t h, const conv_graph_spec& spec);

/// A finalized execution plan.
struct graph_plan
{
    std::shared_ptr<op_graph> graph;
    descriptor config;
    descriptor plan;
    engine_choice choice;
    std::int64_t workspace = 0;
    bool runtime_compiled  = false;
    /// Runs the plan on h's stream: ptrs in spec.uids() order; cuDNN's status (not success:
    /// nothing was queued).
    cudnnStatus_t execute(cudnnHandle_t h, const std::vector<void*>& ptrs, void* workspace_ptr) const;
};

/// What the heuristics offer for a graph: an engine configuration and what its engine says of
/// itself.
struct candidate
{
    descriptor config;
    engine_choice choice;
    bool runtime_compiled = false;
    bool tensor_core = false, reduced_precision = false, nondeterministic = false;
    std::string notes; // all its numerical notes, as trace text (numerical_notes_text)
    bool from_fallback = false;
};

/// Up to max_a configurations of heuristics mode A, then up to max_fallback more from the
/// fallback list (duplicates dropped). Failures of one list leave the other.
std::vector<candidate> heuristic_candidates(cudnnHandle_t h, const op_graph& g, int max_a, int max_fallback);

/// A plan for a candidate, or for a saved choice (rebuilt: no heuristics, no timing). Throws
/// backend_error if cuDNN refuses it.
std::shared_ptr<graph_plan> make_plan(cudnnHandle_t h, const std::shared_ptr<op_graph>& g, candidate c);
std::shared_ptr<graph_plan> make_plan(cudnnHandle_t h, const std::shared_ptr<op_graph>& g, const engine_choice& c);

/// A cuDNN handle of the process for building graphs and plans on `device` (never destroyed,
/// so plans cached for the process never outlive it); the current device must be `device`.
/// Threads building at the same time use different indexes (a handle is not for two threads).
cudnnHandle_t build_handle(int device, std::size_t index = 0);

/// Milliseconds per call of run() on stream s: run once (it must succeed), then reps calls
/// captured as one CUDA graph and launched a few times (as a compiled program replays them);
/// nullopt if a call fails or cannot be captured.
std::optional<double> time_on_stream(cudaStream_t s, const std::function<bool()>& run, int reps = 10);

} // namespace dnn
} // namespace gpu
} // namespace migraphx

#endif
