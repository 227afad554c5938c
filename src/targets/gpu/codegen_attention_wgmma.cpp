// The Hopper fused attention kernel: softmax(steps(scale Q K^T)) V for up to 128 keys with
// warpgroup MMA (wgmma, sm_90a). Each warpgroup (4 warps) takes 64 query rows of one batch index;
// a block has two where there are more than 64 rows (K and V then read once an item). It copies
// Q's rows, all of K and all of V into shared memory (cp.async, 16 bytes a thread, V in a second
// group so that S = Q K^T starts before V has landed): at head size 64 in the 128-byte swizzle (a
// row read and written as 128 contiguous bytes), else in wgmma's unswizzled 8 x 16-byte "core
// matrices". S (64 x keys, float) comes back in registers whole: one max and one sum a row, no
// online rescaling. P, rounded to half, is the A operand of O = P V straight from registers (the
// accumulator's layout is the A fragment's), V the B operand read N-major from shared memory. The
// output passes through shared memory (Q's and K's space, done with) and leaves in 16-byte stores.
// Where two buffers a block fit (two stages, the default), the grid is persistent (2 blocks an SM)
// and each block copies its next item, with its mask row, into the other buffer while it computes
// this one. On an H100 BERT-base's layer takes 22.0-22.1 us (session 44; one stage 28.6-29.9, the
// mma.sync kernel 29.5-30.1; unswizzled with one warpgroup 43.9: bank conflicts, K and V read twice).
#include "targets/gpu/codegen_attention_parts.hpp"
#include "ir/env.hpp"
#include <sstream>

namespace migraphx {
namespace gpu {

using namespace attention_parts;

namespace {

constexpr std::size_t static_smem = 48 * 1024;
constexpr std::size_t wg_rows     = 64; // query rows a warpgroup: one wgmma's M
constexpr std::size_t max_keys    = 128;
constexpr std::size_t sm90_smem_per_sm = 228 * 1024; // each block's share includes 1 KiB the system keeps

const char* wgmma_helpers = R"(
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wgmma_wait() { asm volatile("wgmma.wait_group.sync.aligned %0;" :: "n"(N) : "memory"); }
// What the threads wrote to shared memory (cp.async, stores) made visible to wgmma's reads.
__device__ __forceinline__ void fence_async_shared() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }
// A shared-memory matrix descriptor, no swizzle: core matrices of 8 rows x 16 bytes, `lbo` bytes
// apart along K, `sbo` bytes apart along M or N.
__device__ __forceinline__ unsigned long long wgmma_desc(const void* p, unsigned lbo, unsigned sbo)
{
    return (unsigned long long)((smem_addr(p) & 0x3FFFFu) >> 4) | ((unsigned long long)(lbo >> 4) << 16) |
           ((unsigned long long)(sbo >> 4) << 32);
}
// The same for the 128-byte swizzle (layout type 1): rows of 128 bytes, 8 a 1024-byte atom whose
// 16-byte pieces are permuted by the row (piece c of row r at c ^ (r % 8)); `sbo` between atoms.
__device__ __forceinline__ unsigned long long wgmma_desc_sw128(const void* p, unsigned lbo, unsigned sbo)
{
    return wgmma_desc(p, lbo, sbo) | (1ull << 62);
}
// The accumulators are written when wgmma_wait returns, not at the wgmma: keep the compiler from
// moving their uses across it.
__device__ __forceinline__ void keep(float& x) { asm volatile("" : "+f"(x) :: "memory"); }
template <int N, int TB>
__device__ __forceinline__ void wgmma_ss(float* d, unsigned long long a, unsigned long long b, int accumulate);
template <int N, int TB>
__device__ __forceinline__ void wgmma_rs(float* d, const unsigned* a, unsigned long long b, int accumulate);
)";

/// The specialization of wgmma_ss (A from a descriptor) or wgmma_rs (A from 4 registers) for
/// m64 n `n` k16, f32 += f16 x f16, B N-major when `trans_b`.
std::string wgmma_function(std::size_t n, bool a_regs, bool trans_b)
{
    const std::size_t dn = n / 2; // accumulator registers a thread
    const std::size_t an = a_regs ? 4 : 1;
    std::ostringstream ss;
    ss << "template <>\n__device__ __forceinline__ void " << (a_regs ? "wgmma_rs" : "wgmma_ss") << "<" << n << ", "
       << (trans_b ? 1 : 0) << ">(float* d, " << (a_regs ? "const unsigned* a" : "unsigned long long a")
       << ", unsigned long long b, int accumulate)\n{\n";
    ss << "    asm volatile(\"{\\n.reg .pred p;\\nsetp.ne.b32 p, %" << dn + an + 1 << ", 0;\\n"
       << "wgmma.mma_async.sync.aligned.m64n" << n << "k16.f32.f16.f16 {";
    for(std::size_t i = 0; i < dn; i++)
        ss << (i ? ", " : "") << "%" << i;
    ss << "}, ";
    if(a_regs)
        ss << "{%" << dn << ", %" << dn + 1 << ", %" << dn + 2 << ", %" << dn + 3 << "}";
    else
        ss << "%" << dn;
    ss << ", %" << dn + an << ", p, 1, 1, " << (a_regs ? "" : "0, ") << (trans_b ? 1 : 0) << ";\\n}\\n\"\n        : ";
    for(std::size_t i = 0; i < dn; i++)
        ss << (i ? ", " : "") << "\"+f\"(d[" << i << "])";
    ss << "\n        : ";
    if(a_regs)
        ss << "\"r\"(a[0]), \"r\"(a[1]), \"r\"(a[2]), \"r\"(a[3])";
    else
        ss << "\"l\"(a)";
    ss << ", \"l\"(b), \"r\"(accumulate));\n}\n";
    return ss.str();
}

/// A tile copied to shared memory: `rows` rows (a multiple of 8) of `width` halves; row r is
/// source row `first` + r at src + row * rs, element e at e * es; rows at or past `limit` are
/// zeros. `vec` names the run-time flag of the 16-byte path (cp.async).
struct tile_copy
{
    std::string vec, src, dst, first, limit;
    std::size_t rows = 0, width = 0, rs = 0, es = 0;
};

/// The copy's code, 16 bytes (a piece) a thread. Unswizzled core-matrix order: piece i is row
/// (i % 8) + 8 (i / (8 C)), columns 8 ((i / 8) % C).. (C = width / 8), and sits at dst + 8 i, so a
/// quarter warp writes one core matrix. 128-byte swizzle (width 64): row r at dst + 64 r, its
/// piece c at piece c ^ (r % 8); 8 threads a row, read as 128 contiguous bytes and written so.
std::string copy_tile_code(const tile_copy& t, std::size_t threads, bool swizzled)
{
    const std::size_t c = t.width / 8;
    std::ostringstream ss;
    ss << "        for(int i = tid; i < " << t.rows * c << "; i += " << threads << ")\n        {\n";
    if(swizzled)
        ss << "            const int r = i >> 3, row = " << t.first << " + r, col = (i & 7) * 8;\n"
           << "            migx_half* d = " << t.dst << " + r * 64 + (((i & 7) ^ (r & 7)) << 3);\n";
    else
        ss << "            const int row = " << t.first << " + (i & 7) + (i / " << 8 * c << ") * 8, col = ((i >> 3) % "
           << c << ") * 8;\n"
           << "            migx_half* d = " << t.dst << " + i * 8;\n";
    ss << "            const bool ok = row < " << t.limit << ";\n"
       << "            if(" << t.vec << ")\n"
       << "                cp_async16(d, " << t.src << " + (ok ? (idx_t)row * " << t.rs
       << "u + (idx_t)col : (idx_t)0), ok);\n"
       << "            else\n"
       << "                for(int e = 0; e < 8; e++)\n"
       << "                    d[e] = ok ? " << t.src << "[(idx_t)row * " << t.rs << "u + (idx_t)(col + e) * " << t.es
       << "u] : (migx_half)0;\n"
       << "        }\n";
    return ss.str();
}

} // namespace

std::optional<kernel_source> generate_attention_wgmma(const attention_spec& a)
{
    // On by default on sm_90 (session 43, H100: BERT-base b64 fp16 1-4 % faster end to end)
    if(a.sm != 90 or env_string("MIGRAPHX_GPU_ATTENTION_WGMMA") == "0")
        return std::nullopt;
    std::size_t M = 0, D = 0, N = 0, DV = 0;
    if(not supported(a, M, D, N, DV) or N > max_keys)
        return std::nullopt;
    const std::size_t NP = (N + 15) / 16 * 16; // keys padded to wgmma's k (P V) and n steps
    const std::size_t k_halves = NP * D, v_halves = NP * DV;
    const std::size_t op       = DV + 8; // the staged output's row pitch: 8 rows of a store hit all banks
    const bool mask_row        = a.mask and (stride(*a.mask, 2) == 0 or M == 1);
    // Two warpgroups (128 rows) a block where there are more than 64 rows and Q, K and V fit, so
    // that K and V are read once an item; MIGRAPHX_GPU_ATTENTION_WGMMA_ROWS=64 keeps one.
    auto fits = [&](std::size_t wgs, bool staged_mask) {
        const std::size_t q = wgs * wg_rows * D;
        return (q + k_halves + v_halves) * 2 + (staged_mask ? NP * 4 : 0) <= static_smem and
               wgs * wg_rows * op <= q + k_halves;
    };
    std::size_t wgs = M > wg_rows and env_string("MIGRAPHX_GPU_ATTENTION_WGMMA_ROWS") != "64" and fits(2, false) ? 2 : 1;
    if(not fits(wgs, false))
        return std::nullopt;
    const std::size_t per_sm = wgs == 1 ? 3 : 2; // the launch bounds' blocks an SM
    // Two stages: a persistent grid, each block copying its next item's Q, K and V into a second
    // buffer while it computes this one (dynamic shared memory, where `per_sm` blocks of two
    // buffers fit an SM). On by default (session 44, H100: BERT-base's layer 22.0-22.1 us against
    // 28.6-29.9, end to end 1.7-2.0 % faster); MIGRAPHX_GPU_ATTENTION_WGMMA_STAGES=1 keeps one.
    // With two stages, a mask row of whole 16-byte pieces comes with its item (cp.async, after V
    // in the buffer) unless MIGRAPHX_GPU_ATTENTION_WGMMA_MASK=place (read at its place, L1).
    const bool mask_copyable = mask_row and rows_vectorize(*a.mask, 1, N) and
                               env_string("MIGRAPHX_GPU_ATTENTION_WGMMA_MASK") != "place";
    const std::size_t mask_bytes = mask_copyable ? (NP * a.mask->type_size() + 15) / 16 * 16 : 0;
    const std::size_t stage_bytes = ((wgs * wg_rows * D + k_halves + v_halves) * 2 + mask_bytes + 1023) / 1024 * 1024;
    const std::size_t dyn_bytes   = 2 * stage_bytes + 1024; // + what aligns the base to 1024
    const bool two_stages         = env_string("MIGRAPHX_GPU_ATTENTION_WGMMA_STAGES") != "1" and
                            per_sm * (dyn_bytes + 1024) <= sm90_smem_per_sm;
    const bool mask_copied = two_stages and mask_copyable;
    // One stage: the mask's one row staged in shared memory where it fits; else read at its place (L1).
    const bool mask_staged = mask_row and not two_stages and fits(wgs, true);
    // Rows of 128 bytes (head size 64) in the 128-byte swizzle (conflict-free copies and wgmma
    // reads); others in the unswizzled core-matrix layout. MIGRAPHX_GPU_ATTENTION_WGMMA_SWIZZLE=0
    // keeps the latter for measurements.
    const bool swz = D == 64 and DV == 64 and env_string("MIGRAPHX_GPU_ATTENTION_WGMMA_SWIZZLE") != "0";
    const std::size_t block_rows = wgs * wg_rows;
    const std::size_t q_halves   = block_rows * D;
    const auto& ql = a.q.lens();
    std::vector<std::size_t> batch(ql.begin(), ql.end() - 2);
    std::size_t batches = 1;
    for(auto b : batch)
        batches *= b;
    const std::size_t row_blocks = (M + block_rows - 1) / block_rows;
    const std::size_t blocks     = batches * row_blocks;
    const std::size_t threads    = 128 * wgs;
    std::vector<shape> all{a.q, a.kt, a.v, a.out};
    if(a.mask)
        all.push_back(*a.mask);
    std::string mtype = a.mask and a.mask->type() == shape::float_type ? "float" : "migx_half";

    std::ostringstream ss;
    const std::string name = "attention_wgmma_kernel";
    const bool e4m3          = a.out.type() == shape::fp8e4m3fn_type;
    const std::string y_type = e4m3 ? "migx_fp8" : "migx_half";
    ss << detail::prelude() << (e4m3 ? detail::fp8_helpers() : "") << device_common << wgmma_helpers
       << wgmma_function(NP, false, false)
       << wgmma_function(DV, true, true);
    // One warpgroup: 3 blocks an SM, at most 168 registers a thread (S's 64 floats, O's 32, P's 32
    // half pairs); two: 2 blocks an SM, 128 registers.
    ss << "extern \"C\" __global__ void __launch_bounds__(" << threads << ", " << per_sm << ") " << name
       << "(const migx_half* __restrict__ q, const migx_half* __restrict__ kt, const migx_half* __restrict__ v, ";
    if(a.mask)
        ss << "const " << mtype << "* __restrict__ mask, ";
    ss << y_type << "* __restrict__ y)\n{\n";
    ss << "    typedef " << detail::index_type(all) << " idx_t;\n";
    const std::size_t stage_halves = two_stages ? stage_bytes / 2 : q_halves + k_halves + v_halves;
    if(two_stages)
        ss << "    extern __shared__ unsigned char migx_dyn[];\n"
           << "    migx_half* const sm0 = (migx_half*)(migx_dyn + ((1024u - (smem_addr(migx_dyn) & 1023u)) & 1023u));\n";
    else
        ss << "    __shared__ __align__(1024) migx_half sm[" << stage_halves << "];\n";
    if(mask_staged)
        ss << "    __shared__ float ms[" << NP << "];\n";
    ss << "    const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31, g = lane >> 2, t = lane & 3;\n";
    auto vec_flag = [&](const char* flag, const char* ptr, bool ok) {
        ss << "    const bool " << flag << " = "
           << (ok ? std::string("((unsigned long long)") + ptr + " & 15) == 0" : std::string("false")) << ";\n";
    };
    vec_flag("qvec", "q", rows_vectorize(a.q, 1, D));
    vec_flag("kvec", "kt", rows_vectorize(a.kt, 2, D));
    vec_flag("vvec", "v", rows_vectorize(a.v, 1, DV));
    vec_flag("yvec", "y", rows_vectorize(a.out, 1, DV));
    if(mask_copied)
        vec_flag("mvec", "mask", true);
    // An item's (batch index and row block's) pointers, from `blk`.
    auto decode = [&](const char* indent, bool inputs, bool outputs) {
        ss << indent << "const idx_t bi = blk / " << row_blocks << "u;\n";
        ss << indent << "const int row0 = (int)(blk % " << row_blocks << "u) * " << block_rows << ";\n";
        ss << detail::digits("bi", batch.empty() ? std::vector<std::size_t>{1} : batch, "b");
        if(batch.empty())
            ss << indent << "(void)b0;\n";
        if(inputs)
        {
            ss << indent << "const migx_half* qb = q + (" << batch_offset(a.q) << ");\n";
            ss << indent << "const migx_half* kb = kt + (" << batch_offset(a.kt) << ");\n";
            ss << indent << "const migx_half* vb = v + (" << batch_offset(a.v) << ");\n";
            if(mask_copied)
                ss << indent << "const " << mtype << "* mb = mask + (" << batch_offset(*a.mask) << ");\n";
        }
        if(outputs)
        {
            ss << indent << y_type << "* yb = y + (" << batch_offset(a.out) << ");\n";
            if(a.mask and not mask_copied) // else the row is read from the buffer it came into
                ss << indent << "const " << mtype << "* mb = mask + (" << batch_offset(*a.mask) << ");\n";
        }
    };
    // Q and K (group 1), V (group 2) of item `blk` into qs, ks and vs.
    auto copies = [&] {
        ss << copy_tile_code(
            {"qvec", "qb", "qs", "row0", std::to_string(M), block_rows, D, stride(a.q, 2), stride(a.q, 1)}, threads, swz);
        ss << copy_tile_code(
            {"kvec", "kb", "ks", "0", std::to_string(N), NP, D, stride(a.kt, 1), stride(a.kt, 2)}, threads, swz);
        if(mask_copied)
        {
            // the row's pieces (zeros past the keys), or where it is not 16-byte aligned, its values
            const std::size_t per = 16 / a.mask->type_size();
            ss << "        " << mtype << "* msd = (" << mtype << "*)(vs + " << v_halves << ");\n"
               << "        if(mvec)\n"
               << "            for(int i = tid; i < " << NP / per << "; i += " << threads << ")\n"
               << "                cp_async16(msd + i * " << per << ", mb + (i < " << N / per << " ? i * " << per
               << " : 0), i < " << N / per << ");\n"
               << "        else\n"
               << "            for(int i = tid; i < " << NP << "; i += " << threads << ")\n"
               << "                msd[i] = i < " << N << " ? mb[i] : (" << mtype << ")0;\n";
        }
        ss << "        cp_async_commit();\n";
        ss << copy_tile_code(
            {"vvec", "vb", "vs", "0", std::to_string(N), NP, DV, stride(a.v, 2), stride(a.v, 1)}, threads, swz);
        ss << "        cp_async_commit();\n";
    };
    if(two_stages)
    {
        // Two groups an item, always (empty past the last item): this item's first group is the
        // newest but one at its first wait, its second the newest but two at the second.
        ss << "    auto load_item = [&](idx_t blk, migx_half* qs) {\n"
           << "        migx_half* ks = qs + " << q_halves << ";\n        migx_half* vs = ks + " << k_halves << ";\n"
           << "        if(blk >= " << blocks << "u)\n        {\n"
           << "            cp_async_commit();\n            cp_async_commit();\n            return;\n        }\n";
        decode("        ", true, false);
        copies();
        ss << "    };\n";
        ss << "    int st = 0;\n    load_item(blockIdx.x, sm0);\n";
        ss << "    for(idx_t blk = blockIdx.x; blk < " << blocks << "u; blk += gridDim.x, st ^= 1)\n    {\n";
        ss << "        migx_half* const sm = sm0 + st * " << stage_halves << ";\n";
        ss << "        migx_half* const qs = sm;\n        migx_half* const ks = sm + " << q_halves
           << ";\n        migx_half* const vs = ks + " << k_halves << ";\n";
        decode("        ", false, true);
    }
    else
    {
        ss << "    migx_half* qs = sm;\n    migx_half* ks = sm + " << q_halves << ";\n    migx_half* vs = ks + "
           << k_halves << ";\n";
        ss << "    for(idx_t blk = blockIdx.x; blk < " << blocks << "u; blk += gridDim.x)\n    {\n";
        decode("        ", true, true);
        copies();
    }
    // this warpgroup's 64 rows of Q
    ss << "        const migx_half* qw = qs + (tid >> 7) * " << wg_rows * D << ";\n";
    if(mask_copied)
        ss << "        const " << mtype << "* msr = (const " << mtype << "*)(vs + " << v_halves << ");\n";
    if(mask_staged)
        ss << "        for(int i = tid; i < " << NP << "; i += " << threads << ")\n"
           << "            ms[i] = i < " << N << " ? (float)" << (mtype == "float" ? "" : "h2f") << "(mb[(idx_t)i * "
           << stride(*a.mask, 1) << "u]) : 0.f;\n";
    // This item's first group (Q, K and the mask row). Two stages: then the next item's copies go
    // to the other buffer, whose last reads (the previous item's stores) ended before this barrier.
    ss << "        cp_async_wait<1>();\n        fence_async_shared();\n        __syncthreads();\n";
    if(two_stages)
        ss << "        load_item(blk + gridDim.x, sm0 + (st ^ 1) * " << stage_halves << ");\n";
    // S = Q K^T: K-major A (Q) and B (K). A k-step of 16 is 32 bytes on in a swizzled row (the
    // hardware applies the swizzle to the address), or two core matrices (256 bytes) on.
    const std::size_t qk_sbo = D / 8 * 128;
    auto qk_desc = [&](const char* base) {
        return swz ? "wgmma_desc_sw128(" + std::string(base) + " + kk * 16, 16, 1024)"
                   : "wgmma_desc(" + std::string(base) + " + kk * 128, 128, " + std::to_string(qk_sbo) + ")";
    };
    ss << "        float s[" << NP / 2 << "];\n";
    ss << "        wgmma_fence();\n";
    ss << "        #pragma unroll\n"
       << "        for(int kk = 0; kk < " << D / 16 << "; kk++)\n"
       << "            wgmma_ss<" << NP << ", 0>(s, " << qk_desc("qw") << ", " << qk_desc("ks") << ", kk);\n";
    ss << "        wgmma_commit();\n        wgmma_wait<0>();\n";
    ss << "        #pragma unroll\n"
       << "        for(int i = 0; i < " << NP / 2 << "; i++)\n            keep(s[i]);\n";
    // The score steps; s[4j + i] is row g (i < 2) or g + 8 of this warp's 16, key 8j + 2t + (i & 1).
    ss << "        #pragma unroll\n"
       << "        for(int j = 0; j < " << NP / 8 << "; j++)\n        {\n";
    if(mask_copied) // keys 8j + 2t and + 1 in one load
        ss << "            const float2 mp = pair_of(msr + j * 8 + t * 2);\n";
    ss << "            #pragma unroll\n            for(int i = 0; i < 4; i++)\n            {\n"
       << "                const int key = j * 8 + t * 2 + (i & 1);\n"
       << "                float v = s[4 * j + i];\n";
    if(a.mask and mask_copied)
        ss << "                const float mv = (i & 1) ? mp.y : mp.x;\n";
    else if(a.mask and mask_staged)
        ss << "                const float mv = ms[key];\n";
    else if(a.mask and mask_row)
        ss << "                const float mv = key < " << N << " ? (float)" << (mtype == "float" ? "" : "h2f")
           << "(mb[(idx_t)key * " << stride(*a.mask, 1) << "u]) : 0.f;\n";
    else if(a.mask)
        ss << "                const int mrow = row0 + warp * 16 + g + (i >> 1) * 8;\n"
           << "                const float mv = mrow < " << M << " && key < " << N << " ? (float)"
           << (mtype == "float" ? "" : "h2f") << "(mb[(idx_t)mrow * " << stride(*a.mask, 2) << "u + (idx_t)key * "
           << stride(*a.mask, 1) << "u]) : 0.f;\n";
    ss << score_code(a, "                ");
    if(NP != N)
        ss << "                s[4 * j + i] = key < " << N << " ? v : MIGX_NEG_INF;\n            }\n        }\n";
    else
        ss << "                (void)key;\n                s[4 * j + i] = v;\n            }\n        }\n";
    // The softmax of rows g (h = 0) and g + 8; a row's values are spread over the 4 lanes t.
    std::string rl_expr = a.nan_to_zero ? "sum > 0.f ? 1.f / sum : 0.f" : "1.f / sum";
    ss << "        float rl[2];\n"
       << "        #pragma unroll\n"
       << "        for(int h = 0; h < 2; h++)\n        {\n"
       << "            float mx = MIGX_NEG_INF;\n"
       << "            #pragma unroll\n"
       << "            for(int j = 0; j < " << NP / 8 << "; j++)\n"
       << "                mx = fmaxf(mx, fmaxf(s[4 * j + 2 * h], s[4 * j + 2 * h + 1]));\n"
       << "            mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));\n"
       << "            mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));\n"
       << "            const float muse = mx == MIGX_NEG_INF ? 0.f : mx;\n"
       << "            float sum = 0.f;\n"
       << "            #pragma unroll\n"
       << "            for(int j = 0; j < " << NP / 8 << "; j++)\n"
       << "                #pragma unroll\n"
       << "                for(int i = 2 * h; i < 2 * h + 2; i++)\n"
       << "                {\n"
       << "                    s[4 * j + i] = ex2f(s[4 * j + i] - muse);\n"
       << "                    sum += s[4 * j + i];\n"
       << "                }\n"
       << "            sum += __shfl_xor_sync(0xffffffffu, sum, 1);\n"
       << "            sum += __shfl_xor_sync(0xffffffffu, sum, 2);\n"
       << "            rl[h] = " << rl_expr << ";\n        }\n";
    // P in A fragments: keys 16kc.. are accumulator tiles 2kc and 2kc + 1.
    ss << "        unsigned pa[" << NP / 16 << "][4];\n"
       << "        #pragma unroll\n"
       << "        for(int kc = 0; kc < " << NP / 16 << "; kc++)\n        {\n"
       << "            pa[kc][0] = packf(s[8 * kc], s[8 * kc + 1]);\n"
       << "            pa[kc][1] = packf(s[8 * kc + 2], s[8 * kc + 3]);\n"
       << "            pa[kc][2] = packf(s[8 * kc + 4], s[8 * kc + 5]);\n"
       << "            pa[kc][3] = packf(s[8 * kc + 6], s[8 * kc + 7]);\n        }\n";
    // O = P V: V N-major. Swizzled: a key's 64 halves a 128-byte row, 8 keys an atom (1024 bytes
    // apart along K); unswizzled: core matrices of 8 keys x 8 columns, 128 bytes apart along the
    // columns (N) and DV / 8 * 128 bytes along the keys (K). A k-step is 16 keys on.
    const std::size_t v_lbo = DV / 8 * 128;
    const std::string v_desc =
        swz ? "wgmma_desc_sw128(vs + kc * 1024, 16, 1024)"
            : "wgmma_desc(vs + kc * " + std::to_string(2 * DV / 8 * 64) + ", " + std::to_string(v_lbo) + ", 128)";
    ss << "        cp_async_wait<" << (two_stages ? 2 : 0) << ">();\n        fence_async_shared();\n        __syncthreads();\n";
    ss << "        float o[" << DV / 2 << "];\n";
    ss << "        wgmma_fence();\n";
    ss << "        #pragma unroll\n"
       << "        for(int kc = 0; kc < " << NP / 16 << "; kc++)\n"
       << "            wgmma_rs<" << DV << ", 1>(o, pa[kc], " << v_desc << ", kc);\n";
    ss << "        wgmma_commit();\n        wgmma_wait<0>();\n";
    ss << "        #pragma unroll\n"
       << "        for(int i = 0; i < " << DV / 2 << "; i++)\n            keep(o[i]);\n";
    // O / l into Q's and K's space (every wgmma reading them done: each thread waited for its
    // own before the barrier above), then out in 16-byte pieces or at the output's strides.
    auto scaled = [&](const char* e) {
        std::string v = std::string("o[4 * j + 2 * h + ") + e + "]";
        return a.nan_to_zero ? "(rl[h] == 0.f ? 0.f : " + v + " * rl[h])" : v + " * rl[h]";
    };
    ss << "        #pragma unroll\n"
       << "        for(int h = 0; h < 2; h++)\n"
       << "            #pragma unroll\n"
       << "            for(int j = 0; j < " << DV / 8 << "; j++)\n"
       << "                *reinterpret_cast<unsigned*>(sm + (warp * 16 + g + h * 8) * " << op
       << " + j * 8 + t * 2) = packf(" << scaled("0") << ", " << scaled("1") << ");\n";
    ss << "        __syncthreads();\n";
    if(e4m3)
    {
        // 16 values a thread (one 16-byte store): each half times the scale, rounded to e4m3
        const std::string sc = detail::float_literal(a.out_scale);
        ss << "        for(int i = tid; i < " << block_rows * DV / 16 << "; i += " << threads << ")\n        {\n"
           << "            const int rr = i / " << DV / 16 << ", c = (i % " << DV / 16 << ") * 16;\n"
           << "            if(row0 + rr >= " << M << ")\n                continue;\n"
           << "            migx_fp8* yp = yb + (idx_t)(row0 + rr) * " << stride(a.out, 2) << "u;\n"
           << "            const migx_half* sp = sm + rr * " << op << " + c;\n"
           << "            if(yvec)\n            {\n"
           << "                unsigned w[4] = {0u, 0u, 0u, 0u};\n"
           << "                #pragma unroll\n"
           << "                for(int e = 0; e < 16; e++)\n"
           << "                    w[e / 4] |= (unsigned)f2f8(h2f(sp[e]) * " << sc << ") << (8 * (e % 4));\n"
           << "                *reinterpret_cast<uint4*>(yp + c) = make_uint4(w[0], w[1], w[2], w[3]);\n"
           << "            }\n"
           << "            else\n"
           << "                for(int e = 0; e < 16; e++)\n"
           << "                    yp[(idx_t)(c + e) * " << stride(a.out, 1) << "u] = f2f8(h2f(sp[e]) * " << sc << ");\n"
           << "        }\n";
    }
    else
    {
        ss << "        for(int i = tid; i < " << block_rows * DV / 8 << "; i += " << threads << ")\n        {\n"
           << "            const int rr = i / " << DV / 8 << ", c = (i % " << DV / 8 << ") * 8;\n"
           << "            if(row0 + rr >= " << M << ")\n                continue;\n"
           << "            migx_half* yp = yb + (idx_t)(row0 + rr) * " << stride(a.out, 2) << "u;\n"
           << "            if(yvec)\n"
           << "                *reinterpret_cast<uint4*>(yp + c) = *reinterpret_cast<const uint4*>(sm + rr * " << op
           << " + c);\n"
           << "            else\n"
           << "                for(int e = 0; e < 8; e++)\n"
           << "                    yp[(idx_t)(c + e) * " << stride(a.out, 1) << "u] = sm[rr * " << op << " + c + e];\n"
           << "        }\n";
    }
    // One stage: the next item's copies overwrite what this one's stores read. Two: the next
    // iteration's first barrier comes before its copies.
    if(not two_stages)
        ss << "        __syncthreads();\n";
    ss << "    }\n}\n";

    kernel_source k;
    k.name     = name;
    k.source   = ss.str();
    k.local    = threads;
    k.elements = blocks * threads;
    if(two_stages)
    {
        k.shared_bytes  = dyn_bytes;
        k.blocks_per_sm = per_sm;
    }
    return k;
}

} // namespace gpu
} // namespace migraphx
