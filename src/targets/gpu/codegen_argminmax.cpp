// The generated argmax / argmin kernel, as op::argmax's scan: ties give the first index (the last
// with select_last_index). A NaN compares false both ways: it is never better, so one at the
// row's start stays the best (index 0); with select_last_index it ties with everything, so the
// scan takes it and then the element after it, and only what follows the last NaN decides.
// Many short rows (a segmentation head's classes): a thread a row, the scan itself. Long packed
// rows (a classifier's 1000 classes): a block a row, each thread a strided part, combined.
#include "targets/gpu/codegen.hpp"
#include <sstream>

namespace migraphx {
namespace gpu {

std::optional<kernel_source> generate_argminmax(bool is_max, bool select_last, std::size_t axis, const shape& in)
{
    if(not float_or_half(in) or not in.standard() or axis >= in.lens().size() or in.lens()[axis] == 0)
        return std::nullopt;
    auto n = in.lens()[axis];
    std::size_t inner = 1;
    for(std::size_t d = axis + 1; d < in.lens().size(); d++)
        inner *= in.lens()[d];
    std::size_t rows = in.elements() / n;
    bool block_a_row = inner == 1 and n > 256;
    bool half        = in.type() == shape::half_type;
    std::string t    = half ? "migx_half" : "float";
    std::string name = is_max ? "argmax_kernel" : "argmin_kernel";
    // `a` better than `b` (strictly)
    std::string better = is_max ? "(b < a)" : "(a < b)";
    std::ostringstream ss;
    ss << detail::prelude();
    ss << "__device__ __forceinline__ float migx_load(" << t << " v) { return " << (half ? "h2f(v)" : "v")
       << "; }\n";
    ss << "__device__ __forceinline__ bool migx_better(float a, float b) { return " << better << "; }\n";
    if(block_a_row)
        // two partial results combined: the better value; equal values the first (last) index
        ss << "__device__ __forceinline__ void migx_combine(float& bv, unsigned long long& bi, float ov, "
              "unsigned long long oi)\n{\n"
              "    const unsigned long long none = 0xffffffffffffffffull;\n"
              "    if(oi != none && (bi == none || migx_better(ov, bv) || (!migx_better(bv, ov) && "
           << (select_last ? "oi > bi" : "oi < bi")
           << ")))\n    {\n        bv = ov;\n        bi = oi;\n    }\n}\n";
    ss << "extern \"C\" __global__ void " << name << "(const " << t << "* __restrict__ x0, long long* __restrict__ y)\n{\n";
    ss << "    typedef " << detail::index_type({in}) << " idx_t;\n";
    ss << "    const idx_t n = " << n << "u, inner = " << inner << "u, rows = " << rows << "u;\n";
    ss << "    const bool last = " << (select_last ? "true" : "false") << ";\n";
    if(not block_a_row)
    {
        ss << R"(    for(idx_t row = blockIdx.x * (idx_t)blockDim.x + threadIdx.x; row < rows; row += (idx_t)gridDim.x * blockDim.x)
    {
        const idx_t o = row / inner, in = row % inner;
        const )" << t << R"(* xr = x0 + o * n * inner + in;
        float bv = migx_load(xr[0]);
        idx_t best = 0;
        for(idx_t j = 1; j < n; j++)
        {
            float x = migx_load(xr[j * inner]);
            bool tie = !(bv < x) && !(x < bv);
            if(migx_better(x, bv) || (last && tie))
            {
                bv = x;
                best = j;
            }
        }
        y[row] = (long long)best;
    }
}
)";
    }
    else
    {
        ss << R"(    __shared__ float part_v[32];
    __shared__ unsigned long long part_i[32];
    __shared__ unsigned long long after_nan; // 1 + the row's last NaN's index (0: none)
    const unsigned int tid = threadIdx.x, lane = tid & 31u, warp = tid >> 5, warps = blockDim.x / 32u;
    const unsigned long long none = 0xffffffffffffffffull;
    for(idx_t row = blockIdx.x; row < rows; row += gridDim.x)
    {
        const )" << t << R"(* xr = x0 + row * n;
        // select_last_index: the scan takes a NaN (a tie with anything) and the element after it,
        // so only the elements after the last NaN decide
        idx_t from = 0;
        if(last)
        {
            if(tid == 0)
                after_nan = 0ull;
            __syncthreads();
            unsigned long long mine = 0ull;
            for(idx_t j = tid; j < n; j += blockDim.x)
            {
                float x = migx_load(xr[j]);
                if(x != x)
                    mine = (unsigned long long)j + 1ull;
            }
            if(mine != 0ull)
                atomicMax(&after_nan, mine);
            __syncthreads();
            from = (idx_t)after_nan;
        }
        // the best number from `from` on (none: no number seen); NaNs are never better
        float bv = 0.f;
        unsigned long long bi = none;
        for(idx_t j = from + tid; j < n; j += blockDim.x)
        {
            float x = migx_load(xr[j]);
            if(x != x)
                continue;
            if(bi == none || migx_better(x, bv) || (last && !(x < bv) && !(bv < x)))
            {
                bv = x;
                bi = j;
            }
        }
        for(int off = 16; off > 0; off >>= 1)
        {
            float ov = __shfl_down_sync(0xffffffffu, bv, off);
            unsigned long long oi = __shfl_down_sync(0xffffffffu, bi, off);
            migx_combine(bv, bi, ov, oi);
        }
        if(lane == 0)
        {
            part_v[warp] = bv;
            part_i[warp] = bi;
        }
        __syncthreads();
        if(tid == 0)
        {
            for(unsigned int w = 1; w < warps; w++)
                migx_combine(bv, bi, part_v[w], part_i[w]);
            float first = migx_load(xr[0]);
            if(last && from == n)
                bi = n - 1; // a NaN last: taken
            else if(!last && first != first)
                bi = 0;     // a NaN first: nothing is better
            y[row] = (long long)(bi == none ? 0ull : bi);
        }
        __syncthreads();
    }
}
)";
    }
    kernel_source k;
    k.name     = name;
    k.source   = ss.str();
    k.local    = 256;
    k.elements = block_a_row ? rows * k.local : rows;
    return k;
}

} // namespace gpu
} // namespace migraphx
