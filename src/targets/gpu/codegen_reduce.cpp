// Generated kernels that reduce: reduce_*, softmax/logsoftmax, layernorm, pooling. Each output (a row of
// the reduction) is handled by a group of G threads (1, a warp or a block of 256, chosen by the
// row's length); the group strides over the row and combines through warp shuffles and, for a
// block, shared memory. Values are read as float (half converted), accumulated in float.
// softmax and layernorm rows that are contiguous in input and output (plan_register_rows) also
// have a register path: each lane loads its 16-byte vectors of the row once, keeps them in float
// registers for all the passes and stores 16-byte vectors; taken when the pointers are 16-byte
// aligned at run time, the generic loop otherwise.
#include "targets/gpu/codegen.hpp"
#include "ir/env.hpp"
#include <migraphx/errors.hpp>
#include <cmath>
#include <sstream>

namespace migraphx {
namespace gpu {
namespace {

std::string storage(const shape& s) { return s.type() == shape::half_type ? "migx_half" : "float"; }
std::string load(const shape& s, const std::string& e) { return s.type() == shape::half_type ? "h2f(" + e + ")" : e; }
std::string store(const shape& s, const std::string& e) { return s.type() == shape::half_type ? "f2h(" + e + ")" : e; }

unsigned group_size(std::size_t row_len)
{
    if(row_len <= 16)
        return 1;
    if(row_len <= 1024)
        return 32;
    return 256;
}

// Group reduction helpers. Every thread of a group must call them (rows are uniform per group).
const char* group_code = R"(
#define MIGX_NEG_INF __int_as_float(0xff800000)
#define MIGX_POS_INF __int_as_float(0x7f800000)
struct op_sum { __device__ float operator()(float a, float b) const { return a + b; } };
struct op_prod { __device__ float operator()(float a, float b) const { return a * b; } };
struct op_max { __device__ float operator()(float a, float b) const { return a < b ? b : a; } };
struct op_min { __device__ float operator()(float a, float b) const { return b < a ? b : a; } };
template <unsigned G, class Op>
__device__ __forceinline__ float group_reduce(float v, Op op)
{
    if constexpr(G == 1)
        return v;
    for(unsigned o = 16; o > 0; o >>= 1)
        v = op(v, __shfl_xor_sync(0xffffffffu, v, o));
    if constexpr(G > 32)
    {
        __shared__ float part[32];
        const unsigned w = threadIdx.x / 32, l = threadIdx.x % 32;
        __syncthreads();
        if(l == 0)
            part[w] = v;
        __syncthreads();
        v = part[0];
        for(unsigned k = 1; k < G / 32; k++)
            v = op(v, part[k]);
    }
    return v;
}
// A reduction over groups of G threads (a power of two up to 1024; G consecutive threads of the
// block, the block a multiple of G) whose every thread of the block calls it: warp shuffles
// within min(G, 32) lanes, then shared memory across a group's warps. All get the result.
template <unsigned G, class Op>
__device__ __forceinline__ float row_reduce(float v, Op op)
{
    for(unsigned o = (G < 32 ? G : 32) / 2; o > 0; o >>= 1)
        v = op(v, __shfl_xor_sync(0xffffffffu, v, o));
    if constexpr(G > 32)
    {
        constexpr unsigned W = G / 32;
        __shared__ float part[32];
        const unsigned w = threadIdx.x / 32;
        __syncthreads();
        if(threadIdx.x % 32 == 0)
            part[w] = v;
        __syncthreads();
        const unsigned first = w / W * W;
        v = part[first];
        for(unsigned k = 1; k < W; k++)
            v = op(v, part[first + k]);
    }
    return v;
}
)";

/// Dims of lens with the length-1 dims dropped and neighbours merged where every tensor's
/// strides chain (one stride list per tensor).
void merge(std::vector<std::size_t>& lens, std::vector<std::vector<std::size_t>*> strides)
{
    std::vector<std::size_t> l;
    std::vector<std::vector<std::size_t>> s(strides.size());
    for(std::size_t d = 0; d < lens.size(); d++)
    {
        if(lens[d] == 1)
            continue;
        bool chain = not l.empty();
        for(std::size_t t = 0; chain and t < strides.size(); t++)
            chain = s[t].back() == (*strides[t])[d] * lens[d];
        if(chain)
            l.back() *= lens[d];
        else
            l.push_back(lens[d]);
        for(std::size_t t = 0; t < strides.size(); t++)
        {
            if(chain)
                s[t].back() = (*strides[t])[d];
            else
                s[t].push_back((*strides[t])[d]);
        }
    }
    lens = l;
    for(std::size_t t = 0; t < strides.size(); t++)
        *strides[t] = s[t];
}

/// An offset expression over digits prefix0.. with the given strides.
std::string offset(const std::string& prefix, const std::vector<std::size_t>& strides)
{
    std::string t;
    for(std::size_t d = 0; d < strides.size(); d++)
        if(strides[d] != 0)
            t += (t.empty() ? "" : " + ") + prefix + std::to_string(d) + " * " + std::to_string(strides[d]) + "u";
    return t.empty() ? "0" : "(" + t + ")";
}

/// The kernel head: signature and the loop over rows, a group of G threads each; `before_loop`
/// (a register path) comes before the loop.
std::string head(const std::string& name,
                 const std::vector<std::string>& in_types,
                 const std::string& out_type,
                 const std::vector<shape>& shapes,
                 unsigned g,
                 std::size_t rows,
                 const std::string& before_loop = "")
{
    std::ostringstream ss;
    ss << detail::prelude() << group_code;
    ss << detail::signature(name, in_types, out_type);
    ss << "    typedef " << detail::index_type(shapes) << " idx_t;\n";
    ss << "    const idx_t rows = " << rows << ";\n";
    ss << before_loop;
    ss << "    constexpr unsigned G = " << g << ";\n";
    ss << "    const unsigned lane = threadIdx.x % G;\n";
    ss << "    const idx_t first = (blockIdx.x * (idx_t)blockDim.x + threadIdx.x) / G;\n";
    ss << "    const idx_t step = (gridDim.x * (idx_t)blockDim.x) / G;\n";
    ss << "    for(idx_t row = first; row < rows; row += step)\n    {\n";
    return ss.str();
}

kernel_source finish(const std::string& name, std::string source, std::size_t rows, unsigned g)
{
    kernel_source k;
    k.name     = name;
    k.source   = std::move(source);
    k.local    = 256; // a block is one group when G is 256
    k.elements = rows * g;
    return k;
}

/// Splits the dims into the row dims (kept) and the reduced dims, each merged where possible;
/// row strides of `in` and, where given, of `out` (merged together, so one row digit set fits both).
struct row_split
{
    std::vector<std::size_t> row_lens, row_strides, out_row_strides, red_lens, red_strides;
    std::vector<std::vector<std::size_t>> more_row_strides; // of the `more` shapes, in order
};

row_split split(const shape& in, const std::vector<bool>& reduced, const shape* out = nullptr,
                const std::vector<shape>& more = {})
{
    row_split r;
    r.more_row_strides.resize(more.size());
    for(std::size_t d = 0; d < in.lens().size(); d++)
    {
        if(reduced[d])
        {
            r.red_lens.push_back(in.lens()[d]);
            r.red_strides.push_back(in.strides()[d]);
            continue;
        }
        r.row_lens.push_back(in.lens()[d]);
        r.row_strides.push_back(in.strides()[d]);
        r.out_row_strides.push_back(out == nullptr ? 0 : out->strides()[d]);
        for(std::size_t i = 0; i < more.size(); i++)
            r.more_row_strides[i].push_back(more[i].strides()[d]);
    }
    std::vector<std::vector<std::size_t>*> row_strides{&r.row_strides, &r.out_row_strides};
    for(auto& m : r.more_row_strides)
        row_strides.push_back(&m);
    merge(r.row_lens, row_strides);
    merge(r.red_lens, {&r.red_strides});
    return r;
}

} // namespace

std::optional<kernel_source> generate_reduce(const std::string& kind, const shape& in, const shape& out)
{
    if(not float_or_half(in) or out.type() != in.type() or not out.standard() or in.elements() == 0 or
       out.lens().size() != in.lens().size())
        return std::nullopt;
    std::vector<bool> reduced(in.lens().size());
    for(std::size_t d = 0; d < reduced.size(); d++)
    {
        reduced[d] = out.lens()[d] == 1 and in.lens()[d] != 1;
        if(not reduced[d] and out.lens()[d] != in.lens()[d])
            return std::nullopt;
    }
    std::string op, init;
    if(kind == "sum" or kind == "mean")
        op = "op_sum", init = "0.f";
    else if(kind == "prod")
        op = "op_prod", init = "1.f";
    else if(kind == "max")
        op = "op_max", init = "MIGX_NEG_INF";
    else if(kind == "min")
        op = "op_min", init = "MIGX_POS_INF";
    else
        return std::nullopt;
    auto sp          = split(in, reduced);
    std::size_t rows = out.elements();
    std::size_t len  = in.elements() / rows;
    auto g           = group_size(len);
    auto name        = "reduce_" + kind + "_kernel";
    std::ostringstream ss;
    ss << head(name, {storage(in)}, storage(out), {in, out}, g, rows);
    ss << detail::digits("row", sp.row_lens, "o");
    ss << "        const idx_t base = " << offset("o", sp.row_strides) << ";\n";
    ss << "        float acc = " << init << ";\n";
    ss << "        for(idx_t e = lane; e < " << len << "u; e += G)\n        {\n";
    ss << detail::digits("e", sp.red_lens, "r");
    ss << "            acc = " << op << "{}(acc, " << load(in, "x0[base + " + offset("r", sp.red_strides) + "]")
       << ");\n        }\n";
    ss << "        acc = group_reduce<G>(acc, " << op << "{});\n";
    if(kind == "mean")
        ss << "        acc = acc / " << len << ".f;\n";
    ss << "        if(lane == 0)\n            y[row] = " << store(out, "acc") << ";\n";
    ss << "    }\n}\n";
    return finish(name, ss.str(), rows, g);
}

/// The register path of a row kernel: rows contiguous along the axis in input and output (stride
/// 1), their length a multiple of V (8 halves or 4 floats: 16 bytes) and every row's start in both
/// a multiple of V elements (the other dims' strides multiples of V), so that the row is nv 16-byte
/// vectors when the pointers are 16-byte aligned. A group of g lanes (a power of two: up to a warp
/// with one vector a lane, more lanes when a warp would need more than 4 vectors a lane, up to
/// 256) takes a row, each lane per_lane vectors held in registers.
struct register_rows
{
    unsigned v = 0, g = 1, nv = 0, per_lane = 0;
};

std::optional<register_rows> plan_register_rows(std::size_t axis, const shape& in, const shape& out)
{
    if(in.strides()[axis] != 1 or out.strides()[axis] != 1)
        return std::nullopt;
    register_rows r;
    r.v      = static_cast<unsigned>(16 / in.type_size());
    auto len = in.lens()[axis];
    if(len % r.v != 0)
        return std::nullopt;
    for(std::size_t d = 0; d < in.lens().size(); d++)
        if(d != axis and in.lens()[d] != 1 and (in.strides()[d] % r.v != 0 or out.strides()[d] % r.v != 0))
            return std::nullopt;
    r.nv = static_cast<unsigned>(len / r.v);
    while(r.g < 32 and r.g < r.nv)
        r.g *= 2;
    while(r.g * 4 < r.nv)
        r.g *= 2;
    if(r.g > 256)
        return std::nullopt;
    r.per_lane = (r.nv + r.g - 1) / r.g;
    return r;
}

/// A kernel normalizing along one axis (softmax, layernorm): one group of threads a row. Writes
/// the head (with the register path `fast` of the plan `reg` before the loop, if any), the row's
/// digits and its offsets `base` (in) and `obase` (out); `x` is the load of element `e` of the
/// row, `len` its length, `oa` the output's stride along the axis.
struct axis_rows
{
    std::size_t len = 0, rows = 0, oa = 0;
    unsigned g = 1;
    std::string x;
    std::optional<register_rows> reg;
};

/// The row's digits and offsets base (in), obase (out) and base1.. (the addends after in),
/// indented by `indent` spaces more.
std::string row_offsets(std::size_t axis, const shape& in, const shape& out, std::size_t indent,
                        const std::vector<shape>& addends = {})
{
    std::vector<bool> reduced(in.lens().size(), false);
    reduced[axis] = true;
    auto si       = split(in, reduced, &out, addends);
    std::string pad(indent, ' ');
    std::string code = detail::digits("row", si.row_lens, "o");
    code += "        const idx_t base = " + offset("o", si.row_strides) + ";\n";
    code += "        const idx_t obase = " + offset("o", si.out_row_strides) + ";\n";
    for(std::size_t i = 0; i < addends.size(); i++)
        code += "        const idx_t base" + std::to_string(i + 1) + " = " + offset("o", si.more_row_strides[i]) + ";\n";
    std::string r;
    std::size_t pos = 0;
    while(pos < code.size())
    {
        auto e = code.find('\n', pos) + 1;
        r += pad + code.substr(pos, e - pos);
        pos = e;
    }
    return r;
}

/// The register path's frame: when x0, y and the pointers `also_aligned` are 16-byte aligned, a
/// loop over the block's rows (blockDim.x / g of them, the loop uniform over the block, a lane of a row past the last idle
/// but taking part in the reductions) with the row's offsets, `live` (the row exists), `rlane`,
/// and `body`; then the kernel returns.
std::string register_frame(const register_rows& r, std::size_t axis, const shape& in, const shape& out,
                           const std::string& body, const std::vector<std::string>& also_aligned = {},
                           const std::vector<shape>& addends = {})
{
    std::ostringstream ss;
    std::string also;
    for(const auto& p : also_aligned)
        also += ", " + p;
    ss << "    // register path: a row a group of " << r.g << " lanes, " << r.per_lane << " vector(s) of " << r.v
       << " a lane, held in registers, when x0" << also << " and y are 16-byte aligned\n";
    ss << "    if((((unsigned long long)(const void*)x0 | (unsigned long long)(const void*)y";
    for(const auto& p : also_aligned)
        ss << " | (unsigned long long)(const void*)" << p;
    ss << ") & 15ull) == 0ull)\n    {\n";
    ss << "        constexpr unsigned RG = " << r.g << ", NV = " << r.nv << ", PL = " << r.per_lane
       << ", FULL = NV / RG;\n";
    ss << "        const unsigned rlane = threadIdx.x % RG;\n";
    ss << "        const idx_t rpb = blockDim.x / RG;\n";
    ss << "        for(idx_t rb = blockIdx.x; rb * rpb < rows; rb += gridDim.x)\n        {\n";
    ss << "            const idx_t row = rb * rpb + threadIdx.x / RG;\n";
    ss << "            const bool live = row < rows;\n";
    ss << row_offsets(axis, in, out, 4, addends);
    ss << body;
    ss << "        }\n        return;\n    }\n";
    return ss.str();
}

/// Register path code: `what` (code on the lane's j-th vector, vector c of the row) for each of
/// the lane's vectors that the row has, the loop unrolled.
std::string lane_vectors(const std::string& what)
{
    return "#pragma unroll\n"
           "            for(unsigned j = 0; j < PL; j++)\n            {\n"
           "                const unsigned c = rlane + j * RG;\n"
           "                if(live && (j < FULL || c < NV))\n                {\n" +
           what + "                }\n            }\n";
}

/// Loads vector c of the row into v[j][0..V) (floats).
std::string load_vector(const shape& in, unsigned v)
{
    std::ostringstream ss;
    ss << "                    union { uint4 w; " << storage(in) << " e[" << v << "]; } u;\n";
    ss << "                    u.w = reinterpret_cast<const uint4*>(x0 + base)[c];\n";
    ss << "#pragma unroll\n";
    ss << "                    for(unsigned k = 0; k < " << v << "; k++)\n";
    ss << "                        v[j][k] = " << load(in, "u.e[k]") << ";\n";
    return ss.str();
}

/// Stores expression `e` of v[j][k] as vector c of the output row (v elements: one 16-byte piece,
/// two where the output's elements are wider than the row's, e.g. float out of half rows).
std::string store_vector(const shape& out, unsigned v, const std::string& e)
{
    auto pieces = v * out.type_size() / 16;
    std::ostringstream ss;
    ss << "                    union { uint4 w" << (pieces > 1 ? "[" + std::to_string(pieces) + "]" : "") << "; "
       << storage(out) << " e[" << v << "]; } u;\n";
    ss << "#pragma unroll\n";
    ss << "                    for(unsigned k = 0; k < " << v << "; k++)\n";
    ss << "                        u.e[k] = " << store(out, e) << ";\n";
    if(pieces == 1)
        ss << "                    reinterpret_cast<uint4*>(y + obase)[c] = u.w;\n";
    for(std::size_t p = 0; pieces > 1 and p < pieces; p++)
        ss << "                    reinterpret_cast<uint4*>(y + obase)[c * " << pieces << " + " << p << "] = u.w[" << p
           << "];\n";
    return ss.str();
}

/// `addends`: more inputs (x1.., after x0) whose elements are added to x0's (r.x is the sum, as
/// float, rounded to in's type); `more`: the inputs after them.
axis_rows begin_axis_rows(std::ostringstream& ss, const std::string& name, std::size_t axis, const shape& in,
                          const shape& out, const std::string& fast = "", const std::vector<shape>& more = {},
                          const std::vector<shape>& addends = {})
{
    axis_rows r;
    r.len  = in.lens()[axis];
    r.rows = in.elements() / r.len;
    r.g    = group_size(r.len);
    r.oa   = out.strides()[axis];
    r.x    = load(in, "x0[base + e * " + std::to_string(in.strides()[axis]) + "u]");
    for(std::size_t i = 0; i < addends.size(); i++)
    {
        auto n = std::to_string(i + 1);
        r.x += " + " + load(addends[i], "x" + n + "[base" + n + " + e * " +
                                            std::to_string(addends[i].strides()[axis]) + "u]");
    }
    if(not addends.empty())
        r.x = in.type() == shape::half_type ? "rh(" + r.x + ")" : "(" + r.x + ")";
    std::vector<std::string> types{storage(in)};
    std::vector<shape> all{in, out};
    for(const auto* list : {&addends, &more})
        for(const auto& m : *list)
        {
            types.push_back(storage(m));
            all.push_back(m);
        }
    ss << head(name, types, storage(out), all, r.g, r.rows, fast);
    ss << row_offsets(axis, in, out, 0, addends);
    return r;
}

/// The launch of a row kernel: g threads a row for the register path where there is one (the
/// generic loop strides over the rows with whatever grid it gets).
kernel_source finish_rows(const std::string& name, const std::string& source, const axis_rows& r)
{
    auto k = finish(name, source, r.rows, r.g);
    if(r.reg)
        k.elements = r.rows * r.reg->g;
    return k;
}

std::optional<kernel_source> generate_softmax(bool log, std::size_t axis, const shape& in, const shape& out)
{
    if(not float_or_half(in) or out.type() != in.type() or not out.standard() or out.lens() != in.lens() or
       axis >= in.lens().size() or in.elements() == 0)
        return std::nullopt;
    std::string name = log ? "logsoftmax_kernel" : "softmax_kernel";
    auto reg         = plan_register_rows(axis, in, out);
    std::string fast;
    if(reg)
    {
        // max, then the sum of exp(x - max) (softmax keeps the exps), then the scaled stores
        std::ostringstream b;
        b << "            float v[PL][" << reg->v << "];\n";
        b << "            float m = MIGX_NEG_INF;\n";
        b << lane_vectors(load_vector(in, reg->v) + "#pragma unroll\n                    for(unsigned k = 0; k < " +
                          std::to_string(reg->v) + "; k++)\n                        m = op_max{}(m, v[j][k]);\n");
        b << "            m = row_reduce<RG>(m, op_max{});\n";
        b << "            float s = 0.f;\n";
        b << lane_vectors("#pragma unroll\n                    for(unsigned k = 0; k < " + std::to_string(reg->v) +
                          "; k++)\n                    {\n" +
                          (log ? std::string("                        s += expf(v[j][k] - m);\n")
                               : std::string("                        v[j][k] = expf(v[j][k] - m);\n"
                                             "                        s += v[j][k];\n")) +
                          "                    }\n");
        b << "            s = row_reduce<RG>(s, op_sum{});\n";
        if(log)
            b << "            const float ls = logf(s);\n";
        else
            b << "            const float rs = 1.f / s;\n";
        b << lane_vectors(store_vector(out, reg->v, log ? "(v[j][k] - m) - ls" : "v[j][k] * rs"));
        fast = register_frame(*reg, axis, in, out, b.str());
    }
    std::ostringstream ss;
    auto r           = begin_axis_rows(ss, name, axis, in, out, fast);
    r.reg            = reg;
    auto len         = r.len;
    auto oa          = r.oa;
    const auto& x    = r.x;
    ss << "        float m = MIGX_NEG_INF;\n";
    ss << "        for(idx_t e = lane; e < " << len << "u; e += G)\n            m = op_max{}(m, " << x << ");\n";
    ss << "        m = group_reduce<G>(m, op_max{});\n";
    ss << "        float s = 0.f;\n";
    ss << "        for(idx_t e = lane; e < " << len << "u; e += G)\n            s += expf(" << x << " - m);\n";
    ss << "        s = group_reduce<G>(s, op_sum{});\n";
    if(log)
        ss << "        const float ls = logf(s);\n";
    else
        ss << "        const float rs = 1.f / s;\n";
    ss << "        for(idx_t e = lane; e < " << len << "u; e += G)\n";
    ss << "            y[obase + e * " << oa << "u] = "
       << store(out, log ? "(" + x + " - m) - ls" : "expf(" + x + " - m) * rs") << ";\n";
    ss << "    }\n}\n";
    return finish_rows(name, ss.str(), r);
}

long layernorm_min_blocks()
{
    auto s = env_string("MIGRAPHX_GPU_LAYERNORM_BLOCKS");
    if(s.empty())
        return 6; // BERT-base b64 fp16 on an H200: 0.963-0.983x the time of 8 (4 rounds, session 23)
    auto v = env_level("MIGRAPHX_GPU_LAYERNORM_BLOCKS");
    if(v < 0 or v > 32 or std::to_string(v) != s)
        MIGRAPHX_THROW("MIGRAPHX_GPU_LAYERNORM_BLOCKS=" + s + ": expected a number of blocks from 0 to 32");
    return v;
}

std::optional<kernel_source>
generate_layernorm(float epsilon, const shape& in, const shape& out, const std::vector<shape>& affine)
{
    return generate_layernorm(epsilon, std::vector<shape>{in}, out, affine);
}

std::optional<kernel_source> generate_layernorm(float epsilon,
                                                const std::vector<shape>& summed,
                                                const shape& out,
                                                const std::vector<shape>& affine,
                                                std::optional<float> e4m3_scale)
{
    if(summed.empty() or summed.size() > 4)
        return std::nullopt;
    const auto& in = summed.front();
    bool e4m3      = e4m3_scale.has_value();
    if(e4m3 and (in.type() != shape::half_type or out.type() != shape::half_type or not(*e4m3_scale > 0) or
                 not std::isfinite(*e4m3_scale)))
        return std::nullopt;
    std::vector<shape> addends(summed.begin() + 1, summed.end()); // x1.., added to x0
    bool out_type = out.type() == in.type() or (in.type() == shape::half_type and out.type() == shape::float_type);
    if(not float_or_half(in) or not out_type or not out.standard() or out.lens() != in.lens() or
       in.lens().empty() or in.elements() == 0 or affine.size() > 2)
        return std::nullopt;
    auto axis = in.lens().size() - 1;
    for(const auto& a : addends)
        if(a.dynamic() or a.type() != in.type() or a.lens() != in.lens())
            return std::nullopt;
    for(const auto& a : affine)
    {
        if(a.type() != in.type() or a.lens() != in.lens())
            return std::nullopt;
        for(std::size_t d = 0; d < axis; d++)
            if(a.strides()[d] != 0 and a.lens()[d] != 1)
                return std::nullopt;
    }
    std::string name = e4m3 ? "layernorm_e4m3_kernel" : "layernorm_kernel";
    auto reg         = plan_register_rows(axis, in, out);
    if(e4m3 and reg and reg->v != 8)
        reg = std::nullopt; // the copy's stores are 8 bytes: one half vector's 8 values
    // The e4m3 copy right after the result in the output buffer (its own pointer y8); each value
    // the half the result stores, times the scale, as quantize_fp8's cast of it computes.
    std::string e4m3_pointer, e4m3_of_h;
    if(e4m3)
    {
        e4m3_pointer = "    migx_fp8* const y8 = reinterpret_cast<migx_fp8*>(y + " + std::to_string(out.elements()) + "u);\n";
        e4m3_of_h    = "f2f8(h2f(h) * " + detail::float_literal(*e4m3_scale) + ")";
    }
    // every addend's rows as 16-byte vectors too (unit stride along the axis, starts on a vector)
    for(const auto& a : addends)
        for(std::size_t d = 0; reg and d < a.lens().size(); d++)
            if(d == axis ? a.strides()[d] != 1 : a.lens()[d] != 1 and a.strides()[d] % reg->v != 0)
                reg = std::nullopt;
    auto eps         = detail::float_literal(epsilon);
    auto first_affine = summed.size(); // the scale is x<first_affine>, the shift the next
    // The scale and shift of column `col` (an expression), as float.
    auto affine_of = [&](const std::string& normalized, const std::string& col) {
        std::string e = normalized;
        for(std::size_t i = 0; i < affine.size(); i++)
        {
            // (a stream: GCC 12's -Wrestrict misfires on "literal" + std::string&& here)
            std::ostringstream at, t;
            at << "x" << first_affine + i << "[" << col << " * " << affine[i].strides()[axis] << "u]";
            t << "(" << e << (i == 0 ? " * " : " + ") << load(affine[i], at.str()) << ")";
            e = t.str();
        }
        return e;
    };
    std::string fast;
    if(reg)
    {
        // the row in registers: its mean, then the variance around it (two passes, as below).
        // Half rows stay packed (4 registers a vector, converted in each pass), so that a
        // block of 256 threads fits in 32 registers a thread: 8 blocks an SM, a BERT-base
        // batch's rows in one wave.
        auto len    = std::to_string(in.lens()[axis]);
        auto vs     = std::to_string(reg->v);
        bool packed = in.type() == shape::half_type;
        std::string val = packed ? "h2f(p.e[k])" : "v[j][k]";
        std::string unpack = packed ? "                    union { uint4 w; migx_half e[8]; } p;\n"
                                      "                    p.w = w[j];\n"
                                    : "";
        std::ostringstream b;
        if(packed)
            b << "            uint4 w[PL];\n";
        else
            b << "            float v[PL][" << vs << "];\n";
        b << "            float s = 0.f;\n";
        // The addends' vectors added in float (rounded to half once, as the add they replace).
        std::string sum_in;
        std::vector<std::string> aligned;
        if(not addends.empty())
        {
            std::ostringstream a;
            a << "                    {\n";
            std::string total = packed ? "h2f(t.e[k])" : "v[j][k]";
            if(packed)
                a << "                        union { uint4 w; migx_half e[8]; } t;\n"
                  << "                        t.w = w[j];\n";
            for(std::size_t i = 0; i < addends.size(); i++)
            {
                auto n = std::to_string(i + 1);
                a << "                        union { uint4 w; " << storage(in) << " e[" << vs << "]; } u" << n
                  << ";\n                        u" << n << ".w = reinterpret_cast<const uint4*>(x" << n << " + base"
                  << n << ")[c];\n";
                total += " + " + load(in, "u" + n + ".e[k]");
                aligned.push_back("x" + n);
            }
            a << "#pragma unroll\n                        for(unsigned k = 0; k < " << vs << "; k++)\n";
            if(packed)
                a << "                            t.e[k] = f2h(" << total << ");\n"
                  << "                        w[j] = t.w;\n";
            else
                a << "                            v[j][k] = " << total << ";\n";
            a << "                    }\n";
            sum_in = a.str();
        }
        b << lane_vectors((packed ? "                    w[j] = reinterpret_cast<const uint4*>(x0 + base)[c];\n" +
                                        sum_in + unpack
                                  : load_vector(in, reg->v) + sum_in) +
                          "#pragma unroll\n                    for(unsigned k = 0; k < " + vs +
                          "; k++)\n                        s += " + val + ";\n");
        b << "            const float m = row_reduce<RG>(s, op_sum{}) / " << len << ".f;\n";
        b << "            float q = 0.f;\n";
        b << lane_vectors(unpack + "#pragma unroll\n                    for(unsigned k = 0; k < " + vs +
                          "; k++)\n                    {\n                        const float d = " + val +
                          " - m;\n                        q += d * d;\n                    }\n");
        b << "            const float r = rsqrtf(row_reduce<RG>(q, op_sum{}) / " << len << ".f + " << eps << ");\n";
        std::string result = "(" + val + " - m) * r";
        std::string affine_loads;
        for(std::size_t i = 0; i < affine.size(); i++)
        {
            auto xi = "x" + std::to_string(first_affine + i);
            auto ai = "a" + std::to_string(i + 1);
            if(affine[i].strides()[axis] == 1) // 16-byte vectors, as the row's
            {
                affine_loads += "                    union { uint4 w; " + storage(in) + " e[" + vs + "]; } " + ai +
                                ";\n                    " + ai + ".w = reinterpret_cast<const uint4*>(" + xi +
                                ")[c];\n";
                result = "(" + result + (i == 0 ? " * " : " + ") + load(in, ai + ".e[k]") + ")";
                aligned.push_back(xi);
            }
            else
                result = "(" + result + (i == 0 ? " * " : " + ") +
                         load(affine[i], xi + "[(c * " + vs + "u + k) * " +
                                             std::to_string(affine[i].strides()[axis]) + "u]") +
                         ")";
        }
        std::string stores = store_vector(out, reg->v, result);
        if(e4m3)
        {
            stores += "                    union { uint2 w; migx_fp8 e[8]; } q;\n#pragma unroll\n"
                      "                    for(unsigned k = 0; k < 8; k++)\n                    {\n"
                      "                        const migx_half h = u.e[k];\n"
                      "                        q.e[k] = " + e4m3_of_h + ";\n                    }\n"
                      "                    reinterpret_cast<uint2*>(y8 + obase)[c] = q.w;\n";
            aligned.push_back("y8");
        }
        b << lane_vectors(unpack + affine_loads + stores);
        fast = register_frame(*reg, axis, in, out, b.str(), aligned, addends);
    }
    fast = e4m3_pointer + fast;
    std::ostringstream ss;
    auto r           = begin_axis_rows(ss, name, axis, in, out, fast, affine, addends);
    r.reg            = reg;
    auto len         = r.len;
    const auto& x    = r.x;
    // Two passes over the row (it stays in cache): the mean, then the variance around it, as
    // the reference computes them.
    ss << "        float s = 0.f;\n";
    ss << "        for(idx_t e = lane; e < " << len << "u; e += G)\n            s += " << x << ";\n";
    ss << "        const float m = group_reduce<G>(s, op_sum{}) / " << len << ".f;\n";
    ss << "        float q = 0.f;\n";
    ss << "        for(idx_t e = lane; e < " << len << "u; e += G)\n        {\n";
    ss << "            const float d = " << x << " - m;\n            q += d * d;\n        }\n";
    ss << "        const float r = rsqrtf(group_reduce<G>(q, op_sum{}) / " << len << ".f + " << eps << ");\n";
    ss << "        for(idx_t e = lane; e < " << len << "u; e += G)\n";
    if(e4m3)
        ss << "        {\n            const migx_half h = " << store(out, affine_of("(" + x + " - m) * r", "e"))
           << ";\n            y[obase + e * " << r.oa << "u] = h;\n            y8[obase + e * " << r.oa
           << "u] = " << e4m3_of_h << ";\n        }\n";
    else
        ss << "            y[obase + e * " << r.oa << "u] = " << store(out, affine_of("(" + x + " - m) * r", "e"))
           << ";\n";
    ss << "    }\n}\n";
    auto src = ss.str();
    if(e4m3)
        src.insert(src.find("extern \"C\""), detail::fp8_helpers());
    auto blocks = layernorm_min_blocks();
    if(reg and in.type() == shape::half_type and reg->g <= 32 and reg->per_lane <= 4 and blocks > 0)
    {
        // 6 blocks of 256 an SM for the packed rows: 40 registers a thread and no spill with a
        // scale and shift, where 8 blocks (32 registers) made ptxas spill 52 bytes a thread and
        // ran BERT-base b64 2-4 % slower (MIGRAPHX_GPU_LAYERNORM_BLOCKS=8 is that variant).
        auto at = src.find("__global__ void " + name);
        if(at != std::string::npos)
            src.insert(at + std::string("__global__ void ").size(),
                       "__launch_bounds__(256, " + std::to_string(blocks) + ") ");
    }
    return finish_rows(name, src, r);
}

std::optional<kernel_source> generate_pooling(const pooling_window& w, const shape& in, const shape& out)
{
    const auto& il = in.lens();
    const auto& ol = out.lens();
    if(not float_or_half(in) or out.type() != in.type() or il.size() < 3 or ol.size() != il.size() or
       w.len.size() != il.size() - 2 or w.stride.size() != w.len.size() or w.pad_begin.size() != w.len.size() or
       out.elements() == 0)
        return std::nullopt;
    // Rows walk the (packed) output in its memory order: an NHWC output is written in order.
    auto row_digits = detail::memory_digits("row", out, "o");
    if(not row_digits)
        return std::nullopt;
    if(w.mode != "average" and w.mode != "max" and w.mode != "lpnorm")
        return std::nullopt;
    if(w.mode == "lpnorm" and w.lp_order <= 0)
        return std::nullopt;
    std::size_t kd = il.size() - 2;
    std::size_t window = 1;
    for(auto l : w.len)
        window *= l;
    std::size_t rows = out.elements();
    // Channels innermost (NHWC input): neighbouring rows read neighbouring elements, so one
    // thread a row reads coalesced where there are rows enough to fill the device.
    bool channels_last = in.strides()[1] == 1 and il[1] > 1;
    auto g             = channels_last and rows >= 8192 and window <= 1024 ? 1u : group_size(window);
    std::string name = (w.mode == "lpnorm" ? std::string("lppool") : w.mode + "_pooling") + "_kernel";
    const auto& is   = in.strides();
    std::ostringstream ss;
    ss << head(name, {storage(in)}, storage(out), {in, out}, g, rows);
    ss << *row_digits;
    ss << "        idx_t base = o0 * " << is[0] << "u + o1 * " << is[1] << "u;\n";
    ss << "        idx_t count = 1;\n";
    for(std::size_t d = 0; d < kd; d++)
    {
        auto o = "o" + std::to_string(d + 2);
        auto s = std::to_string(d);
        ss << "        long long st" << s << " = (long long)" << o << " * " << w.stride[d] << " - " << w.pad_begin[d]
           << ";\n";
        ss << "        long long en" << s << " = st" << s << " + " << w.len[d] << "; if(en" << s << " > " << il[d + 2]
           << ") en" << s << " = " << il[d + 2] << ";\n";
        ss << "        if(st" << s << " < 0) st" << s << " = 0;\n";
        ss << "        const idx_t n" << s << " = en" << s << " > st" << s << " ? (idx_t)(en" << s << " - st" << s
           << ") : 0;\n";
        ss << "        count *= n" << s << ";\n";
    }
    bool mx = w.mode == "max";
    ss << "        float acc = " << (mx ? "MIGX_NEG_INF" : "0.f") << ";\n";
    std::string off = "base";
    if(g == 1)
    {
        // One thread a row: plain nested loops over the window (no division per element).
        for(std::size_t d = 0; d < kd; d++)
        {
            auto s = std::to_string(d);
            ss << std::string(8 + 4 * d, ' ') << "for(idx_t i" << s << " = (idx_t)st" << s << "; i" << s
               << " < (idx_t)st" << s << " + n" << s << "; i" << s << "++)\n";
            off += " + i" + s + " * " + std::to_string(is[d + 2]) + "u";
        }
        ss << std::string(8 + 4 * kd, ' ') << "{\n";
    }
    else
    {
        ss << "        for(idx_t e = lane; e < count; e += G)\n        {\n";
        ss << "            idx_t r = e;\n";
        for(std::size_t d = kd; d-- > 0;)
        {
            auto s = std::to_string(d);
            ss << "            const idx_t i" << s << " = (idx_t)st" << s << " + r % n" << s << "; r /= n" << s << ";\n";
            off += " + i" + s + " * " + std::to_string(is[d + 2]) + "u";
        }
    }
    ss << "            const float v = " << load(in, "x0[" + off + "]") << ";\n";
    if(mx)
        ss << "            acc = op_max{}(acc, v);\n";
    else if(w.mode == "average")
        ss << "            acc += v;\n";
    else if(w.lp_order == 1)
        ss << "            acc += fabsf(v);\n";
    else if(w.lp_order == 2)
        ss << "            acc += v * v;\n";
    else
        ss << "            acc += powf(fabsf(v), " << w.lp_order << ".f);\n";
    ss << "        }\n";
    ss << "        acc = group_reduce<G>(acc, " << (mx ? "op_max" : "op_sum") << "{});\n";
    if(mx)
        ss << "        if(count == 0) acc = 0.f;\n";
    else if(w.mode == "average")
        ss << "        acc = count == 0 ? 0.f : acc / (float)count;\n";
    else if(w.lp_order == 2)
        ss << "        acc = sqrtf(acc);\n";
    else if(w.lp_order != 1)
        ss << "        acc = powf(acc, 1.f / " << w.lp_order << ".f);\n";
    ss << "        if(lane == 0)\n            y[row] = " << store(out, "acc") << ";\n";
    ss << "    }\n}\n";
    return finish(name, ss.str(), rows, g);
}

} // namespace gpu
} // namespace migraphx
