// cpu::convolution: oneDNN convolution with its bias, residual sum and activation post-ops, on
// plain (any strides) or blocked8 tensors, with weights either as given or pre-packed at compile
// time (cpu_pack_weights) into the primitive's own format; or (any_layout, for ops sized by data)
// plain tensors reordered into and out of the layout oneDNN picks, constant weights reordered
// once per size.

#include "targets/cpu/dnnl_ops.hpp"
#include <migraphx/register_op.hpp>
#include <cstring>

namespace migraphx {
namespace cpu {

std::vector<std::size_t> dnnl_convolution::weight_dims(const std::vector<shape>& inputs) const
{
    return packed_weights ? weight_lens : inputs.at(1).lens();
}

shape dnnl_convolution::compute_shape(const std::vector<shape>& all) const
{
    auto inputs = own_inputs(all, planned);
    std::size_t need = 2 + (bias ? 1 : 0) + (sum ? 1 : 0);
    if(inputs.size() != need)
        MIGRAPHX_THROW("cpu::convolution: expected " + std::to_string(need) + " inputs, got " +
                       std::to_string(inputs.size()));
    auto x  = logical_lens(inputs[0], src_layout);
    auto w  = weight_dims(inputs);
    auto kd = x.size() - 2;
    if(w.size() != x.size() or padding.size() != 2 * kd or stride.size() != kd or dilation.size() != kd)
        MIGRAPHX_THROW("cpu::convolution: attributes do not match a " + std::to_string(kd) + "-d convolution");
    check_positive(name(), "stride", stride);
    check_positive(name(), "dilation", dilation);
    auto g = static_cast<std::size_t>(std::max<std::int64_t>(group, 0));
    if(g == 0 or w[0] % g != 0 or x[1] != w[1] * g)
        MIGRAPHX_THROW("cpu::convolution: channels do not match the weights and group " + std::to_string(group));
    if(packed_weights and inputs[1].elements() == 0)
        MIGRAPHX_THROW("cpu::convolution: packed weights are empty");
    std::vector<std::size_t> out = {x[0], w[0]};
    for(std::size_t i = 0; i < kd; i++)
    {
        auto span = x[i + 2] + padding[i] + padding[i + kd];
        auto k    = dilation[i] * (w[i + 2] - 1) + 1;
        if(span < k)
            MIGRAPHX_THROW("cpu::convolution: kernel larger than the padded input");
        out.push_back((span - k) / stride[i] + 1);
    }
    auto r = layout_shape(inputs[0].type(), out, dst_layout);
    if(sum and not(inputs.back() == r))
        MIGRAPHX_THROW("cpu::convolution: the summed input must have the result's shape");
    return planned_shape("cpu::convolution", r, all, planned);
}

dnnl::convolution_forward::primitive_desc dnnl_convolution::make_pd(const dnnl_context& c,
                                                                    const std::vector<shape>& all) const
{
    auto out    = compute_shape(all);
    auto inputs = own_inputs(all, planned);
    auto src  = to_dnnl_md(inputs[0], src_layout);
    auto dst  = to_dnnl_md(out, dst_layout);
    if(any_layout)
    {
        if(sum or src_layout != "plain" or dst_layout != "plain")
            MIGRAPHX_THROW("cpu::convolution: any_layout takes plain tensors and no summand");
        src = {src.dims(), src.data_type(), dnnl::memory::format_tag::any};
        dst = {dst.dims(), dst.data_type(), dnnl::memory::format_tag::any};
    }
    auto wl   = weight_dims(inputs);
    auto kd   = wl.size() - 2;
    auto wdim = to_dnnl_dims(wl);
    if(group > 1)
    {
        wdim[0] /= group;
        wdim.insert(wdim.begin(), group);
    }
    dnnl::memory::desc wmd{wdim, to_dnnl_type(inputs[0].type()), dnnl::memory::format_tag::any};
    dnnl::memory::dims s(stride.begin(), stride.end()), d, pl, pr;
    for(std::size_t i = 0; i < kd; i++)
    {
        d.push_back(static_cast<std::int64_t>(dilation[i]) - 1);
        pl.push_back(static_cast<std::int64_t>(padding[i]));
        pr.push_back(static_cast<std::int64_t>(padding[i + kd]));
    }
    auto attr = user_scratchpad();
    attr.set_post_ops(make_post_ops(post_ops, post_alpha, post_beta));
    auto pk = dnnl::prop_kind::forward_inference;
    if(algo != "direct" and algo != "winograd")
        MIGRAPHX_THROW("cpu::convolution: unknown algo '" + algo + "'");
    auto al = algo == "winograd" ? dnnl::algorithm::convolution_winograd : dnnl::algorithm::convolution_direct;
    try
    {
        if(bias)
        {
            dnnl::memory::desc bmd{
                {static_cast<std::int64_t>(wl[0])}, to_dnnl_type(inputs[0].type()), dnnl::memory::format_tag::a};
            return {{pk, al, src, wmd, bmd, dst, s, d, pl, pr}, attr, *c.engine};
        }
        return {{pk, al, src, wmd, dst, s, d, pl, pr}, attr, *c.engine};
    }
    catch(const dnnl::error& e)
    {
        // Winograd exists only for some shapes and machines (AVX-512): a program compiled where it
        // does, loaded where it does not, says so (its weights are packed for it)
        if(algo == "winograd")
            MIGRAPHX_THROW("cpu::convolution: this machine's oneDNN has no Winograd kernel for this convolution (" +
                           std::string(e.what()) + "); compile the program here");
        throw;
    }
}

dnnl::memory::desc dnnl_convolution::plain_weights_md(const shape& w) const
{
    auto md = to_dnnl_md(w, "plain");
    if(group <= 1)
        return md;
    auto dims = to_dnnl_dims(w.lens());
    dims[0] /= group;
    dims.insert(dims.begin(), group);
    auto strides = to_dnnl_dims(w.strides());
    strides.insert(strides.begin(), strides[0] * dims[1]);
    return {dims, to_dnnl_type(w.type()), strides};
}

std::shared_ptr<dnnl_convolution::prim_cache> dnnl_convolution::make_cache(context& ctx,
                                                                           const std::vector<shape>& inputs) const
{
    auto& c  = get_dnnl_context(ctx);
    auto r   = std::make_shared<prim_cache>();
    r->inputs = inputs;
    r->pd     = make_pd(c, inputs);
    r->prim   = dnnl::convolution_forward{r->pd};
    if(packed_weights and inputs[1].bytes() < r->pd.weights_desc().get_size())
        MIGRAPHX_THROW("cpu::convolution: the packed weights are smaller than the kernel reads");
    if(packed_weights)
        check_packed_format("cpu::convolution", weights_format, r->pd.weights_desc());
    if(not packed_weights and r->pd.weights_desc() != plain_weights_md(inputs[1]))
        r->weights_reorder = true;
    return r;
}

void dnnl_convolution::finalize(context& ctx, const shape&, const std::vector<shape>& inputs)
{
    cache = make_cache(ctx, inputs);
}

argument dnnl_convolution::compute(context& ctx, const shape& out, const std::vector<argument>& args) const
{
    auto& c = get_dnnl_context(ctx);
    argument result = sum ? sum_destination(out, args, planned, sum_in_place) : result_buffer(out, args, planned);
    if(out.elements() == 0) // an actual size of 0 (cache_for): nothing to compute
        return result;
    auto pc        = cache_for(*this, ctx, out, args);
    const auto& pd = pc->pd;
    argument packed;
    if(pc->weights_reorder)
        packed = pc->weights.get(args[1].data(), constant_weights, [&] {
            argument p{shape{shape::int8_type, {pd.weights_desc().get_size()}}};
            run_reorder(make_memory(plain_weights_md(args[1].get_shape()), c, args[1].data()),
                        make_memory(pd.weights_desc(), c, p.data()),
                        c);
            return p;
        });
    auto wmem = make_memory(pd.weights_desc(), c, packed.empty() ? args[1].data() : packed.data());
    argument src_block, dst_block;
    auto src = any_layout ? input_in(pd.src_desc(), args[0], c, src_block) : make_memory(pd.src_desc(), c, args[0].data());
    auto dst = any_layout ? output_in(pd.dst_desc(), result, c, dst_block) : make_memory(pd.dst_desc(), c, result.data());
    std::unordered_map<int, dnnl::memory> m = {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wmem}, {DNNL_ARG_DST, dst}};
    if(bias)
        m[DNNL_ARG_BIAS] = make_memory(pd.bias_desc(), c, args[2].data());
    run_primitive(pc->prim, pd, c, m);
    if(any_layout)
        output_done(dst, result, dst_block, c);
    return result;
}

argument dnnl_convolution::pack(context& ctx, const std::vector<shape>& inputs, const argument& w) const
{
    auto& c = get_dnnl_context(ctx);
    auto pd = make_pd(c, inputs);
    auto to = pd.weights_desc();
    auto et = inputs[0].type();
    argument packed{shape{et, {to.get_size() / shape{et}.bytes()}}};
    auto from = make_memory(plain_weights_md(w.get_shape()), c, w.data());
    auto dst  = make_memory(to, c, packed.data());
    run_reorder(from, dst, c);
    return packed;
}

std::string dnnl_convolution::packed_format(context& ctx, const std::vector<shape>& inputs) const
{
    return md_signature(make_pd(get_dnnl_context(ctx), inputs).weights_desc());
}

std::string dnnl_convolution::impl(context& ctx, const std::vector<shape>& inputs) const
{
    return make_pd(get_dnnl_context(ctx), inputs).impl_info_str();
}

MIGRAPHX_REGISTER_OP(dnnl_convolution)

} // namespace cpu
} // namespace migraphx
