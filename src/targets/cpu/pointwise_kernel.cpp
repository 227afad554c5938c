#include "targets/cpu/pointwise_kernel.hpp"
#include "targets/cpu/dnnl_context.hpp"
#include <migraphx/errors.hpp>
#include <migraphx/register_op.hpp>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

namespace migraphx {
namespace cpu {
namespace {

constexpr std::size_t tile = 1024;

// Vectorisable float math (the loops below compile to AVX2 where the CPU has it; std::exp and
// friends would keep them scalar). exp: Cephes-style range reduction, ~1 ulp.
inline float fast_exp(float x)
{
    x         = std::min(std::max(x, -87.3f), 88.7f);
    float k   = std::nearbyint(x * 1.44269504f);
    float r   = x - k * 0.693359375f + k * 2.12194440e-4f;
    float p   = 1.9875691500e-4f;
    p         = p * r + 1.3981999507e-3f;
    p         = p * r + 8.3334519073e-3f;
    p         = p * r + 4.1665795894e-2f;
    p         = p * r + 1.6666665459e-1f;
    p         = p * r + 5.0000001201e-1f;
    p         = p * r * r + r + 1.0f;
    auto bits = static_cast<std::int32_t>(k + 127.0f) << 23;
    float scale;
    std::memcpy(&scale, &bits, sizeof(scale));
    return p * scale;
}

// erf: a Taylor series near 0 (where A&S's absolute error would be a large relative one), else
// Abramowitz & Stegun 7.1.26 (absolute error below 1.5e-7, relative below 3e-7 there).
inline float fast_erf(float x)
{
    float a  = std::abs(x);
    float x2 = x * x;
    float taylor =
        1.1283791671f * x *
        (1.0f + x2 * (-1.0f / 3 + x2 * (1.0f / 10 + x2 * (-1.0f / 42 + x2 * (1.0f / 216 + x2 * (-1.0f / 1320))))));
    float t = 1.0f / (1.0f + 0.3275911f * a);
    float y = 1.0f - (((((1.061405429f * t - 1.453152027f) * t) + 1.421413741f) * t - 0.284496736f) * t +
                      0.254829592f) *
                         t * fast_exp(-a * a);
    return a < 0.5f ? taylor : std::copysign(y, x);
}

enum class code
{
    add, sub, mul, div, max, min, pow, relu, neg, abs, exp, log, sqrt, rsqrt, recip, tanh, sigmoid,
    erf, leaky_relu, clip, identity
};

const std::map<std::string, std::pair<code, std::size_t>>& table()
{
    static const std::map<std::string, std::pair<code, std::size_t>> t = {
        {"add", {code::add, 2}},       {"sub", {code::sub, 2}},         {"mul", {code::mul, 2}},
        {"div", {code::div, 2}},       {"max", {code::max, 2}},         {"min", {code::min, 2}},
        {"pow", {code::pow, 2}},       {"relu", {code::relu, 1}},       {"neg", {code::neg, 1}},
        {"abs", {code::abs, 1}},       {"exp", {code::exp, 1}},         {"log", {code::log, 1}},
        {"sqrt", {code::sqrt, 1}},     {"rsqrt", {code::rsqrt, 1}},     {"recip", {code::recip, 1}},
        {"tanh", {code::tanh, 1}},     {"sigmoid", {code::sigmoid, 1}}, {"erf", {code::erf, 1}},
        {"leaky_relu", {code::leaky_relu, 1}}, {"clip", {code::clip, 3}}, {"identity", {code::identity, 1}},
        {"contiguous", {code::identity, 1}}};
    return t;
}

__attribute__((target_clones("avx2", "default"))) void
run_step(code c, float alpha, const float* a, const float* b, const float* d, float* r, std::size_t n)
{
    switch(c)
    {
    case code::add: for(std::size_t i = 0; i < n; i++) r[i] = a[i] + b[i]; break;
    case code::sub: for(std::size_t i = 0; i < n; i++) r[i] = a[i] - b[i]; break;
    case code::mul: for(std::size_t i = 0; i < n; i++) r[i] = a[i] * b[i]; break;
    case code::div: for(std::size_t i = 0; i < n; i++) r[i] = a[i] / b[i]; break;
    case code::max: for(std::size_t i = 0; i < n; i++) r[i] = a[i] < b[i] ? b[i] : a[i]; break;
    case code::min: for(std::size_t i = 0; i < n; i++) r[i] = b[i] < a[i] ? b[i] : a[i]; break;
    case code::pow:
        for(std::size_t i = 0; i < n; i++)
            r[i] = b[i] == 2.0f ? a[i] * a[i] : std::pow(a[i], b[i]);
        break;
    case code::relu: for(std::size_t i = 0; i < n; i++) r[i] = a[i] > 0.0f ? a[i] : 0.0f; break;
    case code::neg: for(std::size_t i = 0; i < n; i++) r[i] = -a[i]; break;
    case code::abs: for(std::size_t i = 0; i < n; i++) r[i] = std::abs(a[i]); break;
    case code::exp: for(std::size_t i = 0; i < n; i++) r[i] = fast_exp(a[i]); break;
    case code::log: for(std::size_t i = 0; i < n; i++) r[i] = std::log(a[i]); break;
    case code::sqrt: for(std::size_t i = 0; i < n; i++) r[i] = std::sqrt(a[i]); break;
    case code::rsqrt: for(std::size_t i = 0; i < n; i++) r[i] = 1.0f / std::sqrt(a[i]); break;
    case code::recip: for(std::size_t i = 0; i < n; i++) r[i] = 1.0f / a[i]; break;
    case code::tanh:
        for(std::size_t i = 0; i < n; i++)
        {
            float e = fast_exp(-2.0f * std::abs(a[i]));
            r[i]    = std::copysign((1.0f - e) / (1.0f + e), a[i]);
        }
        break;
    case code::sigmoid: for(std::size_t i = 0; i < n; i++) r[i] = 1.0f / (1.0f + fast_exp(-a[i])); break;
    case code::erf: for(std::size_t i = 0; i < n; i++) r[i] = fast_erf(a[i]); break;
    case code::leaky_relu: for(std::size_t i = 0; i < n; i++) r[i] = a[i] > 0.0f ? a[i] : alpha * a[i]; break;
    case code::clip:
        for(std::size_t i = 0; i < n; i++)
            r[i] = std::min(std::max(a[i], b[i]), d[i]);
        break;
    case code::identity: std::memcpy(r, a, n * sizeof(float)); break;
    }
}

/// Copies elements [first, first+n) of a (in the standard order of its lens) into dst.
void gather(const argument& a, std::size_t first, std::size_t n, float* dst)
{
    const auto& s    = a.get_shape();
    const auto* data = reinterpret_cast<const float*>(a.data());
    const auto& lens = s.lens();
    const auto& str  = s.strides();
    std::vector<std::size_t> idx(lens.size());
    std::size_t rem = first;
    for(std::size_t d = lens.size(); d-- > 0;)
    {
        idx[d] = rem % lens[d];
        rem /= lens[d];
    }
    std::size_t off = 0;
    for(std::size_t d = 0; d < lens.size(); d++)
        off += idx[d] * str[d];
    std::size_t last = lens.empty() ? 0 : lens.size() - 1;
    for(std::size_t i = 0; i < n; i++)
    {
        dst[i] = data[off];
        // advance the multi-index by one, carrying
        for(std::size_t d = last + 1; d-- > 0;)
        {
            idx[d]++;
            off += str[d];
            if(idx[d] < lens[d] or d == 0)
                break;
            off -= idx[d] * str[d];
            idx[d] = 0;
        }
    }
}

enum class access
{
    direct,   // standard layout: read in place
    constant, // every stride 0: one value
    strided   // anything else: gathered per tile
};

access access_of(const shape& s)
{
    if(s.standard())
        return access::direct;
    const auto& st = s.strides();
    if(std::all_of(st.begin(), st.end(), [](auto x) { return x == 0; }))
        return access::constant;
    return access::strided;
}

} // namespace

bool pointwise_kernel::supports(const std::string& op, std::size_t n)
{
    auto it = table().find(op);
    return it != table().end() and it->second.second == n;
}

shape pointwise_kernel::compute_shape(const std::vector<shape>& in) const
{
    if(in.size() != inputs or in.empty())
        MIGRAPHX_THROW("cpu::pointwise: expected " + std::to_string(inputs) + " inputs, got " + std::to_string(in.size()));
    for(const auto& s : in)
        if(s.type() != shape::float_type or not(s.lens() == in[0].lens()))
            MIGRAPHX_THROW("cpu::pointwise: inputs must be float tensors of equal dims");
    if(ops.empty() or arity.size() != ops.size())
        MIGRAPHX_THROW("cpu::pointwise: empty or inconsistent program");
    return {shape::float_type, in[0].lens()};
}

argument pointwise_kernel::compute(const shape& out, const std::vector<argument>& in) const
{
    argument result = uninitialized(out);
    auto* dst          = reinterpret_cast<float*>(result.data());
    std::size_t n      = out.elements();
    std::size_t slots  = inputs + constants.size() + ops.size();
    std::size_t ntiles = (n + tile - 1) / tile;
    std::vector<access> acc;
    for(const auto& a : in)
        acc.push_back(access_of(a.get_shape()));
    std::vector<std::size_t> first_arg(ops.size());
    for(std::size_t i = 1; i < ops.size(); i++)
        first_arg[i] = first_arg[i - 1] + static_cast<std::size_t>(arity[i - 1]);
    std::vector<code> codes;
    for(const auto& o : ops)
        codes.push_back(table().at(o).first);

#pragma omp parallel if(ntiles > 4)
    {
        // Per thread: one tile of every slot.
        std::vector<float> buf(slots * tile);
        std::vector<const float*> ptr(slots);
        for(std::size_t c = 0; c < constants.size(); c++)
        {
            std::fill_n(buf.data() + (inputs + c) * tile, tile, constants[c]);
            ptr[inputs + c] = buf.data() + (inputs + c) * tile;
        }
        for(std::size_t i = 0; i < inputs; i++)
        {
            if(acc[i] == access::constant)
            {
                std::fill_n(buf.data() + i * tile, tile, *reinterpret_cast<const float*>(in[i].data()));
                ptr[i] = buf.data() + i * tile;
            }
        }
#pragma omp for schedule(static)
        for(std::size_t t = 0; t < ntiles; t++)
        {
            std::size_t first = t * tile;
            std::size_t len   = std::min(tile, n - first);
            for(std::size_t i = 0; i < inputs; i++)
            {
                if(acc[i] == access::direct)
                    ptr[i] = reinterpret_cast<const float*>(in[i].data()) + first;
                else if(acc[i] == access::strided)
                {
                    gather(in[i], first, len, buf.data() + i * tile);
                    ptr[i] = buf.data() + i * tile;
                }
            }
            for(std::size_t s = 0; s < ops.size(); s++)
            {
                std::size_t slot = inputs + constants.size() + s;
                // the last step writes straight into the result
                float* r = s + 1 == ops.size() ? dst + first : buf.data() + slot * tile;
                auto arg = [&](std::size_t k) {
                    return k < static_cast<std::size_t>(arity[s]) ? ptr[args[first_arg[s] + k]] : nullptr;
                };
                run_step(codes[s], s < alpha.size() ? alpha[s] : 0.0f, arg(0), arg(1), arg(2), r, len);
                ptr[slot] = r;
            }
        }
    }
    return result;
}

MIGRAPHX_REGISTER_OP(pointwise_kernel)

} // namespace cpu
} // namespace migraphx
