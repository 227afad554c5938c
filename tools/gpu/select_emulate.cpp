// select_emulate: the selection kernels checked against ref WITHOUT a GPU: the generated topk and
// argmax/argmin kernels (codegen_topk.cpp, codegen_argminmax.cpp) and the sized topk, nonzero and
// gathernd kernels (sized_kernels.cpp). Each block's threads run as host threads (simt_shim.hpp;
// ballots, shuffles and atomics emulated here), so block-wide scans, radix passes and sorts run as
// the device would schedule them, only slowly. It checks the generated code's logic, not NVRTC
// or the device: gpu_codegen_topk_test, gpu_codegen_argminmax_test and gpu_device_sized_test do
// that on a device.
// Build and run (from the repository root, after build-gpu's libmigraphx):
//   g++ -std=c++20 -O1 -Iinclude -Isrc -DMIGRAPHX_HAVE_GPU=1 tools/gpu/select_emulate.cpp
//       -o build-gpu/select_emulate -Lbuild-gpu/src -lmigraphx -Wl,-rpath,$PWD/build-gpu/src -ldl
//   build-gpu/select_emulate [WORK_DIR]    (default /tmp/migx-select-emulate; exit 1 on a mismatch)
//   MIGX_EMULATE_PLANT="from|to" plants a bug (every `from` in a kernel becomes `to`).
#include <migraphx/literal.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/ref/target.hpp>
#include "targets/gpu/codegen.hpp"
#include "targets/gpu/sized_kernels.hpp"
#include "simt_shim.hpp"
#include <dlfcn.h>
#include <cmath>
#include <cstring>
#include <functional>
#include <iostream>
#include <limits>
#include <random>
using namespace migraphx;

namespace {

// The CUDA built-ins these kernels use beyond simt_shim's.
const std::string shim = std::string(migx_tools::simt_shim) + R"(
static inline unsigned int __float_as_uint(float f) { unsigned int u; std::memcpy(&u, &f, 4); return u; }
static inline int __popc(unsigned int x) { return __builtin_popcount(x); }
static inline unsigned int atomicAdd(unsigned int* p, unsigned int v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
static inline unsigned long long atomicAdd(unsigned long long* p, unsigned long long v)
{ return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
static inline unsigned long long atomicMax(unsigned long long* p, unsigned long long v)
{
    unsigned long long old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
    while(old < v && !__atomic_compare_exchange_n(p, &old, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {}
    return old;
}
static unsigned long long migx_lanes[1024];
static inline unsigned int __ballot_sync(unsigned int, bool pred)
{
    migx_lanes[threadIdx.x] = pred ? 1ull : 0ull;
    migx_warp_sync();
    unsigned int bits = 0, first = threadIdx.x / 32 * 32;
    for(unsigned int l = 0; l < 32; l++)
        bits |= (unsigned int)migx_lanes[first + l] << l;
    migx_warp_sync();
    return bits;
}
template <class T>
static inline T __shfl_down_sync(unsigned int, T v, int off)
{
    unsigned long long bits = 0;
    std::memcpy(&bits, &v, sizeof(T));
    migx_lanes[threadIdx.x] = bits;
    migx_warp_sync();
    unsigned int lane = threadIdx.x % 32;
    if(lane + off < 32)
        bits = migx_lanes[threadIdx.x + off];
    migx_warp_sync();
    T r;
    std::memcpy(&r, &bits, sizeof(T));
    return r;
}
)";

int failures = 0;
std::string work = "/tmp/migx-select-emulate";
int loaded_count = 0;

/// The kernel source (its prelude, if any, replaced by the shim) with `launcher` appended, built
/// and loaded: its migx_launch(void** params, grid, block).
using launch_fn = void (*)(void**, unsigned, unsigned);
launch_fn build(const std::string& name, std::string src, const std::string& kernel, const std::string& params)
{
    if(not migx_tools::plant_bug(src))
    {
        std::cout << name << ": nothing to plant\n";
        failures++;
        return nullptr;
    }
    auto pre = gpu::detail::prelude();
    auto at  = src.find(pre);
    if(at != std::string::npos)
        src.replace(at, pre.size(), shim);
    else
        src = shim + src;
    src += "\nextern \"C\" void migx_launch(void** p, unsigned grid, unsigned block)\n{\n"
           "    migx_run_grid(grid, block, [&] { " +
           kernel + "(" + params + "); });\n}\n";
    auto file = work + "/" + name + "_" + std::to_string(loaded_count++);
    void* h   = migx_tools::compile_and_load(file, src, "-std=c++20 -O1 -pthread");
    void* f   = h != nullptr ? dlsym(h, "migx_launch") : nullptr;
    if(f == nullptr)
    {
        std::cout << name << ": cannot load the launcher\n";
        failures++;
    }
    return reinterpret_cast<launch_fn>(f);
}

/// ref's results of op on x (each output, as a program returns them).
std::vector<argument> ref_of(const operation& op, const argument& x, const std::vector<argument>& more = {})
{
    program p;
    auto* m = p.get_main_module();
    std::vector<instruction_ref> in{m->add_parameter("x", x.get_shape())};
    parameter_map params{{"x", x}};
    for(std::size_t i = 0; i < more.size(); i++)
    {
        auto n = "m" + std::to_string(i);
        in.push_back(m->add_parameter(n, more[i].get_shape()));
        params[n] = more[i];
    }
    auto y = m->add_instruction(op, in);
    if(y->get_shape().type() == shape::tuple_type)
        m->add_return({m->add_instruction(make_op("get_tuple_elem", {{"index", 0}}), y),
                       m->add_instruction(make_op("get_tuple_elem", {{"index", 1}}), y)});
    else
        m->add_return({y});
    p.compile(ref::target{});
    return p.eval(params);
}

void expect_same(const std::string& name, const argument& got, const argument& want)
{
    auto g = got.to_vector<double>(), w = want.to_vector<double>();
    std::size_t bad = g.size() == w.size() ? 0 : 1;
    for(std::size_t i = 0; i < std::min(g.size(), w.size()); i++)
        if(not(g[i] == w[i] or (std::isnan(g[i]) and std::isnan(w[i]))))
            if(bad++ < 5)
                std::cout << "  " << name << " [" << i << "] got " << g[i] << " ref " << w[i] << "\n";
    if(bad != 0)
    {
        failures++;
        std::cout << name << ": " << bad << " of " << w.size() << " differ\n";
    }
    else
        std::cout << name << ": ok, " << w.size() << " elements\n";
}

/// Values of s drawn from pool.
argument drawn(const shape& s, const std::vector<float>& pool, unsigned seed)
{
    std::mt19937 gen(seed);
    std::uniform_int_distribution<std::size_t> pick(0, pool.size() - 1);
    argument a{s};
    a.visit([&](auto v) {
        using T = typename decltype(v)::value_type;
        for(std::size_t i = 0; i < v.size(); i++)
            v[i] = static_cast<T>(pool[pick(gen)]);
    });
    return a;
}

const float nan_f = std::numeric_limits<float>::quiet_NaN();
const float inf_f = std::numeric_limits<float>::infinity();

std::vector<float> levels(int n, float step)
{
    std::vector<float> v;
    for(int i = 0; i < n; i++)
        v.push_back(static_cast<float>(i % 17) * step - 2.0f);
    return v;
}

/// topk through the generated kernel and through the sized one, against ref.
void topk_case(const std::string& name, const argument& x, std::size_t axis, std::size_t k, bool largest)
{
    auto op   = make_op("topk", {{"k", k}, {"axis", axis}, {"largest", largest}});
    auto want = ref_of(op, x);
    const auto& s = x.get_shape();
    std::string t = s.type() == shape::half_type ? "migx_half" : "float";
    auto values   = want[0].get_shape();
    std::vector<std::uint64_t> buf(gpu::topk_buffer_elements(values), 0x5555555555555555ull);
    auto split = [&](const std::string& which) {
        argument vi{values, reinterpret_cast<char*>(buf.data() + values.elements())};
        argument ii{want[1].get_shape(), reinterpret_cast<char*>(buf.data())};
        expect_same(name + " " + which + " values", vi, want[0]);
        expect_same(name + " " + which + " indices", ii, want[1]);
    };
    auto k1 = gpu::generate_topk(s, axis, k, largest);
    if(k1)
    {
        auto f = build(name, k1->source, k1->name, "(const " + t + "*)p[0], (unsigned long long*)p[1]");
        if(f != nullptr)
        {
            void* ptrs[] = {const_cast<char*>(x.data()), buf.data()};
            f(ptrs, static_cast<unsigned>(std::min<std::size_t>(k1->elements / k1->local, 64)),
              static_cast<unsigned>(k1->local));
            split("generated");
        }
    }
    else
    {
        std::cout << name << ": NOT GENERATED\n";
        failures++;
    }
    std::fill(buf.begin(), buf.end(), 0x5555555555555555ull);
    auto ks = gpu::topk_source(s.type() == shape::half_type, largest);
    auto f  = build(name + "_sized", ks.source, ks.name,
                   "(const " + t + "*)p[0], (unsigned long long*)p[1], *(topk_t*)p[2]");
    if(f == nullptr)
        return;
    gpu::topk_sizes d;
    d.n     = s.lens()[axis];
    d.k     = k;
    d.rows  = s.elements() / d.n;
    d.inner = 1;
    for(std::size_t i = axis + 1; i < s.lens().size(); i++)
        d.inner *= s.lens()[i];
    d.p = 1;
    while(d.p < d.k)
        d.p *= 2;
    void* ptrs[] = {const_cast<char*>(x.data()), buf.data(), &d};
    f(ptrs, static_cast<unsigned>(std::min<std::uint64_t>(d.rows, 64)), d.n > 4096 ? 1024 : 256);
    split("sized");
}

void argminmax_case(const std::string& name, const argument& x, std::size_t axis, bool is_max, bool last)
{
    auto op   = make_op(is_max ? "argmax" : "argmin", {{"axis", axis}, {"select_last_index", last}});
    auto want = ref_of(op, x).front();
    auto k    = gpu::generate_argminmax(is_max, last, axis, x.get_shape());
    if(not k)
    {
        std::cout << name << ": NOT GENERATED\n";
        failures++;
        return;
    }
    std::string t = x.get_shape().type() == shape::half_type ? "migx_half" : "float";
    auto f        = build(name, k->source, k->name, "(const " + t + "*)p[0], (long long*)p[1]");
    if(f == nullptr)
        return;
    argument y{want.get_shape()};
    void* ptrs[] = {const_cast<char*>(x.data()), y.data()};
    auto grid    = static_cast<unsigned>(std::min<std::size_t>((k->elements + k->local - 1) / k->local, 64));
    f(ptrs, grid, static_cast<unsigned>(k->local));
    expect_same(name + (k->source.find("__shfl_down_sync") != std::string::npos ? " (block a row)" : " (thread a row)"),
                y, want);
}

void nonzero_case(const std::string& name, const argument& x, bool transposed)
{
    auto xs = x.get_shape();
    argument view = x;
    if(transposed)
        view = argument{shape{xs.type(), {xs.lens()[1], xs.lens()[0]}, {xs.strides()[1], xs.strides()[0]}},
                        const_cast<char*>(x.data())};
    program p;
    auto* m = p.get_main_module();
    auto in = m->add_parameter("x", xs);
    if(transposed)
        in = m->add_instruction(make_op("transpose", {{"permutation", {1, 0}}}), in);
    m->add_return({m->add_instruction(make_op("nonzero"), in)});
    p.compile(ref::target{});
    auto want = p.eval({{"x", x}}).front();
    bool is_float = xs.type() == shape::float_type or xs.type() == shape::half_type;
    auto ks = gpu::nonzero_source(xs.type_size(), is_float);
    auto f  = build(name, ks.source, ks.name,
                   "(const " + gpu::detail::raw_type(xs.type_size()) +
                       "*)p[0], (long long*)p[1], (unsigned long long*)p[2], *(nz_t*)p[3]");
    if(f == nullptr)
        return;
    const auto& vs = view.get_shape();
    gpu::nonzero_input d;
    d.rank = static_cast<std::int32_t>(vs.ndim());
    for(std::size_t j = 0; j < vs.ndim(); j++)
    {
        d.lens[j]    = vs.lens()[j];
        d.strides[j] = static_cast<std::int64_t>(vs.strides()[j]);
    }
    std::vector<std::int64_t> y(vs.ndim() * vs.elements(), -7);
    std::uint64_t count = 12345;
    void* ptrs[] = {const_cast<char*>(x.data()), y.data(), &count, &d};
    f(ptrs, 1, vs.elements() > 4096 ? 1024 : 256);
    shape got_s{shape::int64_type, {vs.ndim(), static_cast<std::size_t>(count)}};
    expect_same(name, argument{got_s, reinterpret_cast<char*>(y.data())}, want);
}

void gathernd_case(const std::string& name, const argument& data, const argument& ind)
{
    auto want = ref_of(make_op("gathernd"), data, {ind}).front();
    const auto& ds = data.get_shape();
    const auto& is = ind.get_shape();
    auto ks = gpu::gathernd_source(ds.type_size(), is.type() == shape::int64_type, false);
    auto t  = gpu::detail::raw_type(ds.type_size());
    auto f  = build(name, ks.source, ks.name,
                   "(const " + t + "*)p[0], (const " + (is.type() == shape::int64_type ? "long long" : "int") +
                       "*)p[1], (" + t + "*)p[2], *(gnd_t*)p[3], *(walk_t*)p[4], *(unsigned long long*)p[5]");
    if(f == nullptr)
        return;
    const auto& out = want.get_shape();
    auto q          = is.lens().back();
    auto tuples     = is.lens().size() - 1;
    gpu::gathernd_tuple g;
    g.q    = static_cast<std::int64_t>(q);
    g.last = static_cast<std::int64_t>(is.strides().back());
    for(std::size_t j = 0; j < q; j++)
    {
        g.len[j]    = static_cast<std::int64_t>(ds.lens()[j]);
        g.stride[j] = static_cast<std::int64_t>(ds.strides()[j]);
    }
    std::vector<std::size_t> a(out.lens().size(), 0), b(out.lens().size(), 0);
    for(std::size_t d = 0; d < out.lens().size(); d++)
        (d < tuples ? b[d] : a[d]) = d < tuples ? is.strides()[d] : ds.strides()[q + d - tuples];
    auto w = gpu::make_walk(out.lens(), a, b);
    auto n = w.elements();
    argument y{out};
    void* ptrs[] = {const_cast<char*>(data.data()), const_cast<char*>(ind.data()), y.data(), &g, &w, &n};
    f(ptrs, static_cast<unsigned>(std::min<std::uint64_t>((n + 255) / 256, 64)), 256);
    expect_same(name, y, want);
}

/// concat along axis of parts (standard; some empty) in one launch (sized_concat), as
/// device_sized.cpp's concat_form fills its parts.
void concat_case(const std::string& name, const std::vector<argument>& parts, std::int64_t axis)
{
    auto want = ref_of(make_op("concat", {{"axis", axis}}), parts[0],
                       std::vector<argument>(parts.begin() + 1, parts.end()))
                    .front();
    const auto& out = want.get_shape();
    auto ks = gpu::concat_source(out.type_size());
    auto t  = gpu::detail::raw_type(out.type_size());
    auto f  = build(name, ks.source, ks.name, "(" + t + "*)p[0], *(parts_t*)p[1]");
    if(f == nullptr)
        return;
    std::vector<shape> in;
    std::vector<const void*> src;
    for(const auto& a : parts)
    {
        in.push_back(a.get_shape());
        src.push_back(a.data());
    }
    auto d = gpu::concat_parts_for(in, src, out, static_cast<std::size_t>(axis));
    if(not d)
    {
        failures++;
        std::cout << name << ": no parts for a concat of standard inputs\n";
        return;
    }
    argument y{out};
    auto n       = d->outer * d->row;
    void* ptrs[] = {y.data(), &*d};
    f(ptrs, static_cast<unsigned>(std::min<std::uint64_t>((n + 255) / 256, 8)), 256);
    expect_same(name, y, want);
}

argument i64(const std::vector<std::size_t>& lens, std::vector<std::int64_t> v)
{
    return literal{shape{shape::int64_type, lens}, v}.get_argument();
}

} // namespace

int main(int argc, char** argv)
{
    if(argc > 1)
        work = argv[1];
    std::system(("mkdir -p " + work).c_str());
    auto f = shape::float_type, h = shape::half_type;
    // topk: ties (4 levels over 1000), NaN and -0, axis 0 of a 3-d half tensor, a row past 4096
    // (1024 threads), k a power of two and not
    auto ties = drawn(shape{f, {3, 1000}}, {-1.5f, 0.25f, 2.0f, 7.0f}, 1);
    for(bool largest : {true, false})
        for(std::size_t k : {1, 5, 300, 1000})
            topk_case("topk_ties_k" + std::to_string(k) + (largest ? "_largest" : "_smallest"), ties, 1, k, largest);
    auto nans = drawn(shape{f, {2, 64}}, {nan_f, -nan_f, inf_f, -inf_f, 0.0f, -0.0f, 1.0f, -1.0f}, 2);
    for(bool largest : {true, false})
        topk_case(std::string("topk_nan_") + (largest ? "largest" : "smallest"), nans, 1, 20, largest);
    topk_case("topk_half_axis0", drawn(shape{h, {50, 7, 3}}, levels(40, 0.37f), 3), 0, 10, false);
    topk_case("topk_long_row", drawn(shape{f, {1, 6000}}, levels(1000, 0.001f), 4), 1, 700, true);
    // argmax / argmin: short rows (a thread each) and long rows (a block each), NaNs first,
    // inside, last; ties first or last
    for(std::size_t n : {6, 700})
    {
        auto x = drawn(shape{f, {40, n}}, {nan_f, inf_f, -inf_f, 1.0f, 2.0f, 2.0f, 0.0f, -0.0f, 5.0f, 5.0f, 1.5f}, 8);
        auto* v = reinterpret_cast<float*>(x.data());
        std::fill_n(v, n, nan_f); // a row of NaNs
        v[n]         = nan_f;     // a row starting with one
        v[3 * n - 1] = nan_f;     // a row ending with one
        for(bool last : {false, true})
            for(bool is_max : {true, false})
                argminmax_case(std::string(is_max ? "argmax" : "argmin") + "_n" + std::to_string(n) +
                                   (last ? "_last" : "_first"),
                               x, 1, is_max, last);
    }
    argminmax_case("argmax_half_axis1", drawn(shape{h, {4, 300, 5}}, levels(30, 0.5f), 9), 1, true, false);
    // nonzero: floats with -0 and NaN, standard and transposed; integers over several tiles
    {
        std::vector<float> v(30, 0.0f);
        for(std::size_t i = 0; i < v.size(); i += 3)
            v[i] = static_cast<float>(i) - 9.0f;
        v[1] = -0.0f;
        v[4] = nan_f;
        v[29] = 2.5f;
        auto x = literal{shape{f, {6, 5}}, v}.get_argument();
        nonzero_case("nonzero_float", x, false);
        nonzero_case("nonzero_float_transposed", x, true);
        std::vector<std::int32_t> iv(3 * 1400);
        for(std::size_t i = 0; i < iv.size(); i++)
            iv[i] = (i * 7919) % 5 == 0 ? static_cast<std::int32_t>(i) : 0;
        nonzero_case("nonzero_int_tiles", literal{shape{shape::int32_type, {3, 1400}}, iv}.get_argument(), false);
    }
    // gathernd: tuples of 1 (SSD's kept scores and boxes, the indices a transposed nonzero) and 2
    {
        auto data  = drawn(shape{f, {64, 4}}, levels(100, 0.1f), 10);
        auto keep  = literal{shape{shape::int64_type, {1, 5}}, std::vector<std::int64_t>{3, 9, 10, 40, 63}};
        auto keep_t = argument{shape{shape::int64_type, {5, 1}, {1, 5}}, keep.get_argument().data()};
        gathernd_case("gathernd_rows", data, keep_t);
        auto scores = drawn(shape{f, {64}}, levels(100, 0.1f), 11);
        gathernd_case("gathernd_scalars", scores, keep_t);
        gathernd_case("gathernd_pairs", data, i64({3, 2}, {0, 1, 63, 3, -1, -4}));
    }
    // concat: SSD's per-class results (rows of 4 boxes, scores, int64 labels; classes with none
    // kept are empty) along axis 0, and parts along a later axis (outer rows)
    {
        std::vector<argument> boxes, scores, labels;
        for(std::size_t c = 0; c < 90; c++)
        {
            auto k = (c * 7) % 5 == 0 ? (c % 13) : 0; // most classes keep none
            boxes.push_back(drawn(shape{f, {k, 4}}, levels(100, 0.1f), static_cast<unsigned>(20 + c)));
            scores.push_back(drawn(shape{f, {k}}, levels(100, 0.1f), static_cast<unsigned>(200 + c)));
            labels.push_back(i64({k}, std::vector<std::int64_t>(k, static_cast<std::int64_t>(c))));
        }
        concat_case("concat_boxes", boxes, 0);
        concat_case("concat_scores", scores, 0);
        concat_case("concat_labels", labels, 0);
        concat_case("concat_axis1", {drawn(shape{f, {3, 2, 5}}, levels(100, 0.1f), 30),
                                     drawn(shape{f, {3, 0, 5}}, levels(100, 0.1f), 31),
                                     drawn(shape{f, {3, 4, 5}}, levels(100, 0.1f), 32)}, 1);
        concat_case("concat_half_axis2", {drawn(shape{shape::half_type, {2, 3, 1}}, levels(100, 0.1f), 33),
                                          drawn(shape{shape::half_type, {2, 3, 7}}, levels(100, 0.1f), 34)}, 2);
    }
    std::cout << (failures == 0 ? "all match ref\n" : std::to_string(failures) + " FAILED\n");
    return failures == 0 ? 0 : 1;
}
