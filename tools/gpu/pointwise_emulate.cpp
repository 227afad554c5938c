// pointwise_emulate: the generated pointwise kernels on bool and integer values (conversions,
// integer arithmetic, comparisons, logic, where), checked bit for bit against ref WITHOUT a GPU:
// each kernel's CUDA source (codegen.cpp) is compiled by the host's g++ with a small shim for
// the CUDA built-ins (half through _Float16 instead of PTX cvt) and run as one thread over all
// elements. It checks the generator's semantics (safe_cast, wrapping, division by zero), not
// NVRTC or the device: gpu_pointwise_typed_test does that on the device.
// Build and run (from the repository root, after build-gpu's libmigraphx):
//   g++ -std=c++20 -O1 -Iinclude -Isrc -DMIGRAPHX_HAVE_GPU=1 tools/gpu/pointwise_emulate.cpp
//       -o build-gpu/pointwise_emulate -Lbuild-gpu/src -lmigraphx -Wl,-rpath,$PWD/build-gpu/src -ldl
//   build-gpu/pointwise_emulate [WORK_DIR]      (default /tmp/migx-pointwise-emulate; exit 1 on a mismatch)
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
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <limits>
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
static inline float migx_max(float a, float b) { return isnan(b) ? b : (a < b ? b : a); }
static inline float migx_min(float a, float b) { return isnan(b) ? b : (b < a ? b : a); }
static inline float migx_sign(float x) { return isnan(x) ? x : (x > 0.f ? 1.f : (x < 0.f ? -1.f : 0.f)); }
static inline float migx_mod(float a, float b) { float r = fmodf(a, b); if(r != 0.f && ((r < 0.f) != (b < 0.f))) r += b; return r; }
static inline float migx_clamp01(float y) { return y < 0.f ? 0.f : (y > 1.f ? 1.f : y); }
struct migx_dim { unsigned x; };
static migx_dim blockIdx{0}, blockDim{1}, gridDim{1}, threadIdx{0};
)";
int failures = 0;
std::string work = "/tmp/migx-pointwise-emulate";
void run_case(const std::string& name, program p, const parameter_map& in)
{
    auto ref = p;
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
    auto src = k->source;
    auto pre = gpu::detail::prelude();
    auto pos = src.find(pre);
    src.replace(pos, pre.size(), shim);
    std::ofstream((work + "/" + name + ".cpp").c_str()) << src;
    auto cmd = "g++ -O1 -shared -fPIC -w -o " + work + "/" + name + ".so " + work + "/" + name + ".cpp";
    if(std::system(cmd.c_str()) != 0) { std::cout << name << ": host compile failed\n"; failures++; return; }
    void* h = dlopen((work + "/" + name + ".so").c_str(), RTLD_NOW);
    void* f = h != nullptr ? dlsym(h, k->name.c_str()) : nullptr;
    if(f == nullptr) { std::cout << name << ": cannot load the kernel\n"; failures++; return; }
    argument out{pw->get_shape()};
    std::fill_n(out.data(), out.get_shape().bytes(), char(0x55));
    void* o = out.data();
    switch(ptrs.size()) {
    case 1: reinterpret_cast<void(*)(const void*, void*)>(f)(ptrs[0], o); break;
    case 2: reinterpret_cast<void(*)(const void*, const void*, void*)>(f)(ptrs[0], ptrs[1], o); break;
    case 3: reinterpret_cast<void(*)(const void*, const void*, const void*, void*)>(f)(ptrs[0], ptrs[1], ptrs[2], o); break;
    case 4: reinterpret_cast<void(*)(const void*, const void*, const void*, const void*, void*)>(f)(ptrs[0], ptrs[1], ptrs[2], ptrs[3], o); break;
    default: std::cout << name << ": too many inputs\n"; failures++; return;
    }
    // bitwise comparison (NaN patterns aside)
    bool same = std::memcmp(out.data(), want.data(), out.get_shape().bytes()) == 0;
    if(not same) {
        auto g = out.to_vector<double>(), w = want.to_vector<double>();
        std::size_t bad = 0;
        for(std::size_t i = 0; i < g.size(); i++)
            if(not(g[i] == w[i] or (std::isnan(g[i]) and std::isnan(w[i])))) { if(bad++ < 5) std::cout << "  " << name << " [" << i << "] got " << g[i] << " ref " << w[i] << "\n"; }
        if(bad) { failures++; std::cout << name << ": " << bad << " differ (" << k->name << ")\n"; return; }
    }
    std::cout << name << ": ok (" << k->name << ", " << out.get_shape().elements() << " elements)\n";
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
    std::system(("mkdir -p " + work).c_str());
    const float inf = std::numeric_limits<float>::infinity();
    std::vector<float> v = {std::numeric_limits<float>::quiet_NaN(), inf, -inf, 1e10f, -1e10f, 2.5f, -2.5f,
                            127.9f, 128.f, -128.f, -128.5f, -129.f, 255.5f, 256.f, 0.f, -0.f, 3e9f, -3e9f,
                            2147483520.f, 9.2e18f, -9.3e18f, 65504.f, 1e5f, 0.4f, 4294967040.f, 1.8e19f, 65519.f, 65520.f};
    for(auto ft : {shape::float_type, shape::half_type})
        for(auto t : {shape::int8_type, shape::uint8_type, shape::int16_type, shape::uint16_type, shape::int32_type, shape::uint32_type, shape::int64_type,
                      shape::uint64_type, shape::bool_type, shape::half_type, shape::float_type})
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
    std::cout << (failures ? "FAILURES: " : "all ok ") << failures << "\n";
    return failures != 0;
}
