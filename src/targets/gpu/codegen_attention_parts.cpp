// The pieces both fused attention generators share (codegen_attention_parts.hpp).
#include "targets/gpu/codegen_attention_parts.hpp"
#include <algorithm>
#include <cmath>
#include <sstream>

namespace migraphx {
namespace gpu {
namespace attention_parts {

std::string batch_offset(const shape& s, const std::string& digit)
{
    std::ostringstream ss;
    ss << "(idx_t)0";
    for(std::size_t d = 0; d + 2 < s.lens().size(); d++)
        if(s.strides()[d] != 0 and s.lens()[d] != 1)
            ss << " + " << digit << d << " * (idx_t)" << s.strides()[d] << "u";
    return ss.str();
}

bool rows_vectorize(const shape& s, std::size_t inner_from_end, std::size_t inner_len)
{
    std::size_t per = 16 / s.type_size();
    if(stride(s, inner_from_end) != 1 or inner_len % per != 0)
        return false;
    for(std::size_t d = 0; d < s.lens().size(); d++)
        if(d != s.lens().size() - inner_from_end and s.lens()[d] != 1 and s.strides()[d] % per != 0)
            return false;
    return true;
}

bool supported(const attention_spec& a, std::size_t& m, std::size_t& d, std::size_t& n, std::size_t& dv)
{
    const auto& ql = a.q.lens();
    auto r         = ql.size();
    bool e4m3 = a.out.type() == shape::fp8e4m3fn_type;
    if(not e4m3 and a.out_scale != 1)
        return false;
    if(e4m3 and not(a.out_scale > 0 and std::isfinite(a.out_scale)))
        return false;
    if(r < 2 or not half(a.q) or not half(a.kt) or not half(a.v) or (a.out.type() != shape::half_type and not e4m3) or
       a.kt.lens().size() != r or a.v.lens().size() != r or a.out.lens().size() != r)
        return false;
    m  = ql[r - 2];
    d  = ql[r - 1];
    n  = a.kt.lens()[r - 1];
    dv = a.v.lens()[r - 1];
    if(a.kt.lens()[r - 2] != d or a.v.lens()[r - 2] != n or a.out.lens()[r - 2] != m or a.out.lens()[r - 1] != dv or
       d % 16 != 0 or dv % 16 != 0 or d == 0 or dv == 0 or d > 128 or dv > 128 or m == 0 or n == 0)
        return false;
    std::vector<std::size_t> batch(ql.begin(), ql.end() - 2);
    for(const auto* s : {&a.kt, &a.v, &a.out})
        if(not std::equal(batch.begin(), batch.end(), s->lens().begin()))
            return false;
    if(a.mask)
    {
        auto ml = batch;
        ml.push_back(m);
        ml.push_back(n);
        if(a.mask->lens() != ml or (a.mask->type() != shape::half_type and a.mask->type() != shape::float_type))
            return false;
    }
    return std::all_of(a.steps.begin(), a.steps.end(), [&](const attention_step& st) {
        return (st.op == "add" or st.op == "sub" or st.op == "mul" or st.op == "div") and (not st.mask or a.mask);
    });
}

bool steps_fold_log2e(const attention_spec& a)
{
    return std::none_of(
        a.steps.begin(), a.steps.end(), [](const attention_step& st) { return st.op == "div" and st.operand_first; });
}

std::string score_code(const attention_spec& a, const std::string& indent)
{
    const double log2e = 1.4426950408889634;
    const bool fold    = steps_fold_log2e(a);
    std::ostringstream ss;
    ss << indent << "v *= " << detail::float_literal(static_cast<float>(fold ? a.scale * log2e : a.scale)) << ";\n";
    for(const auto& st : a.steps)
    {
        // Folded: an added operand is scaled by log2 e (one FMA with the mask), products as they are.
        bool additive       = st.op == "add" or st.op == "sub";
        std::string operand = st.mask ? "mv"
                                      : detail::float_literal(
                                            static_cast<float>(fold and additive ? st.value * log2e : st.value));
        if(fold and additive and st.mask)
            operand = "(mv * " + detail::float_literal(static_cast<float>(log2e)) + ")";
        std::string sym = st.op == "add" ? "+" : st.op == "sub" ? "-" : st.op == "mul" ? "*" : "/";
        ss << indent << (st.operand_first ? "v = " + operand + " " + sym + " v;" : "v = v " + sym + " " + operand + ";")
           << "\n";
    }
    if(not fold)
        ss << indent << "v *= " << detail::float_literal(static_cast<float>(log2e)) << ";\n";
    return ss.str();
}

const char* device_common = R"(
#define MIGX_NEG_INF __int_as_float(0xff800000)
__device__ __forceinline__ unsigned smem_addr(const void* p)
{
    unsigned a;
    asm volatile("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(a) : "l"(p));
    return a;
}
// 16 bytes global -> shared without a register round trip; zeros when !ok.
__device__ __forceinline__ void cp_async16(void* dst, const void* src, bool ok)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" :: "r"(smem_addr(dst)), "l"(src), "r"(ok ? 16 : 0));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::); }
template <int N>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;" :: "n"(N)); }
__device__ __forceinline__ unsigned pack2(migx_half lo, migx_half hi) { return (unsigned)lo | ((unsigned)hi << 16); }
// Two floats rounded to half in one instruction (lo in the low 16 bits).
__device__ __forceinline__ unsigned packf(float lo, float hi)
{
    unsigned r;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}
// The mask's values for keys 2t, 2t + 1 in one shared-memory load.
__device__ __forceinline__ float2 pair_of(const migx_half* p)
{
    const unsigned u = *reinterpret_cast<const unsigned*>(p);
    float2 r;
    r.x = h2f((migx_half)(u & 0xffffu));
    r.y = h2f((migx_half)(u >> 16));
    return r;
}
__device__ __forceinline__ float2 pair_of(const float* p) { return *reinterpret_cast<const float2*>(p); }
// 2^x in one instruction (exp2f adds a denormal-output path: three more per score). Not volatile, so
// the compiler schedules it like exp2f.
__device__ __forceinline__ float ex2f(float x)
{
    float r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
}
)";

} // namespace attention_parts
} // namespace gpu
} // namespace migraphx
