// The fused attention kernel: softmax(scale * Q K^T, then a chain of pointwise steps) V in one
// pass, flash-attention style (the score matrix never reaches memory). A block of 4 warps (8
// when there are more than 64 query rows, so a (batch, head) of 128 rows reads its keys once)
// takes 16 query rows a warp of one batch index; it walks the keys 64 at a time. The K, V and
// mask tiles of a step are copied to shared memory asynchronously (cp.async), two steps in
// flight where shared memory allows, so the next step's loads overlap this step's products. Each
// warp multiplies its Q rows by the tiles on the tensor cores (mma.sync m16n8k16, half in, float
// accumulate; K and V, transposed, read by ldmatrix), applies the score steps and an online softmax
// in base 2 (running row max and sum, the output rescaled as the max grows) and adds P V into
// its output registers. Inputs are read at any strides (the heads of a [batch, seq, heads, dim]
// tensor in place); the output is written at any strides (the transpose back to
// [batch, seq, heads, dim] happens in the store). A mask broadcast over the query rows (a
// padding mask) is staged as one row a step. Where shared memory allows, Q's rows come in through
// stage 1's space before the first step and the output's rows leave through the stage space after
// the last (16-byte pieces a lane: coalesced, where a lane's own pairs would touch each 32-byte
// sector twice; Nsight Compute counted 43 % excess sectors before, BERT-base's kernel went from
// 39.3 to 33.3 us at base clock with this and ex2 for exp2f). On an sm_90 device the shapes the
// Hopper kernel covers go to it instead (codegen_attention_wgmma.cpp; MIGRAPHX_GPU_ATTENTION_WGMMA=0
// keeps this one).
#include "targets/gpu/codegen_attention_parts.hpp"
#include <algorithm>
#include <sstream>

namespace migraphx {
namespace gpu {
using namespace attention_parts;

namespace {

constexpr std::size_t static_smem   = 48 * 1024; // static shared memory's limit

/// A tile's rows copied to shared memory: `rows` rows of `width` elements (row r of the source
/// at src + r * rs, element e at e * es; rows at or past `limit` (an expression) are zeros) into
/// dst with row pitch `pitch`; elements at or past `col_limit` (where given) are zeros too. `vec` names the run-time flag of the 16-byte path (unit element
/// stride, aligned base), which copies asynchronously (cp.async); the other path copies through
/// registers.
struct tile_rows
{
    std::string vec, src, dst, type, row, limit;
    std::size_t rows = 0, width = 0, pitch = 0, rs = 0, es = 0, per = 8;
    std::string col_limit = {};
};

void copy_tile(std::ostream& ss, const tile_rows& t, std::size_t threads)
{
    auto vecs = t.width / t.per;
    ss << "            if(" << t.vec << ")\n"
       << "                for(int i = tid; i < " << t.rows * vecs << "; i += " << threads << ")\n                {\n"
       << "                    const int j = i / " << vecs << ", d = (i % " << vecs << ") * " << t.per << ";\n"
       << "                    const bool ok = " << t.row << " + j < " << t.limit << ";\n"
       << "                    cp_async16(" << t.dst << " + j * " << t.pitch << " + d, " << t.src << " + (ok ? (idx_t)("
       << t.row << " + j) * " << t.rs << "u + (idx_t)d : (idx_t)0), ok);\n"
       << "                }\n"
       << "            else\n"
       << "                for(int i = tid; i < " << t.rows * t.width << "; i += " << threads << ")\n                {\n"
       << "                    const int j = i / " << t.width << ", d = i % " << t.width << ";\n"
       << "                    " << t.dst << "[j * " << t.pitch << " + d] = " << t.row << " + j < " << t.limit
       << (t.col_limit.empty() ? "" : " && d < " + t.col_limit) << " ? " << t.src << "[(idx_t)(" << t.row << " + j) * " << t.rs << "u + (idx_t)d * " << t.es << "u] : ("
       << t.type << ")0;\n"
       << "                }\n";
}

// mma.sync and ldmatrix (the common helpers are attention_parts::device_common).
const char* device_helpers = R"(
__device__ __forceinline__ void mma16816(float* c, const unsigned* a, unsigned b0, unsigned b1)
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
// Four 8x8 tiles of 16-bit values from shared memory, lanes 8j..8j+7 naming tile j's rows: B
// fragments of K (rows = keys, d contiguous) as they are, of V (rows = keys) transposed.
__device__ __forceinline__ void ldsm_x4(unsigned* b, const migx_half* p)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
        : "=r"(b[0]), "=r"(b[1]), "=r"(b[2]), "=r"(b[3]) : "r"(smem_addr(p)));
}
__device__ __forceinline__ void ldsm_x2(unsigned* b, const migx_half* p)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];" : "=r"(b[0]), "=r"(b[1]) : "r"(smem_addr(p)));
}
__device__ __forceinline__ void ldsm_x4_trans(unsigned* b, const migx_half* p)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
        : "=r"(b[0]), "=r"(b[1]), "=r"(b[2]), "=r"(b[3]) : "r"(smem_addr(p)));
}
)";

} // namespace

std::optional<kernel_source> generate_attention(const attention_spec& a)
{
    // Keys a step. (32, for 3 blocks of 8 warps an SM at half the score registers, was slower on
    // BERT-base: bench/results/2026-12-05-session23.md.)
    const std::size_t keys_per_step = 64;
    std::size_t M = 0, D = 0, N = 0, DV = 0;
    if(not supported(a, M, D, N, DV))
        return std::nullopt;
    if(auto hopper = generate_attention_wgmma(a))
        return hopper;
    const auto& ql = a.q.lens();
    auto r         = ql.size();
    std::vector<std::size_t> batch(ql.begin(), ql.end() - 2);
    std::size_t batches = 1;
    for(auto b : batch)
        batches *= b;
    std::vector<shape> all{a.q, a.kt, a.v, a.out};
    if(a.mask)
        all.push_back(*a.mask);
    bool k_vec = rows_vectorize(a.kt, 2, D);  // a key's D values contiguous
    bool v_vec = rows_vectorize(a.v, 1, DV); // a key's DV values contiguous
    // A mask broadcast over the query rows (stride 0) is one row a step.
    bool mask_row     = a.mask and (stride(*a.mask, 2) == 0 or M == 1);
    bool m_vec        = a.mask and rows_vectorize(*a.mask, 1, N) and N % keys_per_step == 0;
    std::string mtype = a.mask and a.mask->type() == shape::float_type ? "float" : "migx_half";
    std::size_t msize = a.mask ? a.mask->type_size() : 0;
    // Row pitches padded by 16 bytes: the fragment loads of 8 rows hit 8 different bank groups.
    const std::size_t KP = D + 8, VP = DV + 8, MP = keys_per_step + 16 / std::max<std::size_t>(msize, 1);
    // 8 warps where there are more than 64 rows and a step's tiles fit, else 4. (4 always, so that
    // an SM holds 4 blocks in different phases, was slower: session 28.)
    std::size_t warps = 0, mask_rows = 0, stage = 0;
    for(std::size_t w : {8, 4})
    {
        if(w == 8 and M <= 64)
            continue;
        warps     = w;
        mask_rows = a.mask ? (mask_row ? 1 : w * 16) : 0;
        stage     = keys_per_step * (KP + VP) * 2 + mask_rows * MP * msize;
        if(stage <= static_smem)
            break;
    }
    if(stage > static_smem)
        return std::nullopt;
    const std::size_t stages         = N > keys_per_step and 2 * stage <= static_smem ? 2 : 1;
    const std::size_t threads        = warps * 32;
    const std::size_t min_blocks     = 512 / threads; // an SM
    const std::size_t stage_halves   = keys_per_step * (KP + VP);
    const std::size_t rows_per_block = warps * 16;
    std::size_t row_blocks           = (M + rows_per_block - 1) / rows_per_block;
    std::size_t blocks               = batches * row_blocks;

    std::ostringstream ss;
    std::string name = "attention_kernel";
    const bool e4m3          = a.out.type() == shape::fp8e4m3fn_type;
    const std::string y_type = e4m3 ? "migx_fp8" : "migx_half";
    ss << detail::prelude() << (e4m3 ? detail::fp8_helpers() : "") << device_common << device_helpers;
    ss << "extern \"C\" __global__ void __launch_bounds__(" << threads << ", " << min_blocks << ") " << name
       << "(const migx_half* __restrict__ q, const migx_half* __restrict__ kt, const migx_half* __restrict__ v, ";
    if(a.mask)
        ss << "const " << mtype << "* __restrict__ mask, ";
    ss << y_type << "* __restrict__ y)\n{\n";
    ss << "    typedef " << detail::index_type(all) << " idx_t;\n";
    // The stages' K and V tiles in one array: Q's rows pass through stage 1's space before the first
    // step, the output's rows through the whole of it after the last.
    ss << "    __shared__ __align__(16) migx_half kvs[" << stages * stage_halves << "];\n";
    if(a.mask)
        ss << "    __shared__ __align__(16) " << mtype << " ms[" << stages << "][" << mask_rows * MP << "];\n";
    ss << "    const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31, g = lane >> 2, t = lane & 3;\n";
    // The 16-byte copies need 16-byte aligned bases; a view may offset them, so check.
    ss << "    const bool kvec = " << (k_vec ? "((unsigned long long)kt & 15) == 0" : "false") << ";\n";
    ss << "    const bool vvec = " << (v_vec ? "((unsigned long long)v & 15) == 0" : "false") << ";\n";
    if(a.mask)
        ss << "    const bool mvec = " << (m_vec ? "((unsigned long long)mask & 15) == 0" : "false") << ";\n";
    // The output's element pairs as one 4-byte store where its rows lie together.
    bool y_pairs = stride(a.out, 1) == 1;
    for(std::size_t d = 0; d + 1 < r; d++)
        y_pairs = y_pairs and (a.out.lens()[d] == 1 or a.out.strides()[d] % 2 == 0);
    ss << "    const bool yvec = "
       << (y_pairs ? std::string("((unsigned long long)y & ") + (e4m3 ? "1" : "3") + ") == 0" : std::string("false"))
       << ";\n";
    ss << "    for(idx_t blk = blockIdx.x; blk < " << blocks << "u; blk += gridDim.x)\n    {\n";
    ss << "        const idx_t bi = blk / " << row_blocks << "u;\n";
    ss << "        const int blk_row0 = (int)(blk % " << row_blocks << "u) * " << rows_per_block << ";\n";
    ss << "        const int row0 = blk_row0 + warp * 16;\n";
    ss << detail::digits("bi", batch.empty() ? std::vector<std::size_t>{1} : batch, "b");
    if(batch.empty())
        ss << "        (void)b0;\n";
    ss << "        const migx_half* qb = q + (" << batch_offset(a.q) << ");\n";
    ss << "        const migx_half* kb = kt + (" << batch_offset(a.kt) << ");\n";
    ss << "        const migx_half* vb = v + (" << batch_offset(a.v) << ");\n";
    ss << "        " << y_type << "* yb = y + (" << batch_offset(a.out) << ");\n";
    if(a.mask)
        ss << "        const " << mtype << "* mb = mask + (" << batch_offset(*a.mask) << ");\n";
    // One step's tiles: K^T[d][n] -> ks[n][d], V[n][d] -> vs[n][d] (the P V product reads it
    // transposed through ldmatrix.trans), the mask's rows x 64 keys -> ms.
    ss << "        auto load_tiles = [&](int buf, int n0)\n        {\n";
    copy_tile(ss, {"kvec", "kb", "(kvs + buf * " + std::to_string(stage_halves) + ")", "migx_half", "n0", std::to_string(N), keys_per_step, D, KP,
                   stride(a.kt, 1), stride(a.kt, 2), 8}, threads);
    copy_tile(ss, {"vvec", "vb", "(kvs + buf * " + std::to_string(stage_halves) + " + " + std::to_string(keys_per_step * KP) + ")", "migx_half", "n0", std::to_string(N), keys_per_step, DV, VP,
                   stride(a.v, 2), stride(a.v, 1), 8}, threads);
    if(a.mask)
    {
        // The mask tile as rows of keys: row j is query row blk_row0 + j (or the one shared row).
        // Seen from the copy, its "rows" are the query rows and its elements the keys n0...
        auto rs = stride(*a.mask, 2), es = stride(*a.mask, 1);
        std::string src = "(mb + (idx_t)n0 * " + std::to_string(es) + "u + (idx_t)" + (mask_row ? "0" : "blk_row0") +
                          " * " + std::to_string(rs) + "u)";
        // The 16-byte path needs N a multiple of the step (no partial tile); the other bounds the keys.
        copy_tile(ss, {"mvec", src, "ms[buf]", mtype, "0", mask_row ? "1" : std::to_string(M) + " - blk_row0",
                       mask_rows, keys_per_step, MP, rs, es, 16 / msize, std::to_string(N) + " - n0"}, threads);
    }
    ss << "        };\n";
    // Q's rows in A fragments (m16n8k16 layout: rows g and g+8, columns 2t, 2t+1 and +8). Where the
    // block's rows fit in stage 1's space they are copied there in 16-byte pieces (coalesced) and
    // read by ldmatrix; else each lane reads its pairs from memory while the first tiles load.
    // (Q straight into registers where it fits, so that the second step's tiles need not wait for
    // Q to leave stage 1's space, gained nothing: session 28.)
    const bool q_staged = stages == 2 and rows_per_block * KP <= stage_halves;
    if(q_staged)
    {
        ss << "        const bool qvec16 = "
           << (rows_vectorize(a.q, 1, D) ? "((unsigned long long)q & 15) == 0" : "false") << ";\n";
        ss << "        migx_half* qs = kvs + " << stage_halves << ";\n";
        copy_tile(ss, {"qvec16", "qb", "qs", "migx_half", "blk_row0", std::to_string(M), rows_per_block, D, KP,
                       stride(a.q, 2), stride(a.q, 1), 8}, threads);
        ss << "        cp_async_commit();\n        load_tiles(0, 0);\n        cp_async_commit();\n";
        ss << "        cp_async_wait<1>();\n        __syncthreads();\n";
        ss << "        unsigned qa[" << D / 16 << "][4];\n";
        ss << "        for(int kk = 0; kk < " << D / 16 << "; kk++)\n"
           << "            ldsm_x4(qa[kk], qs + (warp * 16 + (lane & 15)) * " << KP << " + kk * 16 + (lane >> 4) * 8);\n";
        // the first step prefetches into stage 1: every warp has its Q first
        ss << "        __syncthreads();\n";
    }
    else
    {
        ss << "        load_tiles(0, 0);\n        cp_async_commit();\n";
        // Q's rows in A fragments (m16n8k16 layout: rows g and g+8, columns 2t, 2t+1 and +8), loaded
        // while the first tiles are in flight.
        bool q_pairs = stride(a.q, 1) == 1;
        for(std::size_t d = 0; d + 1 < r; d++)
            q_pairs = q_pairs and (a.q.lens()[d] == 1 or a.q.strides()[d] % 2 == 0);
        ss << "        const bool qvec = " << (q_pairs ? "((unsigned long long)q & 3) == 0" : "false") << ";\n";
        ss << "        unsigned qa[" << D / 16 << "][4];\n";
        ss << "        for(int kk = 0; kk < " << D / 16 << "; kk++)\n            for(int i = 0; i < 4; i++)\n"
              "            {\n"
              "                const int row = row0 + g + (i & 1) * 8, col = kk * 16 + t * 2 + (i >> 1) * 8;\n"
              "                migx_half lo = 0, hi = 0;\n"
              "                if(row < "
           << M << " && qvec)\n                {\n"
           << "                    qa[kk][i] = *reinterpret_cast<const unsigned*>(qb + (idx_t)row * " << stride(a.q, 2)
           << "u + (idx_t)col);\n                    continue;\n                }\n"
           << "                if(row < " << M << ")\n                {\n"
           << "                    lo = qb[(idx_t)row * " << stride(a.q, 2) << "u + (idx_t)col * " << stride(a.q, 1)
           << "u];\n"
           << "                    hi = qb[(idx_t)row * " << stride(a.q, 2) << "u + (idx_t)(col + 1) * "
           << stride(a.q, 1) << "u];\n"
           << "                }\n                qa[kk][i] = pack2(lo, hi);\n            }\n";
    }
    ss << "        float o[" << DV / 8 << "][4];\n";
    ss << "        for(int i = 0; i < " << DV / 8 << "; i++)\n            o[i][0] = o[i][1] = o[i][2] = o[i][3] = 0.f;\n";
    ss << "        float mrow[2] = {MIGX_NEG_INF, MIGX_NEG_INF}, lrow[2] = {0.f, 0.f};\n";
    ss << "        int buf = 0;\n";
    ss << "        for(int n0 = 0; n0 < " << N << "; n0 += " << keys_per_step << ")\n        {\n";
    ss << "            const bool more = n0 + " << keys_per_step << " < " << N << ";\n";
    if(stages == 2)
        ss << "            if(more)\n            {\n                load_tiles(buf ^ 1, n0 + " << keys_per_step
           << ");\n                cp_async_commit();\n                cp_async_wait<1>();\n            }\n"
           << "            else\n                cp_async_wait<0>();\n";
    else
        ss << "            cp_async_wait<0>();\n";
    ss << "            __syncthreads();\n";
    ss << "            const migx_half* kt_s = kvs + buf * " << stage_halves << ";\n"
       << "            const migx_half* vt_s = kt_s + " << keys_per_step * KP << ";\n";
    if(a.mask)
        ss << "            const " << mtype << "* mt_s = ms[buf];\n";
    // S = Q K^T for this warp's 16 rows and the 64 keys: 8 tiles of 16 x 8. K's B fragments
    // by ldmatrix, two 16-wide slices of d a call: lane 8j + r names key r of the tile, d
    // offset (j / 2) * 16 + (j % 2) * 8.
    const auto tiles = std::to_string(keys_per_step / 8); // 16 x 8 score tiles a step
    ss << "            float s[" << tiles << "][4];\n";
    ss << "            for(int nt = 0; nt < " << tiles << "; nt++)\n            {\n"
          "                s[nt][0] = s[nt][1] = s[nt][2] = s[nt][3] = 0.f;\n"
          "                const migx_half* kp = kt_s + (nt * 8 + (lane & 7)) * "
       << KP << " + (lane >> 4) * 16 + ((lane >> 3) & 1) * 8;\n";
    if(D / 16 >= 2)
        ss << "                for(int kk = 0; kk + 1 < " << D / 16 << "; kk += 2)\n                {\n"
           << "                    unsigned b[4];\n"
           << "                    ldsm_x4(b, kp + kk * 16);\n"
           << "                    mma16816(s[nt], qa[kk], b[0], b[1]);\n"
           << "                    mma16816(s[nt], qa[kk + 1], b[2], b[3]);\n"
           << "                }\n";
    if(D / 16 % 2 == 1)
        ss << "                {\n                    unsigned b[2];\n"
           << "                    ldsm_x2(b, kt_s + (nt * 8 + (lane & 7)) * " << KP << " + " << (D / 16 - 1) * 16
           << " + ((lane >> 3) & 1) * 8);\n"
           << "                    mma16816(s[nt], qa[" << D / 16 - 1 << "], b[0], b[1]);\n                }\n";
    ss << "            }\n";
    // Score steps (scores kept in base 2, times log2 e, so the softmax's exponentials are one ex2
    // each), then the keys past N masked out.
    ss << "            for(int nt = 0; nt < " << tiles << "; nt++)\n                for(int i = 0; i < 4; i++)\n                {\n"
       << "                    const int key = n0 + nt * 8 + t * 2 + (i & 1);\n"
       << "                    float v = s[nt][i];\n";
    if(a.mask)
    {
        std::string mrow_expr = mask_row ? "0" : "(warp * 16 + g + (i >> 1) * 8)";
        ss << "                    const float2 mp = pair_of(mt_s + " << mrow_expr << " * " << MP
           << " + nt * 8 + t * 2);\n"
           << "                    const float mv = (i & 1) ? mp.y : mp.x;\n";
    }
    ss << score_code(a, "                    ");
    if(N % keys_per_step == 0)
        ss << "                    (void)key;\n                    s[nt][i] = v;\n                }\n";
    else
        ss << "                    s[nt][i] = key < " << N << " ? v : MIGX_NEG_INF;\n                }\n";
    // Online softmax over the rows g (i = 0, 1) and g + 8 (i = 2, 3); a row's values are spread
    // over the 4 lanes t of its group.
    ss << "            for(int h = 0; h < 2; h++)\n            {\n"
          "                float mx = MIGX_NEG_INF;\n"
          "                for(int nt = 0; nt < " + tiles + "; nt++)\n"
          "                    mx = fmaxf(mx, fmaxf(s[nt][2 * h], s[nt][2 * h + 1]));\n"
          "                mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));\n"
          "                mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));\n"
          "                const float mnew = fmaxf(mrow[h], mx);\n"
          "                const float muse = mnew == MIGX_NEG_INF ? 0.f : mnew;\n"
          "                const float alpha = ex2f(mrow[h] - muse);\n"
          "                float sum = 0.f;\n"
          "                for(int nt = 0; nt < " + tiles + "; nt++)\n"
          "                    for(int i = 2 * h; i < 2 * h + 2; i++)\n"
          "                    {\n"
          "                        s[nt][i] = ex2f(s[nt][i] - muse);\n"
          "                        sum += s[nt][i];\n"
          "                    }\n"
          "                sum += __shfl_xor_sync(0xffffffffu, sum, 1);\n"
          "                sum += __shfl_xor_sync(0xffffffffu, sum, 2);\n"
          "                lrow[h] = lrow[h] * alpha + sum;\n"
          "                mrow[h] = mnew;\n"
          "                for(int dt = 0; dt < "
       << DV / 8 << "; dt++)\n"
       << "                {\n                    o[dt][2 * h] *= alpha;\n                    o[dt][2 * h + 1] *= alpha;\n"
          "                }\n            }\n";
    // O += P V: P's C fragments are A fragments of the next product (16 keys per step). V's B
    // fragments for two 8-wide slices of d a call (ldmatrix.trans: lane l names key l % 16 of
    // the slice, d offset (l / 16) * 8).
    ss << "            for(int kc = 0; kc < " << keys_per_step / 16 << "; kc++)\n            {\n"
          "                const unsigned pa[4] = {packf(s[2 * kc][0], s[2 * kc][1]), packf(s[2 * kc][2], s[2 * kc][3]),\n"
          "                                        packf(s[2 * kc + 1][0], s[2 * kc + 1][1]), packf(s[2 * kc + 1][2], "
          "s[2 * kc + 1][3])};\n"
          "                const migx_half* vp = vt_s + (kc * 16 + (lane & 15)) * "
       << VP << " + (lane >> 4) * 8;\n"
       << "                for(int dt = 0; dt < " << DV / 8 << "; dt += 2)\n                {\n"
       << "                    unsigned b[4];\n"
       << "                    ldsm_x4_trans(b, vp + dt * 8);\n"
       << "                    mma16816(o[dt], pa, b[0], b[1]);\n"
       << "                    mma16816(o[dt + 1], pa, b[2], b[3]);\n"
       << "                }\n            }\n";
    // Every warp is done with this buffer before it is loaded again.
    ss << "            __syncthreads();\n";
    if(stages == 2)
        ss << "            buf ^= 1;\n";
    else
        ss << "            if(more)\n            {\n                load_tiles(0, n0 + " << keys_per_step
           << ");\n                cp_async_commit();\n            }\n";
    ss << "        }\n";
    // O / l. Where the output's rows vectorize, each warp puts its rows (as half) in its own rows of
    // the stage space, idle after the last step, and stores them 16 bytes a lane (coalesced);
    // else each lane stores its pairs at the output's strides.
    auto scaled = [&](const char* e) {
        std::string v = std::string("o[dt][2 * h + ") + e + "]";
        return a.nan_to_zero ? "(rl == 0.f ? 0.f : " + v + " * rl)" : v + " * rl";
    };
    std::string rl = a.nan_to_zero ? "lrow[h] > 0.f ? 1.f / lrow[h] : 0.f" : "1.f / lrow[h]";
    const bool o_staged = not e4m3 and rows_vectorize(a.out, 1, DV) and rows_per_block * VP <= stages * stage_halves;
    std::string ind = o_staged ? "    " : "";
    if(o_staged)
    {
        ss << "        if(((unsigned long long)y & 15) == 0)\n        {\n"
           << "            migx_half* os = kvs + warp * " << 16 * VP << ";\n"
           << "            for(int h = 0; h < 2; h++)\n            {\n"
           << "                const float rl = " << rl << ";\n"
           << "                for(int dt = 0; dt < " << DV / 8 << "; dt++)\n"
           << "                    *reinterpret_cast<unsigned*>(os + (g + h * 8) * " << VP
           << " + dt * 8 + t * 2) = packf(" << scaled("0") << ", " << scaled("1") << ");\n"
           << "            }\n            __syncwarp();\n"
           << "            for(int i = lane; i < " << 16 * DV / 8 << "; i += 32)\n            {\n"
           << "                const int rr = i / " << DV / 8 << ", c = (i % " << DV / 8 << ") * 8;\n"
           << "                if(row0 + rr < " << M << ")\n"
           << "                    *reinterpret_cast<uint4*>(yb + (idx_t)(row0 + rr) * " << stride(a.out, 2)
           << "u + (idx_t)c) = *reinterpret_cast<const uint4*>(os + rr * " << VP << " + c);\n"
           << "            }\n        }\n        else\n";
    }
    ss << ind << "        for(int h = 0; h < 2; h++)\n" << ind << "        {\n"
       << ind << "            const int row = row0 + g + h * 8;\n"
       << ind << "            if(row >= " << M << ")\n" << ind << "                continue;\n"
       << ind << "            const float rl = " << rl << ";\n"
       << ind << "            for(int dt = 0; dt < " << DV / 8 << "; dt++)\n" << ind << "            {\n"
       << ind << "                " << y_type << "* yp = yb + (idx_t)row * " << stride(a.out, 2)
       << "u + (idx_t)(dt * 8 + t * 2) * " << stride(a.out, 1) << "u;\n"
       << ind << "                const float pr[2] = {" << scaled("0") << ", " << scaled("1") << "};\n";
    if(e4m3) // rounded to half as the unfused program stores it, then scaled and rounded to e4m3
    {
        const std::string sc = detail::float_literal(a.out_scale);
        ss << "                const migx_fp8 p0 = f2f8(rh(pr[0]) * " << sc << "), p1 = f2f8(rh(pr[1]) * " << sc << ");\n"
           << "                if(yvec)\n"
           << "                    *reinterpret_cast<unsigned short*>(yp) = (unsigned short)(p0 | (p1 << 8));\n"
           << "                else\n                {\n"
           << "                    yp[0] = p0;\n"
           << "                    yp[" << stride(a.out, 1) << "] = p1;\n"
           << "                }\n";
    }
    else
        ss << ind << "                if(yvec)\n" << ind << "                    *reinterpret_cast<unsigned*>(yp) = packf(pr[0], pr[1]);\n"
           << ind << "                else\n" << ind << "                {\n"
           << ind << "                    yp[0] = f2h(pr[0]);\n"
           << ind << "                    yp[" << stride(a.out, 1) << "] = f2h(pr[1]);\n"
           << ind << "                }\n";
    ss << ind << "            }\n" << ind << "        }\n";
    // The next item (a grid smaller than the items) copies into the space just read.
    if(q_staged or o_staged)
        ss << "        __syncthreads();\n";
    ss << "    }\n}\n";

    kernel_source k;
    k.name     = name;
    k.source   = ss.str();
    k.local    = threads;
    k.elements = blocks * threads;
    return k;
}

} // namespace gpu
} // namespace migraphx
