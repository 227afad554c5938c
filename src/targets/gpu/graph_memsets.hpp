#ifndef MIGRAPHX_GPU_GRAPH_MEMSETS_HPP
#define MIGRAPHX_GPU_GRAPH_MEMSETS_HPP

#include <cuda_runtime.h>
#include <cstddef>

namespace migraphx {
namespace gpu {

/// Memsets into an op's own workspace (own_workspace, context.hpp: cuBLASLt's counters) no longer
/// wait for the node before them: each becomes a root of the recorded graph and its dependents
/// wait for its former predecessors directly. Nothing else in the graph touches that memory, and
/// a replay starts after the previous one ended, so zeroing it at the start is the same as zeroing
/// it just before its kernel, without the idle time a memset between two kernels costs (~3 us each
/// on an H200). Returns how many moved.
std::size_t hoist_own_memsets(cudaGraph_t graph);

/// MIGRAPHX_TRACE_GRAPH=1: a recorded graph's nodes in capture order (kernel names, memset sizes)
/// with their dependencies' edge types (p: programmatic), on stderr.
void trace_graph(cudaGraph_t graph);

} // namespace gpu
} // namespace migraphx

#endif
