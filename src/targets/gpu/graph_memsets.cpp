// Edits and traces of a recorded CUDA graph before it is instantiated (graph_replay.cpp).
#include "targets/gpu/graph_memsets.hpp"
#include "targets/gpu/context.hpp"
#include "targets/gpu/cuda_check.hpp"
#include <algorithm>
#include <iostream>
#include <string>
#include <unordered_map>
#include <vector>

namespace migraphx {
namespace gpu {

namespace {

std::vector<cudaGraphNode_t> nodes_of(cudaGraph_t graph)
{
    std::size_t n = 0;
    MIGX_CUDA_CHECK(cudaGraphGetNodes(graph, nullptr, &n));
    std::vector<cudaGraphNode_t> nodes(n);
    MIGX_CUDA_CHECK(cudaGraphGetNodes(graph, nodes.data(), &n));
    return nodes;
}

std::vector<cudaGraphNode_t> dependencies(cudaGraphNode_t n, std::vector<cudaGraphEdgeData>* edges = nullptr)
{
    std::size_t d = 0;
    MIGX_CUDA_CHECK(cudaGraphNodeGetDependencies(n, nullptr, nullptr, &d));
    std::vector<cudaGraphNode_t> deps(d);
    std::vector<cudaGraphEdgeData> e(d);
    MIGX_CUDA_CHECK(cudaGraphNodeGetDependencies(n, deps.data(), e.data(), &d));
    if(edges != nullptr)
        *edges = e;
    return deps;
}

} // namespace

void trace_graph(cudaGraph_t graph)
{
    auto nodes = nodes_of(graph);
    auto n     = nodes.size();
    std::unordered_map<cudaGraphNode_t, std::size_t> index;
    for(std::size_t i = 0; i < n; i++)
        index[nodes[i]] = i;
    std::cerr << "graph: " << n << " nodes\n";
    for(std::size_t i = 0; i < n; i++)
    {
        cudaGraphNodeType t{};
        cudaGraphNodeGetType(nodes[i], &t);
        std::cerr << "  " << i << " ";
        if(t == cudaGraphNodeTypeKernel)
        {
            cudaKernelNodeParams kp{};
            const char* name = nullptr;
            if(cudaGraphKernelNodeGetParams(nodes[i], &kp) == cudaSuccess and
               cudaFuncGetName(&name, kp.func) == cudaSuccess and name != nullptr)
                std::cerr << "kernel " << std::string(name).substr(0, 90) << " grid " << kp.gridDim.x << "x"
                          << kp.gridDim.y << "x" << kp.gridDim.z << " block " << kp.blockDim.x;
            else
                std::cerr << "kernel ?";
        }
        else if(t == cudaGraphNodeTypeMemset)
        {
            cudaMemsetParams mp{};
            cudaGraphMemsetNodeGetParams(nodes[i], &mp);
            std::cerr << "memset " << mp.width * mp.height * mp.elementSize << " bytes at " << mp.dst << " value "
                      << mp.value;
        }
        else
            std::cerr << "type " << static_cast<int>(t);
        std::vector<cudaGraphEdgeData> edges;
        auto deps = dependencies(nodes[i], &edges);
        std::cerr << " <-";
        for(std::size_t j = 0; j < deps.size(); j++)
            std::cerr << " " << index[deps[j]] << (edges[j].type == cudaGraphDependencyTypeProgrammatic ? "p" : "");
        std::cerr << "\n";
    }
    cudaGetLastError();
}

std::size_t hoist_own_memsets(cudaGraph_t graph)
{
    std::size_t moved = 0;
    for(auto node : nodes_of(graph))
    {
        cudaGraphNodeType t{};
        MIGX_CUDA_CHECK(cudaGraphNodeGetType(node, &t));
        if(t != cudaGraphNodeTypeMemset)
            continue;
        cudaMemsetParams mp{};
        MIGX_CUDA_CHECK(cudaGraphMemsetNodeGetParams(node, &mp));
        if(not in_own_workspace(mp.dst))
            continue;
        std::vector<cudaGraphEdgeData> edges;
        auto preds = dependencies(node, &edges);
        if(preds.empty())
            continue;
        std::size_t k = 0;
        MIGX_CUDA_CHECK(cudaGraphNodeGetDependentNodes(node, nullptr, nullptr, &k));
        std::vector<cudaGraphNode_t> after(k);
        MIGX_CUDA_CHECK(cudaGraphNodeGetDependentNodes(node, after.data(), nullptr, &k));
        for(auto d : after)
        {
            auto have = dependencies(d);
            for(auto p : preds)
                if(std::find(have.begin(), have.end(), p) == have.end())
                    MIGX_CUDA_CHECK(cudaGraphAddDependencies(graph, &p, &d, nullptr, 1));
        }
        std::vector<cudaGraphNode_t> self(preds.size(), node);
        MIGX_CUDA_CHECK(cudaGraphRemoveDependencies(graph, preds.data(), self.data(), edges.data(), preds.size()));
        moved++;
    }
    return moved;
}

} // namespace gpu
} // namespace migraphx
