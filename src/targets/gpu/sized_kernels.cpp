#include "targets/gpu/sized_kernels.hpp"
#include "targets/gpu/codegen.hpp"
#include <migraphx/errors.hpp>
#include <functional>
#include <numeric>
#include <sstream>

namespace migraphx {
namespace gpu {
namespace {

/// The walk's struct and the loop every sized kernel shares: each element i of the walk, its
/// offsets oa, ob, oc.
std::string walk_head(const std::string& name, const std::string& params, bool wide)
{
    std::ostringstream ss;
    ss << "struct walk_t { int rank; unsigned long long lens[8]; long long a[8]; long long b[8]; long long c[8]; };\n";
    ss << "extern \"C\" __global__ void " << name << "(" << params
       << ", walk_t w, unsigned long long n_)\n{\n";
    ss << "    typedef " << (wide ? "unsigned long long" : "unsigned int") << " idx_t;\n";
    ss << "    typedef " << (wide ? "long long" : "int") << " off_t_;\n";
    ss << "    const idx_t n = (idx_t)n_;\n";
    ss << "    for(idx_t i = blockIdx.x * (idx_t)blockDim.x + threadIdx.x; i < n; i += (idx_t)gridDim.x * blockDim.x)\n"
          "    {\n"
          "        idx_t r = i;\n"
          "        off_t_ oa = 0, ob = 0, oc = 0;\n"
          "        for(int d = w.rank - 1; d >= 0; d--)\n"
          "        {\n"
          "            const idx_t len = (idx_t)w.lens[d];\n"
          "            const idx_t q = d == 0 ? r : r % len;\n"
          "            r = d == 0 ? 0 : r / len;\n"
          "            oa += (off_t_)q * (off_t_)w.a[d];\n"
          "            ob += (off_t_)q * (off_t_)w.b[d];\n"
          "            oc += (off_t_)q * (off_t_)w.c[d];\n"
          "        }\n";
    return ss.str();
}

std::string index_kind(bool index64) { return index64 ? "long long" : "int"; }

std::string tail_name(const std::string& base, std::size_t bytes, bool index64, bool wide)
{
    return base + "_" + std::to_string(bytes) + (index64 ? "_i64" : "_i32") + (wide ? "_wide" : "");
}

} // namespace

std::uint64_t index_walk::elements() const
{
    std::uint64_t n = 1;
    for(std::int32_t d = 0; d < rank; d++)
        n *= lens[d];
    return n;
}

index_walk make_walk(const std::vector<std::size_t>& lens,
                     const std::vector<std::size_t>& a,
                     const std::vector<std::size_t>& b,
                     const std::vector<std::size_t>& c)
{
    if(lens.size() > index_walk::max_rank)
        MIGRAPHX_THROW("gpu: a sized kernel walks at most " + std::to_string(index_walk::max_rank) + " dims, not " +
                       std::to_string(lens.size()));
    index_walk w;
    w.rank = static_cast<std::int32_t>(lens.size());
    for(std::size_t d = 0; d < lens.size(); d++)
    {
        w.lens[d] = lens[d];
        w.a[d]    = d < a.size() ? static_cast<std::int64_t>(a[d]) : 0;
        w.b[d]    = d < b.size() ? static_cast<std::int64_t>(b[d]) : 0;
        w.c[d]    = d < c.size() ? static_cast<std::int64_t>(c[d]) : 0;
    }
    return w;
}

bool wide_walk(std::uint64_t n, std::uint64_t span) { return n >= (1ull << 31) or span >= (1ull << 31); }

sized_source copy_source(std::size_t bytes, bool wide)
{
    auto t = detail::raw_type(bytes);
    sized_source k;
    k.name = tail_name("sized_copy", bytes, false, wide);
    k.source = walk_head(k.name, "const " + t + "* __restrict__ x, " + t + "* __restrict__ y", wide) +
               "        y[ob] = x[oa];\n    }\n}\n";
    return k;
}

namespace {
/// A kernel that reads one index a walked element (ind[ob]; negative wraps once by axis_len) and
/// moves an element along the axis: `params` are the pointers, `on_index` what it does then.
sized_source indexed_source(const std::string& base, std::size_t bytes, bool index64, bool wide,
                            const std::string& params, const std::string& on_index)
{
    sized_source k;
    k.name   = tail_name(base, bytes, index64, wide);
    k.source = walk_head(k.name, params + ", long long axis_len, long long axis_stride", wide) +
               "        long long k = ind[ob];\n"
               "        if(k < 0) k += axis_len;\n" +
               on_index + "    }\n}\n";
    return k;
}
} // namespace

sized_source gather_source(std::size_t bytes, bool index64, bool wide)
{
    auto t = detail::raw_type(bytes);
    return indexed_source("sized_gather", bytes, index64, wide,
                          "const " + t + "* __restrict__ x, const " + index_kind(index64) + "* __restrict__ ind, " + t +
                              "* __restrict__ y",
                          "        if(k < 0) k = 0; else if(k >= axis_len) k = axis_len - 1;\n"
                          "        y[i] = x[oa + (off_t_)k * (off_t_)axis_stride];\n");
}

sized_source scatter_source(std::size_t bytes, bool index64, bool wide)
{
    auto t = detail::raw_type(bytes);
    return indexed_source("sized_scatter", bytes, index64, wide,
                          "const " + index_kind(index64) + "* __restrict__ ind, const " + t + "* __restrict__ upd, " + t +
                              "* __restrict__ y",
                          "        if(k < 0 || k >= axis_len) continue;\n"
                          "        y[oa + (off_t_)k * (off_t_)axis_stride] = upd[oc];\n");
}

std::optional<concat_parts>
concat_parts_for(const std::vector<shape>& in, const std::vector<const void*>& src, const shape& out, std::size_t axis)
{
    if(in.empty() or in.size() > concat_parts::max_parts or in.size() != src.size() or axis >= out.ndim())
        return std::nullopt;
    const auto& lens = out.lens();
    concat_parts d;
    d.count = in.size();
    d.outer = std::accumulate(lens.begin(), lens.begin() + static_cast<std::ptrdiff_t>(axis), std::uint64_t{1},
                              std::multiplies<>{});
    auto inner = std::accumulate(lens.begin() + static_cast<std::ptrdiff_t>(axis) + 1, lens.end(), std::uint64_t{1},
                                 std::multiplies<>{});
    for(std::size_t i = 0; i < in.size(); i++)
    {
        if(in[i].ndim() != out.ndim() or (not in[i].standard() and in[i].elements() > 0))
            return std::nullopt;
        d.src[i]   = src[i];
        d.start[i] = d.row;
        d.width[i] = in[i].lens()[axis] * inner;
        d.row += d.width[i];
    }
    return d;
}

sized_source concat_source(std::size_t bytes)
{
    auto t  = detail::raw_type(bytes);
    auto np = std::to_string(concat_parts::max_parts);
    sized_source k;
    k.name   = "sized_concat_" + std::to_string(bytes);
    k.source = "struct parts_t { unsigned long long count, outer, row; const " + t + "* src[" + np +
               "]; unsigned long long start[" + np + "]; unsigned long long width[" + np + "]; };\n" +
               "extern \"C\" __global__ void " + k.name + "(" + t + R"(* __restrict__ y, parts_t d)
{
    const unsigned long long n = d.outer * d.row;
    for(unsigned long long e = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; e < n;
        e += (unsigned long long)gridDim.x * blockDim.x)
    {
        const unsigned long long o = e / d.row, c = e - o * d.row;
        // the last part starting at or before c (starts ascend; the first starts at 0)
        unsigned long long lo = 0, hi = d.count;
        while(hi - lo > 1)
        {
            const unsigned long long mid = (lo + hi) / 2;
            if(d.start[mid] <= c) lo = mid; else hi = mid;
        }
        y[e] = d.src[lo][o * d.width[lo] + (c - d.start[lo])];
    }
}
)";
    return k;
}

sized_source values_source()
{
    sized_source k;
    k.name   = "sized_values";
    k.source = "struct values_t { long long v[8]; };\n"
               "extern \"C\" __global__ void sized_values(long long* y, values_t d, unsigned long long n)\n"
               "{\n    if(threadIdx.x < n) y[threadIdx.x] = d.v[threadIdx.x];\n}\n";
    return k;
}

sized_source gathernd_source(std::size_t bytes, bool index64, bool wide)
{
    auto t = detail::raw_type(bytes);
    sized_source k;
    k.name   = tail_name("sized_gathernd", bytes, index64, wide);
    k.source = "struct gnd_t { long long q, last; long long len[8]; long long stride[8]; };\n" +
               walk_head(k.name,
                         "const " + t + "* __restrict__ x, const " + index_kind(index64) + "* __restrict__ ind, " + t +
                             "* __restrict__ y, gnd_t g",
                         wide) +
               "        for(long long j = 0; j < g.q; j++)\n"
               "        {\n"
               "            long long c = ind[ob + (off_t_)j * (off_t_)g.last];\n"
               "            if(c < 0) c += g.len[j];\n"
               "            if(c < 0) c = 0; else if(c >= g.len[j]) c = g.len[j] - 1;\n"
               "            oa += (off_t_)c * (off_t_)g.stride[j];\n"
               "        }\n"
               "        y[i] = x[oa];\n    }\n}\n";
    return k;
}

sized_source nonzero_source(std::size_t bytes, bool is_float)
{
    auto t = detail::raw_type(bytes);
    sized_source k;
    k.name = "sized_nonzero_" + std::to_string(bytes) + (is_float ? "_float" : "");
    // a float's bits without the sign: -0 is zero, NaN is not
    std::string magnitude = is_float ? " & (" + t + ")~((" + t + ")1 << " + std::to_string(bytes * 8 - 1) + ")" : "";
    std::ostringstream ss;
    ss << "struct nz_t { int rank; unsigned long long lens[8]; long long strides[8]; };\n";
    ss << "extern \"C\" __global__ __launch_bounds__(1024) void " << k.name << "(const " << t
       << "* __restrict__ x, long long* __restrict__ y, unsigned long long* __restrict__ count, nz_t d)\n{\n";
    ss << "    typedef unsigned long long idx_t;\n";
    ss << "    idx_t n = 1;\n    for(int j = 0; j < d.rank; j++) n *= d.lens[j];\n";
    ss << "    auto hit = [&](idx_t i) {\n"
          "        long long o = 0;\n"
          "        for(int j = d.rank - 1; j >= 0; j--) { o += (long long)(i % d.lens[j]) * d.strides[j]; i /= d.lens[j]; }\n"
          "        return (" << t << ")(x[o]" << magnitude << ") != (" << t << ")0;\n"
          "    };\n";
    ss << R"(    __shared__ unsigned long long m;
    __shared__ unsigned long long seen; // hits in earlier tiles
    __shared__ unsigned int warp_count[32];
    const unsigned int tid = threadIdx.x, lane = tid & 31u, warp = tid >> 5;
    if(tid == 0) { m = 0ull; seen = 0ull; }
    __syncthreads();
    unsigned long long mine = 0ull;
    for(idx_t i = tid; i < n; i += blockDim.x)
        mine += hit(i) ? 1ull : 0ull;
    if(mine != 0ull)
        atomicAdd(&m, mine);
    __syncthreads();
    const idx_t total = m;
    // in index order: a tile at a time, each hit's place from the hits before it
    for(idx_t base = 0; base < n; base += blockDim.x)
    {
        idx_t i = base + tid;
        bool h = i < n && hit(i);
        unsigned int ballot = __ballot_sync(0xffffffffu, h);
        if(lane == 0)
            warp_count[warp] = __popc(ballot);
        __syncthreads();
        idx_t pos = seen + __popc(ballot & ((1u << lane) - 1u));
        for(unsigned int w = 0; w < warp; w++)
            pos += warp_count[w];
        if(h)
        {
            idx_t r = i;
            for(int j = d.rank - 1; j >= 0; j--)
            {
                y[(idx_t)j * total + pos] = (long long)(r % d.lens[j]);
                r /= d.lens[j];
            }
        }
        __syncthreads();
        if(tid == 0)
        {
            unsigned long long s = 0ull;
            for(unsigned int w = 0; w < blockDim.x / 32u; w++)
                s += warp_count[w];
            seen += s;
        }
        __syncthreads();
    }
    if(tid == 0)
        *count = total;
}
)";
    k.source = ss.str();
    return k;
}

sized_source topk_source(bool half, bool largest)
{
    sized_source k;
    std::string t = half ? "migx_half" : "float";
    k.name        = std::string("sized_topk_") + (half ? "half" : "float") + (largest ? "_largest" : "_smallest");
    std::ostringstream ss;
    ss << detail::prelude() << topk_rank(t, largest);
    ss << "struct topk_t { unsigned long long n, k, inner, rows, p; };\n";
    ss << "extern \"C\" __global__ __launch_bounds__(1024) void " << k.name << "(const " << t
       << "* __restrict__ x0, unsigned long long* __restrict__ y, topk_t d)\n{\n";
    ss << "    typedef unsigned long long idx_t;\n";
    ss << "    const idx_t n = d.n, k = d.k, inner = d.inner, rows = d.rows;\n";
    ss << "    const unsigned int P = (unsigned int)d.p;\n";
    ss << "    long long* indices = reinterpret_cast<long long*>(y);\n";
    ss << "    " << t << "* values = reinterpret_cast<" << t << "*>(y + rows * k);\n";
    ss << "    __shared__ unsigned long long keys[" << topk_sized_max_k << "];\n";
    ss << topk_rows(t);
    k.source = ss.str();
    return k;
}

sized_source roialign_source(bool half, bool index64)
{
    sized_source k;
    k.name = std::string("sized_roialign_") + (half ? "half" : "float") + (index64 ? "_i64" : "_i32");
    auto t = half ? "migx_half" : "float";
    std::ostringstream ss;
    ss << detail::prelude();
    ss << "struct roi_t { long long n, c, h, w, rois, out_h, out_w, sampling_ratio; float spatial_scale; int "
          "half_pixel, is_max; };\n";
    ss << "__device__ __forceinline__ float ld(const " << t << "* p, long long i) { return "
       << (half ? "h2f(p[i])" : "p[i]") << "; }\n";
    ss << "extern \"C\" __global__ void " << k.name << "(const " << t << "* __restrict__ x, const " << t
       << "* __restrict__ rois, const " << index_kind(index64) << "* __restrict__ batch, " << t
       << "* __restrict__ y, roi_t d)\n{\n";
    // One thread an output cell of one channel: the cell's samples as op::roialign takes them
    // (float here, double there).
    ss << R"(    const long long cells = d.out_h * d.out_w, total = d.rois * d.c * cells;
    for(long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total; i += (long long)gridDim.x * blockDim.x)
    {
        const long long cell = i % cells, nc = i / cells, ch = nc % d.c, r = nc / d.c;
        const long long ph = cell / d.out_w, pw = cell % d.out_w;
        const long long b = batch[r];
        float acc = 0.f;
        if(b >= 0 && b < d.n)
        {
            const float off = d.half_pixel ? 0.5f : 0.f;
            const float x1 = ld(rois, r * 4) * d.spatial_scale - off, y1 = ld(rois, r * 4 + 1) * d.spatial_scale - off;
            const float x2 = ld(rois, r * 4 + 2) * d.spatial_scale - off, y2 = ld(rois, r * 4 + 3) * d.spatial_scale - off;
            float rw = x2 - x1, rh = y2 - y1;
            if(!d.half_pixel) { rw = rw < 1.f ? 1.f : rw; rh = rh < 1.f ? 1.f : rh; }
            const float bh = rh / (float)d.out_h, bw = rw / (float)d.out_w;
            long long gh = d.sampling_ratio, gw = d.sampling_ratio;
            if(d.sampling_ratio <= 0)
            {
                const float fh = ceilf(rh / (float)d.out_h), fw = ceilf(rw / (float)d.out_w);
                gh = fh > 0.f ? (long long)fh : 0; // NaN: none, as ref's max(0, ceil(NaN))
                gw = fw > 0.f ? (long long)fw : 0;
            }
            const float count = gh * gw > 1 ? (float)(gh * gw) : 1.f;
            const )" << t << R"(* plane = x + (b * d.c + ch) * d.h * d.w;
            const float H = (float)d.h, W = (float)d.w;
            bool first = true;
            for(long long iy = 0; iy < gh; iy++)
                for(long long ix = 0; ix < gw; ix++)
                {
                    float yy = y1 + ph * bh + (iy + 0.5f) * bh / (float)gh;
                    float xx = x1 + pw * bw + (ix + 0.5f) * bw / (float)gw;
                    float v0 = 0.f, v1 = 0.f, v2 = 0.f, v3 = 0.f;
                    if(!(yy < -1.f || yy > H || xx < -1.f || xx > W))
                    {
                        yy = yy > 0.f ? yy : 0.f;
                        xx = xx > 0.f ? xx : 0.f;
                        long long yl = (long long)yy, xl = (long long)xx, yh = yl + 1, xh = xl + 1;
                        if(yl >= d.h - 1) { yh = yl = d.h - 1; yy = (float)yl; }
                        if(xl >= d.w - 1) { xh = xl = d.w - 1; xx = (float)xl; }
                        const float ly = yy - yl, lx = xx - xl, hy = 1.f - ly, hx = 1.f - lx;
                        v0 = hy * hx * ld(plane, yl * d.w + xl);
                        v1 = hy * lx * ld(plane, yl * d.w + xh);
                        v2 = ly * hx * ld(plane, yh * d.w + xl);
                        v3 = ly * lx * ld(plane, yh * d.w + xh);
                    }
                    if(d.is_max)
                    {
                        const float m = fmaxf(fmaxf(v0, v1), fmaxf(v2, v3));
                        acc = first ? m : fmaxf(acc, m);
                    }
                    else
                        acc += v0 + v1 + v2 + v3;
                    first = false;
                }
            if(!d.is_max)
                acc /= count;
        }
        y[i] = )" << (half ? "f2h(acc)" : "acc") << R"(;
    }
}
)";
    k.source = ss.str();
    return k;
}

} // namespace gpu
} // namespace migraphx
