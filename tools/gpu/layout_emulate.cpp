// layout_emulate: the generated pooling and pad kernels with NHWC (channels-last) inputs and
// outputs, and gathers (rows of 16-byte vectors or elements), checked against ref WITHOUT a GPU, as pointwise_emulate does for pointwise kernels:
// each kernel's CUDA source is compiled by the host's g++ with a shim for the CUDA built-ins and
// run as one thread over all rows (so only group size 1 kernels: windows of up to 16 elements,
// or NHWC inputs with 8192 rows or more). Max pooling and pad must match bit for bit, average
// pooling within float-vs-double rounding of a half result.
// Build and run (from the repository root, after build-gpu's libmigraphx):
//   g++ -std=c++20 -O1 -Iinclude -Isrc -DMIGRAPHX_HAVE_GPU=1 tools/gpu/layout_emulate.cpp
//       -o build-gpu/layout_emulate -Lbuild-gpu/src -lmigraphx -Wl,-rpath,$PWD/build-gpu/src -ldl
//   build-gpu/layout_emulate [WORK_DIR]      (default /tmp/migx-layout-emulate; exit 1 on a mismatch)
#include <migraphx/program.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/literal.hpp>
#include <migraphx/generate.hpp>
#include <migraphx/instruction.hpp>
#include <migraphx/ref/target.hpp>
#include "targets/gpu/codegen.hpp"
#include "targets/gpu/layout_nhwc.hpp"
#include "targets/gpu/lowering.hpp"
#include "simt_shim.hpp"
#include <dlfcn.h>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
using namespace migraphx;
const char* shim = R"(
#include <cmath>
#include <cstring>
#include <math.h>
#define __device__
#define __forceinline__ inline
#define __global__
#define __shared__ static
typedef unsigned short migx_half;
static inline float h2f(migx_half h) { _Float16 f; std::memcpy(&f, &h, 2); return (float)f; }
static inline migx_half f2h(float x) { _Float16 f = (_Float16)x; migx_half h; std::memcpy(&h, &f, 2); return h; }
static inline float __int_as_float(unsigned x) { float f; std::memcpy(&f, &x, 4); return f; }
static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline float __shfl_xor_sync(unsigned, float v, unsigned) { return v; }
static inline void __syncthreads() {}
static inline float migx_max(float a, float b) { return isnan(b) ? b : (a < b ? b : a); }
static inline float migx_min(float a, float b) { return isnan(b) ? b : (b < a ? b : a); }
struct migx_dim { unsigned x; };
static migx_dim blockIdx{0}, blockDim{1}, gridDim{1}, threadIdx{0};
struct uint4 { unsigned x, y, z, w; };
)";
int failures = 0;
std::string work = "/tmp/migx-layout-emulate";

/// The kernel compiled for the host (its prelude replaced by the shim) and loaded; nullptr (and why)
/// when it does not compile or load.
void* load_kernel(const std::string& name, const gpu::kernel_source& k)
{
    auto src = k.source;
    auto pre = gpu::detail::prelude();
    src.replace(src.find(pre), pre.size(), shim);
    void* h = migx_tools::compile_and_load(work + "/" + name, src, "-std=c++17 -O1");
    void* f = h != nullptr ? dlsym(h, k.name.c_str()) : nullptr;
    if(f == nullptr)
        std::cout << name << ": cannot load the kernel\n";
    return f;
}

/// The same values in the layout of s (s has a's lens).
argument relayout(const argument& a, const shape& s)
{
    argument r{s};
    auto ts = s.type_size();
    for(std::size_t i = 0; i < s.elements(); i++)
        std::memcpy(r.data() + s.index(a.get_shape().multi(i)) * ts, a.data() + a.get_shape().index(i) * ts, ts);
    return r;
}

/// op over x (standard input of lens): the kernel reads x laid out as in_s, writes out_s.
void run_case(const std::string& name, const operation& op, const shape& in_std, bool in_nhwc, bool out_nhwc, double tol)
{
    program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", in_std);
    auto y  = m->add_instruction(op, x);
    m->add_return({y});
    auto xa   = generate_argument(in_std, 7);
    auto ref  = p;
    ref.compile(ref::target{});
    auto want = ref.eval({{"x", xa}}).front();
    shape in_s  = in_nhwc ? gpu::nhwc_shape(in_std) : in_std;
    shape out_s = out_nhwc ? gpu::nhwc_shape(y->get_shape()) : y->get_shape();
    auto xin    = relayout(xa, in_s);
    // generate_for sees the kernel's real input layout.
    program q;
    auto* mq = q.get_main_module();
    auto xq  = mq->add_parameter("x", in_s);
    auto yq  = mq->add_instruction(op, xq);
    auto k   = gpu::generate_for(yq, out_s);
    if(not k) { std::cout << name << ": NOT GENERATED\n"; failures++; return; }
    if(k->elements != out_s.elements() and k->source.find("constexpr unsigned G = 1;") == std::string::npos)
    { std::cout << name << ": skipped (group size > 1 needs a device)\n"; return; }
    // A register path's rows take groups of lanes, which one host thread cannot be (rows_emulate
    // runs those kernels, each block's threads at once).
    if(k->source.find("// register path") != std::string::npos)
    { std::cout << name << ": skipped (a register path: tools/gpu/rows_emulate.cpp)\n"; return; }
    void* f = load_kernel(name, *k);
    if(f == nullptr) { failures++; return; }
    argument out{out_s};
    std::fill_n(out.data(), out_s.bytes(), char(0x55));
    reinterpret_cast<void (*)(const void*, void*)>(f)(xin.data(), out.data());
    auto got = relayout(out, y->get_shape()).to_vector<double>();
    auto w   = want.to_vector<double>();
    std::size_t bad = 0;
    for(std::size_t i = 0; i < w.size(); i++)
        if(not(std::abs(got[i] - w[i]) <= tol * (1 + std::abs(w[i]))))
            if(bad++ < 5)
                std::cout << "  " << name << " [" << i << "] got " << got[i] << " ref " << w[i] << "\n";
    if(bad) { failures++; std::cout << name << ": " << bad << " differ (" << k->name << ")\n"; return; }
    std::cout << name << ": ok (" << k->name << ", " << w.size() << " elements)\n";
}

/// gather(data, indices) along `axis` (indices drawn in [-len, len), negative ones counting from
/// the end) against ref, bit for bit; `skew` bytes off 16-byte alignment for the output (the
/// element loop) or none (the vector loop where the rows allow).
void run_gather_case(const std::string& name, const shape& data_s, const shape& ind_s, std::int64_t axis,
                     std::size_t skew)
{
    program p;
    auto* m = p.get_main_module();
    auto d  = m->add_parameter("d", data_s);
    auto i  = m->add_parameter("i", ind_s);
    auto y  = m->add_instruction(make_op("gather", {{"axis", axis}}), d, i);
    m->add_return({y});
    auto da  = generate_argument(data_s, 5);
    auto len = static_cast<std::int64_t>(data_s.lens()[axis]);
    argument ia{ind_s};
    auto* iv = reinterpret_cast<std::int64_t*>(ia.data());
    for(std::size_t k = 0; k < ind_s.elements(); k++)
        iv[k] = static_cast<std::int64_t>((k * 7919) % (2 * len)) - len;
    auto ref = p;
    ref.compile(ref::target{});
    auto want = ref.eval({{"d", da}, {"i", ia}}).front();
    auto k    = gpu::generate_for(y);
    if(not k) { std::cout << name << ": NOT GENERATED\n"; failures++; return; }
    void* f = load_kernel(name, *k);
    if(f == nullptr) { failures++; return; }
    const auto& ys = y->get_shape();
    std::vector<char> raw(ys.bytes() + 64, char(0x55));
    char* out = reinterpret_cast<char*>((reinterpret_cast<std::uintptr_t>(raw.data()) + 15) / 16 * 16 + skew);
    std::vector<char> draw(data_s.bytes() + 64);
    char* dp = reinterpret_cast<char*>((reinterpret_cast<std::uintptr_t>(draw.data()) + 15) / 16 * 16);
    std::memcpy(dp, da.data(), data_s.bytes());
    reinterpret_cast<void (*)(const void*, const void*, void*)>(f)(dp, ia.data(), out);
    bool vector_path = k->source.find("uint4") != std::string::npos;
    if(std::memcmp(out, want.data(), ys.bytes()) != 0)
    {
        failures++;
        std::cout << name << ": differs from ref (" << (vector_path ? "vector kernel" : "element kernel") << ")\n";
        return;
    }
    std::cout << name << ": ok (" << (vector_path ? (skew == 0 ? "vector loop" : "element loop of the vector kernel")
                                                  : "element kernel")
              << ", " << ys.elements() << " elements)\n";
}

int main(int argc, char** argv)
{
    if(argc > 1)
        work = argv[1];
    std::system(("mkdir -p " + work).c_str());
    auto h = shape::half_type;
    auto maxpool = make_op("pooling", {{"mode", "max"}, {"lengths", {3, 3}}, {"stride", {2, 2}}, {"padding", {1, 1}}});
    auto avgpool = make_op("pooling", {{"mode", "average"}, {"lengths", {2, 3}}, {"stride", {2, 1}}, {"padding", {1, 1}}});
    auto gavg    = make_op("pooling", {{"mode", "average"}, {"global", true}});
    for(bool on : {false, true})
    {
        std::string o = on ? "_nhwc_out" : "_std_out";
        run_case("maxpool_nhwc_in" + o, maxpool, shape{h, {2, 16, 13, 11}}, true, on, 0);
        run_case("avgpool_nhwc_in" + o, avgpool, shape{h, {2, 16, 9, 8}}, true, on, 1e-3);
        run_case("maxpool_std_in" + o, maxpool, shape{h, {2, 16, 13, 11}}, false, on, 0);
    }
    // Global average pooling of an NHWC input with rows enough for one thread a row.
    run_case("global_avgpool_nhwc_in", gavg, shape{h, {4, 2048, 7, 7}}, true, false, 1e-3);
    // layernorm over the last axis (rows of <= 16: one thread a row), float and half.
    auto ln = make_op("layernorm", {{"epsilon", 1e-5f}});
    run_case("layernorm_float", ln, shape{shape::float_type, {6, 7, 12}}, false, false, 1e-5);
    run_case("layernorm_half", ln, shape{h, {4, 3, 16}}, false, false, 2e-3);
    // The stem's max pool with rows enough for one thread a row (nested window loops), padded
    // borders included, and an average pool the same way.
    run_case("maxpool_nhwc_one_thread_a_row", maxpool, shape{h, {2, 64, 17, 15}}, true, true, 0);
    run_case("avgpool_nhwc_one_thread_a_row", avgpool, shape{h, {2, 64, 17, 15}}, true, false, 1e-3);
    // The stem's channel padding: 3 channels -> 8, NHWC output; and a standard one.
    auto pad = make_op("pad", {{"pads", std::vector<std::int64_t>{0, 0, 0, 0, 0, 5, 0, 0}}});
    run_case("pad_channels_nhwc_out", pad, shape{h, {2, 3, 7, 5}}, false, true, 0);
    run_case("pad_channels_nhwc_in_out", pad, shape{h, {2, 3, 7, 5}}, true, true, 0);
    run_case("pad_channels_std_out", pad, shape{h, {2, 3, 7, 5}}, false, false, 0);
    // Gathers: an embedding table's rows (half, whole 16-byte vectors), the same misaligned,
    // rows of 12 halves (no vectors), along axis 1, and int64 rows with an index tensor of rank 2.
    auto i64 = shape::int64_type;
    for(std::size_t skew : {0, 2})
        run_gather_case("gather_embedding_skew" + std::to_string(skew), shape{h, {50, 64}}, shape{i64, {3, 7}}, 0,
                        skew);
    run_gather_case("gather_rows_of_12", shape{h, {20, 12}}, shape{i64, {9}}, 0, 0);
    run_gather_case("gather_axis1", shape{shape::float_type, {3, 10, 8}}, shape{i64, {2, 2}}, 1, 0);
    run_gather_case("gather_int64_rows", shape{i64, {6, 4}}, shape{i64, {5}}, 0, 0);
    std::cout << (failures ? "FAILED: " : "all ok: ") << failures << " failure(s)\n";
    return failures ? 1 : 0;
}
