#ifndef MIGRAPHX_GPU_CONTEXT_HPP
#define MIGRAPHX_GPU_CONTEXT_HPP

// The gpu target's execution state: one device, one non-blocking stream, a cuBLASLt and a cuDNN
// handle, and one workspace buffer shared by the library calls (sized at compile time by the ops'
// finalize). Copies of a gpu_context share that state.

#include "targets/gpu/cuda_check.hpp"
#include "targets/gpu/host_values.hpp"
#include <migraphx/context.hpp>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace migraphx {
namespace gpu {

struct deferred_worker;

/// A count the device computes and the host reads later in the run (gpu::nonzero_start writes
/// it, gpu::nonzero_finish reads it): 8 bytes of device memory, their pinned host copy, and the
/// event recorded after the copy (recorded in a CUDA graph too: an external event node).
struct count_slot
{
    std::shared_ptr<char> device;
    std::uint64_t* host = nullptr;
    cudaEvent_t copied  = nullptr;
    count_slot();
    ~count_slot();
    count_slot(const count_slot&)            = delete;
    count_slot& operator=(const count_slot&) = delete;
};

struct gpu_state
{
    int device                = 0;
    cudaStream_t stream       = nullptr;
    cublasLtHandle_t lt       = nullptr;
    cudnnHandle_t dnn         = nullptr;
    void* workspace           = nullptr;
    std::size_t workspace_len = 0;
    int sm_major = 0, sm_minor = 0, sm_count = 0;
    /// Held by a run of the program (gpu_context::begin_run): runs from several threads take
    /// turns on the one stream and scratch buffer.
    std::mutex run_m;
    /// Work ops' finalize deferred (gpu_context::defer): its thread, while one runs.
    std::mutex deferred_m;
    std::shared_ptr<deferred_worker> worker;
    /// Run-time sizes the host computed, by the device memory holding them (host_values.hpp).
    host_values known;
    /// gpu::nonzero_start's counts, by the slot number gpu::early_nonzero gave the pair.
    std::mutex slots_m;
    std::map<std::size_t, std::shared_ptr<count_slot>> count_slots;
    explicit gpu_state(int device_id);
    ~gpu_state();
    gpu_state(const gpu_state&)            = delete;
    gpu_state& operator=(const gpu_state&) = delete;
};

struct gpu_context
{
    std::size_t device_id = 0;
    /// compile_options::tf32 (set by the target's get_passes, at compile and load): float
    /// convolutions, products and recurrences may use TF32 tensor cores.
    bool tf32 = false;
    /// compile_options::exhaustive_tune: the searches for cuDNN engines and cuBLASLt algorithms
    /// try every candidate (search_limits.hpp, gemm_search.hpp), each choice cached apart.
    bool exhaustive_tune = false;
    /// Whether float math may use TF32: tf32, or MIGRAPHX_GPU_TF32=1 in the environment.
    bool float_tf32() const;

    /// Switches to another device (before anything ran on this one).
    void set_device(std::size_t id);
    gpu_state& get() const;
    cudaStream_t stream() const { return get().stream; }
    /// Makes the context's device current on the calling thread.
    void make_current() const;
    /// A workspace of at least n bytes (grown at compile time; reused by every run).
    void reserve_workspace(std::size_t n) const;
    void* workspace() const { return get().workspace; }
    /// The small integer values the host knows a device buffer holds (host_values.hpp).
    host_values& known_values() const { return get().known; }
    std::size_t workspace_size() const { return get().workspace_len; }
    /// Count slot `id` of this context (made on first use: at finalize, not in a run).
    std::shared_ptr<count_slot> count_slot_for(std::size_t id) const;
    void finish() const;
    /// A run's turn (migraphx::context::begin_run): this program's runs from other threads wait
    /// until it is released.
    std::shared_ptr<void> begin_run() const;
    /// Runs job on a thread of its own, in order with the other deferred jobs, while finalize
    /// goes on: job(handle_index) gets the index of the cuDNN build handle it may use (its thread
    /// is the handle's only user; the device is current) and returns the workspace bytes it
    /// needs. A loaded program's convolutions are completed this way (cuDNN's engine builds were
    /// most of a fresh process's load; the rest of finalize now runs beside them).
    /// `label` names the job in MIGRAPHX_TIME_LOAD=2's per-job times.
    void defer(std::function<std::size_t(std::size_t handle_index)> job, std::string label = {}) const;
    /// Waits for the deferred jobs (context.hpp; program::finalize calls it), rethrows the first
    /// failure, reserves the workspace they need and waits for the stream (finalize's uploads).
    void end_finalize() const;

    /// Recording (context.hpp, ir/replay.hpp): kernels, library calls, device copies and views
    /// on fixed memory are recorded as a CUDA graph by stream capture and replayed with one launch.
    bool replayable(const instruction& ins) const;
    std::shared_ptr<void> record(const std::function<void()>& run) const;
    void replay(const std::shared_ptr<void>& recording) const;

    /// What a saved compiled program keeps (migraphx::context::to_value): the identity of the
    /// device and library versions its cuDNN and cuBLASLt choices were made for.
    value to_value() const;
    /// A loaded program's: where that identity is this process's (same device kind, same cuDNN
    /// and CUDA runtime), its convolutions take their saved algorithm and workspace without
    /// asking cuDNN (saved_choices_trusted); else each saved choice is checked as before.
    /// MIGRAPHX_GPU_CHECK_LOADED=1 checks them always.
    void from_value(const value& v);
    /// Set by from_value: the file's choices were made for this very device and libraries.
    bool saved_choices_trusted = false;

    private:
    mutable std::shared_ptr<gpu_state> m_state; // made on first use, on device_id
};

/// The gpu context inside ctx, or a process-wide one on device 0 where ctx holds none
/// (an op run outside a compiled program, e.g. in a unit test).
gpu_context& get_gpu_context(context& ctx);

/// What a measured choice depends on beyond the problem, for the tuning cache's keys: the
/// device's kind (name, compute capability, SM count: a MIG slice differs) and the libraries'
/// versions.
const std::string& device_identity(int device);

/// Device memory of n bytes (uninitialised), freed with the last copy of the pointer.
std::shared_ptr<char> device_alloc(std::size_t n);
/// A library workspace of n bytes that one op alone uses (a gemm's own, not the context's shared
/// one): what the library zeroes in it before a call may be zeroed at the start of a replay
/// instead, since nothing else in the graph touches it (graph_memsets.hpp).
std::shared_ptr<char> own_workspace(std::size_t n);
/// Whether p lies in a live own_workspace.
bool in_own_workspace(const void* p);
/// Whether p points to device (or managed) memory.
bool is_device_pointer(const void* p);

} // namespace gpu
} // namespace migraphx

#endif
