// cpu::quant_convolution: oneDNN int8 convolution (u8 or s8 activations x s8 weights, int32
// accumulation) with the dequantize (and, where the next op is int8, the requantize) folded in
// as output scales, plus bias/sum/activation post-ops. Weights are reordered into the kernel's
// format (with its s8-activation compensation) on the first run and kept.

#include "targets/cpu/dnnl_quant_ops.hpp"
#include "targets/cpu/dnnl_ops.hpp"
#include <migraphx/register_op.hpp>
#include <mutex>

namespace migraphx {
namespace cpu {

shape channels_last(shape::type_t t, const std::vector<std::size_t>& lens)
{
    if(lens.size() != 4)
        return {t, lens};
    auto n = lens[0], c = lens[1], h = lens[2], w = lens[3];
    (void)n;
    return {t, lens, {h * w * c, 1, w * c, c}};
}

bool int8_pairs_saturate()
{
#if defined(__x86_64__) && defined(__GNUC__)
    static const bool r = [] {
        __builtin_cpu_init();
        return not(__builtin_cpu_supports("avx512vnni") or __builtin_cpu_supports("avxvnni"));
    }();
    return r;
#else
    return false;
#endif
}

shape dnnl_quant_convolution::compute_shape(const std::vector<shape>& inputs) const
{
    std::size_t need = 2 + (bias ? 1 : 0) + (sum ? 1 : 0);
    if(inputs.size() != need)
        MIGRAPHX_THROW("cpu::quant_convolution: expected " + std::to_string(need) + " inputs, got " +
                       std::to_string(inputs.size()));
    auto xt = inputs[0].type();
    if((xt != shape::int8_type and xt != shape::uint8_type) or inputs[1].type() != shape::int8_type)
        MIGRAPHX_THROW("cpu::quant_convolution: needs int8/uint8 data and int8 weights");
    const auto& x = inputs[0].lens();
    const auto& w = inputs[1].lens();
    if(x.size() != 4 or w.size() != 4 or padding.size() != 4 or stride.size() != 2 or dilation.size() != 2)
        MIGRAPHX_THROW("cpu::quant_convolution: only 2-d convolutions");
    check_positive(name(), "stride", stride);
    check_positive(name(), "dilation", dilation);
    if(group < 1 or w[0] % static_cast<std::size_t>(group) != 0 or x[1] != w[1] * static_cast<std::size_t>(group))
        MIGRAPHX_THROW("cpu::quant_convolution: channels do not match the weights and group");
    std::vector<std::size_t> out = {x[0], w[0]};
    for(std::size_t i = 0; i < 2; i++)
    {
        auto span = x[i + 2] + padding[i] + padding[i + 2];
        auto k    = dilation[i] * (w[i + 2] - 1) + 1;
        if(span < k)
            MIGRAPHX_THROW("cpu::quant_convolution: kernel larger than the padded input");
        out.push_back((span - k) / stride[i] + 1);
    }
    auto r = channels_last(out_type, out);
    if(sum and not(inputs.back() == r))
        MIGRAPHX_THROW("cpu::quant_convolution: the summed input must have the result's shape");
    return r;
}

dnnl::convolution_forward::primitive_desc dnnl_quant_convolution::make_pd(const dnnl_context& c,
                                                                          const std::vector<shape>& inputs) const
{
    auto out  = compute_shape(inputs);
    auto src  = to_dnnl_md(inputs[0], "plain");
    auto dst  = to_dnnl_md(out, "plain");
    auto wdim = to_dnnl_dims(inputs[1].lens());
    if(group > 1)
    {
        wdim[0] /= group;
        wdim.insert(wdim.begin(), group);
    }
    dnnl::memory::desc wmd{wdim, dnnl::memory::data_type::s8, dnnl::memory::format_tag::any};
    dnnl::memory::dims s(stride.begin(), stride.end()), d, pl, pr;
    for(std::size_t i = 0; i < 2; i++)
    {
        d.push_back(static_cast<std::int64_t>(dilation[i]) - 1);
        pl.push_back(static_cast<std::int64_t>(padding[i]));
        pr.push_back(static_cast<std::int64_t>(padding[i + 2]));
    }
    auto attr = user_scratchpad();
    attr.set_output_scales(scales.size() > 1 ? 2 : 0, scales);
    attr.set_post_ops(make_post_ops(post_ops, post_alpha, post_beta));
    auto pk = dnnl::prop_kind::forward_inference;
    auto al = dnnl::algorithm::convolution_direct;
    if(bias)
    {
        dnnl::memory::desc bmd{{wdim[0] * (group > 1 ? wdim[1] : 1)}, dnnl::memory::data_type::f32,
                               dnnl::memory::format_tag::a};
        return {{pk, al, src, wmd, bmd, dst, s, d, pl, pr}, attr, *c.engine};
    }
    return {{pk, al, src, wmd, dst, s, d, pl, pr}, attr, *c.engine};
}

void dnnl_quant_convolution::finalize(context& ctx, const shape&, const std::vector<shape>& inputs)
{
    cache       = std::make_shared<prim_cache>();
    cache->pd   = make_pd(get_dnnl_context(ctx), inputs);
    cache->prim = dnnl::convolution_forward{cache->pd};
}

argument dnnl_quant_convolution::compute(context& ctx, const shape& out, const std::vector<argument>& args) const
{
    auto& c = get_dnnl_context(ctx);
    finalize_once(*this, ctx, out, args);
    const auto& pd = cache->pd;
    // weights are constants: reordered once (with the kernel's compensation) and kept
    auto weights = cache->weights.get(args[1].data(), true, [&] {
        const auto& w = args[1].get_shape();
        auto dims     = to_dnnl_dims(w.lens());
        auto strides  = to_dnnl_dims(w.strides());
        if(group > 1)
        {
            dims[0] /= group;
            dims.insert(dims.begin(), group);
            strides.insert(strides.begin(), strides[0] * dims[1]);
        }
        dnnl::memory::desc from_md{dims, dnnl::memory::data_type::s8, strides};
        return reorder_int8_weights(from_md, pd.weights_desc(), c, args[1].data());
    });
    return run_int8_primitive(cache->prim, pd, c, out, args, weights, bias, sum);
}

std::string dnnl_quant_convolution::impl(context& ctx, const std::vector<shape>& inputs) const
{
    return make_pd(get_dnnl_context(ctx), inputs).impl_info_str();
}

MIGRAPHX_REGISTER_OP(dnnl_quant_convolution)

namespace {

dnnl_pooling as_max_pooling(const dnnl_quant_pooling& p)
{
    dnnl_pooling d;
    d.mode      = "max";
    d.lengths   = p.lengths;
    d.stride    = p.stride;
    d.padding   = p.padding;
    d.ceil_mode = p.ceil_mode;
    return d;
}

} // namespace

shape dnnl_quant_pooling::compute_shape(const std::vector<shape>& inputs) const
{
    if(inputs.size() != 1)
        MIGRAPHX_THROW("dnnl::quant_pooling: expected 1 input");
    auto t = inputs[0].type();
    if(t != shape::int8_type and t != shape::uint8_type)
        MIGRAPHX_THROW("dnnl::quant_pooling: needs int8 or uint8 data");
    if(inputs[0].lens().size() != 4)
        MIGRAPHX_THROW("dnnl::quant_pooling: only 2-d pooling");
    return channels_last(t, as_max_pooling(*this).compute_shape({shape{t, inputs[0].lens()}}).lens());
}

argument dnnl_quant_pooling::compute(context& ctx, const shape& out, const std::vector<argument>& args) const
{
    auto& c = get_dnnl_context(ctx);
    // made on the first run; runs from several threads at once make it once
    static std::mutex made;
    std::unique_lock<std::mutex> lock(made);
    if(not cache)
    {
        // same window arithmetic as dnnl::pooling (ceil mode through the end padding)
        const auto& in = args[0].get_shape().lens();
        const auto& ol = out.lens();
        dnnl::memory::dims s(stride.begin(), stride.end()), k(lengths.begin(), lengths.end()), pl, pr;
        for(std::size_t i = 0; i < 2; i++)
        {
            pl.push_back(static_cast<std::int64_t>(padding[i]));
            auto need = static_cast<std::int64_t>((ol[i + 2] - 1) * stride[i] + lengths[i]) -
                        static_cast<std::int64_t>(in[i + 2] + padding[i]);
            pr.push_back(std::max<std::int64_t>(need, 0));
        }
        auto pc  = std::make_shared<prim_cache>();
        pc->pd   = {{dnnl::prop_kind::forward_inference, dnnl::algorithm::pooling_max,
                     to_dnnl_md(args[0].get_shape(), "plain"), to_dnnl_md(out, "plain"), s, k, pl, pr},
                    user_scratchpad(), *c.engine};
        pc->prim = dnnl::pooling_forward{pc->pd};
        const_cast<dnnl_quant_pooling*>(this)->cache = pc; // NOLINT: lazy, same result
    }
    auto pc = cache;
    lock.unlock();
    argument result = uninitialized(out);
    run_primitive(pc->prim, pc->pd, c,
                  {{DNNL_ARG_SRC, make_memory(pc->pd.src_desc(), c, args[0].data())},
                   {DNNL_ARG_DST, make_memory(pc->pd.dst_desc(), c, result.data())}});
    return result;
}

MIGRAPHX_REGISTER_OP(dnnl_quant_pooling)

} // namespace cpu
} // namespace migraphx
