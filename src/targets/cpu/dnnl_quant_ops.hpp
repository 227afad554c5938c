#ifndef MIGRAPHX_CPU_DNNL_QUANT_OPS_HPP
#define MIGRAPHX_CPU_DNNL_QUANT_OPS_HPP

// The cpu target's int8 operations (see lower_dnnl_int8.hpp). int8/uint8 activations between
// them are kept channels-last (NHWC strides on the logical NCHW shape): oneDNN's AVX2 int8
// kernels read and write that layout.

#include "targets/cpu/dnnl_context.hpp"
#include <migraphx/argument.hpp>
#include <migraphx/context.hpp>
#include <migraphx/shape.hpp>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace migraphx {
namespace cpu {

/// NHWC strides for logical NCHW lens (standard strides for other ranks).
shape channels_last(shape::type_t t, const std::vector<std::size_t>& lens);

/// Whether oneDNN's int8 kernels on this machine multiply uint8 x int8 pairs into a saturating
/// int16 (vpmaddubsw: x86 without VNNI): then |weight| <= 63 keeps uint8 inputs exact, and a
/// convolution with int8 inputs halves its weights internally (exact only for even weights).
bool int8_pairs_saturate();

/// Inputs: x (int8/uint8), w (int8 {K, C/g, kh, kw}), [bias {K}, float, already divided by
/// scales], [summed input, float, the result's shape].
/// dst = post_ops(scales * (conv(x, w) + bias) [+ sum]) in out_type (float, int8 or uint8,
/// saturated), channels-last. scales has one entry or one per output channel.
struct dnnl_quant_convolution
{
    std::vector<std::size_t> padding; // begin..., end...
    std::vector<std::size_t> stride;
    std::vector<std::size_t> dilation;
    std::int64_t group = 1;
    bool bias          = false;
    bool sum           = false;
    std::vector<float> scales;
    std::vector<std::string> post_ops;
    std::vector<float> post_alpha;
    std::vector<float> post_beta;
    shape::type_t out_type = shape::float_type;

    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.padding, "padding");
        f(self.stride, "stride");
        f(self.dilation, "dilation");
        f(self.group, "group");
        f(self.bias, "bias");
        f(self.sum, "sum");
        f(self.scales, "scales");
        f(self.post_ops, "post_ops");
        f(self.post_alpha, "post_alpha");
        f(self.post_beta, "post_beta");
        f(self.out_type, "out_type");
    }
    std::string name() const { return "dnnl::quant_convolution"; }
    shape compute_shape(const std::vector<shape>& inputs) const;
    void finalize(context& ctx, const shape& out, const std::vector<shape>& inputs);
    argument compute(context& ctx, const shape& out, const std::vector<argument>& args) const;
    /// oneDNN's implementation name for these inputs.
    std::string impl(context& ctx, const std::vector<shape>& inputs) const;

    struct prim_cache
    {
        dnnl::convolution_forward::primitive_desc pd;
        dnnl::convolution_forward prim;
        reordered_weights weights; // constant: reordered on the first run, the others wait
    };
    std::shared_ptr<prim_cache> cache;

    private:
    dnnl::convolution_forward::primitive_desc make_pd(const dnnl_context& c, const std::vector<shape>& inputs) const;
};

/// Inputs: a (int8/uint8 {..., M, K}, standard), w (int8 {K, N}, leading 1s allowed),
/// [bias {N}, float, already divided by scales], [summed input, float, the result's shape].
/// dst = post_ops(scales * (a w + bias) [+ sum]) in float {..., M, N}, standard; scales has one
/// entry or one per column.
struct dnnl_quant_matmul
{
    bool bias = false;
    bool sum  = false;
    std::vector<float> scales;
    std::vector<std::string> post_ops;
    std::vector<float> post_alpha;
    std::vector<float> post_beta;

    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.bias, "bias");
        f(self.sum, "sum");
        f(self.scales, "scales");
        f(self.post_ops, "post_ops");
        f(self.post_alpha, "post_alpha");
        f(self.post_beta, "post_beta");
    }
    std::string name() const { return "dnnl::quant_matmul"; }
    shape compute_shape(const std::vector<shape>& inputs) const;
    void finalize(context& ctx, const shape& out, const std::vector<shape>& inputs);
    argument compute(context& ctx, const shape& out, const std::vector<argument>& args) const;

    struct prim_cache
    {
        dnnl::matmul::primitive_desc pd;
        dnnl::matmul prim;
        reordered_weights weights; // constant: reordered on the first run, the others wait
    };
    std::shared_ptr<prim_cache> cache;

    private:
    dnnl::matmul::primitive_desc make_pd(const dnnl_context& c, const std::vector<shape>& inputs) const;
};

/// Constant int8 weights at w, laid out as from_md, reordered into a new buffer laid out as `want`
/// (the primitive's weights_desc, with its s8-activation compensation where it has one).
inline argument reorder_int8_weights(const dnnl::memory::desc& from_md,
                                     const dnnl::memory::desc& want,
                                     const dnnl_context& c,
                                     const void* w)
{
    argument packed{shape{shape::int8_type, {want.get_size()}}};
    run_reorder(make_memory(from_md, c, w), make_memory(want, c, packed.data()), c);
    return packed;
}

/// Runs an int8 convolution's or matmul's primitive (pd: its primitive_desc): src args[0], the
/// weights already in its format, bias args[2] where `bias`; the result, of shape out, first holds
/// args.back() where `sum` (oneDNN's sum post-op adds to what dst holds).
template <class Pd>
argument run_int8_primitive(const dnnl::primitive& prim, const Pd& pd, const dnnl_context& c, const shape& out,
                            const std::vector<argument>& args, const argument& weights, bool bias, bool sum)
{
    argument result = uninitialized(out);
    if(sum)
        copy_threaded(result.data(), args.back().data(), out.bytes());
    std::unordered_map<int, dnnl::memory> m = {
        {DNNL_ARG_SRC, make_memory(pd.src_desc(), c, args[0].data())},
        {DNNL_ARG_WEIGHTS, make_memory(pd.weights_desc(), c, weights.data())},
        {DNNL_ARG_DST, make_memory(pd.dst_desc(), c, result.data())}};
    if(bias)
        m[DNNL_ARG_BIAS] = make_memory(pd.bias_desc(), c, args[2].data());
    run_primitive(prim, pd, c, m);
    return result;
}

/// Max pooling of int8/uint8 {N, C, H, W} data (any strides), written channels-last: pooling
/// commutes with quantization, so the int8 chain needs no float round trip around it.
struct dnnl_quant_pooling
{
    std::vector<std::size_t> lengths;
    std::vector<std::size_t> stride;
    std::vector<std::size_t> padding; // begin..., end...
    bool ceil_mode = false;

    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.lengths, "lengths");
        f(self.stride, "stride");
        f(self.padding, "padding");
        f(self.ceil_mode, "ceil_mode");
    }
    std::string name() const { return "dnnl::quant_pooling"; }
    shape compute_shape(const std::vector<shape>& inputs) const;
    argument compute(context& ctx, const shape& out, const std::vector<argument>& args) const;

    struct prim_cache
    {
        dnnl::pooling_forward::primitive_desc pd;
        dnnl::pooling_forward prim;
    };
    std::shared_ptr<prim_cache> cache;
};

/// float x -> int8/uint8 round(x / scale) saturated to [lo, hi], written channels-last (rank 4)
/// or in standard layout.
struct cpu_quantize
{
    float scale            = 1;
    shape::type_t out_type = shape::int8_type;
    float lo               = -128;
    float hi               = 127;
    bool channels_last     = true;

    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.scale, "scale");
        f(self.out_type, "out_type");
        f(self.lo, "lo");
        f(self.hi, "hi");
        f(self.channels_last, "channels_last");
    }
    std::string name() const { return "cpu::quantize"; }
    shape compute_shape(const std::vector<shape>& inputs) const;
    argument compute(context& ctx, const shape& out, const std::vector<argument>& args) const;
};

} // namespace cpu
} // namespace migraphx

#endif
