// attention_emulate: the generated fused attention kernels (codegen_attention.cpp, and the Hopper
// one, codegen_attention_wgmma.cpp, each case run with both) checked against
// a double-precision softmax(steps(scale Q K^T)) V WITHOUT a GPU. Each block's threads run as host
// threads (blocks one after another); the warp-collective instructions the kernel uses are
// emulated lane by lane through a per-warp exchange: mma.sync m16n8k16 (its A/B/C fragment
// layouts), ldmatrix x2/x4 (and .trans), shuffles, wgmma m64nNk16 (shared-memory descriptors
// unswizzled and 128-byte swizzled, K- and MN-major, the accumulator and register-A layouts);
// cp.async copies land at the wait that releases their group, and in a second run at once, so
// a wait for too few groups, or a tile overwritten while another warp still reads it, shows as
// wrong results. wgmma computes at once: a use of its accumulators before wgmma_wait would not
// show here (only on a device). The Hopper kernel runs in one stage and in two (persistent, its
// dynamic shared memory a static array here).
// It checks the generated code's indexing, fragment bookkeeping, pipelining and softmax, not NVRTC
// or the device (gpu_lower_attention_test does that on a device). Each case runs with 16-byte
// aligned pointers (the vector and staged paths) and with pointers skewed by one element (the
// element-wise paths), at the kernel's grid and at a smaller grid (items looped over).
// Build and run (from the repository root, after build-gpu's libmigraphx):
//   g++ -std=c++20 -O1 -Iinclude -Isrc -DMIGRAPHX_HAVE_GPU=1 tools/gpu/attention_emulate.cpp
//       -o build-gpu/attention_emulate -Lbuild-gpu/src -lmigraphx -Wl,-rpath,$PWD/build-gpu/src -ldl
//   build-gpu/attention_emulate [WORK_DIR]   (default /tmp/migx-attention-emulate; exit 1 on a mismatch)
//   MIGX_EMULATE_PLANT="from|to" plants a bug (the kernel's first `from` becomes `to`).
#include "targets/gpu/codegen.hpp"
#include "simt_shim.hpp"
#include <dlfcn.h>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <random>
#include <vector>
using namespace migraphx;

namespace {

// The CUDA built-ins and the attention kernel's device helpers, for the host.
const std::string shim = std::string(migx_tools::simt_shim) + R"(
#define MIGX_NEG_INF (-INFINITY)
// a warp's lanes post here: 4 A registers, 2 B registers, a pointer, a float
struct migx_post { unsigned a[4]; unsigned b[2]; const migx_half* p; float f; };
static migx_post migx_posts[1024];
static inline void __syncwarp() { migx_warp_sync(); }
static inline migx_post& migx_lane(unsigned l) { return migx_posts[threadIdx.x / 32 * 32 + l]; }
static inline float __shfl_xor_sync(unsigned, float v, unsigned o)
{
    migx_lane(threadIdx.x % 32).f = v;
    migx_warp_sync();
    float r = migx_lane((threadIdx.x % 32) ^ o).f;
    migx_warp_sync();
    return r;
}
static inline float migx_lo(unsigned r) { return h2f((migx_half)(r & 0xffffu)); }
static inline float migx_hi(unsigned r) { return h2f((migx_half)(r >> 16)); }
static inline float migx_half_of(unsigned r, int k) { return k % 2 == 0 ? migx_lo(r) : migx_hi(r); }
// mma.m16n8k16, row.col: lane (g, t) = (l / 4, l % 4) holds A[g][2t..], A[g+8][2t..], A[g][2t+8..],
// A[g+8][2t+8..]; B[2t..][g], B[2t+8..][g]; C[g][2t, 2t+1], C[g+8][2t, 2t+1].
static inline void mma16816(float* c, const unsigned* a, unsigned b0, unsigned b1)
{
    const unsigned l = threadIdx.x % 32;
    auto& me = migx_lane(l);
    for(int i = 0; i < 4; i++)
        me.a[i] = a[i];
    me.b[0] = b0;
    me.b[1] = b1;
    migx_warp_sync();
    const int g = l / 4, t = l % 4;
    for(int i = 0; i < 4; i++)
    {
        const int row = g + (i >> 1) * 8, col = 2 * t + (i & 1);
        float s = 0.f;
        for(int k = 0; k < 16; k++)
        {
            const auto& ap = migx_lane((row % 8) * 4 + (k % 8) / 2);
            const float av = migx_half_of(ap.a[(row >= 8 ? 1 : 0) + (k >= 8 ? 2 : 0)], k);
            const auto& bp = migx_lane(col * 4 + (k % 8) / 2);
            const float bv = migx_half_of(bp.b[k >= 8 ? 1 : 0], k);
            s += av * bv;
        }
        c[i] += s;
    }
    migx_warp_sync();
}
static inline unsigned migx_pack(migx_half lo, migx_half hi) { return (unsigned)lo | ((unsigned)hi << 16); }
// ldmatrix: lanes 8j..8j+7 name the rows of 8x8 matrix j; register j of lane l gets row l / 4,
// columns 2 (l % 4) and +1 (.trans: the transposed matrix's).
static inline void migx_ldsm(unsigned* b, const migx_half* p, int n, bool trans)
{
    const unsigned l = threadIdx.x % 32;
    migx_lane(l).p = p;
    migx_warp_sync();
    const int r = l / 4, c = 2 * (l % 4);
    for(int j = 0; j < n; j++)
    {
        if(trans)
            b[j] = migx_pack(migx_lane(8 * j + c).p[r], migx_lane(8 * j + c + 1).p[r]);
        else
            b[j] = migx_pack(migx_lane(8 * j + r).p[c], migx_lane(8 * j + r).p[c + 1]);
    }
    migx_warp_sync();
}
static inline void ldsm_x4(unsigned* b, const migx_half* p) { migx_ldsm(b, p, 4, false); }
static inline void ldsm_x2(unsigned* b, const migx_half* p) { migx_ldsm(b, p, 2, false); }
static inline void ldsm_x4_trans(unsigned* b, const migx_half* p) { migx_ldsm(b, p, 4, true); }
// cp.async: a thread's copies land at its cp_async_wait that lets their group go (the latest
// the hardware may land them), or at once with MIGX_COPIES_AT_ONCE (the earliest): a kernel that
// waits for too few groups reads stale tiles in the first mode, one that overwrites a tile still
// read shows in the second. The source is read at the copy (the kernel's inputs do not change).
struct migx_copy { void* dst; unsigned char bytes[16]; };
static thread_local std::vector<std::vector<migx_copy>> migx_groups; // committed, oldest first
static thread_local std::vector<migx_copy> migx_open;
static inline void cp_async16(void* dst, const void* src, bool ok)
{
    migx_copy c{dst, {}};
    if(ok)
        std::memcpy(c.bytes, src, 16);
#ifdef MIGX_COPIES_AT_ONCE
    std::memcpy(dst, c.bytes, 16);
#else
    migx_open.push_back(c);
#endif
}
static inline void cp_async_commit()
{
    migx_groups.push_back(std::move(migx_open));
    migx_open.clear();
}
template <int N>
static inline void cp_async_wait()
{
    while(migx_groups.size() > N)
    {
        for(const auto& c : migx_groups.front())
            std::memcpy(c.dst, c.bytes, 16);
        migx_groups.erase(migx_groups.begin());
    }
}
static inline unsigned pack2(migx_half lo, migx_half hi) { return migx_pack(lo, hi); }
static inline unsigned packf(float lo, float hi) { return migx_pack(f2h(lo), f2h(hi)); }
struct float2 { float x, y; };
static inline float2 pair_of(const migx_half* p) { return {h2f(p[0]), h2f(p[1])}; }
static inline float2 pair_of(const float* p) { return {p[0], p[1]}; }
static inline float ex2f(float x) { return exp2f(x); }
// wgmma (the Hopper kernel): the shared-memory address in a descriptor is the low 18 bits of the
// host address; the high bits are the one 256 KiB window the kernel's big shared array lies in
// (__align__(1024) arrays are aligned to 256 KiB here, so none crosses a window's end).
#undef __align__
#define __align__(n) __attribute__((aligned((n) >= 1024 ? 262144 : (n))))
#include <atomic>
static std::atomic<unsigned long long> migx_smem_hi{0};
static std::atomic<bool> migx_wgmma_bad{false};
static inline unsigned smem_addr(const void* p)
{
    const auto u = (unsigned long long)p;
    unsigned long long none = 0;
    if(!migx_smem_hi.compare_exchange_strong(none, u & ~0x3FFFFull) && none != (u & ~0x3FFFFull))
        migx_wgmma_bad = true;
    return (unsigned)(u & 0x3FFFFull);
}
static inline void wgmma_fence() {}
static inline void wgmma_commit() {}
template <int N>
static inline void wgmma_wait() {}
static inline void fence_async_shared() {}
static inline void keep(float&) {}
static inline unsigned long long wgmma_desc(const void* p, unsigned lbo, unsigned sbo)
{
    return (unsigned long long)((smem_addr(p) & 0x3FFFFu) >> 4) | ((unsigned long long)(lbo >> 4) << 16) |
           ((unsigned long long)(sbo >> 4) << 32);
}
static inline unsigned long long wgmma_desc_sw128(const void* p, unsigned lbo, unsigned sbo)
{
    return wgmma_desc(p, lbo, sbo) | (1ull << 62);
}
// Element (mn, k) of a 16-deep wgmma operand. Without swizzle (layout type 0): core matrices of
// 8 x 16 bytes, SBO apart along M/N, LBO along K; the 16 bytes run along K (K-major) or along M/N
// (MN-major). 128-byte swizzle (type 1): rows of 128 bytes (K-major: an M/N index's K values from
// the start address on; MN-major: a K index's 64 M/N values, LBO to the next 64), 8 rows an atom,
// SBO between atoms, and address bits 4-6 XOR bits 7-9 (of the shared address: the array is
// aligned, so of its offset here).
static inline float migx_operand(unsigned long long d, int mn, int k, bool mn_major)
{
    const unsigned type = (unsigned)(d >> 62);
    if(type > 1 || ((d >> 49) & 7) != 0)
        migx_wgmma_bad = true; // a swizzle or base offset this emulator does not model
    const unsigned long long lbo = ((d >> 16) & 0x3FFF) << 4, sbo = ((d >> 32) & 0x3FFF) << 4;
    unsigned long long a = (d & 0x3FFF) << 4;
    if(type == 0)
        a += mn_major ? (mn / 8) * sbo + (k / 8) * lbo + (k % 8) * 16 + (mn % 8) * 2
                      : (mn / 8) * sbo + (mn % 8) * 16 + (k / 8) * lbo + (k % 8) * 2;
    else
    {
        a += mn_major ? (mn / 64) * lbo + (k / 8) * sbo + (k % 8) * 128 + (mn % 64) * 2
                      : (mn / 8) * sbo + (mn % 8) * 128 + k * 2;
        a ^= ((a >> 7) & 7) << 4;
    }
    migx_half h;
    std::memcpy(&h, (const char*)(migx_smem_hi.load() | a), 2);
    return h2f(h);
}
// The accumulator of m64nNk16: warp w of the warpgroup, lane (g, t), d[4j + i] is row
// 16w + g + 8 (i / 2), column 8j + 2t + (i % 2).
template <int N, int TB>
static inline void wgmma_ss(float* d, unsigned long long a, unsigned long long b, int accumulate)
{
    const int w = threadIdx.x % 128 / 32, l = threadIdx.x % 32, g = l / 4, t = l % 4;
    for(int j = 0; j < N / 8; j++)
        for(int i = 0; i < 4; i++)
        {
            const int row = 16 * w + g + (i >> 1) * 8, col = 8 * j + 2 * t + (i & 1);
            float s = 0.f;
            for(int k = 0; k < 16; k++)
                s += migx_operand(a, row, k, false) * migx_operand(b, col, k, TB != 0);
            d[4 * j + i] = (accumulate ? d[4 * j + i] : 0.f) + s;
        }
}
// A from registers: each warp's 16 rows in mma.m16n8k16's A layout (mma16816 above).
template <int N, int TB>
static inline void wgmma_rs(float* d, const unsigned* a, unsigned long long b, int accumulate)
{
    const int w = threadIdx.x % 128 / 32, l = threadIdx.x % 32, g = l / 4, t = l % 4;
    auto& me = migx_lane(l);
    for(int i = 0; i < 4; i++)
        me.a[i] = a[i];
    migx_warp_sync();
    float acc[N / 2];
    for(int j = 0; j < N / 8; j++)
        for(int i = 0; i < 4; i++)
        {
            const int row = g + (i >> 1) * 8, col = 8 * j + 2 * t + (i & 1);
            float s = 0.f;
            for(int k = 0; k < 16; k++)
            {
                const auto& ap = migx_lane((row % 8) * 4 + (k % 8) / 2);
                s += migx_half_of(ap.a[(row >= 8 ? 1 : 0) + (k >= 8 ? 2 : 0)], k) * migx_operand(b, col, k, TB != 0);
            }
            acc[4 * j + i] = (accumulate ? d[4 * j + i] : 0.f) + s;
        }
    (void)w;
    migx_warp_sync();
    for(int i = 0; i < N / 2; i++)
        d[i] = acc[i];
}
)";

std::string launcher(const std::string& kernel, bool mask, const std::string& mtype)
{
    std::string mp = mask ? "const void* m, " : "";
    std::string ma = mask ? "(const " + mtype + "*)m, " : "";
    return R"(
extern "C" void migx_launch(const void* q, const void* kt, const void* v, )" + mp +
           R"(void* y, unsigned grid, unsigned block)
{
    migx_run_grid(grid, block, [&] { )" + kernel + R"(((const migx_half*)q, (const migx_half*)kt, (const migx_half*)v, )" +
           ma + R"((migx_half*)y); });
}
extern "C" int migx_wgmma_status() { return migx_wgmma_bad ? 1 : 0; }
)";
}

int failures = 0;
std::string work = "/tmp/migx-attention-emulate";

float half_to_float(std::uint16_t h)
{
    _Float16 f;
    std::memcpy(&f, &h, 2);
    return static_cast<float>(f);
}

std::uint16_t float_to_half(float x)
{
    auto f = static_cast<_Float16>(x);
    std::uint16_t h;
    std::memcpy(&h, &f, 2);
    return h;
}

/// A tensor's storage (its element space, 16-byte aligned plus `skew` bytes) and its shape.
struct tensor
{
    shape s;
    std::vector<char> raw;
    char* p = nullptr;
    tensor(const shape& sh, std::size_t skew) : s(sh), raw(sh.element_space() * sh.type_size() + 64)
    {
        p = reinterpret_cast<char*>((reinterpret_cast<std::uintptr_t>(raw.data()) + 15) / 16 * 16 + skew);
    }
    std::size_t offset(const std::vector<std::size_t>& idx) const
    {
        std::size_t o = 0;
        for(std::size_t d = 0; d < idx.size(); d++)
            o += idx[d] * s.strides()[d];
        return o;
    }
    double get(const std::vector<std::size_t>& idx) const
    {
        auto o = offset(idx);
        if(s.type() == shape::half_type)
            return half_to_float(reinterpret_cast<const std::uint16_t*>(p)[o]);
        return reinterpret_cast<const float*>(p)[o];
    }
    void set(const std::vector<std::size_t>& idx, float x)
    {
        auto o = offset(idx);
        if(s.type() == shape::half_type)
            reinterpret_cast<std::uint16_t*>(p)[o] = float_to_half(x);
        else
            reinterpret_cast<float*>(p)[o] = x;
    }
};

/// Every index of lens, in row-major order.
std::vector<std::vector<std::size_t>> indices(const std::vector<std::size_t>& lens)
{
    std::vector<std::vector<std::size_t>> r;
    std::vector<std::size_t> i(lens.size(), 0);
    std::size_t n = 1;
    for(auto l : lens)
        n *= l;
    for(std::size_t k = 0; k < n; k++)
    {
        r.push_back(i);
        for(std::size_t d = lens.size(); d-- > 0;)
            if(++i[d] < lens[d])
                break;
            else
                i[d] = 0;
    }
    return r;
}

struct attention_case
{
    std::string name;
    gpu::attention_spec spec;
    float masked = -10000.f; // the mask's value at masked keys
    double masked_share = 0.2;
    bool mask_all_row = false; // one batch's keys all masked (with -inf: the nan_to_zero rows)
    bool hopper       = true;  // within the Hopper kernel's range (generate_attention_wgmma)
};

/// The reference: per batch index and query row, steps(scale q.k) over the keys, softmax, times v.
std::vector<double> reference(const attention_case& c, const tensor& q, const tensor& kt, const tensor& v,
                              const tensor* mask)
{
    const auto& a  = c.spec;
    const auto& ol = a.out.lens();
    auto r         = ol.size();
    std::size_t M = ol[r - 2], DV = ol[r - 1], D = a.q.lens()[r - 1], N = a.kt.lens()[r - 1];
    std::vector<std::size_t> batch(ol.begin(), ol.end() - 2);
    std::vector<double> out(a.out.elements(), 0.0);
    std::size_t bi = 0;
    for(const auto& b : indices(batch.empty() ? std::vector<std::size_t>{1} : batch))
    {
        auto at = [&](std::size_t i, std::size_t j) {
            auto idx = batch.empty() ? std::vector<std::size_t>{} : b;
            idx.push_back(i);
            idx.push_back(j);
            return idx;
        };
        for(std::size_t m = 0; m < M; m++)
        {
            std::vector<double> s(N);
            for(std::size_t n = 0; n < N; n++)
            {
                double x = 0;
                for(std::size_t d = 0; d < D; d++)
                    x += q.get(at(m, d)) * kt.get(at(d, n));
                x *= a.scale;
                for(const auto& st : a.steps)
                {
                    double o = st.mask ? mask->get(at(m, n)) : st.value;
                    if(st.op == "add")
                        x = x + o;
                    else if(st.op == "sub")
                        x = st.operand_first ? o - x : x - o;
                    else if(st.op == "mul")
                        x = x * o;
                    else
                        x = st.operand_first ? o / x : x / o;
                }
                s[n] = x;
            }
            double mx = -std::numeric_limits<double>::infinity();
            for(auto x : s)
                mx = std::max(mx, x);
            double sum = 0;
            for(auto& x : s)
            {
                x = std::exp(x - mx);
                sum += x;
            }
            for(std::size_t dv = 0; dv < DV; dv++)
            {
                double y = 0;
                for(std::size_t n = 0; n < N; n++)
                    y += s[n] / sum * v.get(at(n, dv));
                if(std::isnan(y) and a.nan_to_zero)
                    y = 0;
                out[bi * M * DV + m * DV + dv] = y;
            }
        }
        bi++;
    }
    return out;
}

/// The case with the mma.sync kernel (`hopper` false) or the Hopper kernel (the spec marked
/// sm 90, MIGRAPHX_GPU_ATTENTION_WGMMA=1; main sets it).
void run_case(attention_case c, bool hopper, const std::string& stages, bool at_once)
{
    c.spec.sm = hopper ? 90 : 0;
    c.name += hopper ? "-wgmma" + stages : "-mma";
    if(at_once)
        c.name += "-at-once";
    const auto& a = c.spec;
    auto k        = gpu::generate_attention(a);
    if(not k)
    {
        std::cout << c.name << ": NOT GENERATED\n";
        failures++;
        return;
    }
    const bool got_hopper = k->name == "attention_wgmma_kernel";
    if(got_hopper != (hopper and c.hopper))
    {
        std::cout << c.name << ": made " << k->name << ", expected "
                  << (hopper and c.hopper ? "the Hopper kernel" : "the mma.sync kernel") << "\n";
        failures++;
        return;
    }
    if(hopper and not c.hopper)
        return; // the same mma.sync kernel as the first run
    if(hopper and stages != "1" and k->shared_bytes == 0)
    {
        std::cout << c.name << ": expected the two-stage kernel\n";
        failures++;
        return;
    }
    auto src = k->source;
    if(not migx_tools::plant_bug(src))
    {
        std::cout << c.name << ": nothing to plant\n";
        failures++;
        return;
    }
    auto at = src.find("extern \"C\" __global__");
    bool has_mask = a.mask.has_value();
    std::string mtype = has_mask and a.mask->type() == shape::float_type ? "float" : "migx_half";
    src = src.substr(at);
    // dynamic shared memory: a static array of the launch's size here
    const std::string dyn = "extern __shared__ unsigned char migx_dyn[];";
    if(auto d = src.find(dyn); d != std::string::npos)
        src.replace(d, dyn.size(),
                    "__shared__ __align__(1024) unsigned char migx_dyn[" + std::to_string(k->shared_bytes) + "];");
    src = std::string(at_once ? "#define MIGX_COPIES_AT_ONCE\n" : "") + shim + src + launcher(k->name, has_mask, mtype);
    // the kernel is "extern C" with a __restrict__-free signature once the macros apply
    void* h = migx_tools::compile_and_load(work + "/" + c.name, src, "-std=c++20 -O1 -pthread");
    void* f = h != nullptr ? dlsym(h, "migx_launch") : nullptr;
    auto* status = h != nullptr ? reinterpret_cast<int (*)()>(dlsym(h, "migx_wgmma_status")) : nullptr;
    if(f == nullptr)
    {
        std::cout << c.name << ": cannot load the launcher: " << dlerror() << "\n";
        failures++;
        return;
    }
    auto blocks = static_cast<unsigned>(k->elements / k->local);
    for(std::size_t skew : {0, 2})
        for(unsigned grid : {blocks, std::max(1u, blocks / 3)})
        {
            std::mt19937 gen(7);
            std::uniform_real_distribution<float> u(-1.f, 1.f);
            tensor q(a.q, skew), kt(a.kt, skew), v(a.v, skew), y(a.out, skew);
            for(auto* t : {&q, &kt, &v})
                for(const auto& i : indices(t->s.lens()))
                    t->set(i, u(gen));
            std::memset(y.p, 0x7f, a.out.element_space() * 2); // NaNs where nothing is written
            std::unique_ptr<tensor> m;
            if(has_mask)
            {
                m = std::make_unique<tensor>(*a.mask, skew);
                std::uniform_real_distribution<double> pick(0, 1);
                for(const auto& i : indices(a.mask->lens()))
                {
                    bool all = c.mask_all_row and i.front() == 0;
                    m->set(i, all or pick(gen) < c.masked_share ? c.masked : 0.f);
                }
            }
            auto want = reference(c, q, kt, v, m.get());
            if(has_mask)
                reinterpret_cast<void (*)(const void*, const void*, const void*, const void*, void*, unsigned,
                                          unsigned)>(f)(q.p, kt.p, v.p, m->p, y.p, grid, k->local);
            else
                reinterpret_cast<void (*)(const void*, const void*, const void*, void*, unsigned, unsigned)>(f)(
                    q.p, kt.p, v.p, y.p, grid, k->local);
            std::size_t bad = 0, i = 0;
            for(const auto& idx : indices(a.out.lens()))
            {
                double got = y.get(idx);
                if(not(std::abs(got - want[i]) <= 4e-3 + 4e-3 * std::abs(want[i])) and
                   not(std::isnan(got) and std::isnan(want[i])))
                    if(bad++ < 5)
                        std::cout << "  " << c.name << " [" << i << "] got " << got << " ref " << want[i] << "\n";
                i++;
            }
            std::string path = skew == 0 ? "aligned" : "skewed";
            if(status != nullptr and status() != 0)
            {
                bad++;
                std::cout << "  " << c.name << ": a wgmma descriptor outside what the emulator models, or shared "
                                               "arrays in two 256 KiB windows\n";
            }
            if(bad != 0)
            {
                failures++;
                std::cout << c.name << " (" << path << ", grid " << grid << "): " << bad << " of " << want.size()
                          << " differ\n";
            }
            else
                std::cout << c.name << " (" << path << ", grid " << grid << " of " << blocks << " x " << k->local
                          << "): ok, " << want.size() << " outputs\n";
        }
}

/// [b, h, s, d] views of a [b, s, h, d] tensor (heads in place), as BERT's attention reads them.
shape heads_in_place(std::size_t b, std::size_t h, std::size_t s, std::size_t d)
{
    return shape{shape::half_type, {b, h, s, d}, {s * h * d, d, h * d, 1}};
}

/// K^T [b, h, d, s] of a [b, s, h, d] tensor.
shape keys_transposed(std::size_t b, std::size_t h, std::size_t s, std::size_t d)
{
    return shape{shape::half_type, {b, h, d, s}, {s * h * d, d, 1, h * d}};
}

attention_case bert_like(const std::string& name, std::size_t b, std::size_t h, std::size_t s, std::size_t d)
{
    attention_case c;
    c.name       = name;
    c.spec.q     = heads_in_place(b, h, s, d);
    c.spec.kt    = keys_transposed(b, h, s, d);
    c.spec.v     = heads_in_place(b, h, s, d);
    c.spec.out   = heads_in_place(b, h, s, d);
    c.spec.scale = 1.f / std::sqrt(static_cast<float>(d));
    // a padding mask: one row per batch, broadcast over heads and query rows
    c.spec.mask = shape{shape::half_type, {b, h, s, s}, {s, 0, 0, 1}};
    c.spec.steps.push_back({"add", true, 0, false});
    return c;
}

} // namespace

int main(int argc, char** argv)
{
    if(argc > 1)
        work = argv[1];
    std::system(("mkdir -p " + work).c_str());
    std::vector<attention_case> cases;
    // BERT-base's shape (fewer batches): 128 rows a (batch, head), 8 warps, two 64-key steps
    cases.push_back(bert_like("bert_128x64", 2, 3, 128, 64));
    // keys not a multiple of the step, rows not a multiple of 16, a third step
    cases.push_back(bert_like("ragged_150x64", 1, 2, 150, 64));
    cases.back().hopper = false; // more than 128 keys
    // 64 rows: 4 warps, one step
    cases.push_back(bert_like("short_64x32", 2, 2, 64, 32));
    // no mask, packed [b, h, s, d] inputs, an output transposed back
    {
        attention_case c;
        c.name       = "packed_96x128_nomask";
        c.spec.q     = shape{shape::half_type, {2, 2, 96, 128}};
        c.spec.kt    = shape{shape::half_type, {2, 2, 128, 96}};
        c.spec.v     = shape{shape::half_type, {2, 2, 96, 128}};
        c.spec.out   = heads_in_place(2, 2, 96, 128);
        c.spec.scale = 0.125f;
        c.hopper     = false; // Q, K and V over 48 KiB of shared memory
        cases.push_back(c);
    }
    // a full float mask with -inf rows and the NaN-to-zero rule (torch's SDPA export)
    {
        attention_case c  = bert_like("float_mask_inf_rows", 2, 2, 80, 32);
        c.spec.mask       = shape{shape::float_type, {2, 2, 80, 80}};
        c.spec.nan_to_zero = true;
        c.masked          = -std::numeric_limits<float>::infinity();
        c.mask_all_row    = true;
        cases.push_back(c);
    }
    // a 64-row block of 70 rows over 40 keys (padded to 48 for wgmma), BERT's row mask
    {
        attention_case c = bert_like("keys40_70x64", 2, 2, 70, 64);
        c.spec.kt        = keys_transposed(2, 2, 40, 64);
        c.spec.v         = heads_in_place(2, 2, 40, 64);
        c.spec.mask      = shape{shape::half_type, {2, 2, 70, 40}, {40, 0, 0, 1}};
        cases.push_back(c);
    }
    // DV other than D (wgmma n 48), no mask, packed inputs
    {
        attention_case c;
        c.name       = "dv48_33x32_nomask";
        c.spec.q     = shape{shape::half_type, {1, 2, 33, 32}};
        c.spec.kt    = shape{shape::half_type, {1, 2, 32, 64}};
        c.spec.v     = shape{shape::half_type, {1, 2, 64, 48}};
        c.spec.out   = shape{shape::half_type, {1, 2, 33, 48}};
        c.spec.scale = 0.2f;
        cases.push_back(c);
    }
    setenv("MIGRAPHX_GPU_ATTENTION_WGMMA", "1", 1);
    // the Hopper kernel in one stage and in two (persistent, the next item's copies in flight),
    // its copies landing as late and as early as they may
    for(const auto& c : cases)
        for(bool at_once : {false, true})
        {
            setenv("MIGRAPHX_GPU_ATTENTION_WGMMA_STAGES", "1", 1);
            run_case(c, false, "", at_once);
            for(const std::string stages : {"1", "2", "2place"}) // 2place: the mask row read at its place
            {
                setenv("MIGRAPHX_GPU_ATTENTION_WGMMA_STAGES", stages.substr(0, 1).c_str(), 1);
                if(stages == "2place")
                    setenv("MIGRAPHX_GPU_ATTENTION_WGMMA_MASK", "place", 1);
                else
                    unsetenv("MIGRAPHX_GPU_ATTENTION_WGMMA_MASK");
                run_case(c, true, stages, at_once);
            }
        }
    std::cout << (failures ? "FAILED: " : "all ok: ") << failures << " failure(s)\n";
    return failures ? 1 : 0;
}
