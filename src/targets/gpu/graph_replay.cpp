// The gpu context's recording hooks (context.hpp, ir/replay.hpp): stream capture into a CUDA
// graph, replayed with one cudaGraphLaunch per run instead of one launch per kernel.
#include "targets/gpu/codegen.hpp"
#include "targets/gpu/context.hpp"
#include "targets/gpu/graph_memsets.hpp"
#include "targets/gpu/lowering.hpp"
#include "ir/env.hpp"
#include <migraphx/instruction.hpp>
#include <iostream>
#include <string>

namespace migraphx {
namespace gpu {

namespace {

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

struct graph_exec
{
    cudaGraphExec_t exec = nullptr;
    explicit graph_exec(cudaGraphExec_t e) : exec(e) {}
    ~graph_exec()
    {
        if(exec != nullptr)
            cudaGraphExecDestroy(exec);
    }
    graph_exec(const graph_exec&)            = delete;
    graph_exec& operator=(const graph_exec&) = delete;
};

} // namespace

bool gpu_context::replayable(const instruction& ins) const
{
    const auto& n = ins.name();
    // Host fallbacks synchronise and read host memory; copies to and from the host use the
    // caller's memory, which differs every run.
    if(starts_with(n, "gpu::ref::"))
        return false;
    // waits for its start's event and returns a shape read from the host
    if(n == "gpu::nonzero_finish")
        return false;
    // A kernel reading its input pointers from a device table: the table holds one pointer set,
    // so recordings for other pointers would read the wrong one.
    if(n == "gpu::code_object")
        return not inputs_in_table(ins.inputs().size() - 1);
    if(starts_with(n, "gpu::") or n == "hip::copy" or n == "hip::hip_copy_literal")
        return true;
    // Only the scratch buffer is fixed; any other allocation is fresh memory each run.
    if(n == "hip::hip_allocate_memory")
        return ins.get_operator().attributes().contains("scratch");
    return device_view(ins);
}

std::shared_ptr<void> gpu_context::record(const std::function<void()>& run) const
{
    make_current();
    auto s = stream();
    // Thread-local: other threads may use CUDA meanwhile; this one must not synchronise (an
    // op that does fails the capture, and the caller runs the segment plainly instead).
    MIGX_CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    try
    {
        run();
    }
    catch(...)
    {
        cudaGraph_t g = nullptr;
        cudaStreamEndCapture(s, &g);
        if(g != nullptr)
            cudaGraphDestroy(g);
        cudaGetLastError(); // the failed capture's error is not the next call's
        throw;
    }
    cudaGraph_t graph = nullptr;
    auto ended        = cudaStreamEndCapture(s, &graph);
    if(ended != cudaSuccess)
    {
        cudaGetLastError();
        MIGRAPHX_THROW(std::string("gpu: recording a CUDA graph failed: ") + cudaGetErrorString(ended));
    }
    try
    {
        auto moved = hoist_own_memsets(graph);
        if(env_enabled("MIGRAPHX_TRACE_GRAPH"))
        {
            std::cerr << "graph: " << moved << " memsets into own workspaces moved to the start\n";
            trace_graph(graph);
        }
    }
    catch(...)
    {
        cudaGraphDestroy(graph);
        throw;
    }
    cudaGraphExec_t exec = nullptr;
    auto made            = cudaGraphInstantiate(&exec, graph, 0);
    cudaGraphDestroy(graph);
    if(made != cudaSuccess)
    {
        cudaGetLastError();
        MIGRAPHX_THROW(std::string("gpu: instantiating a CUDA graph failed: ") + cudaGetErrorString(made));
    }
    return std::make_shared<graph_exec>(exec);
}

void gpu_context::replay(const std::shared_ptr<void>& recording) const
{
    auto* g = static_cast<graph_exec*>(recording.get());
    if(g == nullptr or g->exec == nullptr)
        MIGRAPHX_THROW("gpu: replay of an empty recording");
    make_current();
    MIGX_CUDA_CHECK(cudaGraphLaunch(g->exec, stream()));
}

} // namespace gpu
} // namespace migraphx
