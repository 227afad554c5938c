// pointwise_emulate: the generated pointwise kernels on bool and integer values (conversions,
// integer arithmetic, comparisons, logic, where) and on float and half, checked bit for bit
// against ref WITHOUT a GPU. Half chains are compared with ref running float_through() of the
// program (one fused kernel's ops): their half ops computed in float, rounded to half where the
// generator must round (stored, explicit converts to half, the inputs of ops discontinuous in
// them), a half division by a constant a multiplication by its float reciprocal; codegen.hpp
// states that rule, written here again on ref's ops (the float_through_* cases fail for a
// generator that rounds after every op or never before a comparison, floor, convert to an
// integer, isinf or pow's exponent). Each kernel's CUDA source (codegen.cpp) is compiled by the host's g++ with a small shim for
// the CUDA built-ins (half through _Float16 instead of PTX cvt) and run as grids of 1, 3 and
// kernel_source::elements threads (one a block, called in turn). It checks the generator's
// semantics (safe_cast, wrapping, division by zero), not NVRTC or the device:
// gpu_pointwise_typed_test does that on the device.
// The float and half vector path (8 halves or 4 floats a thread, 16-byte words) runs on views
// (run_view_case: packed NHWC, scalar / per-column / NHWC per-channel / NCHW per-channel
// broadcasts, slices, mixed half and float), bit for bit against ref (float_through) on both of the kernel's paths
// (all pointers 16-byte aligned: the vector path; each vector pointer in turn skewed by one
// element: the scalar loop); the shim counts vector iterations and any 16-byte word read or
// written off its alignment (a fault on the device).
// Build and run (from the repository root, after build-gpu's libmigraphx; or build-gpu-pw's):
//   g++ -std=c++20 -O1 -Iinclude -Isrc -DMIGRAPHX_HAVE_GPU=1 tools/gpu/pointwise_emulate.cpp
//       -o build-gpu/pointwise_emulate -Lbuild-gpu/src -lmigraphx -Wl,-rpath,$PWD/build-gpu/src -ldl
//   build-gpu/pointwise_emulate [WORK_DIR [NAME_PART]]   (default /tmp/migx-pointwise-emulate; only the
//       cases whose name contains NAME_PART; exit 1 on a mismatch)
#include <migraphx/program.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/literal.hpp>
#include <migraphx/instruction.hpp>
#include <migraphx/ref/target.hpp>
#include "passes/pass_manager.hpp"
#include "passes/fuse_pointwise.hpp"
#include "passes/dead_code_elimination.hpp"
#include "targets/gpu/codegen.hpp"
#include <dlfcn.h>
#include <cstdint>
#include <functional>
#include <optional>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <limits>
#include <unordered_map>
#include <algorithm>
using namespace migraphx;
const char* shim = R"(
#include <cmath>
#include <cstring>
#include <math.h>
#define __device__
#define __forceinline__ inline
#define __global__
typedef unsigned short migx_half;
static inline float h2f(migx_half h) { _Float16 f; std::memcpy(&f, &h, 2); return (float)f; }
static inline migx_half f2h(float x) { _Float16 f = (_Float16)x; migx_half h; std::memcpy(&h, &f, 2); return h; }
static inline float rh(float f) { return h2f(f2h(f)); }
static inline float __int_as_float(unsigned x) { float f; std::memcpy(&f, &x, 4); return f; }
static inline float __uint_as_float(unsigned x) { float f; std::memcpy(&f, &x, 4); return f; }
static inline unsigned __float_as_uint(float f) { unsigned x; std::memcpy(&x, &f, 4); return x; }
static inline float migx_max(float a, float b) { return isnan(b) ? b : (a < b ? b : a); }
static inline float migx_min(float a, float b) { return isnan(b) ? b : (b < a ? b : a); }
static inline float migx_sign(float x) { return isnan(x) ? x : (x > 0.f ? 1.f : (x < 0.f ? -1.f : 0.f)); }
static inline float migx_mod(float a, float b) { float r = fmodf(a, b); if(r != 0.f && ((r < 0.f) != (b < 0.f))) r += b; return r; }
static inline float migx_clamp01(float y) { return y < 0.f ? 0.f : (y > 1.f ? 1.f : y); }
struct migx_dim { unsigned x; };
static migx_dim blockIdx{0}, blockDim{1}, gridDim{1}, threadIdx{0};
extern "C" void migx_set_grid(unsigned b, unsigned g) { blockIdx.x = b; gridDim.x = g; }
extern "C" { unsigned long long migx_vector_iterations = 0, migx_misaligned = 0; }
// CUDA's vector words; a copy from or to an address off their alignment (a fault on the device)
// is counted
template <unsigned N, unsigned A> struct alignas(A) migx_word
{
    unsigned w[N];
    migx_word& operator=(const migx_word& o)
    {
        if(reinterpret_cast<unsigned long long>(this) % A != 0 || reinterpret_cast<unsigned long long>(&o) % A != 0)
            migx_misaligned++;
        std::memcpy(w, o.w, sizeof(w));
        return *this;
    }
};
typedef migx_word<4, 16> uint4;
)";
int failures = 0;
std::string work = "/tmp/migx-pointwise-emulate";
std::string only; // run the cases whose name contains this

/// A generated kernel compiled for the host: the shim's grid (blockIdx.x, gridDim.x; blockDim 1)
/// is set before each call, and the vector path counts its iterations.
struct host_kernel
{
    void* f = nullptr;
    void (*set_grid)(unsigned, unsigned) = nullptr;
    unsigned long long* vector_iterations = nullptr;
    unsigned long long* misaligned = nullptr;
    bool has_vector = false;
};
std::optional<host_kernel> compile_host(const std::string& name, const gpu::kernel_source& k)
{
    auto src = k.source;
    auto pre = gpu::detail::prelude();
    auto pos = src.find(pre);
    src.replace(pos, pre.size(), shim);
    host_kernel h;
    auto v = src.find("const idx_t i = q * ");
    h.has_vector = v != std::string::npos;
    if(h.has_vector)
        src.insert(v, "migx_vector_iterations++; ");
    std::ofstream((work + "/" + name + ".cpp").c_str()) << src;
    auto cmd = "g++ -O1 -shared -fPIC -w -o " + work + "/" + name + ".so " + work + "/" + name + ".cpp";
    if(std::system(cmd.c_str()) != 0) { std::cout << name << ": host compile failed\n"; failures++; return std::nullopt; }
    void* lib = dlopen((work + "/" + name + ".so").c_str(), RTLD_NOW | RTLD_LOCAL);
    h.f = lib != nullptr ? dlsym(lib, k.name.c_str()) : nullptr;
    h.set_grid = lib != nullptr ? reinterpret_cast<void (*)(unsigned, unsigned)>(dlsym(lib, "migx_set_grid")) : nullptr;
    h.vector_iterations = lib != nullptr ? static_cast<unsigned long long*>(dlsym(lib, "migx_vector_iterations")) : nullptr;
    h.misaligned = lib != nullptr ? static_cast<unsigned long long*>(dlsym(lib, "migx_misaligned")) : nullptr;
    if(h.f == nullptr or h.set_grid == nullptr or h.vector_iterations == nullptr or h.misaligned == nullptr) { std::cout << name << ": cannot load the kernel\n"; failures++; return std::nullopt; }
    return h;
}
/// Runs the kernel as `grid` threads (each a block of one), as a launch of that many would.
bool call(const std::string& name, const host_kernel& h, const std::vector<const void*>& ptrs, void* o, std::size_t grid)
{
    *h.vector_iterations = 0;
    *h.misaligned        = 0;
    for(std::size_t b = 0; b < grid; b++)
    {
        h.set_grid(static_cast<unsigned>(b), static_cast<unsigned>(grid));
        auto* f = h.f;
        switch(ptrs.size()) {
        case 1: reinterpret_cast<void(*)(const void*, void*)>(f)(ptrs[0], o); break;
        case 2: reinterpret_cast<void(*)(const void*, const void*, void*)>(f)(ptrs[0], ptrs[1], o); break;
        case 3: reinterpret_cast<void(*)(const void*, const void*, const void*, void*)>(f)(ptrs[0], ptrs[1], ptrs[2], o); break;
        case 4: reinterpret_cast<void(*)(const void*, const void*, const void*, const void*, void*)>(f)(ptrs[0], ptrs[1], ptrs[2], ptrs[3], o); break;
        case 5: reinterpret_cast<void(*)(const void*, const void*, const void*, const void*, const void*, void*)>(f)(ptrs[0], ptrs[1], ptrs[2], ptrs[3], ptrs[4], o); break;
        default: std::cout << name << ": too many inputs\n"; failures++; return false;
        }
    }
    if(*h.misaligned != 0)
    {
        std::cout << name << ": " << *h.misaligned << " vector loads or stores off their alignment\n";
        failures++;
        return false;
    }
    return true;
}
/// got (shape gs) equals want (shape ws) element by element, bit for bit (NaNs as NaNs), at
/// every index of their common lens; prints the first differences.
bool same_elements(const std::string& name, const shape& gs, const char* got, const shape& ws, const char* want)
{
    std::size_t bad = 0, n = gs.elements(), bytes = gs.type_size();
    std::vector<std::size_t> idx(gs.lens().size());
    for(std::size_t e = 0; e < n; e++)
    {
        auto r = e;
        for(std::size_t d = idx.size(); d-- > 0;) { idx[d] = r % gs.lens()[d]; r /= gs.lens()[d]; }
        const char* g = got + gs.index(idx) * bytes;
        const char* w = want + ws.index(idx) * bytes;
        if(std::memcmp(g, w, bytes) == 0)
            continue;
        auto as_double = [&](const char* x) {
            double d = 0;
            shape{gs.type()}.visit_type([&](auto tag) { using T = typename decltype(tag)::type; T v; std::memcpy(&v, x, sizeof(T)); d = static_cast<double>(v); });
            return d;
        };
        double gd = as_double(g), wd = as_double(w);
        if(std::isnan(gd) and std::isnan(wd))
            continue;
        if(bad++ < 5) std::cout << "  " << name << " [" << e << "] got " << gd << " want " << wd << "\n";
    }
    if(bad) std::cout << name << ": " << bad << " of " << n << " differ\n";
    return bad == 0;
}
/// The ops that read a half value computed in float as it is (continuous in it: no rounding
/// could flip a discrete result); every other op reads its half inputs rounded to half. pow:
/// in its base only. convert: to float or half only (to an integer or bool is discontinuous).
bool continuous_in(const std::string& op, std::size_t arg, shape::type_t result)
{
    static const std::vector<std::string> ops = {
        "add", "sub", "mul", "div", "max", "min", "sqdiff", "prelu", "clip", "abs", "exp", "log", "sqrt", "rsqrt",
        "tanh", "sin", "cos", "tan", "atan", "sinh", "cosh", "asinh", "erf", "neg", "relu", "recip", "sigmoid", "elu",
        "celu", "selu", "softplus", "softsign", "hardswish", "hardsigmoid", "leaky_relu", "identity", "where"};
    if(op == "pow")
        return arg == 0;
    if(op == "convert")
        return result == shape::float_type or result == shape::half_type;
    return std::find(ops.begin(), ops.end(), op) != ops.end();
}
/// The float value of a one-element float or half literal (maybe broadcast), if x is one.
std::optional<float> constant_of(instruction_ref x)
{
    while(x->name() == "broadcast" or x->name() == "multibroadcast")
        x = x->inputs().front();
    auto t = x->get_shape().type();
    if(x->name() != "@literal" or x->get_shape().elements() != 1 or (t != shape::float_type and t != shape::half_type))
        return std::nullopt;
    return x->get_literal().to_vector<float>().front();
}
/// p's main module with its half values computed in float ("float-through", codegen.hpp): every
/// half parameter and literal converted to float, each op on them computed in float, and a value
/// rounded to half (convert to half and back) where the generator rounds it: when returned, at a
/// convert to half, and as the input of an op not continuous_in it; a half division by a
/// constant becomes a multiplication by the float reciprocal. Programs without half values are
/// returned as they are.
program float_through(const program& p)
{
    const auto* m = p.get_main_module();
    bool any = false;
    for(auto it = m->begin(); it != m->end(); ++it)
        any = any or (it->name() != "@return" and it->get_shape().type() == shape::half_type);
    if(not any)
        return p;
    program r;
    auto* n = r.get_main_module();
    // each value: its instruction in n, whether it was half (now held in float) and whether it
    // may not be a half value
    struct val { instruction_ref v; bool half = false, unrounded = false; };
    std::unordered_map<const instruction*, val> map;
    auto to = [&](instruction_ref x, shape::type_t t) { return n->add_instruction(make_op("convert", {{"target_type", t}}), x); };
    auto rounded = [&](const val& x) { return x.half and x.unrounded ? to(to(x.v, shape::half_type), shape::float_type) : x.v; };
    for(auto it = m->begin(); it != m->end(); ++it)
    {
        const auto& name = it->name();
        bool half = it->get_shape().type() == shape::half_type;
        if(name == "@param" or name == "@literal")
        {
            auto x = name == "@param" ? n->add_parameter(it->get_operator().to_value().at("parameter").get_string(), it->get_shape())
                                      : n->add_literal(it->get_literal());
            map[&*it] = {half ? to(x, shape::float_type) : x, half, false};
            continue;
        }
        std::vector<instruction_ref> args;
        for(std::size_t a = 0; a < it->inputs().size(); a++)
        {
            const auto& x = map.at(&*it->inputs()[a]);
            args.push_back(name == "@return" ? (x.half ? to(x.v, shape::half_type) : x.v)
                           : (name == "broadcast" or name == "multibroadcast" or continuous_in(name, a, it->get_shape().type())) ? x.v : rounded(x));
        }
        if(name == "@return")
        {
            n->add_return(args);
            continue;
        }
        if(name == "broadcast" or name == "multibroadcast")
        {
            auto x = map.at(&*it->inputs().front());
            map[&*it] = {n->add_instruction(it->get_operator(), args), x.half, x.unrounded};
            continue;
        }
        auto from = it->inputs().front()->get_shape().type();
        if(name == "convert" and half)
        {
            // half to half keeps the value; anything else to half rounds
            auto x = map.at(&*it->inputs().front());
            map[&*it] = from == shape::half_type ? x : val{to(to(args[0], shape::half_type), shape::float_type), true, false};
            continue;
        }
        auto c = it->inputs().size() == 2 ? constant_of(it->inputs()[1]) : std::nullopt;
        if(name == "div" and half and c)
        {
            auto rc = n->add_instruction(make_op("multibroadcast", {{"out_lens", it->get_shape().lens()}}),
                                         n->add_literal(literal{shape{shape::float_type}, std::vector<float>{1.f / *c}}));
            map[&*it] = {n->add_instruction(make_op("mul"), args[0], rc), true, true};
            continue;
        }
        map[&*it] = {n->add_instruction(it->get_operator(), args), half, half};
    }
    return r;
}
/// Element thread counts a launch of k may get: one thread (all by the grid-stride loop), a few,
/// and k.elements (what gpu::code_object launches, before its cap).
std::vector<std::size_t> grids(const gpu::kernel_source& k)
{
    std::vector<std::size_t> g{1, 3};
    if(k.elements > 3)
        g.push_back(k.elements);
    return g;
}
void run_case(const std::string& name, program p, const parameter_map& in)
{
    if(name.find(only) == std::string::npos)
        return;
    auto ref = float_through(p);
    ref.compile(ref::target{});
    auto want = ref.eval(in).front();
    auto q = p;
    run_passes(q, {fuse_pointwise{}, dead_code_elimination{}});
    auto* m = q.get_main_module();
    instruction_ref pw = m->end();
    for(auto it = m->begin(); it != m->end(); ++it) if(it->name() == "pointwise") pw = it;
    if(pw == m->end()) { std::cout << name << ": no pointwise\n"; failures++; return; }
    std::vector<shape> shapes; std::vector<const void*> ptrs;
    for(auto x : pw->inputs()) {
        shapes.push_back(x->get_shape());
        auto r = x;
        while(r->name() != "@param" and r->name() != "@literal") r = r->inputs().front();
        if(r->name() == "@literal") ptrs.push_back(r->get_literal().data());
        else ptrs.push_back(in.at(r->get_operator().to_value().at("parameter").get_string()).data());
    }
    auto k = gpu::generate_pointwise(*pw->module_inputs().front(), shapes, pw->get_shape());
    if(not k) { std::cout << name << ": NOT GENERATED\n"; failures++; return; }
    auto h = compile_host(name, *k);
    if(not h) return;
    argument out{pw->get_shape()};
    for(auto g : grids(*k))
    {
        std::fill_n(out.data(), out.get_shape().bytes(), char(0x55));
        if(not call(name, *h, ptrs, out.data(), g)) return;
        if(not same_elements(name + " grid " + std::to_string(g), out.get_shape(), out.data(), want.get_shape(), want.data())) { failures++; return; }
    }
    std::cout << name << ": ok (" << k->name << (h->has_vector ? ", vector path" : "") << ", " << out.get_shape().elements() << " elements)\n";
}

/// A buffer of `bytes` bytes at `skew` bytes past a 64-byte boundary (skew 0: 16-byte aligned).
struct skewed
{
    std::vector<char> mem;
    char* p = nullptr;
    skewed(std::size_t bytes, std::size_t skew) : mem(bytes + 128)
    {
        auto a = (reinterpret_cast<std::uintptr_t>(mem.data()) + 63) & ~std::uintptr_t{63};
        p = reinterpret_cast<char*>(a) + skew;
    }
};

/// A pointwise kernel over views: input k is a buffer of shapes[k].element_space() values read
/// at shapes[k]'s strides (packed in any layout, broadcast, sliced, transposed), the output at
/// out's strides (packed). `body` adds the ops over the parameters to a module. Checks, for every
/// grid of grids(): with all pointers 16-byte aligned, the vector path runs (if `vector`) over
/// all elements and matches ref bit for bit; with each vector pointer in turn (and the output)
/// skewed by one element, the scalar loop runs alone and gives the same bits (a skewed pointer
/// of an input read one value a vector keeps the vector path).
using body_fn = std::function<instruction_ref(module*, const std::vector<instruction_ref>&)>;
void run_view_case(const std::string& name, const std::vector<shape>& shapes, const shape& out, const body_fn& body, bool vector)
{
    if(name.find(only) == std::string::npos)
        return;
    module sub("main:pointwise0");
    std::vector<instruction_ref> ps;
    for(std::size_t k = 0; k < shapes.size(); k++)
        ps.push_back(sub.add_parameter("x" + std::to_string(k), shape{shapes[k].type(), shapes[k].lens()}));
    sub.add_return({body(&sub, ps)});
    auto k = gpu::generate_pointwise(sub, shapes, out);
    if(not k) { std::cout << name << ": NOT GENERATED\n"; failures++; return; }
    auto h = compile_host(name, *k);
    if(not h) return;
    if(h->has_vector != vector) { std::cout << name << ": vector path " << (h->has_vector ? "taken" : "missing") << "\n"; failures++; return; }
    std::size_t width = vector ? out.elements() / k->elements : 1;
    // inputs: random values in [-8, 8) (halves rounded), a NaN and infinities among them
    std::vector<argument> data;
    for(std::size_t i = 0; i < shapes.size(); i++)
    {
        argument a = generate_argument(shape{shapes[i].type(), {shapes[i].element_space()}}, 11 + i);
        a.visit([&](auto v) {
            using T = typename decltype(v)::value_type;
            if constexpr(std::is_floating_point<T>{} or std::is_same<T, half>{})
                for(std::size_t e = 0; e < v.size(); e++)
                {
                    v[e] = static_cast<T>(static_cast<float>(v[e]) * 8.f);
                    if(e % 37 == 5) v[e] = static_cast<T>(std::numeric_limits<float>::quiet_NaN());
                    if(e % 41 == 7) v[e] = static_cast<T>((e % 2 ? -1 : 1) * std::numeric_limits<float>::infinity());
                }
        });
        data.push_back(a);
    }
    // the reference: the same ops in a ref program whose parameters are the views
    program rp;
    auto* rm = rp.get_main_module();
    std::vector<instruction_ref> rps;
    parameter_map in;
    for(std::size_t i = 0; i < shapes.size(); i++)
    {
        rps.push_back(rm->add_parameter("x" + std::to_string(i), shapes[i]));
        in["x" + std::to_string(i)] = argument{shapes[i], data[i].data()};
    }
    rm->add_return({body(rm, rps)});
    rp = float_through(rp);
    rp.compile(ref::target{});
    auto want = rp.eval(in).front();
    // skew -1: all aligned; k: input k (or the output, k == inputs) one element off
    for(std::size_t skew = 0; skew <= shapes.size() + 1; skew++)
    {
        std::size_t off = skew == 0 ? 0 : skew - 1;
        // the pointers the vector path checks: vector ones, not those of inputs it reads one
        // value of (a splat, which stays correct when skewed)
        auto checked = [&](std::size_t i) {
            if(i == shapes.size())
                return true;
            auto c = k->source.find("if(((");
            auto e = k->source.find('\n', c);
            return c != std::string::npos and k->source.substr(c, e - c).find("(const void*)x" + std::to_string(i) + " |") != std::string::npos;
        };
        bool vector_run = vector and (skew == 0 or not checked(off));
        std::vector<skewed> bufs;
        std::vector<const void*> ptrs;
        for(std::size_t i = 0; i < shapes.size(); i++)
        {
            bufs.emplace_back(data[i].get_shape().bytes(), skew > 0 and off == i ? shapes[i].type_size() : 0);
            std::memcpy(bufs.back().p, data[i].data(), data[i].get_shape().bytes());
            ptrs.push_back(bufs.back().p);
        }
        skewed o(out.bytes(), skew > 0 and off == shapes.size() ? out.type_size() : 0);
        for(auto g : grids(*k))
        {
            std::fill_n(o.p, out.bytes(), char(0x55));
            if(not call(name, *h, ptrs, o.p, g)) return;
            auto expect_iters = vector_run ? out.elements() / width : 0;
            if(*h->vector_iterations != expect_iters)
            {
                std::cout << name << " skew " << skew << " grid " << g << ": " << *h->vector_iterations << " vector iterations, want " << expect_iters << "\n";
                failures++;
                return;
            }
            if(not same_elements(name + " skew " + std::to_string(skew) + " grid " + std::to_string(g), out, o.p, want.get_shape(), want.data())) { failures++; return; }
        }
    }
    std::cout << name << ": ok (" << k->name << (vector ? ", vector path of " + std::to_string(width) : ", scalar") << ", " << out.elements() << " elements)\n";
}
template <class T>
instruction_ref scalar(module* m, shape::type_t t, T v, const std::vector<std::size_t>& lens)
{ return m->add_instruction(make_op("multibroadcast", {{"out_lens", lens}}), m->add_literal(literal{shape{t}, std::vector<T>{v}})); }
instruction_ref op(module* m, const std::string& n, std::vector<instruction_ref> a, const value& v = {}) { return m->add_instruction(make_op(n, v), a); }
instruction_ref cv(module* m, instruction_ref x, shape::type_t t) { return op(m, "convert", {x}, {{"target_type", t}}); }
int main(int argc, char** argv)
{
    if(argc > 1)
        work = argv[1];
    if(argc > 2)
        only = argv[2];
    std::system(("mkdir -p " + work).c_str());
    const float inf = std::numeric_limits<float>::infinity();
    std::vector<float> v = {std::numeric_limits<float>::quiet_NaN(), inf, -inf, 1e10f, -1e10f, 2.5f, -2.5f,
                            127.9f, 128.f, -128.f, -128.5f, -129.f, 255.5f, 256.f, 0.f, -0.f, 3e9f, -3e9f,
                            2147483520.f, 9.2e18f, -9.3e18f, 65504.f, 1e5f, 0.4f, 4294967040.f, 1.8e19f, 65519.f, 65520.f};
    for(auto ft : {shape::float_type, shape::half_type})
        for(auto t : {shape::int8_type, shape::uint8_type, shape::int16_type, shape::uint16_type, shape::int32_type, shape::uint32_type, shape::int64_type,
                      shape::uint64_type, shape::bool_type, shape::half_type, shape::float_type, shape::fp8e4m3fn_type})
        {
            program p; auto* m = p.get_main_module();
            shape s{ft, {v.size()}};
            auto x = m->add_parameter("x", s);
            m->add_return({cv(m, op(m, "neg", {x}), t)});
            parameter_map in; in["x"] = literal{s, v}.get_argument();
            run_case(std::string("cvt_") + shape{ft}.type_string() + "_to_" + shape{t}.type_string(), p, in);
        }
    // ints to others
    for(auto it : {shape::int64_type, shape::int32_type, shape::uint8_type, shape::bool_type})
        for(auto t : {shape::float_type, shape::half_type, shape::int8_type, shape::uint32_type, shape::bool_type, shape::int64_type})
        {
            program p; auto* m = p.get_main_module();
            shape s{it, {64}};
            auto x = m->add_parameter("x", s);
            instruction_ref y = x;
            if(it != shape::bool_type) y = op(m, "mul", {x, scalar(m, it, std::int64_t{1099511627777}, {64})});
            m->add_return({cv(m, y, t)});
            parameter_map in; in["x"] = generate_argument(s, 3);
            run_case(std::string("cvt_") + shape{it}.type_string() + "_to_" + shape{t}.type_string(), p, in);
        }
    // fp8e4m3fn: every encoding in, to each type out; fp8 arithmetic rounded at every op (as ref
    // stores each op's result); quantize_fp8's cast, x / s + 0 to fp8, over a sweep of magnitudes
    {
        std::vector<fp8e4m3fn> all;
        for(int b = 0; b < 256; b++)
            all.push_back(fp8e4m3fn::from_bits(static_cast<std::uint8_t>(b)));
        shape s8{shape::fp8e4m3fn_type, {256}};
        for(auto t : {shape::float_type, shape::half_type, shape::int8_type, shape::int32_type, shape::bool_type, shape::fp8e4m3fn_type})
        {
            program p; auto* m = p.get_main_module();
            auto x = m->add_parameter("x", s8);
            m->add_return({cv(m, x, t)});
            parameter_map in; in["x"] = literal{s8, all}.get_argument();
            run_case(std::string("cvt_fp8e4m3fn_type_to_") + shape{t}.type_string(), p, in);
        }
        {
            program p; auto* m = p.get_main_module();
            auto x = m->add_parameter("x", s8);
            auto y = m->add_parameter("y", s8);
            auto r = op(m, "mul", {op(m, "add", {x, y}), scalar(m, shape::fp8e4m3fn_type, 1.3, {256})});
            m->add_return({cv(m, op(m, "sub", {r, x}), shape::float_type)});
            std::vector<fp8e4m3fn> rev(all.rbegin(), all.rend());
            parameter_map in; in["x"] = literal{s8, all}.get_argument(); in["y"] = literal{s8, rev}.get_argument();
            run_case("fp8_arithmetic_rounds_at_each_op", p, in);
        }
        std::vector<float> sweep;
        for(int k = -40; k < 40; k++)
            for(float f : {1.0f, 1.0625f, 1.1875f, 1.3f, 1.9999f})
                sweep.insert(sweep.end(), {std::ldexp(f, k / 2), -std::ldexp(f, k / 2)});
        for(auto ft : {shape::float_type, shape::half_type})
        {
            program p; auto* m = p.get_main_module();
            shape s{ft, {sweep.size()}};
            auto x = m->add_parameter("x", s);
            auto q = op(m, "add", {op(m, "div", {x, scalar(m, ft, 0.37, {sweep.size()})}), scalar(m, ft, 0.0, {sweep.size()})});
            m->add_return({cv(m, q, shape::fp8e4m3fn_type)});
            parameter_map in; in["x"] = literal{s, sweep}.get_argument();
            run_case(std::string("quantize_fp8_from_") + shape{ft}.type_string(), p, in);
        }
    }
    // integer arithmetic
    for(auto t : {shape::int32_type, shape::int64_type, shape::uint8_type, shape::int8_type, shape::uint64_type, shape::int16_type})
    {
        std::vector<std::size_t> lens{7, 7};
        std::int64_t top = t == shape::int32_type ? 2147483647 : t == shape::int64_type ? std::numeric_limits<std::int64_t>::max() : t == shape::uint8_type ? 255 : 127;
        for(std::string o : {"add", "sub", "mul", "div", "mod", "fmod", "max", "min"})
        {
            program p; auto* m = p.get_main_module();
            auto a = m->add_parameter("a", shape{t, lens});
            auto b = m->add_parameter("b", shape{t, lens});
            auto hi = op(m, "add", {a, scalar(m, t, top, lens)});
            auto r = op(m, o, {hi, b});
            auto r2 = op(m, o, {a, b});
            auto r3 = op(m, "abs", {op(m, "neg", {op(m, "relu", {op(m, "add", {r, r2})})})});
            m->add_return({op(m, "sub", {r3, op(m, "neg", {r})})});
            parameter_map in;
            // a x b over [-3,3]^2 (or [0,6]^2)
            argument aa{shape{t, lens}}, bb{shape{t, lens}};
            aa.visit([&](auto va) { using T = typename decltype(va)::value_type; for(int i = 0; i < 49; i++) va[i] = static_cast<T>(i / 7 - (std::is_signed<T>{} ? 3 : 0)); });
            bb.visit([&](auto vb) { using T = typename decltype(vb)::value_type; for(int i = 0; i < 49; i++) vb[i] = static_cast<T>(i % 7 - (std::is_signed<T>{} ? 3 : 0)); });
            in["a"] = aa; in["b"] = bb;
            run_case("int_" + o + "_" + shape{t}.type_string(), p, in);
        }
    }
    // comparisons + logic + where on float/half/int
    for(auto t : {shape::float_type, shape::half_type, shape::int64_type, shape::int32_type})
    {
        std::vector<std::size_t> lens{3, 40};
        program p; auto* m = p.get_main_module();
        auto x = m->add_parameter("x", shape{t, lens});
        auto y = m->add_parameter("y", shape{t, lens});
        auto c = m->add_parameter("c", shape{shape::bool_type, {40}});
        auto cb = m->add_instruction(make_op("multibroadcast", {{"out_lens", lens}}), c);
        auto eq = op(m, "equal", {x, y});
        auto gt = op(m, "greater", {x, y});
        auto ls = op(m, "less", {x, y});
        auto l1 = op(m, "logical_or", {op(m, "logical_and", {eq, cb}), op(m, "not", {gt})});
        auto l2 = op(m, "logical_xor", {l1, op(m, "not", {x})});
        auto l3 = op(m, "bitwise_and", {l2, op(m, "not", {ls})});
        auto w = op(m, "where", {l3, x, op(m, "where", {cb, y, scalar(m, t, -3.0, lens)})});
        m->add_return({w});
        parameter_map in;
        in["x"] = generate_argument(shape{t, lens}, 1); in["y"] = generate_argument(shape{t, lens}, 2); in["c"] = generate_argument(shape{shape::bool_type, {40}}, 3);
        if(t == shape::float_type or t == shape::half_type) { // make equal and zero values appear
            auto f = [](argument& a) { a.visit([](auto va) { using T = typename decltype(va)::value_type; for(std::size_t i = 0; i < va.size(); i++) va[i] = static_cast<T>(std::floor(static_cast<float>(va[i]) * 3)); }); };
            f(in["x"]); f(in["y"]);
        }
        run_case("logic_where_" + shape{t}.type_string(), p, in);
        // bool output
        program q; auto* n = q.get_main_module();
        auto qx = n->add_parameter("x", shape{t, lens});
        auto qy = n->add_parameter("y", shape{t, lens});
        n->add_return({op(n, "logical_or", {op(n, "isnan", {op(n, "less", {qx, qy})}) , op(n, "equal", {qx, qy})})});
        if(t == shape::float_type or t == shape::half_type) {
            program r; auto* o = r.get_main_module();
            auto rx = o->add_parameter("x", shape{t, lens});
            auto ry = o->add_parameter("y", shape{t, lens});
            o->add_return({op(o, "logical_or", {op(o, "isinf", {op(o, "div", {rx, ry})}), op(o, "isnan", {op(o, "div", {ry, rx})})})});
            run_case("isnan_isinf_" + shape{t}.type_string(), r, in);
        }
    }
    // The vector path (codegen.cpp plan_vector) on views, fp32 (4 a thread) and fp16 (8), and
    // where it must not be taken: each case also runs with each pointer skewed off 16 bytes.
    for(auto t : {shape::float_type, shape::half_type})
    {
        std::size_t w = t == shape::half_type ? 8 : 4;
        auto ts = std::string("_") + shape{t}.type_string();
        auto lit = [&](module* m, float v, const std::vector<std::size_t>& lens) {
            return m->add_instruction(make_op("multibroadcast", {{"out_lens", lens}}), m->add_literal(literal{shape{t}, std::vector<float>{v}}));
        };
        // BERT's bias + erf GELU: a per-column bias of a row-major tensor
        std::vector<std::size_t> g{4, 6, 64};
        run_view_case("gelu_row_bias" + ts, {shape{t, g}, shape{t, g, {0, 0, 1}}}, shape{t, g}, [&](module* m, auto x) {
            auto a = op(m, "add", {x[0], x[1]});
            auto e = op(m, "erf", {op(m, "div", {a, lit(m, 1.4142135f, g)})});
            return op(m, "mul", {op(m, "mul", {a, op(m, "add", {e, lit(m, 1.f, g)})}), lit(m, 0.5f, g)});
        }, true);
        // MobileNetV2's add + clip on NHWC with a per-channel bias, a packed NHWC residual besides
        std::vector<std::size_t> c{2, 16, 5, 3};
        shape nhwc{t, c, {240, 1, 48, 16}};
        run_view_case("nhwc_channel_bias_clip" + ts, {nhwc, shape{t, c, {0, 1, 0, 0}}, nhwc}, nhwc, [&](module* m, auto x) {
            auto a = op(m, "add", {op(m, "add", {x[0], x[1]}), x[2]});
            return op(m, "clip", {a, lit(m, 0.f, c), lit(m, 6.f, c)});
        }, true);
        // a scalar broadcast (all strides 0)
        std::vector<std::size_t> r{3, 40};
        run_view_case("scalar_broadcast" + ts, {shape{t, r}, shape{t, r, {0, 0}}}, shape{t, r}, [&](module* m, auto x) {
            return op(m, "sub", {op(m, "mul", {x[0], x[1]}), op(m, "sigmoid", {x[0]})});
        }, true);
        // an NCHW per-channel bias: one value for each run of H*W (a multiple of the width)
        std::vector<std::size_t> n4{2, 4, 4, 4};
        run_view_case("nchw_channel_bias" + ts, {shape{t, n4}, shape{t, n4, {0, 1, 0, 0}}}, shape{t, n4}, [&](module* m, auto x) {
            return op(m, "relu", {op(m, "add", {x[0], x[1]})});
        }, true);
        // ... but not when H*W is no multiple of it
        std::vector<std::size_t> n3{2, 4, 3, 3};
        run_view_case("nchw_channel_bias_hw9" + ts, {shape{t, n3}, shape{t, n3, {0, 1, 0, 0}}}, shape{t, n3}, [&](module* m, auto x) {
            return op(m, "relu", {op(m, "add", {x[0], x[1]})});
        }, false);
        // per-row values (innermost stride 0) and an NHWC output of standard inputs' lens
        std::vector<std::size_t> rr{16, 8};
        run_view_case("row_values" + ts, {shape{t, rr}, shape{t, rr, {1, 0}}}, shape{t, rr}, [&](module* m, auto x) {
            return op(m, "max", {x[0], x[1]});
        }, true);
        // a slice: rows of 16 at a stride of 24 (vector: 24 a multiple of the width) or 20 (fp32 only)
        std::vector<std::size_t> s2{4, 16};
        run_view_case("slice_rows24" + ts, {shape{t, s2, {24, 1}}, shape{t, s2}}, shape{t, s2}, [&](module* m, auto x) {
            return op(m, "add", {x[0], x[1]});
        }, true);
        run_view_case("slice_rows20" + ts, {shape{t, s2, {20, 1}}, shape{t, s2}}, shape{t, s2}, [&](module* m, auto x) {
            return op(m, "add", {x[0], x[1]});
        }, 20 % w == 0);
        // a row bias of a row of 12: a multiple of 4, not of 8
        std::vector<std::size_t> r12{8, 12};
        run_view_case("row_bias_12" + ts, {shape{t, r12}, shape{t, r12, {0, 1}}}, shape{t, r12}, [&](module* m, auto x) {
            return op(m, "add", {x[0], x[1]});
        }, 12 % w == 0);
        // never: a transposed input, a strided one, an element count no multiple of the width
        std::vector<std::size_t> tt{8, 16};
        run_view_case("transposed" + ts, {shape{t, tt, {1, 8}}, shape{t, tt}}, shape{t, tt}, [&](module* m, auto x) {
            return op(m, "add", {x[0], x[1]});
        }, false);
        run_view_case("stride2" + ts, {shape{t, tt, {32, 2}}, shape{t, tt}}, shape{t, tt}, [&](module* m, auto x) {
            return op(m, "add", {x[0], x[1]});
        }, false);
        std::vector<std::size_t> odd{3, 5};
        run_view_case("odd_count" + ts, {shape{t, odd}, shape{t, odd}}, shape{t, odd}, [&](module* m, auto x) {
            return op(m, "add", {x[0], x[1]});
        }, false);
        // where of a per-row bool condition (a splat of another type) on two packed tensors
        run_view_case("where_row_condition" + ts, {shape{shape::bool_type, rr, {1, 0}}, shape{t, rr}, shape{t, rr}}, shape{t, rr}, [&](module* m, auto x) {
            return op(m, "where", {x[0], x[1], x[2]});
        }, true);
    }
    // fp8e4m3fn: 16 a thread (one 16-byte word of e4m3), the half tensors 32 bytes each, the
    // float ones 64: quantize_fp8's casts (x / s to e4m3, after a bias and relu), its
    // dequantize back to half; not where a row of 24 leaves vectors across rows of a slice
    {
        auto lit = [&](module* m, float v, const std::vector<std::size_t>& lens) {
            return m->add_instruction(make_op("multibroadcast", {{"out_lens", lens}}), m->add_literal(literal{shape{shape::half_type}, std::vector<float>{v}}));
        };
        std::vector<std::size_t> g{4, 6, 64};
        shape h{shape::half_type, g}, f8{shape::fp8e4m3fn_type, g};
        run_view_case("quantize_half_to_fp8", {h}, f8, [&](module* m, auto x) {
            return cv(m, op(m, "div", {x[0], lit(m, 0.037f, g)}), shape::fp8e4m3fn_type);
        }, true);
        run_view_case("bias_relu_quantize_fp8", {h, shape{shape::half_type, g, {0, 0, 1}}}, f8, [&](module* m, auto x) {
            auto a = op(m, "relu", {op(m, "add", {x[0], x[1]})});
            return cv(m, op(m, "div", {a, lit(m, 0.011f, g)}), shape::fp8e4m3fn_type);
        }, true);
        run_view_case("dequantize_fp8_to_half", {f8}, h, [&](module* m, auto x) {
            return op(m, "mul", {cv(m, x[0], shape::half_type), lit(m, 0.037f, g)});
        }, true);
        run_view_case("float_to_fp8", {shape{shape::float_type, g}}, f8, [&](module* m, auto x) {
            return cv(m, op(m, "neg", {x[0]}), shape::fp8e4m3fn_type);
        }, true);
        std::vector<std::size_t> s24{4, 24};
        run_view_case("fp8_slice_rows_of_24", {shape{shape::half_type, s24, {32, 1}}}, shape{shape::fp8e4m3fn_type, s24}, [&](module* m, auto x) {
            return cv(m, x[0], shape::fp8e4m3fn_type);
        }, false);
    }
    // half and float together: 8 a thread, the float tensors 32 bytes each
    {
        std::vector<std::size_t> c{2, 16, 5, 3};
        shape nhwc_h{shape::half_type, c, {240, 1, 48, 16}};
        shape nhwc_f{shape::float_type, c, {240, 1, 48, 16}};
        run_view_case("half_in_float_bias_float_out", {nhwc_h, shape{shape::float_type, c, {0, 1, 0, 0}}}, nhwc_f, [&](module* m, auto x) {
            return op(m, "add", {cv(m, x[0], shape::float_type), x[1]});
        }, true);
        run_view_case("float_in_half_out", {nhwc_f, shape{shape::half_type, c, {0, 1, 0, 0}}}, nhwc_h, [&](module* m, auto x) {
            return op(m, "mul", {cv(m, x[0], shape::half_type), x[1]});
        }, true);
    }
    // float-through (half chains in float): the ops that must see the rounded half value of x +
    // 1000 (rounded to a multiple of 0.5, so x within 0.25 of 0 gives exactly 1000): comparisons,
    // floor, a convert to an integer, pow's exponent; an explicit convert to half mid-chain
    {
        auto h = shape::half_type;
        std::vector<std::size_t> l{16, 64};
        shape s{h, l};
        auto lit = [&](module* m, float v, shape::type_t t = shape::half_type) {
            return m->add_instruction(make_op("multibroadcast", {{"out_lens", l}}), m->add_literal(literal{shape{t}, std::vector<float>{v}}));
        };
        run_view_case("float_through_compare_where", {s, s}, s, [&](module* m, auto x) {
            auto t = op(m, "add", {x[0], lit(m, 1000.f)});
            auto c = op(m, "logical_or", {op(m, "equal", {t, lit(m, 1000.f)}), op(m, "greater", {t, op(m, "add", {x[1], lit(m, 1000.f)})})});
            return op(m, "where", {c, op(m, "sub", {t, lit(m, 1000.f)}), x[1]});
        }, true);
        run_view_case("float_through_floor_sign", {s}, s, [&](module* m, auto x) {
            auto t = op(m, "add", {x[0], lit(m, 1000.f)});
            return op(m, "add", {op(m, "sub", {op(m, "floor", {t}), lit(m, 1000.f)}), op(m, "sign", {op(m, "sub", {t, lit(m, 1000.f)})})});
        }, true);
        run_view_case("float_through_convert_to_int", {s}, shape{shape::int32_type, l}, [&](module* m, auto x) {
            return cv(m, op(m, "mul", {op(m, "add", {x[0], lit(m, 1000.f)}), lit(m, 3.f)}), shape::int32_type);
        }, false);
        run_view_case("float_through_pow_exponent", {s, s}, s, [&](module* m, auto x) {
            return op(m, "pow", {op(m, "sub", {x[0], lit(m, 1.f)}), op(m, "sub", {op(m, "add", {x[1], lit(m, 1000.f)}), lit(m, 998.f)})});
        }, true);
        run_view_case("float_through_isinf", {s, s}, s, [&](module* m, auto x) {
            auto t = op(m, "mul", {x[0], lit(m, 20000.f)}); // past 65504 for |x| > 3.3: inf in half
            return op(m, "where", {op(m, "isinf", {t}), x[1], op(m, "mul", {t, lit(m, 0.5f)})});
        }, true);
        shape f{shape::float_type, l};
        run_view_case("float_through_explicit_convert", {f, s}, s, [&](module* m, auto x) {
            auto a = cv(m, op(m, "mul", {x[0], lit(m, 3.3f, shape::float_type)}), h);   // rounds
            auto b = op(m, "div", {op(m, "mul", {a, x[1]}), lit(m, 3.f)});                 // x * (1 / 3)
            return cv(m, op(m, "add", {cv(m, b, shape::float_type), lit(m, 0.1f, shape::float_type)}), h);
        }, true);
    }
    std::cout << (failures ? "FAILURES: " : "all ok ") << failures << "\n";
    return failures != 0;
}
