// targets/gpu/kernel_compiler: with_grid_dependency puts the wait for the previous kernel first in
// the kernel's body (and nowhere else); such kernels chained with programmatic dependent launch,
// on a stream and in a recorded graph, read what the kernel before them wrote; a compiled program's
// kernels wait and launch programmatically unless MIGRAPHX_GPU_PDL=0, and a program saved without
// waiting kernels is not launched programmatically.
#include <gtest/gtest.h>
#ifdef MIGRAPHX_HAVE_GPU
#include "gpu_test_util.hpp"
#include "scoped_env.hpp"
#include "targets/gpu/context.hpp"
#include "targets/gpu/gpu_ops.hpp"
#include "targets/gpu/kernel_compiler.hpp"
#include <migraphx/make_op.hpp>
#include <migraphx/load_save.hpp>
#include <cuda_runtime.h>
#include <string>
#include <vector>

namespace {

namespace gpu = migraphx::gpu;
using migraphx::make_op;
using migraphx::shape;

const std::string add_one_source = R"(
__device__ float add_one_value(float v) { return v + 1.0f; }
extern "C" __global__ void __launch_bounds__(256) add_one(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if(i < n)
        y[i] = add_one_value(x[i]);
}
)";

const std::string wait_line = "griddepcontrol.wait";

std::size_t count(const std::string& s, const std::string& what)
{
    return migx_test::occurrences(s, what);
}

} // namespace

TEST(gpu_kernel_compiler, the_wait_is_the_kernels_first_statement)
{
    auto s = gpu::with_grid_dependency(add_one_source, "add_one");
    EXPECT_EQ(count(s, wait_line), 1u) << s;
    EXPECT_EQ(count(s, "griddepcontrol.launch_dependents"), 1u) << s;
    auto body = s.find("add_one(const float* x, float* y, int n)\n{");
    ASSERT_NE(body, std::string::npos) << s;
    EXPECT_LT(body, s.find(wait_line)) << "inside the kernel, not the helper before it:\n" << s;
    EXPECT_LT(s.find(wait_line), s.find("int i =")) << s;
    // Everything else is as it was.
    auto removed = s;
    auto from    = removed.find("\n#if defined(__CUDA_ARCH__)");
    removed.erase(from, removed.find("#endif\n") + 7 - from);
    EXPECT_EQ(removed, add_one_source);
}

TEST(gpu_kernel_compiler, a_name_that_only_begins_like_the_kernels_is_not_taken)
{
    std::string src = "extern \"C\" __global__ void add_one_more(int* p) { p[0] = 1; }\n"
                      "extern \"C\" __global__ void add_one(int* p)\n{\n    p[0] = 2;\n}\n";
    auto s = gpu::with_grid_dependency(src, "add_one");
    EXPECT_EQ(count(s, wait_line), 1u);
    EXPECT_GT(s.find(wait_line), s.find("add_one(int* p)")) << s;
}

TEST(gpu_kernel_compiler, a_source_without_the_kernel_throws_naming_it)
{
    for(const auto& src : {std::string("__device__ int f() { return 1; }"),
                                 std::string("extern \"C\" __global__ void other(int* p) { }"),
                                 std::string("extern \"C\" __global__ void k(int* p);")})
    {
        try
        {
            gpu::with_grid_dependency(src, "k");
            ADD_FAILURE() << "no throw for: " << src;
        }
        catch(const migraphx::exception& e)
        {
            EXPECT_NE(std::string(e.what()).find("kernel k"), std::string::npos) << e.what();
        }
    }
}

TEST(gpu_kernel_compiler, the_waiting_kernel_compiles_for_sm_80_and_sm_90)
{
    auto s = gpu::with_grid_dependency(add_one_source, "add_one");
    EXPECT_NO_THROW(gpu::compile_cuda(s, "add_one", 9, 0));
    EXPECT_NO_THROW(gpu::compile_cuda(s, "add_one", 8, 0)); // the wait compiles away there
}

TEST(gpu_kernel_compiler, the_switch_is_on_from_sm_90_unless_turned_off)
{
    {
        migx_test::scoped_env e("MIGRAPHX_GPU_PDL", nullptr);
        EXPECT_TRUE(gpu::programmatic_launch_enabled(9));
        EXPECT_TRUE(gpu::programmatic_launch_enabled(10));
        EXPECT_FALSE(gpu::programmatic_launch_enabled(8));
    }
    migx_test::scoped_env e("MIGRAPHX_GPU_PDL", "0");
    EXPECT_FALSE(gpu::programmatic_launch_enabled(9));
}

namespace {

int device_major()
{
    int major = 0;
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0);
    return major;
}

/// 40 kernels, each adding one to what the one before wrote (ping-pong buffers), launched
/// programmatically on `s`; captured into a graph and replayed where `record`.
void chain_of_kernels(bool record)
{
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    int major = device_major(), minor = 0;
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0);
    if(major < 9)
        GTEST_SKIP() << "programmatic dependent launch needs sm_90";
    auto cubin = gpu::compile_cuda(gpu::with_grid_dependency(add_one_source, "add_one"), "add_one", major, minor);
    gpu::loaded_kernel k(cubin, "add_one");
    int n            = 1 << 22; // many waves: later blocks of one kernel start after the next is launched
    std::size_t size = n * sizeof(float);
    auto a           = gpu::device_alloc(size);
    auto b           = gpu::device_alloc(size);
    ASSERT_EQ(cudaMemset(a.get(), 0, size), cudaSuccess);
    cudaStream_t s = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    const int kernels = 40;
    auto launch_all   = [&] {
        for(int i = 0; i < kernels; i++)
        {
            void* x = i % 2 == 0 ? a.get() : b.get();
            void* y = i % 2 == 0 ? b.get() : a.get();
            void* params[] = {&x, &y, &n};
            k.launch(s, (n + 255) / 256, 256, params, true);
        }
    };
    if(record)
    {
        cudaGraph_t g = nullptr;
        ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), cudaSuccess);
        launch_all();
        ASSERT_EQ(cudaStreamEndCapture(s, &g), cudaSuccess);
        // The captured edges between the kernels are programmatic ones.
        std::size_t nodes = 0;
        cudaGraphGetNodes(g, nullptr, &nodes);
        std::vector<cudaGraphNode_t> all(nodes);
        cudaGraphGetNodes(g, all.data(), &nodes);
        std::size_t programmatic = 0;
        for(auto node : all)
        {
            std::size_t d = 0;
            cudaGraphNodeGetDependencies(node, nullptr, nullptr, &d);
            std::vector<cudaGraphNode_t> deps(d);
            std::vector<cudaGraphEdgeData> edges(d);
            cudaGraphNodeGetDependencies(node, deps.data(), edges.data(), &d);
            for(const auto& e : edges)
                programmatic += e.type == cudaGraphDependencyTypeProgrammatic ? 1 : 0;
        }
        EXPECT_EQ(programmatic, static_cast<std::size_t>(kernels - 1));
        cudaGraphExec_t exec = nullptr;
        ASSERT_EQ(cudaGraphInstantiate(&exec, g, 0), cudaSuccess);
        for(int r = 0; r < 3; r++) // each replay adds `kernels` more
            ASSERT_EQ(cudaGraphLaunch(exec, s), cudaSuccess);
        cudaGraphExecDestroy(exec);
        cudaGraphDestroy(g);
    }
    else
        launch_all();
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    cudaStreamDestroy(s);
    std::vector<float> got(n);
    ASSERT_EQ(cudaMemcpy(got.data(), a.get(), size, cudaMemcpyDeviceToHost), cudaSuccess);
    float want   = static_cast<float>(kernels * (record ? 3 : 1));
    std::size_t bad = 0;
    for(int i = 0; i < n; i++)
        bad += got[i] == want ? 0 : 1;
    EXPECT_EQ(bad, 0u) << "element 0: " << got[0] << ", want " << want;
}

} // namespace

TEST(gpu_kernel_compiler, programmatic_chain_on_a_stream_reads_each_predecessors_writes)
{
    MIGX_REQUIRE_GPU();
    chain_of_kernels(false);
}

TEST(gpu_kernel_compiler, programmatic_chain_in_a_graph_reads_each_predecessors_writes)
{
    MIGX_REQUIRE_GPU();
    chain_of_kernels(true);
}

namespace {

/// A softmax written out (exp, a row sum, a division, then another row sum): several generated
/// kernels one after another.
migraphx::program generated_kernels_program()
{
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{shape::float_type, {256, 1000}});
    auto e  = m->add_instruction(make_op("exp"), x);
    auto s  = m->add_instruction(make_op("reduce_sum", {{"axes", {1}}}), e);
    auto sb = m->add_instruction(make_op("multibroadcast", {{"out_lens", {256, 1000}}}), s);
    auto d  = m->add_instruction(make_op("div"), e, sb);
    auto t  = m->add_instruction(make_op("reduce_max", {{"axes", {1}}}), d);
    m->add_return({d, t});
    return p;
}

/// grid_wait of every gpu::code_object in p's main module.
std::vector<bool> grid_waits(const migraphx::program& p)
{
    std::vector<bool> r;
    for(const auto& ins : *p.get_main_module())
        if(ins.name() == "gpu::code_object")
            r.push_back(ins.get_operator().to_value().at("grid_wait").to<bool>());
    return r;
}

} // namespace

TEST(gpu_kernel_compiler, compiled_kernels_wait_unless_turned_off_and_match_ref)
{
    MIGX_REQUIRE_GPU();
    bool sm90 = device_major() >= 9;
    {
        migx_test::scoped_env e("MIGRAPHX_GPU_PDL", nullptr);
        auto g     = migx_test::expect_gpu_matches_ref(generated_kernels_program(), 1e-5, 1e-6);
        auto waits = grid_waits(g);
        ASSERT_GE(waits.size(), 2u) << migx_test::text(g);
        for(bool w : waits)
            EXPECT_EQ(w, sm90);
        // Saved and loaded, the kernels keep what they were compiled with.
        auto loaded = migraphx::load_buffer(migraphx::save_buffer(g));
        EXPECT_EQ(grid_waits(loaded), waits);
    }
    migx_test::scoped_env e("MIGRAPHX_GPU_PDL", "0");
    auto g = migx_test::expect_gpu_matches_ref(generated_kernels_program(), 1e-5, 1e-6);
    for(bool w : grid_waits(g))
        EXPECT_FALSE(w);
}

TEST(gpu_kernel_compiler, a_kernel_saved_without_the_wait_is_not_launched_programmatically)
{
    MIGX_REQUIRE_GPU();
    migx_test::scoped_env e("MIGRAPHX_GPU_PDL", "0");
    auto p = generated_kernels_program();
    migraphx::compile_options o;
    o.offload_copy = true;
    p.compile(migraphx::get_target("gpu"), o);
    auto bytes = migraphx::save_buffer(p);
    migx_test::scoped_env on("MIGRAPHX_GPU_PDL", nullptr);
    auto loaded = migraphx::load_buffer(bytes);
    for(const auto& ins : *loaded.get_main_module())
        if(ins.name() == "gpu::code_object")
        {
            const auto* c = ins.get_operator().any_cast<gpu::code_object>();
            ASSERT_NE(c, nullptr);
            EXPECT_FALSE(c->grid_wait);
            EXPECT_FALSE(c->programmatic);
        }
    // and it still runs right
    auto params = migx_test::fresh_params(p);
    auto want   = p.eval(params);
    auto got    = loaded.eval(params);
    ASSERT_EQ(got.size(), want.size());
    for(std::size_t i = 0; i < got.size(); i++)
        migx_test::expect_close(got[i], want[i], 0, 0, "loaded output " + std::to_string(i));
}
#endif
