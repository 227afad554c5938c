// dnnl::pooling: max, and average over the in-bounds elements of each window (or over the whole
// window, padding included, where a zero pad was folded in).

#include "targets/cpu/dnnl_ops.hpp"
#include <migraphx/register_op.hpp>

namespace migraphx {
namespace cpu {

std::vector<std::size_t> dnnl_pooling::out_lens(const std::vector<std::size_t>& in) const
{
    auto kd = in.size() - 2;
    if(lengths.size() != kd or stride.size() != kd or padding.size() != 2 * kd)
        MIGRAPHX_THROW("dnnl::pooling: attributes do not match " + std::to_string(kd) + " spatial dims");
    check_positive(name(), "stride", stride);
    check_positive(name(), "lengths", lengths);
    if(mode != "max" and mode != "average")
        MIGRAPHX_THROW("dnnl::pooling: mode must be max or average, got '" + mode + "'");
    std::vector<std::size_t> out(in.begin(), in.begin() + 2);
    for(std::size_t i = 0; i < kd; i++)
    {
        auto padded = in[i + 2] + padding[i] + padding[i + kd];
        if(padded < lengths[i])
            MIGRAPHX_THROW("dnnl::pooling: window larger than the padded input");
        auto span = padded - lengths[i];
        auto len  = (ceil_mode ? (span + stride[i] - 1) / stride[i] : span / stride[i]) + 1;
        if(ceil_mode and len > 1 and (len - 1) * stride[i] >= in[i + 2] + padding[i])
            len--;
        out.push_back(len);
    }
    return out;
}

shape dnnl_pooling::compute_shape(const std::vector<shape>& all) const
{
    auto inputs = own_inputs(all, planned);
    if(inputs.size() != 1)
        MIGRAPHX_THROW("dnnl::pooling: expected 1 input");
    auto out = out_lens(logical_lens(inputs[0], layout));
    return planned_shape("dnnl::pooling", layout_shape(inputs[0].type(), out, layout), all, planned);
}

dnnl::pooling_forward::primitive_desc dnnl_pooling::make_pd(const dnnl_context& c,
                                                            const std::vector<shape>& inputs) const
{
    auto in  = logical_lens(inputs[0], layout);
    auto out = layout_shape(inputs[0].type(), out_lens(in), layout); // the one real input's result
    auto ol  = logical_lens(out, layout);
    auto kd  = in.size() - 2;
    dnnl::memory::dims s(stride.begin(), stride.end()), k(lengths.begin(), lengths.end()), pl, pr;
    for(std::size_t i = 0; i < kd; i++)
    {
        pl.push_back(static_cast<std::int64_t>(padding[i]));
        // oneDNN derives the output size from the padding: extend the end padding to reach ceil
        // mode's size (the extra positions are outside the input and so excluded).
        auto need = static_cast<std::int64_t>((ol[i + 2] - 1) * stride[i] + lengths[i]) -
                    static_cast<std::int64_t>(in[i + 2] + padding[i]);
        pr.push_back(std::max<std::int64_t>(need, 0));
    }
    auto alg = mode == "max"          ? dnnl::algorithm::pooling_max
               : include_padding ? dnnl::algorithm::pooling_avg_include_padding
                                 : dnnl::algorithm::pooling_avg_exclude_padding;
    auto dst = to_dnnl_md(out, layout);
    return {{dnnl::prop_kind::forward_inference, alg, to_dnnl_md(inputs[0], layout), dst, s, k, pl, pr},
            user_scratchpad(), *c.engine};
}

void dnnl_pooling::finalize(context& ctx, const shape&, const std::vector<shape>& inputs)
{
    cache       = std::make_shared<prim_cache>();
    cache->pd   = make_pd(get_dnnl_context(ctx), inputs);
    cache->prim = dnnl::pooling_forward{cache->pd};
}

argument dnnl_pooling::compute(context& ctx, const shape& out, const std::vector<argument>& args) const
{
    auto& c = get_dnnl_context(ctx);
    if(not cache)
        const_cast<dnnl_pooling*>(this)->finalize(ctx, out, {args[0].get_shape()}); // NOLINT: lazy
    argument result = result_buffer(out, args, planned);
    run_primitive(cache->prim, cache->pd, c,
                  {{DNNL_ARG_SRC, make_memory(cache->pd.src_desc(), c, args[0].data())},
                   {DNNL_ARG_DST, make_memory(cache->pd.dst_desc(), c, result.data())}});
    return result;
}

std::string dnnl_pooling::impl(context& ctx, const std::vector<shape>& inputs) const
{
    return make_pd(get_dnnl_context(ctx), inputs).impl_info_str();
}

MIGRAPHX_REGISTER_OP(dnnl_pooling)

} // namespace cpu
} // namespace migraphx
