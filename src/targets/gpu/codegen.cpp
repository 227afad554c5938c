#include "targets/gpu/codegen.hpp"
#include <migraphx/instruction.hpp>
#include <migraphx/literal.hpp>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

namespace migraphx {
namespace gpu {
namespace {

const char* prelude = R"(
typedef unsigned short migx_half;
__device__ __forceinline__ float h2f(migx_half h) { float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h)); return f; }
__device__ __forceinline__ migx_half f2h(float f) { migx_half h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h; }
__device__ __forceinline__ float rh(float f) { return h2f(f2h(f)); }
__device__ __forceinline__ float migx_max(float a, float b) { return isnan(b) ? b : (a < b ? b : a); }
__device__ __forceinline__ float migx_min(float a, float b) { return isnan(b) ? b : (b < a ? b : a); }
__device__ __forceinline__ float migx_sign(float x) { return isnan(x) ? x : (x > 0.f ? 1.f : (x < 0.f ? -1.f : 0.f)); }
__device__ __forceinline__ float migx_mod(float a, float b) { float r = fmodf(a, b); if(r != 0.f && ((r < 0.f) != (b < 0.f))) r += b; return r; }
__device__ __forceinline__ float migx_clamp01(float y) { return y < 0.f ? 0.f : (y > 1.f ? 1.f : y); }
)";

std::string float_const(float f)
{
    std::uint32_t bits = 0;
    std::memcpy(&bits, &f, 4);
    char buf[48];
    std::snprintf(buf, sizeof(buf), "__int_as_float(0x%08x)", bits);
    return buf;
}

float attr_float(const value& v, const char* name, float dflt)
{
    return v.is_object() and v.contains(name) ? static_cast<float>(v.at(name).get_float()) : dflt;
}

/// The float expression of one op over its arguments' expressions, if the generator knows it.
std::optional<std::string> expression(const std::string& op, const std::vector<std::string>& a, const value& v)
{
    auto un = [&](const char* f) -> std::optional<std::string> {
        if(a.size() != 1)
            return std::nullopt;
        return std::string(f) + "(" + a[0] + ")";
    };
    if(a.size() == 2)
    {
        const auto &x = a[0], &y = a[1];
        if(op == "add")
            return "(" + x + " + " + y + ")";
        if(op == "sub")
            return "(" + x + " - " + y + ")";
        if(op == "mul")
            return "(" + x + " * " + y + ")";
        if(op == "div")
            return "(" + x + " / " + y + ")";
        if(op == "pow")
            return "powf(" + x + ", " + y + ")";
        if(op == "max")
            return "migx_max(" + x + ", " + y + ")";
        if(op == "min")
            return "migx_min(" + x + ", " + y + ")";
        if(op == "mod")
            return "migx_mod(" + x + ", " + y + ")";
        if(op == "fmod")
            return "fmodf(" + x + ", " + y + ")";
        if(op == "sqdiff")
            return "((" + x + " - " + y + ") * (" + x + " - " + y + "))";
        if(op == "prelu")
            return "(" + x + " < 0.f ? " + x + " * " + y + " : " + x + ")";
        return std::nullopt;
    }
    if(a.size() == 3)
    {
        if(op == "clip")
            return "fminf_clip(" + a[0] + ", " + a[1] + ", " + a[2] + ")";
        return std::nullopt;
    }
    if(a.size() != 1)
        return std::nullopt;
    const auto& x = a[0];
    static const std::unordered_map<std::string, std::string> funcs = {
        {"abs", "fabsf"},   {"ceil", "ceilf"},   {"floor", "floorf"}, {"round", "rintf"},  {"exp", "expf"},
        {"log", "logf"},    {"sqrt", "sqrtf"},   {"rsqrt", "rsqrtf"}, {"tanh", "tanhf"},   {"sin", "sinf"},
        {"cos", "cosf"},    {"tan", "tanf"},     {"asin", "asinf"},   {"acos", "acosf"},   {"atan", "atanf"},
        {"sinh", "sinhf"},  {"cosh", "coshf"},   {"asinh", "asinhf"}, {"acosh", "acoshf"}, {"atanh", "atanhf"},
        {"erf", "erff"},    {"sign", "migx_sign"}, {"identity", ""}};
    auto it = funcs.find(op);
    if(it != funcs.end())
        return un(it->second.c_str());
    if(op == "neg")
        return "(-" + x + ")";
    if(op == "relu")
        return "(" + x + " < 0.f ? 0.f : " + x + ")";
    if(op == "recip")
        return "(1.f / " + x + ")";
    if(op == "sigmoid")
        return "(1.f / (1.f + expf(-" + x + ")))";
    if(op == "leaky_relu")
        return "(" + x + " > 0.f ? " + x + " : " + x + " * " + float_const(attr_float(v, "alpha", 0.01f)) + ")";
    if(op == "elu")
        return "(" + x + " < 0.f ? " + float_const(attr_float(v, "alpha", 1.f)) + " * expm1f(" + x + ") : " + x + ")";
    if(op == "celu")
    {
        auto al = float_const(attr_float(v, "alpha", 1.f));
        return "(" + x + " > 0.f ? " + x + " : " + al + " * expm1f(" + x + " / " + al + "))";
    }
    if(op == "hardsigmoid")
        return "migx_clamp01(" + float_const(attr_float(v, "alpha", 0.2f)) + " * " + x + " + " +
               float_const(attr_float(v, "beta", 0.5f)) + ")";
    if(op == "selu")
        return "(" + float_const(attr_float(v, "gamma", 1.05070102214813232421875f)) + " * (" + x + " > 0.f ? " + x +
               " : " + float_const(attr_float(v, "alpha", 1.67326319217681884765625f)) + " * expm1f(" + x + ")))";
    if(op == "thresholdedrelu")
        return "(" + x + " > " + float_const(attr_float(v, "alpha", 1.f)) + " ? " + x + " : 0.f)";
    if(op == "softplus")
        return "((" + x + " > 0.f ? " + x + " : 0.f) + log1pf(expf(-fabsf(" + x + "))))";
    if(op == "softsign")
        return "(" + x + " / (1.f + fabsf(" + x + ")))";
    if(op == "hardswish")
        return "(" + x + " * migx_clamp01(" + x + " / 6.f + 0.5f))";
    if(op == "convert")
        return x;
    return std::nullopt;
}

bool float_or_half(shape::type_t t) { return t == shape::float_type or t == shape::half_type; }
/// Element types a pointwise kernel holds in float: float, half and fp8e4m3fn.
bool float_valued(shape::type_t t) { return float_or_half(t) or t == shape::fp8e4m3fn_type; }

/// Dims after merging neighbours that every tensor walks as one (strides chain), output last.
struct walk
{
    std::vector<std::size_t> lens;
    std::vector<std::vector<std::size_t>> strides; // one list per tensor
};

walk merge_dims(const std::vector<std::size_t>& lens, const std::vector<std::vector<std::size_t>>& strides)
{
    walk w;
    // Drop dims of length 1: they add nothing to any offset.
    std::vector<std::size_t> keep;
    for(std::size_t d = 0; d < lens.size(); d++)
        if(lens[d] != 1)
            keep.push_back(d);
    w.strides.resize(strides.size());
    for(auto d : keep)
    {
        bool merge = not w.lens.empty();
        for(std::size_t t = 0; merge and t < strides.size(); t++)
            merge = w.strides[t].back() == strides[t][d] * lens[d];
        if(merge)
        {
            w.lens.back() *= lens[d];
            for(std::size_t t = 0; t < strides.size(); t++)
                w.strides[t].back() = strides[t][d];
        }
        else
        {
            w.lens.push_back(lens[d]);
            for(std::size_t t = 0; t < strides.size(); t++)
                w.strides[t].push_back(strides[t][d]);
        }
    }
    return w;
}

/// The output's dims from the largest stride to the smallest (0, 1, ... for a standard output).
/// Only a packed output (no gaps, no broadcast) may be walked in another order.
std::vector<std::size_t> memory_order(const shape& out)
{
    std::vector<std::size_t> order(out.lens().size());
    std::iota(order.begin(), order.end(), 0);
    if(out.standard() or out.element_space() != out.elements())
        return order;
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return out.strides()[a] > out.strides()[b]; });
    return order;
}

/// How a kernel walks its output: the dims in the output's memory order after merging (the
/// output is standard in that order, so its offset is the loop index i), each input's strides
/// there, and which inputs walk exactly like the output (offset i).
struct walk_plan
{
    walk w;
    std::vector<bool> linear;
    std::size_t n = 0;
    std::string idx; // the index type
};

walk_plan plan_walk(const std::vector<shape>& inputs, const shape& out)
{
    // Walk the output in its memory order, so that i is its offset: a packed output whose dims
    // lie in another order (NHWC memory, NCHW lens) has its dims, and every input's, permuted.
    auto order = memory_order(out);
    std::vector<std::size_t> lens;
    for(auto d : order)
        lens.push_back(out.lens()[d]);
    std::vector<std::vector<std::size_t>> strides;
    for(const auto& s : inputs)
    {
        strides.emplace_back();
        for(auto d : order)
            strides.back().push_back(s.strides()[d]);
    }
    walk_plan p;
    p.n      = out.elements();
    bool big = p.n >= (1ull << 31);
    for(const auto& s : inputs)
        big = big or s.element_space() >= (1ull << 31);
    p.idx = big ? "unsigned long long" : "unsigned int";
    p.w   = merge_dims(lens, strides);
    // In that order the output is standard: its merged strides are the suffix products of the lens.
    for(std::size_t k = 0; k < inputs.size(); k++)
    {
        // Linear when the input walks like the standard output.
        bool lin      = true;
        std::size_t e = 1;
        for(std::size_t d = p.w.lens.size(); d-- > 0;)
        {
            lin = lin and p.w.strides[k][d] == e;
            e *= p.w.lens[d];
        }
        p.linear.push_back(lin);
    }
    return p;
}

/// Code that computes off0.. (each input's offset) of the element at output offset i.
std::string offset_code(const walk_plan& p)
{
    std::ostringstream ss;
    const auto& w    = p.w;
    bool need_digits = std::find(p.linear.begin(), p.linear.end(), false) != p.linear.end();
    if(need_digits)
    {
        ss << "        idx_t r = i;\n";
        for(std::size_t d = w.lens.size(); d-- > 0;)
        {
            if(d == 0)
                ss << "        idx_t d0 = r;\n";
            else
                ss << "        idx_t d" << d << " = r % " << w.lens[d] << "u; r /= " << w.lens[d] << "u;\n";
        }
    }
    for(std::size_t k = 0; k < p.linear.size(); k++)
    {
        ss << "        idx_t off" << k << " = ";
        if(p.linear[k])
            ss << "i";
        else
        {
            std::string terms;
            for(std::size_t d = 0; d < w.lens.size(); d++)
                if(w.strides[k][d] != 0)
                    terms += (terms.empty() ? "" : " + ") + std::string("d") + std::to_string(d) + " * " +
                             std::to_string(w.strides[k][d]) + "u";
            ss << (terms.empty() ? "0" : terms);
        }
        ss << ";\n";
    }
    return ss.str();
}

/// The loop and the offset of each tensor in it; body uses off0.., and i for the output.
/// `vector_part`, if any, comes before the loop (generate_pointwise's vector path).
std::string loop_code(const std::string& name,
                      const std::vector<std::string>& input_types,
                      const std::string& out_type,
                      const std::vector<shape>& inputs,
                      const shape& out,
                      const std::string& body,
                      const std::string& head        = "",
                      const std::string& vector_part = "",
                      const std::string& n_expr      = "")
{
    auto p = plan_walk(inputs, out);
    std::ostringstream ss;
    ss << prelude;
    ss << "__device__ __forceinline__ float fminf_clip(float x, float lo, float hi) { float y = x < lo ? lo : x; "
          "return hi < y ? hi : y; }\n";
    ss << (head.empty() ? detail::signature(name, input_types, out_type) : head);
    ss << "    typedef " << p.idx << " idx_t;\n";
    ss << "    const idx_t n = " << (n_expr.empty() ? std::to_string(p.n) : n_expr) << ";\n";
    ss << vector_part;
    ss << "    for(idx_t i = blockIdx.x * (idx_t)blockDim.x + threadIdx.x; i < n; i += (idx_t)gridDim.x * blockDim.x)\n"
          "    {\n";
    ss << offset_code(p);
    ss << body;
    ss << "    }\n}\n";
    return ss.str();
}

/// The C type of an element a pointwise kernel reads or writes, or "" for types it cannot.
std::string storage_type(shape::type_t t)
{
    switch(t)
    {
    case shape::half_type: return "migx_half";
    case shape::float_type: return "float";
    case shape::bool_type: return "bool";
    case shape::int8_type: return "signed char";
    case shape::uint8_type: return "unsigned char";
    case shape::int16_type: return "short";
    case shape::uint16_type: return "unsigned short";
    case shape::int32_type: return "int";
    case shape::uint32_type: return "unsigned int";
    case shape::int64_type: return "long long";
    case shape::uint64_type: return "unsigned long long";
    case shape::fp8e4m3fn_type: return "migx_fp8";
    default: return "";
    }
}

std::string load(shape::type_t t, const std::string& e)
{
    if(t == shape::half_type)
        return "h2f(" + e + ")";
    if(t == shape::fp8e4m3fn_type)
        return "f82f(" + e + ")";
    return t == shape::float_type ? e : "(float)" + e;
}

std::size_t param_number(instruction_ref p)
{
    auto n = p->get_operator().to_value().at("parameter").get_string();
    return n.size() > 1 ? static_cast<std::size_t>(std::stoull(n.substr(1))) : 0;
}

/// The C expression of a one-element constant (maybe broadcast) of any element type the
/// pointwise kernels compute in, if x is one: float for float/half, true/false, integers by bits.
std::optional<std::string> scalar_constant(instruction_ref x)
{
    while(x->name() == "broadcast" or x->name() == "multibroadcast")
        x = x->inputs().front();
    if(x->name() != "@literal" or x->get_shape().elements() != 1)
        return std::nullopt;
    auto t = x->get_shape().type();
    if(float_valued(t))
        return float_const(x->get_literal().to_vector<float>().front());
    if(t == shape::bool_type)
        return x->get_literal().to_vector<std::uint8_t>().front() != 0 ? std::string("true") : std::string("false");
    if(not shape::is_integral(t) or storage_type(t).empty())
        return std::nullopt;
    std::uint64_t bits = 0;
    if(shape::is_signed(t))
        bits = static_cast<std::uint64_t>(x->get_literal().to_vector<std::int64_t>().front());
    else
        bits = x->get_literal().to_vector<std::uint64_t>().front();
    char buf[64];
    std::snprintf(buf, sizeof(buf), "((%s)0x%llxull)", storage_type(t).c_str(), static_cast<unsigned long long>(bits));
    return std::string(buf);
}

/// "max" or "min" when the module folds that op over all its parameters (a tree of binary ops,
/// each parameter and result used once), with float or half inputs of one type and one layout, too many for
/// kernel parameters: the ONNX parser's dilated max pool, thousands of strided slices of one
/// tensor. Such a kernel loops over the pointer table instead of unrolling thousands of loads
/// (which NVRTC takes minutes over). max and min give the same result in any order.
std::optional<std::string> uniform_fold(const module& sub, const std::vector<shape>& inputs, const shape& out)
{
    if(not inputs_in_table(inputs.size()) or inputs.front().type() != out.type() or not float_or_half(out.type()))
        return std::nullopt;
    for(const auto& s : inputs)
        if(s.type() != inputs.front().type() or s.strides() != inputs.front().strides())
            return std::nullopt;
    std::string op;
    std::size_t ops = 0, params = 0;
    for(auto it = sub.begin(); it != sub.end(); ++it)
    {
        const auto& n = it->name();
        if(n == "@return")
        {
            if(it->inputs().size() != 1)
                return std::nullopt;
            continue;
        }
        if(it->outputs().size() != 1 or it->get_shape().type() != out.type())
            return std::nullopt;
        if(n == "@param")
        {
            params++;
            continue;
        }
        if((n != "max" and n != "min") or (not op.empty() and n != op) or it->inputs().size() != 2)
            return std::nullopt;
        op = n;
        ops++;
    }
    if(op.empty() or params != inputs.size() or ops + 1 != params)
        return std::nullopt;
    return op;
}

kernel_source generate_fold(const std::string& op, const std::vector<shape>& inputs, const shape& out)
{
    auto t  = inputs.front().type();
    auto st = storage_type(t);
    auto ot = storage_type(out.type());
    auto at = [&](const std::string& k) {
        return load(t, "static_cast<const " + st + "*>(migx_inputs[" + k + "])[off0]");
    };
    std::ostringstream body;
    body << "        float acc = " << at("0") << ";\n";
    body << "        for(unsigned k = 1; k < " << inputs.size() << "u; k++)\n";
    body << "            acc = migx_" << op << "(acc, " << at("k") << ");\n";
    body << "        y[i] = " << (out.type() == shape::half_type ? "f2h(acc)" : "acc") << ";\n";
    kernel_source k;
    k.name     = op + "_fold_kernel";
    k.elements = out.elements();
    std::string head = "extern \"C\" __global__ void " + k.name +
                       "(const void* const* __restrict__ migx_inputs, " + ot + "* __restrict__ y)\n{\n";
    k.source = loop_code(k.name, {st}, ot, {inputs.front()}, out, body.str(), head);
    return k;
}

} // namespace

namespace {

/// Helpers of pointwise kernels that compute on bool or integer values: conversions and integer
/// arithmetic defined for every input, as the reference ops (src/ops/pointwise.hpp: safe_cast,
/// wrap_*, int_div/int_fmod/int_mod).
const char* integer_prelude = R"(
template <class T> __device__ __forceinline__ T migx_f2i(float x, double lo, double hi)
{ if(!isfinite(x)) return T(0); double t = trunc((double)x); return (t < lo || t >= hi) ? T(0) : (T)t; }
template <class T> __device__ __forceinline__ bool migx_is_minus_one(T b) { return T(-1) < T(0) && b == T(-1); }
template <class T> __device__ __forceinline__ T migx_idiv(T a, T b)
{ if(b == T(0)) return T(0); if(migx_is_minus_one(b)) return (T)(0ull - (unsigned long long)a); return (T)(a / b); }
template <class T> __device__ __forceinline__ T migx_ifmod(T a, T b)
{ if(b == T(0) || migx_is_minus_one(b)) return T(0); return (T)(a % b); }
template <class T> __device__ __forceinline__ T migx_imod(T a, T b)
{ T r = migx_ifmod(a, b); if(T(-1) < T(0) && r != T(0) && ((r < T(0)) != (b < T(0)))) r = (T)(r + b); return r; }
)";

// fp8e4m3fn (OCP E4M3) <-> float as <migraphx/fp8.hpp> converts: round to nearest even,
// saturating at +-448, NaN kept; plain integer code, so that it is the same bits on any device
// (sm_89's cvt.rn.satfinite.e4m3x2 would do the narrowing in one instruction).
const char* fp8_prelude = R"(
typedef unsigned char migx_fp8;
__device__ __forceinline__ float f82f(migx_fp8 b)
{
    unsigned s = (unsigned)(b & 0x80u) << 24, e = (b >> 3) & 0xfu, m = b & 7u;
    if(e == 0xfu && m == 7u) return __uint_as_float(s | 0x7fc00000u);
    if(e == 0u) return __uint_as_float(s | __float_as_uint((float)m * 0.001953125f));
    return __uint_as_float(s | ((e + 120u) << 23) | (m << 20));
}
__device__ __forceinline__ migx_fp8 f2f8(float f)
{
    unsigned x = __float_as_uint(f), sign = (x >> 24) & 0x80u, exp = (x >> 23) & 0xffu, man = x & 0x7fffffu, r;
    if(exp == 0xffu) return (migx_fp8)(sign | (man != 0u ? 0x7fu : 0x7eu));
    int e = (int)exp - 120;
    if(e < 1)
    {
        if(e < -4) return (migx_fp8)sign;
        unsigned m = man | 0x800000u, shift = (unsigned)(21 - e);
        r = m >> shift;
        unsigned rem = m & ((1u << shift) - 1u), halfway = 1u << (shift - 1u);
        if(rem > halfway || (rem == halfway && (r & 1u))) r++;
    }
    else
    {
        r = ((unsigned)e << 3) | (man >> 20);
        unsigned rem = man & 0xfffffu;
        if(rem > 0x80000u || (rem == 0x80000u && (r & 1u))) r++;
    }
    return (migx_fp8)(sign | (r > 0x7eu ? 0x7eu : r));
}
__device__ __forceinline__ float r8(float f) { return f82f(f2f8(f)); }
)";

bool is_int(shape::type_t t) { return shape::is_integral(t) and t != shape::bool_type; }

/// The C type a pointwise kernel holds a value of element type t in ("" if none).
std::string value_type(shape::type_t t)
{
    if(float_valued(t))
        return "float";
    return storage_type(t);
}

/// The unsigned type integer arithmetic of t wraps in (as wrap_t: at least unsigned int).
std::string wrap_type(shape::type_t t)
{
    return shape{t}.type_size() == 8 ? "unsigned long long" : "unsigned int";
}

/// convert of x (type from) to type to (safe_cast): float-to-integer truncates, NaN and values
/// out of range give 0; anything to bool is x != 0; integers wrap.
std::optional<std::string> convert_expression(const std::string& x, shape::type_t from, shape::type_t to)
{
    auto ct = value_type(to);
    if(ct.empty() or value_type(from).empty())
        return std::nullopt;
    if(float_valued(to)) // an fp8 result is rounded by the caller (r8), as every fp8 op's
        return float_valued(from) ? x : "((float)" + x + ")";
    if(to == shape::bool_type)
        return from == shape::bool_type ? x : "(" + x + " != 0)";
    if(float_valued(from))
    {
        // [lo, hi): the integers of `to` (hi is 2^digits, std::numeric_limits<To>::digits).
        auto bits   = shape{to}.type_size() * 8;
        auto digits = shape::is_signed(to) ? bits - 1 : bits;
        auto hi     = "0x1p" + std::to_string(digits);
        auto lo     = shape::is_signed(to) ? "-" + hi : std::string("0.0");
        return "migx_f2i<" + ct + ">(" + x + ", " + lo + ", " + hi + ")";
    }
    return "((" + ct + ")" + x + ")";
}

/// The expression of an op on integer values of type t (all arguments and the result), as the
/// reference computes it; nothing for ops it does not know.
std::optional<std::string> integer_expression(const std::string& op, const std::vector<std::string>& a, shape::type_t t)
{
    auto ct = storage_type(t);
    auto w  = wrap_type(t);
    auto wr = [&](const std::string& e) { return "((" + ct + ")(" + e + "))"; };
    if(a.size() == 2)
    {
        const auto &x = a[0], &y = a[1];
        if(op == "add")
            return wr("(" + w + ")" + x + " + (" + w + ")" + y);
        if(op == "sub")
            return wr("(" + w + ")" + x + " - (" + w + ")" + y);
        if(op == "mul")
            return wr("(" + w + ")" + x + " * (" + w + ")" + y);
        if(op == "div")
            return "migx_idiv<" + ct + ">(" + x + ", " + y + ")";
        if(op == "fmod")
            return "migx_ifmod<" + ct + ">(" + x + ", " + y + ")";
        if(op == "mod")
            return "migx_imod<" + ct + ">(" + x + ", " + y + ")";
        if(op == "max")
            return "(" + x + " < " + y + " ? " + y + " : " + x + ")";
        if(op == "min")
            return "(" + y + " < " + x + " ? " + y + " : " + x + ")";
        if(op == "bitwise_and")
            return wr(x + " & " + y);
        return std::nullopt;
    }
    if(a.size() != 1)
        return std::nullopt;
    const auto& x = a[0];
    if(op == "neg")
        return wr("(" + w + ")0 - (" + w + ")" + x);
    if(op == "abs")
        return shape::is_signed(t) ? "(" + x + " < 0 ? " + wr("(" + w + ")0 - (" + w + ")" + x) + " : " + x + ")" : x;
    if(op == "relu")
        return shape::is_signed(t) ? "(" + x + " < 0 ? " + wr("0") + " : " + x + ")" : x;
    if(op == "identity" or op == "ceil" or op == "floor" or op == "round")
        return x;
    return std::nullopt;
}

/// The expression of one pointwise op over its arguments (expressions of types `types`) with a
/// result of type `out`: comparisons, logic and where on any type, conversions, integer
/// arithmetic, and the float math of expression() (float/half arguments and result).
std::optional<std::string> typed_expression(const std::string& op,
                                            const std::vector<std::string>& a,
                                            const std::vector<shape::type_t>& types,
                                            shape::type_t out,
                                            const value& v)
{
    if(op == "convert" and a.size() == 1)
        return convert_expression(a[0], types[0], out);
    if(op == "where" and a.size() == 3)
    {
        if(types[0] != shape::bool_type or types[1] != out or types[2] != out)
            return std::nullopt;
        return "(" + a[0] + " ? " + a[1] + " : " + a[2] + ")";
    }
    if(out == shape::bool_type)
    {
        static const std::unordered_map<std::string, std::string> compare = {
            {"equal", " == "}, {"greater", " > "}, {"less", " < "}};
        auto c = compare.find(op);
        if(c != compare.end() and a.size() == 2 and types[0] == types[1])
            return "(" + a[0] + c->second + a[1] + ")";
        static const std::unordered_map<std::string, std::string> logic = {
            {"logical_and", " && "}, {"logical_or", " || "}, {"logical_xor", " != "}};
        auto l = logic.find(op);
        if(l != logic.end() and a.size() == 2 and types[0] == shape::bool_type and types[1] == shape::bool_type)
            return "(" + a[0] + l->second + a[1] + ")";
        if(op == "bitwise_and" and a.size() == 2 and types[0] == shape::bool_type and types[1] == shape::bool_type)
            return "(" + a[0] + " && " + a[1] + ")";
        if(op == "not" and a.size() == 1)
            return "(" + a[0] + " == 0)";
        if((op == "isnan" or op == "isinf") and a.size() == 1)
            return float_valued(types[0]) ? op + "(" + a[0] + ")" : std::string("false");
        if(op == "identity" and a.size() == 1 and types[0] == out)
            return a[0];
        return std::nullopt;
    }
    bool same = std::all_of(types.begin(), types.end(), [&](auto t) { return t == out; });
    if(is_int(out))
        return same ? integer_expression(op, a, out) : std::nullopt;
    if(not float_valued(out) or
       not std::all_of(types.begin(), types.end(), [](auto t) { return float_valued(t); }))
        return std::nullopt;
    return expression(op, a, v);
}

/// Half values in a fused kernel are held in float and rounded to half only where it matters
/// ("float-through", as TensorRT's and ONNX Runtime's fused kernels compute): when stored, at an
/// explicit convert to half, and where the op reading them is discontinuous in its input, so that
/// rounding could flip a discrete result (a comparison, floor, a convert to an integer, isinf of a
/// value past 65504...): such an op reads the rounded value, as ref computes it. The ops below are
/// continuous in every value input (pow: in its base), so they read the float value as it is.
bool reads_unrounded(const std::string& op, std::size_t arg)
{
    // Not here (their inputs are rounded): comparisons, not, isnan/isinf, floor/ceil/round/sign,
    // mod/fmod, thresholdedrelu (jumps at alpha), asin/acos/acosh/atanh (NaN just past a domain
    // bound that rounding may reach), and any op added later until it is known continuous.
    static const std::unordered_set<std::string> continuous = {
        "add",  "sub",      "mul",     "div",   "max",      "min",      "sqdiff",    "prelu",       "clip",
        "abs",  "exp",      "log",     "sqrt",  "rsqrt",    "tanh",     "sin",       "cos",         "tan",
        "atan", "sinh",     "cosh",    "asinh", "erf",      "neg",      "relu",      "recip",       "sigmoid",
        "elu",  "celu",     "selu",    "softplus", "softsign", "hardswish", "hardsigmoid", "leaky_relu",
        "identity", "where", "convert"};
    if(op == "pow")
        return arg == 0; // pow(x, y) of x < 0 jumps between NaN and a number as y passes an integer
    return continuous.count(op) > 0;
}

/// Ops whose half result is a half value (no rounding needed) when their value inputs are.
bool keeps_half_values(const std::string& op)
{
    static const std::unordered_set<std::string> exact = {
        "neg", "abs", "max", "min", "relu", "where", "identity", "floor", "ceil", "round", "sign", "convert"};
    return exact.count(op) > 0;
}

/// The float value of a one-element float or half constant (maybe broadcast), if x is one.
std::optional<float> float_constant(instruction_ref x)
{
    while(x->name() == "broadcast" or x->name() == "multibroadcast")
        x = x->inputs().front();
    if(x->name() != "@literal" or x->get_shape().elements() != 1 or not float_or_half(x->get_shape().type()))
        return std::nullopt;
    return x->get_literal().to_vector<float>().front();
}

} // namespace

namespace {

/// Fused chains longer than this keep the scalar loop only: the vector path unrolls the body V
/// times, which NVRTC would take long over.
constexpr std::size_t max_vector_ops = 128;

/// The vector path of a pointwise kernel: each thread takes `width` consecutive elements of the
/// output's memory (its offsets i .. i + width - 1, i a multiple of width) with 16-byte loads and
/// stores. Input k is either read as `width` consecutive elements from off_k (contiguous[k]) or
/// holds one value for all of them (a splat, read once from off_k).
struct vector_plan
{
    std::size_t width = 0;
    std::vector<bool> contiguous;
};

/// The vector path, when every input's width elements are consecutive or one value at every
/// output offset that is a multiple of width (in the merged walk: the input walks like the output;
/// or all its strides are 0; or its innermost stride is 1 or 0, width divides the innermost dim
/// and its other strides are multiples of width), all element types tensors are read or written
/// in are float or half, and width divides the element count. width: 16 bytes of the smallest
/// such type (8 halves, 4 floats; a float tensor with half ones moves 32 bytes).
std::optional<vector_plan> plan_vector(const walk_plan& p, const std::vector<shape>& inputs, const shape& out)
{
    if(inputs_in_table(inputs.size()) or p.w.lens.empty() or not float_valued(out.type()))
        return std::nullopt;
    std::size_t smallest = out.type_size();
    vector_plan v;
    std::vector<bool> zero(inputs.size());
    for(std::size_t k = 0; k < inputs.size(); k++)
    {
        const auto& st = p.w.strides[k];
        zero[k]        = std::all_of(st.begin(), st.end(), [](auto x) { return x == 0; });
        v.contiguous.push_back(not zero[k] and (p.linear[k] or st.back() == 1));
        if(v.contiguous.back())
        {
            if(not float_valued(inputs[k].type()))
                return std::nullopt;
            smallest = std::min(smallest, inputs[k].type_size());
        }
    }
    v.width = 16 / smallest;
    if(p.n < v.width or p.n % v.width != 0)
        return std::nullopt;
    for(std::size_t k = 0; k < inputs.size(); k++)
    {
        if(p.linear[k] or zero[k])
            continue;
        // Offsets from the digits of i: its width elements differ in the innermost digit alone.
        const auto& st = p.w.strides[k];
        if(p.w.lens.back() % v.width != 0 or st.back() > 1)
            return std::nullopt;
        if(st.back() == 1 and
           not std::all_of(st.begin(), st.end() - 1, [&](auto x) { return x % v.width == 0; }))
            return std::nullopt;
    }
    return v;
}

/// `code` with every line indented by `by` more spaces.
std::string indent(const std::string& code, std::size_t by)
{
    std::string r, pad(by, ' ');
    std::size_t pos = 0;
    while(pos < code.size())
    {
        auto e = code.find('\n', pos);
        e      = e == std::string::npos ? code.size() : e + 1;
        r += pad + code.substr(pos, e - pos);
        pos = e;
    }
    return r;
}

/// A local union `name` of `width` elements of C type `type` (`bytes` bytes each; width * bytes a
/// multiple of 16) and the 16-byte words that move them.
std::string vector_union(const std::string& name, const std::string& type, std::size_t bytes, std::size_t width)
{
    return "            union { uint4 c[" + std::to_string(bytes * width / 16) + "]; " + type + " e[" +
           std::to_string(width) + "]; } " + name + ";\n";
}

} // namespace

std::optional<kernel_source>
generate_pointwise(const module& sub, const std::vector<shape>& inputs, const shape& out, bool rows_at_run_time)
{
    if(value_type(out.type()).empty() or not(out.standard() or out.packed()))
        return std::nullopt;
    // rows at run time: the first dim must be the outermost of the walk (a standard output)
    if(rows_at_run_time and (not out.standard() or out.lens().empty() or out.lens().front() == 0))
        return std::nullopt;
    const std::size_t row_elements = rows_at_run_time ? out.elements() / out.lens().front() : 0;
    for(const auto& s : inputs)
        if(s.dynamic() or value_type(s.type()).empty() or s.lens() != out.lens())
            return std::nullopt;
    std::vector<instruction_ref> params;
    for(auto it = sub.begin(); it != sub.end(); ++it)
        if(it->name() == "@param")
            params.push_back(it);
    if(params.size() != inputs.size())
        return std::nullopt;
    std::sort(params.begin(), params.end(), [](auto a, auto b) { return param_number(a) < param_number(b); });
    for(std::size_t k = 0; k < params.size(); k++)
        if(params[k]->get_shape().type() != inputs[k].type())
            return std::nullopt;
    if(auto op = uniform_fold(sub, inputs, out); op and not rows_at_run_time)
        return generate_fold(*op, inputs, out);

    // Every value is held in value_type of its element type: float for float and half, bool, or
    // the integer type itself. A half value is kept in float as computed ("float-through",
    // reads_unrounded): `unrounded` holds those that may not be half values; an op that must see
    // the half value reads rh() of them. `load(k, e)` is input k's value from its element e;
    // `compute` the ops, one a line.
    std::unordered_map<const instruction*, std::string> var;
    std::unordered_set<const instruction*> unrounded;
    std::ostringstream compute;
    std::vector<std::string> itypes;
    bool integers = false;
    bool fp8      = out.type() == shape::fp8e4m3fn_type or
               std::any_of(inputs.begin(), inputs.end(), [](const shape& x) { return x.type() == shape::fp8e4m3fn_type; });
    auto load = [&](std::size_t k, const std::string& e) {
        auto t = inputs[k].type();
        return "        const " + value_type(t) + " v" + std::to_string(k) + " = " +
               (t == shape::half_type ? "h2f(" + e + ")" : t == shape::fp8e4m3fn_type ? "f82f(" + e + ")" : e) + ";\n";
    };
    for(std::size_t k = 0; k < params.size(); k++)
    {
        itypes.push_back(storage_type(inputs[k].type()));
        var[&*params[k]] = "v" + std::to_string(k);
    }
    std::vector<std::string> names;
    std::string result;
    std::size_t t = 0;
    for(auto it = sub.begin(); it != sub.end(); ++it)
    {
        const auto& n = it->name();
        if(n == "@param")
            continue;
        if(n == "@return")
        {
            if(it->inputs().size() != 1 or var.count(&*it->inputs().front()) == 0 or
               it->inputs().front()->get_shape().type() != out.type())
                return std::nullopt;
            result = var.at(&*it->inputs().front());
            continue;
        }
        if(n == "@literal" or n == "broadcast" or n == "multibroadcast")
        {
            auto c = scalar_constant(it);
            if(not c)
                return std::nullopt;
            var[&*it] = *c;
            continue;
        }
        auto rt = it->get_shape().type();
        if(value_type(rt).empty())
            return std::nullopt;
        std::vector<std::string> args;
        std::vector<shape::type_t> types;
        bool exact = true; // every value input a half (or float, integer, bool) value as it is
        // A convert to an integer or bool is discontinuous; to float or half it is not.
        bool to_number = float_or_half(rt);
        for(std::size_t a = 0; a < it->inputs().size(); a++)
        {
            auto x = it->inputs()[a];
            if(var.count(&*x) == 0 or value_type(x->get_shape().type()).empty())
                return std::nullopt;
            auto arg = var.at(&*x);
            if(unrounded.count(&*x) > 0)
            {
                if(reads_unrounded(n, a) and (n != "convert" or to_number))
                    exact = false;
                else
                    arg = "rh(" + arg + ")";
            }
            args.push_back(arg);
            types.push_back(x->get_shape().type());
        }
        std::optional<std::string> e;
        auto divisor = it->inputs().size() == 2 ? float_constant(it->inputs()[1]) : std::nullopt;
        if(n == "div" and rt == shape::half_type and divisor and types[0] == shape::half_type)
            e = "(" + args[0] + " * " + float_const(1.f / *divisor) + ")"; // float-through: x * (1 / c)
        else
            e = typed_expression(n, args, types, rt, it->get_operator().to_value());
        if(not e)
            return std::nullopt;
        integers = integers or e->find("migx_i") != std::string::npos or e->find("migx_f2i") != std::string::npos;
        auto tn = "t" + std::to_string(t++);
        if(rt == shape::fp8e4m3fn_type)
            *e = "r8(" + *e + ")"; // every fp8 value rounded where ref stores it: e4m3's 3 bits matter
        fp8 = fp8 or rt == shape::fp8e4m3fn_type;
        if(rt == shape::half_type)
        {
            auto from = types.empty() ? rt : types.front();
            if(n == "convert" and from != shape::half_type)
                *e = "rh(" + *e + ")"; // an explicit convert to half rounds (from float, an integer, bool)
            else if(not exact or not keeps_half_values(n))
                unrounded.insert(&*it);
        }
        compute << "        const " << value_type(rt) << " " << tn << " = " << *e << ";\n";
        var[&*it] = tn;
        if(n != "identity" and n != "convert" and names.size() < 6)
            names.push_back(n);
    }
    if(result.empty())
        return std::nullopt;
    auto stored = out.type() == shape::half_type        ? "f2h(" + result + ")"
                  : out.type() == shape::fp8e4m3fn_type ? "f2f8(" + result + ")"
                                                        : result;
    std::string body;
    for(std::size_t k = 0; k < params.size(); k++)
        body += load(k, "x" + std::to_string(k) + "[off" + std::to_string(k) + "]");
    body += compute.str() + "        y[i] = " + stored + ";\n";

    // The vector path (plan_vector), taken when every pointer it reads or writes a vector
    // through is 16-byte aligned (views may offset them); else the scalar loop below does it all.
    // The same code computes each element, so both give the same bits.
    auto plan = plan_walk(inputs, out);
    auto vec  = t <= max_vector_ops ? plan_vector(plan, inputs, out) : std::nullopt;
    if(vec and rows_at_run_time and row_elements % vec->width != 0)
        vec.reset(); // some row counts would end inside a vector
    std::string vector_part;
    if(vec)
    {
        auto w  = vec->width;
        auto ws = std::to_string(w);
        std::string aligned;
        std::ostringstream v;
        std::string elems;
        for(std::size_t k = 0; k < inputs.size(); k++)
        {
            auto ks = std::to_string(k);
            if(not vec->contiguous[k])
            {
                v << "    " << load(k, "x" + ks + "[off" + ks + "]");
                continue;
            }
            aligned += "(unsigned long long)(const void*)x" + ks + " | ";
            v << vector_union("xv" + ks, itypes[k], inputs[k].type_size(), w);
            for(std::size_t c = 0; c < inputs[k].type_size() * w / 16; c++)
                v << "            xv" << ks << ".c[" << c << "] = reinterpret_cast<const uint4*>(x" << ks << " + off" << ks
                  << ")[" << c << "];\n";
            elems += load(k, "xv" + ks + ".e[j]");
        }
        v << vector_union("yv", storage_type(out.type()), out.type_size(), w);
        v << "#pragma unroll\n";
        v << "            for(int j = 0; j < " << ws << "; j++)\n            {\n";
        v << indent(elems + compute.str() + "        yv.e[j] = " + stored + ";\n", 8);
        v << "            }\n";
        for(std::size_t c = 0; c < out.type_size() * w / 16; c++)
            v << "            reinterpret_cast<uint4*>(y + i)[" << c << "] = yv.c[" << c << "];\n";
        vector_part = "    // vector path: " + ws + " elements a thread when every vector pointer is 16-byte aligned\n" +
                      "    if(((" + aligned + "(unsigned long long)(const void*)y) & 15ull) == 0ull)\n    {\n" +
                      "        for(idx_t q = blockIdx.x * (idx_t)blockDim.x + threadIdx.x; q < " +
                      (rows_at_run_time ? "n / " + ws : std::to_string(plan.n / w)) +
                      "u; q += (idx_t)gridDim.x * blockDim.x)\n        {\n" +
                      "            const idx_t i = q * " + ws + "u;\n" + indent(offset_code(plan), 4) + v.str() +
                      "        }\n        return;\n    }\n";
    }
    std::string name;
    for(const auto& n : names)
        name += n + "_";
    if(name.empty())
        name = "copy_";
    name += "kernel";
    kernel_source k;
    k.name = name;
    // One thread a vector when the vector path exists; the scalar loop strides over all elements
    // with whatever grid it gets.
    k.elements = vec ? plan.n / vec->width : out.elements();
    std::string head, n_expr;
    if(rows_at_run_time)
    {
        head   = detail::signature(name, itypes, storage_type(out.type()), ", unsigned long long migx_rows");
        n_expr = "(idx_t)migx_rows * " + std::to_string(row_elements) + "u";
        k.row_elements = vec ? row_elements / vec->width : row_elements;
    }
    k.source = loop_code(name, itypes, storage_type(out.type()), inputs, out, body, head, vector_part, n_expr);
    if(integers)
        k.source.insert(k.source.find("extern \"C\""), integer_prelude);
    if(fp8)
        k.source.insert(k.source.find("extern \"C\""), fp8_prelude);
    return k;
}

namespace detail {

std::string fp8_helpers() { return fp8_prelude; }

std::string signature(const std::string& name,
                      const std::vector<std::string>& in_types,
                      const std::string& out_type,
                      const std::string& more_params)
{
    std::ostringstream ss;
    ss << "extern \"C\" __global__ void " << name << "(";
    bool table = inputs_in_table(in_types.size());
    if(table)
        ss << "const void* const* __restrict__ migx_inputs, ";
    else
        for(std::size_t k = 0; k < in_types.size(); k++)
            ss << "const " << in_types[k] << "* __restrict__ x" << k << ", ";
    ss << out_type << "* __restrict__ y" << more_params << ")\n{\n";
    if(table)
        for(std::size_t k = 0; k < in_types.size(); k++)
            ss << "    const " << in_types[k] << "* __restrict__ x" << k << " = static_cast<const " << in_types[k]
               << "*>(migx_inputs[" << k << "]);\n";
    return ss.str();
}

std::string prelude() { return ::migraphx::gpu::prelude; }

std::string float_literal(float f) { return float_const(f); }

std::string raw_type(std::size_t bytes)
{
    switch(bytes)
    {
    case 1: return "unsigned char";
    case 2: return "unsigned short";
    case 4: return "unsigned int";
    case 8: return "unsigned long long";
    default: MIGRAPHX_THROW("gpu: no kernel for elements of " + std::to_string(bytes) + " bytes");
    }
}

std::string index_type(const std::vector<shape>& shapes)
{
    bool big = false;
    for(const auto& s : shapes)
        big = big or s.element_space() >= (1ull << 31) or s.elements() >= (1ull << 31);
    return big ? "unsigned long long" : "unsigned int";
}

std::string digits(const std::string& var, const std::vector<std::size_t>& lens, const std::string& prefix)
{
    std::ostringstream ss;
    if(lens.empty())
        return "";
    ss << "        idx_t " << prefix << "_r = " << var << ";\n";
    for(std::size_t d = lens.size(); d-- > 0;)
    {
        if(d == 0)
            ss << "        idx_t " << prefix << "0 = " << prefix << "_r;\n";
        else
            ss << "        idx_t " << prefix << d << " = " << prefix << "_r % " << lens[d] << "u; " << prefix
               << "_r /= " << lens[d] << "u;\n";
    }
    return ss.str();
}

std::optional<std::string> memory_digits(const std::string& var, const shape& s, const std::string& prefix)
{
    auto order = memory_order(s);
    std::vector<std::size_t> lens;
    std::size_t e = 1;
    for(std::size_t k = order.size(); k-- > 0;)
    {
        auto d = order[k];
        if(s.lens()[d] != 1 and s.strides()[d] != e)
            return std::nullopt;
        e *= s.lens()[d];
    }
    for(auto d : order)
        lens.push_back(s.lens()[d]);
    auto code = digits(var, lens, prefix + "m");
    for(std::size_t k = 0; k < order.size(); k++)
        code += "        const idx_t " + prefix + std::to_string(order[k]) + " = " + prefix + "m" + std::to_string(k) +
                ";\n";
    return code;
}

} // namespace detail

kernel_source generate_copy(const shape& in, const shape& out)
{
    std::string t = detail::raw_type(in.type_size());
    kernel_source k;
    k.name     = "contiguous_kernel";
    k.elements = out.elements();
    k.source   = loop_code(k.name, {t}, t, {in}, out, "        y[i] = x0[off0];\n");
    return k;
}

} // namespace gpu
} // namespace migraphx
