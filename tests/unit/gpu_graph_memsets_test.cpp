// targets/gpu/graph_memsets: in a recorded graph, a memset into an op's own workspace
// (own_workspace) becomes a root and the node after it waits for the node before it as well; a
// memset into other memory keeps its place. The replayed graph still leaves every buffer as the
// stream would have.
#include <gtest/gtest.h>
#ifdef MIGRAPHX_HAVE_GPU
#include "gpu_test_util.hpp"
#include "targets/gpu/context.hpp"
#include "targets/gpu/graph_memsets.hpp"
#include <algorithm>
#include <tuple>
#include <vector>

namespace {

namespace gpu = migraphx::gpu;

std::vector<cudaGraphNode_t> deps_of(cudaGraphNode_t n)
{
    std::size_t d = 0;
    cudaGraphNodeGetDependencies(n, nullptr, nullptr, &d);
    std::vector<cudaGraphNode_t> v(d);
    cudaGraphNodeGetDependencies(n, v.data(), nullptr, &d);
    return v;
}

std::vector<unsigned char> bytes_of(const void* p, std::size_t n)
{
    std::vector<unsigned char> v(n);
    EXPECT_EQ(cudaMemcpy(v.data(), p, n, cudaMemcpyDeviceToHost), cudaSuccess);
    return v;
}

} // namespace

TEST(gpu_graph_memsets, a_memset_into_an_own_workspace_moves_to_the_start)
{
    MIGX_REQUIRE_GPU();
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    auto a   = gpu::device_alloc(64);
    auto b   = gpu::device_alloc(64);
    auto own = gpu::own_workspace(16);
    EXPECT_TRUE(gpu::in_own_workspace(own.get() + 15));
    EXPECT_FALSE(gpu::in_own_workspace(a.get()));
    cudaStream_t s = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    // a, then the workspace (as cuBLASLt zeroes its counter), then b: a chain of three nodes
    ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), cudaSuccess);
    cudaMemsetAsync(a.get(), 1, 64, s);
    cudaMemsetAsync(own.get(), 0, 16, s);
    cudaMemsetAsync(b.get(), 2, 64, s);
    cudaGraph_t g = nullptr;
    ASSERT_EQ(cudaStreamEndCapture(s, &g), cudaSuccess);
    std::size_t n = 0;
    cudaGraphGetNodes(g, nullptr, &n);
    ASSERT_EQ(n, 3u);
    std::vector<cudaGraphNode_t> nodes(n);
    cudaGraphGetNodes(g, nodes.data(), &n);
    auto [na, nw, nb] = std::tuple{nodes[0], nodes[1], nodes[2]};
    ASSERT_EQ(deps_of(nw), std::vector<cudaGraphNode_t>{na});

    EXPECT_EQ(gpu::hoist_own_memsets(g), 1u);
    EXPECT_TRUE(deps_of(nw).empty());                          // a root now
    // b still after a, and still after the memset (the workspace's user needs it done)
    auto after_b = deps_of(nb);
    std::sort(after_b.begin(), after_b.end());
    auto want_b = std::vector<cudaGraphNode_t>{na, nw};
    std::sort(want_b.begin(), want_b.end());
    EXPECT_EQ(after_b, want_b);
    EXPECT_TRUE(deps_of(na).empty());
    EXPECT_EQ(gpu::hoist_own_memsets(g), 0u); // nothing left to move

    cudaMemset(own.get(), 7, 16);
    cudaGraphExec_t e = nullptr;
    ASSERT_EQ(cudaGraphInstantiate(&e, g, 0), cudaSuccess);
    ASSERT_EQ(cudaGraphLaunch(e, s), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    EXPECT_EQ(bytes_of(a.get(), 64), std::vector<unsigned char>(64, 1));
    EXPECT_EQ(bytes_of(own.get(), 16), std::vector<unsigned char>(16, 0));
    EXPECT_EQ(bytes_of(b.get(), 64), std::vector<unsigned char>(64, 2));
    cudaGraphExecDestroy(e);
    cudaGraphDestroy(g);
    cudaStreamDestroy(s);
    own.reset();
}

TEST(gpu_graph_memsets, a_released_workspace_is_ordinary_memory_again)
{
    MIGX_REQUIRE_GPU();
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    auto own       = gpu::own_workspace(256);
    const void* at = own.get();
    EXPECT_TRUE(gpu::in_own_workspace(at));
    EXPECT_FALSE(gpu::in_own_workspace(static_cast<const char*>(at) + 256)); // one past the end
    own.reset();
    EXPECT_FALSE(gpu::in_own_workspace(at));
}

#endif
