// The fused attention kernel: softmax(scale * Q K^T, then a chain of pointwise steps) V in one
// pass, flash-attention style (the score matrix never reaches memory). A block of 4 warps takes
// 64 query rows of one batch index (each warp 16 rows); it walks the keys 64 at a time: K, V and
// the mask tile of those keys go to shared memory (V is read back transposed by ldmatrix), each warp multiplies its Q rows by them on the tensor cores
// (mma.sync m16n8k16, half in, float accumulate), applies the score steps and an online softmax
// (running row max and sum, the output rescaled as the max grows) and adds P V into its output
// registers. Inputs are read at any strides (the heads of a [batch, seq, heads, dim] tensor in
// place); the output is written at any strides (the transpose back to [batch, seq, heads, dim]
// happens in the store).
#include "targets/gpu/codegen.hpp"
#include <sstream>

namespace migraphx {
namespace gpu {
namespace {

constexpr std::size_t rows_per_block = 64; // 4 warps x 16 query rows
constexpr std::size_t keys_per_step  = 64;

bool half(const shape& s) { return not s.dynamic() and s.type() == shape::half_type; }

/// The batch offset of `s` (rank r, batch dims 0..r-3) in the digits b0.. as code.
std::string batch_offset(const shape& s)
{
    std::ostringstream ss;
    ss << "(idx_t)0";
    for(std::size_t d = 0; d + 2 < s.lens().size(); d++)
        if(s.strides()[d] != 0 and s.lens()[d] != 1)
            ss << " + b" << d << " * (idx_t)" << s.strides()[d] << "u";
    return ss.str();
}

std::size_t stride(const shape& s, std::size_t from_end) { return s.strides()[s.lens().size() - from_end]; }

/// Whether 8 consecutive elements along the innermost of the last two dims load as one 16-byte
/// vector wherever a row starts: unit stride there and every other stride a multiple of 8.
bool rows_vectorize(const shape& s, std::size_t inner_from_end, std::size_t inner_len)
{
    if(stride(s, inner_from_end) != 1 or inner_len % 8 != 0)
        return false;
    for(std::size_t d = 0; d < s.lens().size(); d++)
        if(d != s.lens().size() - inner_from_end and s.lens()[d] != 1 and s.strides()[d] % 8 != 0)
            return false;
    return true;
}

std::string step_code(const attention_step& st, const std::string& operand)
{
    std::string sym = st.op == "add" ? "+" : st.op == "sub" ? "-" : st.op == "mul" ? "*" : "/";
    return st.operand_first ? "v = " + operand + " " + sym + " v;" : "v = v " + sym + " " + operand + ";";
}

/// Code loading this step's 64 keys' rows (width elements each, key stride ks, element stride es
/// in the source) into the tile dst of row pitch `pitch`; keys past n are zeros. `vec` names the
/// run-time flag of the 16-byte path (unit element stride, aligned base).
void key_rows(std::ostream& ss,
              const std::string& vec,
              const std::string& src,
              const std::string& dst,
              std::size_t width,
              std::size_t pitch,
              std::size_t ks,
              std::size_t es,
              std::size_t n)
{
    ss << "            if(" << vec << ")\n"
       << "                for(int i = tid; i < " << keys_per_step * width / 8 << "; i += 128)\n                {\n"
       << "                    const int j = i / " << width / 8 << ", d = (i % " << width / 8 << ") * 8;\n"
       << "                    uint4 val = make_uint4(0, 0, 0, 0);\n"
       << "                    if(n0 + j < " << n << ")\n"
       << "                        val = *reinterpret_cast<const uint4*>(" << src << " + (idx_t)(n0 + j) * " << ks
       << "u + (idx_t)d);\n"
       << "                    *reinterpret_cast<uint4*>(" << dst << " + j * " << pitch << " + d) = val;\n"
       << "                }\n"
       << "            else\n"
       << "                for(int i = tid; i < " << keys_per_step * width << "; i += 128)\n                {\n"
       << "                    const int j = i / " << width << ", d = i % " << width << ";\n"
       << "                    " << dst << "[j * " << pitch << " + d] = n0 + j < " << n << " ? " << src
       << "[(idx_t)(n0 + j) * " << ks << "u + (idx_t)d * " << es << "u] : (migx_half)0;\n"
       << "                }\n";
}

} // namespace

std::optional<kernel_source> generate_attention(const attention_spec& a)
{
    const auto& ql = a.q.lens();
    auto r         = ql.size();
    if(r < 2 or not half(a.q) or not half(a.kt) or not half(a.v) or a.out.type() != shape::half_type or
       a.kt.lens().size() != r or a.v.lens().size() != r or a.out.lens().size() != r)
        return std::nullopt;
    std::size_t M = ql[r - 2], D = ql[r - 1], N = a.kt.lens()[r - 1], DV = a.v.lens()[r - 1];
    if(a.kt.lens()[r - 2] != D or a.v.lens()[r - 2] != N or a.out.lens()[r - 2] != M or a.out.lens()[r - 1] != DV or
       D % 16 != 0 or DV % 16 != 0 or D == 0 or DV == 0 or D > 128 or DV > 128 or M == 0 or N == 0)
        return std::nullopt;
    std::vector<std::size_t> batch(ql.begin(), ql.end() - 2);
    for(const auto* s : {&a.kt, &a.v, &a.out})
        if(not std::equal(batch.begin(), batch.end(), s->lens().begin()))
            return std::nullopt;
    if(a.mask)
    {
        auto ml = batch;
        ml.push_back(M);
        ml.push_back(N);
        if(a.mask->lens() != ml or (a.mask->type() != shape::half_type and a.mask->type() != shape::float_type))
            return std::nullopt;
    }
    for(const auto& st : a.steps)
        if((st.op != "add" and st.op != "sub" and st.op != "mul" and st.op != "div") or (st.mask and not a.mask))
            return std::nullopt;
    std::size_t batches = 1;
    for(auto b : batch)
        batches *= b;
    std::size_t row_blocks = (M + rows_per_block - 1) / rows_per_block;
    std::size_t blocks     = batches * row_blocks;

    std::vector<shape> all{a.q, a.kt, a.v, a.out};
    if(a.mask)
        all.push_back(*a.mask);
    bool k_vec = rows_vectorize(a.kt, 2, D);  // a key's D values contiguous
    bool v_vec = rows_vectorize(a.v, 1, DV); // a key's DV values contiguous
    // Row pitches padded by 16 bytes: the fragment loads of 8 rows hit 8 different bank groups.
    const std::size_t KP = D + 8, VP = DV + 8, MP = keys_per_step + 8;
    std::size_t smem = keys_per_step * (KP + VP) * 2 + (a.mask ? rows_per_block * MP * a.mask->type_size() : 0);
    if(smem > 48 * 1024) // static shared memory's limit (e.g. d 128 with a float mask)
        return std::nullopt;

    std::ostringstream ss;
    std::string name = "attention_kernel";
    ss << detail::prelude();
    ss << "#define MIGX_NEG_INF __int_as_float(0xff800000)\n";
    ss << "__device__ __forceinline__ void mma16816(float* c, const unsigned* a, unsigned b0, unsigned b1)\n{\n"
          "    asm volatile(\"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
          "{%8,%9}, {%0,%1,%2,%3};\"\n"
          "        : \"+f\"(c[0]), \"+f\"(c[1]), \"+f\"(c[2]), \"+f\"(c[3])\n"
          "        : \"r\"(a[0]), \"r\"(a[1]), \"r\"(a[2]), \"r\"(a[3]), \"r\"(b0), \"r\"(b1));\n}\n";
    // B fragments of V (k = keys, n = d) from its row-major tile: lanes 0-15 name the 16 key rows.
    ss << "__device__ __forceinline__ void ldsm_x2_trans(unsigned& b0, unsigned& b1, const migx_half* p)\n{\n"
          "    unsigned a;\n"
          "    asm volatile(\"{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }\" : \"=r\"(a) : \"l\"(p));\n"
          "    asm volatile(\"ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];\" : \"=r\"(b0), \"=r\"(b1) : "
          "\"r\"(a));\n}\n";
    ss << "__device__ __forceinline__ unsigned pack2(migx_half lo, migx_half hi) { return (unsigned)lo | "
          "((unsigned)hi << 16); }\n";
    ss << "__device__ __forceinline__ unsigned packf(float lo, float hi) { return pack2(f2h(lo), f2h(hi)); }\n";
    ss << "extern \"C\" __global__ void __launch_bounds__(128, 4) " << name
       << "(const migx_half* __restrict__ q, const migx_half* __restrict__ kt, const migx_half* __restrict__ v, ";
    if(a.mask)
        ss << "const " << (a.mask->type() == shape::half_type ? "migx_half" : "float") << "* __restrict__ mask, ";
    ss << "migx_half* __restrict__ y)\n{\n";
    ss << "    typedef " << detail::index_type(all) << " idx_t;\n";
    ss << "    __shared__ __align__(16) migx_half ks[" << keys_per_step * KP << "];\n";
    ss << "    __shared__ __align__(16) migx_half vs[" << keys_per_step * VP << "];\n";
    std::string mtype = a.mask and a.mask->type() == shape::float_type ? "float" : "migx_half";
    if(a.mask)
        ss << "    __shared__ __align__(16) " << mtype << " ms[" << rows_per_block * MP << "];\n";
    ss << "    const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31, g = lane >> 2, t = lane & 3;\n";
    // The vector loads need 16-byte aligned bases; a view may offset them, so check.
    ss << "    const bool kvec = " << (k_vec ? "((unsigned long long)kt & 15) == 0" : "false") << ";\n";
    ss << "    const bool vvec = " << (v_vec ? "((unsigned long long)v & 15) == 0" : "false") << ";\n";
    ss << "    for(idx_t blk = blockIdx.x; blk < " << blocks << "u; blk += gridDim.x)\n    {\n";
    ss << "        const idx_t bi = blk / " << row_blocks << "u;\n";
    ss << "        const int row0 = (int)(blk % " << row_blocks << "u) * " << rows_per_block << " + warp * 16;\n";
    ss << detail::digits("bi", batch.empty() ? std::vector<std::size_t>{1} : batch, "b");
    if(batch.empty())
        ss << "        (void)b0;\n";
    ss << "        const migx_half* qb = q + (" << batch_offset(a.q) << ");\n";
    ss << "        const migx_half* kb = kt + (" << batch_offset(a.kt) << ");\n";
    ss << "        const migx_half* vb = v + (" << batch_offset(a.v) << ");\n";
    ss << "        migx_half* yb = y + (" << batch_offset(a.out) << ");\n";
    if(a.mask)
        ss << "        const auto* mb = mask + (" << batch_offset(*a.mask) << ");\n";
    // Q's rows in A fragments (m16n8k16 layout: rows g and g+8, columns 2t, 2t+1 and +8).
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
    ss << "        float o[" << DV / 8 << "][4];\n";
    ss << "        for(int i = 0; i < " << DV / 8 << "; i++)\n            o[i][0] = o[i][1] = o[i][2] = o[i][3] = 0.f;\n";
    ss << "        float mrow[2] = {MIGX_NEG_INF, MIGX_NEG_INF}, lrow[2] = {0.f, 0.f};\n";
    ss << "        for(int n0 = 0; n0 < " << N << "; n0 += " << keys_per_step << ")\n        {\n";
    ss << "            __syncthreads();\n";
    // K^T[d][n] -> ks[n][d]; V[n][d] -> vs[n][d] (the P V product reads it transposed through
    // ldmatrix.trans): each key's row of the tile, 16 bytes at a time where the row lies together.
    key_rows(ss, "kvec", "kb", "ks", D, KP, stride(a.kt, 1), stride(a.kt, 2), N);
    key_rows(ss, "vvec", "vb", "vs", DV, VP, stride(a.v, 2), stride(a.v, 1), N);
    // A half mask whose keys lie together loads 8 at a time (N a multiple of 8: no partial vector).
    bool m_vec = a.mask and a.mask->type() == shape::half_type and rows_vectorize(*a.mask, 1, N);
    if(m_vec)
        ss << "            if(((unsigned long long)mask & 15) == 0)\n"
           << "                for(int i = tid; i < " << rows_per_block * keys_per_step / 8 << "; i += 128)\n"
           << "                {\n"
           << "                    const int r = i / " << keys_per_step / 8 << ", j = (i % " << keys_per_step / 8
           << ") * 8, row = row0 - warp * 16 + r;\n"
           << "                    uint4 val = make_uint4(0, 0, 0, 0);\n"
           << "                    if(row < " << M << " && n0 + j < " << N << ")\n"
           << "                        val = *reinterpret_cast<const uint4*>(mb + (idx_t)row * " << stride(*a.mask, 2)
           << "u + (idx_t)(n0 + j));\n"
           << "                    *reinterpret_cast<uint4*>(ms + r * " << MP << " + j) = val;\n"
           << "                }\n"
           << "            else\n";
    if(a.mask) // this block's 64 rows x 64 keys of the mask, loaded with K and V (one wait)
        ss << "            for(int i = tid; i < " << rows_per_block * keys_per_step << "; i += 128)\n            {\n"
           << "                const int r = i / " << keys_per_step << ", j = i % " << keys_per_step
           << ", row = row0 - warp * 16 + r;\n"
           << "                ms[r * " << MP << " + j] = (row < " << M << " && n0 + j < " << N << ") ? mb[(idx_t)row * "
           << stride(*a.mask, 2) << "u + (idx_t)(n0 + j) * " << stride(*a.mask, 1) << "u] : (" << mtype << ")0;\n"
           << "            }\n";
    ss << "            __syncthreads();\n";
    // S = Q K^T for this warp's 16 rows and the 64 keys: 8 tiles of 16 x 8.
    ss << "            float s[8][4];\n";
    ss << "            for(int nt = 0; nt < 8; nt++)\n            {\n"
          "                s[nt][0] = s[nt][1] = s[nt][2] = s[nt][3] = 0.f;\n"
          "                for(int kk = 0; kk < "
       << D / 16 << "; kk++)\n                {\n"
       << "                    const migx_half* kp = ks + (nt * 8 + g) * " << KP << " + kk * 16 + t * 2;\n"
       << "                    mma16816(s[nt], qa[kk], *reinterpret_cast<const unsigned*>(kp), "
          "*reinterpret_cast<const unsigned*>(kp + 8));\n"
       << "                }\n            }\n";
    // Score steps, then the keys past N masked out.
    ss << "            for(int nt = 0; nt < 8; nt++)\n                for(int i = 0; i < 4; i++)\n                {\n"
       << "                    const int key = n0 + nt * 8 + t * 2 + (i & 1);\n"
       << "                    float v = s[nt][i] * " << detail::float_literal(a.scale) << ";\n";
    if(a.mask)
    {
        ss << "                    const float mv = " << (a.mask->type() == shape::half_type ? "h2f(" : "(")
           << "ms[(warp * 16 + g + (i >> 1) * 8) * " << MP << " + nt * 8 + t * 2 + (i & 1)]);\n";
    }
    for(const auto& st : a.steps)
        ss << "                    " << step_code(st, st.mask ? "mv" : detail::float_literal(st.value)) << "\n";
    if(N % keys_per_step == 0)
        ss << "                    (void)key;\n                    s[nt][i] = v;\n                }\n";
    else
        ss << "                    s[nt][i] = key < " << N << " ? v : MIGX_NEG_INF;\n                }\n";
    // Online softmax over the rows g (i = 0, 1) and g + 8 (i = 2, 3); a row's values are spread
    // over the 4 lanes t of its group.
    ss << "            for(int h = 0; h < 2; h++)\n            {\n"
          "                float mx = MIGX_NEG_INF;\n"
          "                for(int nt = 0; nt < 8; nt++)\n"
          "                    mx = fmaxf(mx, fmaxf(s[nt][2 * h], s[nt][2 * h + 1]));\n"
          "                mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));\n"
          "                mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));\n"
          "                const float mnew = fmaxf(mrow[h], mx);\n"
          "                const float muse = mnew == MIGX_NEG_INF ? 0.f : mnew;\n"
          "                const float alpha = expf(mrow[h] - muse);\n"
          "                float sum = 0.f;\n"
          "                for(int nt = 0; nt < 8; nt++)\n"
          "                    for(int i = 2 * h; i < 2 * h + 2; i++)\n"
          "                    {\n"
          "                        s[nt][i] = expf(s[nt][i] - muse);\n"
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
    // O += P V: P's C fragments are A fragments of the next product (16 keys per step).
    ss << "            for(int kc = 0; kc < 4; kc++)\n            {\n"
          "                const unsigned pa[4] = {packf(s[2 * kc][0], s[2 * kc][1]), packf(s[2 * kc][2], s[2 * kc][3]),\n"
          "                                        packf(s[2 * kc + 1][0], s[2 * kc + 1][1]), packf(s[2 * kc + 1][2], "
          "s[2 * kc + 1][3])};\n"
          "                for(int dt = 0; dt < "
       << DV / 8 << "; dt++)\n                {\n"
       << "                    unsigned b0, b1;\n"
       << "                    ldsm_x2_trans(b0, b1, vs + (kc * 16 + (lane & 15)) * " << VP << " + dt * 8);\n"
       << "                    mma16816(o[dt], pa, b0, b1);\n"
       << "                }\n            }\n";
    ss << "        }\n";
    // O / l, stored at the output's strides.
    ss << "        for(int h = 0; h < 2; h++)\n        {\n"
       << "            const int row = row0 + g + h * 8;\n"
       << "            if(row >= " << M << ")\n                continue;\n"
       << "            const float rl = " << (a.nan_to_zero ? "lrow[h] > 0.f ? 1.f / lrow[h] : 0.f" : "1.f / lrow[h]")
       << ";\n"
       << "            for(int dt = 0; dt < " << DV / 8 << "; dt++)\n                for(int e = 0; e < 2; e++)\n"
       << "                    yb[(idx_t)row * " << stride(a.out, 2) << "u + (idx_t)(dt * 8 + t * 2 + e) * "
       << stride(a.out, 1) << "u] = f2h("
       << (a.nan_to_zero ? "rl == 0.f ? 0.f : o[dt][2 * h + e] * rl" : "o[dt][2 * h + e] * rl") << ");\n"
       << "        }\n";
    ss << "    }\n}\n";

    kernel_source k;
    k.name     = name;
    k.source   = ss.str();
    k.local    = 128;
    k.elements = blocks * 128;
    return k;
}

} // namespace gpu
} // namespace migraphx
