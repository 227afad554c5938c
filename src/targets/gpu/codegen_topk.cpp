// The generated topk kernel: one block a row (the elements along the axis). A radix select over a
// 32-bit rank of each value (4 passes of 8 bits, a shared histogram) finds the k-th best rank; a
// pass in index order then keeps every better element and the lowest-indexed ones that tie with
// it; a bitonic sort in shared memory orders the k kept by (rank, index), which is op::topk's
// order (best first, equal values by lower index, NaN above every number).
#include "targets/gpu/codegen.hpp"
#include <sstream>

namespace migraphx {
namespace gpu {
namespace {

// rank: smaller is better. The float's bits made order-preserving as unsigned (negative: all
// bits flipped; positive: the sign bit set); every NaN one value above +inf and -0 equal to +0,
// as op::topk compares them; flipped again for largest.
const char* topk_helpers = R"(
__device__ __forceinline__ unsigned int migx_topk_key(float f)
{
    unsigned int u = __float_as_uint(f);
    if(f != f)
        u = 0x7fc00000u;
    else if(u == 0x80000000u)
        u = 0u;
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}
)";

} // namespace

std::string topk_rank(const std::string& t, bool largest)
{
    return std::string(topk_helpers) + "__device__ __forceinline__ unsigned int migx_rank(" + t + " v) { return " +
           (largest ? "~" : "") + "migx_topk_key(" + (t == "migx_half" ? "h2f(v)" : "v") + "); }\n";
}

std::string topk_rows(const std::string& t)
{
    return R"(    __shared__ unsigned int hist[256];
    __shared__ unsigned int warp_count[32];
    __shared__ unsigned int chosen[2];
    __shared__ unsigned int counts[2]; // kept better than the threshold; ties seen so far
    const unsigned int tid = threadIdx.x, lane = tid & 31u, warp = tid >> 5;
    for(idx_t row = blockIdx.x; row < rows; row += gridDim.x)
    {
        const idx_t o = row / inner, in = row % inner;
        const )" + t + R"(* xr = x0 + o * n * inner + in;
        // the k-th smallest rank, 8 bits a pass from the top; `remaining`: how many of the
        // elements equal to it are among the k
        unsigned int prefix = 0u, mask = 0u, remaining = (unsigned int)k;
        for(int shift = 24; shift >= 0; shift -= 8)
        {
            for(unsigned int b = tid; b < 256u; b += blockDim.x)
                hist[b] = 0u;
            __syncthreads();
            for(idx_t j = tid; j < n; j += blockDim.x)
            {
                unsigned int r = migx_rank(xr[j * inner]);
                if((r & mask) == prefix)
                    atomicAdd(&hist[(r >> shift) & 255u], 1u);
            }
            __syncthreads();
            if(tid == 0)
            {
                unsigned int before = 0u, b = 0u;
                for(; b < 255u; b++)
                {
                    if(before + hist[b] >= remaining)
                        break;
                    before += hist[b];
                }
                chosen[0] = prefix | (b << shift);
                chosen[1] = remaining - before;
            }
            __syncthreads();
            prefix = chosen[0];
            remaining = chosen[1];
            mask |= 255u << shift;
            __syncthreads();
        }
        const unsigned int better = (unsigned int)k - remaining;
        if(tid == 0)
        {
            counts[0] = 0u;
            counts[1] = 0u;
        }
        __syncthreads();
        // keep: every rank below the threshold (any slot: sorted after), and the ties in index
        // order (a block-wide count of earlier ties) while fewer than `remaining` are kept
        for(idx_t base = 0; base < n; base += blockDim.x)
        {
            idx_t j = base + tid;
            unsigned int r = j < n ? migx_rank(xr[j * inner]) : 0xffffffffu;
            bool lt = j < n && r < prefix, eq = j < n && r == prefix;
            if(lt)
                keys[atomicAdd(&counts[0], 1u)] = ((unsigned long long)r << 32) | (unsigned long long)j;
            unsigned int ballot = __ballot_sync(0xffffffffu, eq);
            if(lane == 0)
                warp_count[warp] = __popc(ballot);
            __syncthreads();
            unsigned int pos = counts[1] + __popc(ballot & ((1u << lane) - 1u));
            for(unsigned int w = 0; w < warp; w++)
                pos += warp_count[w];
            if(eq && pos < remaining)
                keys[better + pos] = ((unsigned long long)r << 32) | (unsigned long long)j;
            __syncthreads();
            if(tid == 0)
            {
                unsigned int total = 0u;
                for(unsigned int w = 0; w < (blockDim.x + 31u) / 32u; w++)
                    total += warp_count[w];
                counts[1] += total;
            }
            __syncthreads();
        }
        for(unsigned int i = (unsigned int)k + tid; i < P; i += blockDim.x)
            keys[i] = 0xffffffffffffffffull;
        __syncthreads();
        // bitonic sort of the P keys, ascending: best first, ties by lower index
        for(unsigned int size = 2u; size <= P; size <<= 1)
            for(unsigned int stride = size >> 1; stride > 0u; stride >>= 1)
            {
                for(unsigned int t = tid; t < P / 2u; t += blockDim.x)
                {
                    unsigned int i = 2u * t - (t & (stride - 1u)), m = i + stride;
                    unsigned long long a = keys[i], b = keys[m];
                    if((a > b) == ((i & size) == 0u))
                    {
                        keys[i] = b;
                        keys[m] = a;
                    }
                }
                __syncthreads();
            }
        for(idx_t j = tid; j < k; j += blockDim.x)
        {
            idx_t src = (idx_t)(keys[j] & 0xffffffffull);
            idx_t out = o * k * inner + j * inner + in;
            indices[out] = (long long)src;
            values[out] = xr[src * inner];
        }
        __syncthreads();
    }
}
)";
}

namespace {

std::size_t next_pow2(std::size_t v)
{
    std::size_t p = 1;
    while(p < v)
        p *= 2;
    return p;
}

} // namespace

std::optional<kernel_source> generate_topk(const shape& in, std::size_t axis, std::size_t k, bool largest)
{
    if(not float_or_half(in) or not in.standard() or axis >= in.lens().size())
        return std::nullopt;
    auto n = in.lens()[axis];
    // indices are kept as 32 bits beside the rank
    if(k == 0 or k > n or k > topk_max_k or n >= (1ull << 32))
        return std::nullopt;
    std::size_t inner = 1;
    for(std::size_t d = axis + 1; d < in.lens().size(); d++)
        inner *= in.lens()[d];
    std::size_t rows  = in.elements() / n;
    std::size_t local = n > 4096 ? 1024 : 256;
    bool half         = in.type() == shape::half_type;
    std::string t     = half ? "migx_half" : "float";
    std::ostringstream ss;
    ss << detail::prelude() << topk_rank(t, largest);
    ss << "extern \"C\" __global__ __launch_bounds__(" << local << ") void topk_kernel(const " << t
       << "* __restrict__ x0, unsigned long long* __restrict__ y)\n{\n";
    ss << "    typedef " << detail::index_type({in}) << " idx_t;\n";
    ss << "    const idx_t n = " << n << "u, k = " << k << "u, inner = " << inner << "u, rows = " << rows << "u;\n";
    ss << "    const unsigned int P = " << next_pow2(k) << "u;\n";
    ss << "    long long* indices = reinterpret_cast<long long*>(y);\n";
    ss << "    " << t << "* values = reinterpret_cast<" << t << "*>(y + rows * k);\n";
    ss << "    __shared__ unsigned long long keys[P];\n";
    ss << topk_rows(t);
    kernel_source ks;
    ks.name     = "topk_kernel";
    ks.source   = ss.str();
    ks.elements = rows * local;
    ks.local    = local;
    return ks;
}

std::size_t topk_buffer_elements(const shape& values)
{
    return values.elements() + (values.bytes() + 7) / 8;
}

} // namespace gpu
} // namespace migraphx
