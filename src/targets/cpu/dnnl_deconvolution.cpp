// cpu::deconvolution: ONNX ConvTranspose (convolution_backwards) on oneDNN's deconvolution, which
// the reference op's double-precision scatter loop ran 10-20x slower than.

#include "targets/cpu/dnnl_ops.hpp"
#include "ir/block_cache.hpp"
#include <migraphx/register_op.hpp>

namespace migraphx {
namespace cpu {

shape dnnl_deconvolution::compute_shape(const std::vector<shape>& inputs) const
{
    if(inputs.size() != 2)
        MIGRAPHX_THROW("dnnl::deconvolution: expected 2 inputs, got " + std::to_string(inputs.size()));
    const auto x  = logical_lens(inputs[0], src_layout);
    const auto& w = inputs[1].lens();
    if(x.size() < 3 or w.size() != x.size())
        MIGRAPHX_THROW("dnnl::deconvolution: input and weights must have the same rank, 3 or more");
    auto kd = x.size() - 2;
    if(padding.size() != 2 * kd or stride.size() != kd or dilation.size() != kd)
        MIGRAPHX_THROW("dnnl::deconvolution: attributes do not match a " + std::to_string(kd) + "-d deconvolution");
    check_positive(name(), "stride", stride);
    check_positive(name(), "dilation", dilation);
    auto g = static_cast<std::size_t>(std::max<std::int64_t>(group, 0));
    if(g == 0 or x[1] != w[0] or x[1] % g != 0)
        MIGRAPHX_THROW("dnnl::deconvolution: channels do not match the weights and group " + std::to_string(group));
    std::vector<std::size_t> out = {x[0], w[1] * g};
    for(std::size_t i = 0; i < kd; i++)
    {
        if(x[i + 2] == 0 or w[i + 2] == 0)
            MIGRAPHX_THROW("dnnl::deconvolution: empty spatial dimension");
        auto full = (x[i + 2] - 1) * stride[i] + dilation[i] * (w[i + 2] - 1) + 1;
        if(full <= padding[i] + padding[i + kd])
            MIGRAPHX_THROW("dnnl::deconvolution: padding removes the whole output");
        out.push_back(full - padding[i] - padding[i + kd]);
    }
    return layout_shape(inputs[0].type(), out, dst_layout);
}

dnnl::memory::desc dnnl_deconvolution::weights_md(const shape& w) const
{
    // op: w[c][k][kernel...] with c = group * C/group + ci; oneDNN: [g][k][ci][kernel...]
    auto g  = static_cast<std::int64_t>(group);
    auto ci = static_cast<std::int64_t>(w.lens()[0]) / g;
    auto k  = static_cast<std::int64_t>(w.lens()[1]);
    auto s0 = static_cast<std::int64_t>(w.strides()[0]);
    auto s1 = static_cast<std::int64_t>(w.strides()[1]);
    dnnl::memory::dims dims{k, ci}, strides{s1, s0};
    for(std::size_t i = 2; i < w.lens().size(); i++)
    {
        dims.push_back(static_cast<std::int64_t>(w.lens()[i]));
        strides.push_back(static_cast<std::int64_t>(w.strides()[i]));
    }
    if(g > 1)
    {
        dims.insert(dims.begin(), g);
        strides.insert(strides.begin(), s0 * ci);
    }
    return {dims, to_dnnl_type(w.type()), strides};
}

dnnl::deconvolution_forward::primitive_desc dnnl_deconvolution::make_pd(const dnnl_context& c,
                                                                        const std::vector<shape>& inputs) const
{
    auto out = compute_shape(inputs);         // in dst_layout: {N, C/B, H, W, B} for blocks
    auto kd  = inputs[1].lens().size() - 2; // spatial dims, from the weights (always logical)
    dnnl::memory::dims s(stride.begin(), stride.end()), d, pl, pr;
    for(std::size_t i = 0; i < kd; i++)
    {
        d.push_back(static_cast<std::int64_t>(dilation[i]) - 1);
        pl.push_back(static_cast<std::int64_t>(padding[i]));
        pr.push_back(static_cast<std::int64_t>(padding[i + kd]));
    }
    auto wmd = weights_md(inputs[1]);
    dnnl::memory::desc wany{wmd.dims(), wmd.data_type(), dnnl::memory::format_tag::any};
    return {{dnnl::prop_kind::forward_inference,
             dnnl::algorithm::deconvolution_direct,
             to_dnnl_md(inputs[0], src_layout),
             wany,
             to_dnnl_md(out, dst_layout),
             s,
             d,
             pl,
             pr},
            user_scratchpad(),
            *c.engine};
}

std::shared_ptr<dnnl_deconvolution::prim_cache> dnnl_deconvolution::make_cache(context& ctx,
                                                                               const std::vector<shape>& inputs) const
{
    auto r    = std::make_shared<prim_cache>();
    r->inputs = inputs;
    r->pd     = make_pd(get_dnnl_context(ctx), inputs);
    r->prim   = dnnl::deconvolution_forward{r->pd};
    return r;
}

std::string dnnl_deconvolution::impl(context& ctx, const std::vector<shape>& inputs) const
{
    return make_pd(get_dnnl_context(ctx), inputs).impl_info_str(); // no kernel built
}

void dnnl_deconvolution::finalize(context& ctx, const shape&, const std::vector<shape>& inputs)
{
    cache = make_cache(ctx, inputs);
}

argument dnnl_deconvolution::compute(context& ctx, const shape& out, const std::vector<argument>& args) const
{
    auto& c = get_dnnl_context(ctx);
    argument result{out, allocate_uninitialized(out.bytes())}; // oneDNN writes every element
    if(out.elements() == 0) // an actual size of 0 (cache_for): nothing to compute
        return result;
    auto pc        = cache_for(*this, ctx, out, args);
    const auto& pd = pc->pd;
    auto packed = pc->weights.get(args[1].data(), constant_weights, [&] {
        argument p{shape{shape::int8_type, {pd.weights_desc().get_size()}}};
        run_reorder(make_memory(weights_md(args[1].get_shape()), c, args[1].data()),
                    make_memory(pd.weights_desc(), c, p.data()),
                    c);
        return p;
    });
    auto wmem = make_memory(pd.weights_desc(), c, packed.data());
    run_primitive(pc->prim,
                  pd,
                  c,
                  {{DNNL_ARG_SRC, make_memory(pd.src_desc(), c, args[0].data())},
                   {DNNL_ARG_WEIGHTS, wmem},
                   {DNNL_ARG_DST, make_memory(pd.dst_desc(), c, result.data())}});
    return result;
}

MIGRAPHX_REGISTER_OP(dnnl_deconvolution)

} // namespace cpu
} // namespace migraphx
