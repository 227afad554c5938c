// The depthwise convolution kernel (codegen_depthwise.hpp). A thread takes 8 channels (16 bytes
// of an NHWC pixel) of TW neighbouring output pixels of one row: for each filter row it reads the
// input columns those outputs need once (8 channels each, activated on the way in), and adds each
// to the outputs it touches; the loops are unrolled here, in the generator, so which column meets
// which tap is decided at compile time. Sums in float; the post activation on the way out.
#include "targets/gpu/codegen_depthwise.hpp"
#include <sstream>

namespace migraphx {
namespace gpu {
namespace {

const char* helpers = R"(
// 8 halves from p (element stride s) as floats; one 16-byte load when vec.
template <unsigned S>
__device__ __forceinline__ void load8(float* v, const migx_half* p, bool vec)
{
    if(vec)
    {
        const uint4 r = *reinterpret_cast<const uint4*>(p);
        const migx_half* h = reinterpret_cast<const migx_half*>(&r);
        for(int k = 0; k < 8; k++)
            v[k] = h2f(h[k]);
    }
    else
        for(int k = 0; k < 8; k++)
            v[k] = h2f(p[k * S]);
}
template <unsigned S>
__device__ __forceinline__ void store8(migx_half* p, const float* v, bool vec)
{
    if(vec)
    {
        uint4 r;
        migx_half* h = reinterpret_cast<migx_half*>(&r);
        for(int k = 0; k < 8; k++)
            h[k] = f2h(v[k]);
        *reinterpret_cast<uint4*>(p) = r;
    }
    else
        for(int k = 0; k < 8; k++)
            p[k * S] = f2h(v[k]);
}
)";

/// Statements applying `a` to the 8 floats `v` (bias values in `bias`).
std::string activate(const channel_activation& a, const std::string& v, const std::string& bias)
{
    if(not a.any())
        return "";
    std::ostringstream ss;
    ss << "for(int k = 0; k < 8; k++) { float a_ = " << v << "[k]";
    if(a.bias)
        ss << " + " << bias << "[k]";
    ss << ";";
    if(a.lo)
        ss << " a_ = a_ < " << detail::float_literal(*a.lo) << " ? " << detail::float_literal(*a.lo) << " : a_;";
    if(a.hi)
        ss << " a_ = " << detail::float_literal(*a.hi) << " < a_ ? " << detail::float_literal(*a.hi) << " : a_;";
    ss << " " << v << "[k] = a_; }";
    return ss.str();
}

bool vectorizable(const shape& s)
{
    // Channels (dim 1) unit stride, every other stride a multiple of 8: a thread's 8 channels are
    // 16 bytes wherever the pixel is (given an aligned base, checked at run time).
    if(s.strides()[1] != 1)
        return false;
    for(std::size_t d = 0; d < 4; d++)
        if(d != 1 and s.lens()[d] != 1 and s.strides()[d] % 8 != 0)
            return false;
    return true;
}

} // namespace

depthwise_spec depthwise_spec_of(const value& op, const shape& x, const shape& taps, const shape& out)
{
    depthwise_spec d;
    d.x         = x;
    d.out       = out;
    d.kh        = taps.lens().at(0);
    d.kw        = taps.lens().at(1);
    d.stride    = op.at("stride").to_vector<std::size_t>();
    d.dilation  = op.at("dilation").to_vector<std::size_t>();
    auto pad    = op.at("padding").to_vector<std::size_t>();
    d.pad_begin = {pad.at(0), pad.at(1)};
    auto set    = [&](channel_activation& a, const char* bias, const char* clip) {
        a.bias = op.at(bias).get_bool();
        auto c = op.at(clip).to_vector<float>();
        if(c.size() == 2)
            a.lo = c[0], a.hi = c[1];
    };
    set(d.pre, "pre_bias", "pre_clip");
    set(d.post, "post_bias", "post_clip");
    return d;
}

std::optional<kernel_source> generate_depthwise(const depthwise_spec& d)
{
    const auto& xl = d.x.lens();
    const auto& ol = d.out.lens();
    if(d.x.dynamic() or d.out.dynamic() or d.x.type() != shape::half_type or d.out.type() != shape::half_type or
       xl.size() != 4 or ol.size() != 4 or xl[0] != ol[0] or xl[1] != ol[1] or xl[1] % 8 != 0 or d.kh == 0 or
       d.kw == 0 or d.kh > 7 or d.kw > 7 or d.stride.size() != 2 or d.dilation.size() != 2 or
       d.pad_begin.size() != 2 or d.out.elements() == 0 or d.stride[0] == 0 or d.stride[1] == 0 or
       d.dilation[0] == 0 or d.dilation[1] == 0)
        return std::nullopt;
    const std::size_t N = xl[0], C = xl[1], H = xl[2], W = xl[3], OH = ol[2], OW = ol[3];
    const std::size_t sh = d.stride[0], sw = d.stride[1], dh = d.dilation[0], dw = d.dilation[1];
    const std::size_t TW   = std::min<std::size_t>(OW, 4);
    const std::size_t OWG  = (OW + TW - 1) / TW;
    const std::size_t CV   = C / 8;
    const std::size_t cols = (TW - 1) * sw + (d.kw - 1) * dw + 1; // input columns a thread reads a row
    const auto& xs = d.x.strides();
    const auto& ys = d.out.strides();
    const std::size_t items = N * OH * OWG * CV;

    std::ostringstream ss;
    std::string name = "depthwise_kernel";
    ss << detail::prelude() << helpers;
    // At most 80 registers (3 blocks of 256 an SM): on the H200 MobileNetV2 at batch 256 took
    // 3.81 ms so and 4.09 ms with the compiler's 95 (2 blocks); 1 or 2 pixels a thread, or 2
    // channels a thread over 4 x 4 pixels (4-byte reads), were slower (3.9-4.6 ms).
    ss << "extern \"C\" __global__ void __launch_bounds__(256, 3) " << name
       << "(const migx_half* __restrict__ x, const migx_half* __restrict__ w, ";
    if(d.pre.bias)
        ss << "const migx_half* __restrict__ b_pre, ";
    if(d.post.bias)
        ss << "const migx_half* __restrict__ b_post, ";
    ss << "migx_half* __restrict__ y)\n{\n";
    ss << "    typedef " << detail::index_type({d.x, d.out}) << " idx_t;\n";
    ss << "    const bool xvec = " << (vectorizable(d.x) ? "((unsigned long long)x & 15) == 0" : "false") << ";\n";
    ss << "    const bool yvec = " << (vectorizable(d.out) ? "((unsigned long long)y & 15) == 0" : "false")
       << ";\n";
    ss << "    const bool wvec = ((unsigned long long)w & 15) == 0;\n";
    ss << "    for(idx_t i = blockIdx.x * (idx_t)blockDim.x + threadIdx.x; i < " << items
       << "u; i += gridDim.x * (idx_t)blockDim.x)\n    {\n";
    ss << "        idx_t r = i;\n";
    ss << "        const int c = (int)(r % " << CV << "u) * 8; r /= " << CV << "u;\n";
    ss << "        const int ow0 = (int)(r % " << OWG << "u) * " << TW << "; r /= " << OWG << "u;\n";
    ss << "        const int oh = (int)(r % " << OH << "u); r /= " << OH << "u;\n";
    ss << "        const idx_t n = r;\n";
    ss << "        float acc[" << TW << "][8];\n";
    ss << "        for(int t = 0; t < " << TW << "; t++)\n            for(int k = 0; k < 8; k++)\n"
       << "                acc[t][k] = 0.f;\n";
    if(d.pre.bias)
        ss << "        float bp[8];\n        load8<1>(bp, b_pre + c, ((unsigned long long)b_pre & 15) == 0);\n";
    ss << "        const migx_half* xn = x + n * " << xs[0] << "u + (idx_t)c * " << xs[1] << "u;\n";
    ss << "        const int ix0 = ow0 * " << sw << " - " << d.pad_begin[1] << ";\n";
    ss << "        for(int ky = 0; ky < " << d.kh << "; ky++)\n        {\n";
    ss << "            const int iy = oh * " << sh << " - " << d.pad_begin[0] << " + ky * " << dh << ";\n";
    ss << "            if(iy < 0 || iy >= " << H << ")\n                continue;\n";
    ss << "            float wt[" << d.kw << "][8];\n";
    ss << "            for(int kx = 0; kx < " << d.kw << "; kx++)\n"
       << "                load8<1>(wt[kx], w + (ky * " << d.kw << " + kx) * " << C << " + c, wvec);\n";
    ss << "            const migx_half* xr = xn + (idx_t)iy * " << xs[2] << "u;\n";
    for(std::size_t col = 0; col < cols; col++)
    {
        // The (output, tap) pairs this column meets: t * sw + kx * dw == col.
        std::vector<std::pair<std::size_t, std::size_t>> uses;
        for(std::size_t t = 0; t < TW; t++)
            for(std::size_t kx = 0; kx < d.kw; kx++)
                if(t * sw + kx * dw == col)
                    uses.emplace_back(t, kx);
        if(uses.empty())
            continue;
        ss << "            {\n";
        ss << "                const int ix = ix0 + " << col << ";\n";
        ss << "                if(ix >= 0 && ix < " << W << ")\n                {\n";
        ss << "                    float v[8];\n";
        ss << "                    load8<" << xs[1] << ">(v, xr + (idx_t)ix * " << xs[3] << "u, xvec);\n";
        auto pre = activate(d.pre, "v", "bp");
        if(not pre.empty())
            ss << "                    " << pre << "\n";
        for(auto [t, kx] : uses)
            ss << "                    for(int k = 0; k < 8; k++) acc[" << t << "][k] += v[k] * wt[" << kx
               << "][k];\n";
        ss << "                }\n            }\n";
    }
    ss << "        }\n";
    if(d.post.bias)
        ss << "        float bq[8];\n        load8<1>(bq, b_post + c, ((unsigned long long)b_post & 15) == 0);\n";
    ss << "        migx_half* yr = y + n * " << ys[0] << "u + (idx_t)c * " << ys[1] << "u + (idx_t)oh * " << ys[2]
       << "u;\n";
    ss << "        for(int t = 0; t < " << TW << "; t++)\n        {\n";
    ss << "            if(ow0 + t >= " << OW << ")\n                break;\n";
    auto post = activate(d.post, "acc[t]", "bq");
    if(not post.empty())
        ss << "            " << post << "\n";
    ss << "            store8<" << ys[1] << ">(yr + (idx_t)(ow0 + t) * " << ys[3] << "u, acc[t], yvec);\n";
    ss << "        }\n";
    ss << "    }\n}\n";

    kernel_source k;
    k.name     = name;
    k.source   = ss.str();
    k.elements = items;
    k.local    = 256;
    return k;
}

} // namespace gpu
} // namespace migraphx
