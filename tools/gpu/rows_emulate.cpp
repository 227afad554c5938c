// rows_emulate: the generated layernorm and softmax kernels (codegen_reduce.cpp) checked against
// ref WITHOUT a GPU, with groups of any size: each block's threads run as host threads (warp
// shuffles through a per-warp exchange and barrier, __syncthreads through a block barrier, the
// blocks one after another), so the register path (a row a group of up to 256 lanes, 16-byte
// vectors) and the generic loop both run as the device would schedule them, only slowly. Each
// case runs twice: every pointer 16-byte aligned (the register path), then every pointer skewed by
// one element (the generic loop). Layernorm with its scale and shift (a trained model's
// LayerNormalization: one value per column) included, and with its addends (summed first) and a
// float output. It checks the generated code's indexing and
// arithmetic, not NVRTC or the device: gpu_codegen_reduce_test and gpu_fuse_layernorm_test do that
// on a device.
// Build and run (from the repository root, after build-gpu's libmigraphx):
//   g++ -std=c++20 -O1 -Iinclude -Isrc -DMIGRAPHX_HAVE_GPU=1 tools/gpu/rows_emulate.cpp
//       -o build-gpu/rows_emulate -Lbuild-gpu/src -lmigraphx -Wl,-rpath,$PWD/build-gpu/src -ldl
//   build-gpu/rows_emulate [WORK_DIR]      (default /tmp/migx-rows-emulate; exit 1 on a mismatch)
//   MIGX_EMULATE_PLANT="from|to" plants a bug (every `from` in a kernel becomes `to`).
#include <migraphx/generate.hpp>
#include <migraphx/instruction.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/ref/target.hpp>
#include "targets/gpu/codegen.hpp"
#include "targets/gpu/lowering.hpp"
#include "simt_shim.hpp"
#include <dlfcn.h>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <vector>
using namespace migraphx;

namespace {

// The CUDA built-ins the row kernels use, for the host: threads of a block are std::threads.
const std::string shim = std::string(migx_tools::simt_shim) + R"(
static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline float migx_max(float a, float b) { return isnan(b) ? b : (a < b ? b : a); }
static inline float migx_min(float a, float b) { return isnan(b) ? b : (b < a ? b : a); }
static float migx_exchange[1024];
static inline float __shfl_xor_sync(unsigned, float v, unsigned o)
{
    migx_exchange[threadIdx.x] = v;
    migx_warp_sync();
    float r = migx_exchange[threadIdx.x ^ o];
    migx_warp_sync();
    return r;
}
)";

// The launcher appended to each kernel (after typedefs X0.., Y of its pointer types): blocks in
// turn, each block's threads at once.
std::string launcher(const std::string& kernel, std::size_t inputs)
{
    std::string args;
    for(std::size_t i = 0; i < inputs; i++)
    {
        auto n = std::to_string(i);
        args += "(const X" + n + "*)in[" + n + "], ";
    }
    return R"(
extern "C" void migx_launch(const void* const* in, void* y, unsigned grid, unsigned block)
{
    migx_run_grid(grid, block, [&] { )" +
           kernel + "(" + args + R"((Y*)y); });
}
)";
}

int failures = 0;
std::string work = "/tmp/migx-rows-emulate";

/// n bytes whose start is 16-byte aligned plus `skew` bytes, copied from a (or zeros).
struct buffer
{
    std::vector<char> raw;
    char* p = nullptr;
    buffer(std::size_t n, std::size_t skew, const char* from = nullptr) : raw(n + 64)
    {
        auto a = (reinterpret_cast<std::uintptr_t>(raw.data()) + 15) / 16 * 16 + skew;
        p      = reinterpret_cast<char*>(a);
        if(from != nullptr)
            std::memcpy(p, from, n);
        else
            std::memset(p, 0x55, n);
    }
};

/// op over x (and, for layernorm, the addends and then the affine inputs, given as their stored
/// shapes and broadcast to x's) against ref, on both of the kernel's paths.
void run_case(const std::string& name,
              const operation& op,
              const shape& xs,
              const std::vector<shape>& affine_stored,
              double tol,
              const std::vector<shape>& addends_stored = {})
{
    program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", xs);
    std::vector<instruction_ref> args{x};
    parameter_map params{{"x", generate_argument(xs, 3)}};
    std::vector<argument> stored; // the addends', then the scale's and shift's values
    std::vector<shape> inputs = addends_stored;
    inputs.insert(inputs.end(), affine_stored.begin(), affine_stored.end());
    for(std::size_t i = 0; i < inputs.size(); i++)
    {
        auto n = "a" + std::to_string(i);
        auto a = m->add_parameter(n, inputs[i]);
        params[n] = generate_argument(inputs[i], 11 + i);
        stored.push_back(params[n]);
        args.push_back(m->add_instruction(make_op("multibroadcast", {{"out_lens", xs.lens()}}), a));
    }
    auto y = m->add_instruction(op, args);
    m->add_return({y});
    auto ref = p;
    ref.compile(ref::target{});
    auto want = ref.eval(params).front().to_vector<double>();
    auto k    = gpu::generate_for(y);
    if(not k)
    {
        std::cout << name << ": NOT GENERATED\n";
        failures++;
        return;
    }
    auto src = k->source;
    if(not migx_tools::plant_bug(src))
    {
        std::cout << name << ": nothing to plant\n";
        failures++;
        return;
    }
    auto pre = gpu::detail::prelude();
    src.replace(src.find(pre), pre.size(), shim);
    auto type_of = [](const shape& s) { return s.type() == shape::half_type ? "migx_half" : "float"; };
    std::string types = "typedef " + std::string(type_of(xs)) + " X0;\n";
    for(std::size_t i = 0; i < inputs.size(); i++)
        types += "typedef " + std::string(type_of(inputs[i])) + " X" + std::to_string(i + 1) + ";\n";
    types += "typedef " + std::string(type_of(y->get_shape())) + " Y;\n";
    src += types + launcher(k->name, args.size());
    void* h = migx_tools::compile_and_load(work + "/" + name, src, "-std=c++20 -O1 -pthread");
    void* f = h != nullptr ? dlsym(h, "migx_launch") : nullptr;
    if(f == nullptr)
    {
        std::cout << name << ": cannot load the launcher\n";
        failures++;
        return;
    }
    auto grid = static_cast<unsigned>((k->elements + k->local - 1) / k->local);
    for(std::size_t skew : {0, 2})
    {
        const auto& ys = y->get_shape();
        buffer xb(xs.bytes(), skew, params["x"].data());
        std::vector<std::unique_ptr<buffer>> ab;
        for(const auto& a : stored)
            ab.push_back(std::make_unique<buffer>(a.get_shape().bytes(), skew, a.data()));
        buffer yb(ys.bytes(), skew);
        std::vector<const void*> in{xb.p};
        for(auto& b : ab)
            in.push_back(b->p);
        reinterpret_cast<void (*)(const void* const*, void*, unsigned, unsigned)>(f)(in.data(), yb.p, grid,
                                                                                   k->local);
        auto got = argument{ys, yb.p}.to_vector<double>();
        std::size_t bad = 0;
        for(std::size_t i = 0; i < want.size(); i++)
            if(not(std::abs(got[i] - want[i]) <= tol * (1 + std::abs(want[i]))))
                if(bad++ < 5)
                    std::cout << "  " << name << " [" << i << "] got " << got[i] << " ref " << want[i] << "\n";
        auto path = skew == 0 ? "register path" : "generic loop";
        if(bad != 0)
        {
            failures++;
            std::cout << name << " (" << path << "): " << bad << " of " << want.size() << " differ\n";
        }
        else
            std::cout << name << " (" << path << "): ok, " << want.size() << " elements, grid " << grid << " x "
                      << k->local << "\n";
    }
}

} // namespace

int main(int argc, char** argv)
{
    if(argc > 1)
        work = argv[1];
    std::system(("mkdir -p " + work).c_str());
    auto h  = shape::half_type;
    auto f  = shape::float_type;
    auto ln = make_op("layernorm", {{"epsilon", 1e-5f}});
    // Rows of 768 (BERT-base: a warp a row, 3 vectors a lane), 96, 2048 (a block a row), 24.
    for(std::size_t len : {768, 96, 2048, 24})
        for(auto t : {h, f})
        {
            auto tn   = std::string(t == h ? "half" : "float") + "_" + std::to_string(len);
            auto tol  = t == h ? 2e-3 : 1e-5;
            shape xs{t, {3, 5, len}};
            shape col{t, {len}};
            run_case("layernorm_" + tn, ln, xs, {}, tol);
            run_case("layernorm_scale_shift_" + tn, ln, xs, {col, col}, tol);
            run_case("layernorm_scale_" + tn, ln, xs, {col}, tol);
            // The embeddings' sum folded in (a position table broadcast over the batch), with the
            // scale and shift, and a half model's last layer norm writing float.
            shape table{t, {1, 5, len}};
            auto sum2 = make_op("layernorm", {{"epsilon", 1e-5f}, {"addends", 2}});
            auto sum3 = make_op("layernorm", {{"epsilon", 1e-5f}, {"addends", 3}});
            run_case("layernorm_add_" + tn, sum2, xs, {col, col}, tol, {table});
            run_case("layernorm_add2_" + tn, sum3, xs, {}, tol, {table, xs});
            if(t == h)
            {
                auto fo = make_op("layernorm", {{"epsilon", 1e-5f}, {"float_out", true}});
                auto both = make_op("layernorm", {{"epsilon", 1e-5f}, {"addends", 2}, {"float_out", true}});
                run_case("layernorm_float_out_" + tn, fo, xs, {col, col}, tol);
                run_case("layernorm_add_float_out_" + tn, both, xs, {col}, tol, {table});
            }
        }
    // BERT's attention scores, softmax over rows of 128 halves; and a long float row.
    run_case("softmax_half_128", make_op("softmax", {{"axis", -1}}), shape{h, {2, 3, 128}}, {}, 2e-3);
    run_case("softmax_float_3000", make_op("softmax", {{"axis", -1}}), shape{f, {2, 3000}}, {}, 1e-5);
    std::cout << (failures ? "FAILED: " : "all ok: ") << failures << " failure(s)\n";
    return failures ? 1 : 0;
}
