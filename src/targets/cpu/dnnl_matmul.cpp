// dnnl::matmul: oneDNN matmul with bias, residual sum and activation post-ops; constant weights
// are pre-packed at compile time (cpu_pack_weights).

#include "targets/cpu/dnnl_ops.hpp"
#include <migraphx/register_op.hpp>
#include <cstring>

namespace migraphx {
namespace cpu {
namespace {

/// oneDNN wants broadcast batch dims as 1 (a zero stride is not a layout it accepts).
dnnl::memory::desc matmul_md(const shape& s)
{
    auto lens = s.lens(), strides = s.strides();
    for(std::size_t i = 0; i + 2 < lens.size(); i++)
    {
        if(strides[i] == 0)
        {
            lens[i]    = 1;
            strides[i] = lens[i + 1] * strides[i + 1] + 1; // any value: the dim is 1
        }
    }
    return {to_dnnl_dims(lens), to_dnnl_type(s.type()), to_dnnl_dims(strides)};
}

} // namespace

shape dnnl_matmul::weight_shape(const std::vector<shape>& inputs) const
{
    if(packed_weights)
        return {inputs.at(0).type(), weight_lens};
    return inputs.at(1);
}

shape dnnl_matmul::compute_shape(const std::vector<shape>& all) const
{
    auto inputs = own_inputs(all, planned);
    std::size_t need = 2 + (bias ? 1 : 0) + (sum ? 1 : 0);
    if(inputs.size() != need)
        MIGRAPHX_THROW("dnnl::matmul: expected " + std::to_string(need) + " inputs, got " +
                       std::to_string(inputs.size()));
    const auto& a = inputs[0].lens();
    auto b        = weight_shape(inputs).lens();
    if(a.size() < 2 or a.size() != b.size() or a.back() != b[b.size() - 2])
        MIGRAPHX_THROW("dnnl::matmul: inner dimensions do not match");
    auto out   = a;
    out.back() = b.back();
    for(std::size_t i = 0; i + 2 < a.size(); i++)
        out[i] = std::max(a[i], b[i]);
    shape r{inputs[0].type(), out};
    if(sum and not(inputs.back() == r))
        MIGRAPHX_THROW("dnnl::matmul: the summed input must have the result's shape");
    return planned_shape("dnnl::matmul", r, all, planned);
}

dnnl::matmul::primitive_desc
dnnl_matmul::make_pd(const dnnl_context& c, const std::vector<shape>& inputs, bool any_weights) const
{
    auto out = compute_shape(inputs);
    auto a   = matmul_md(inputs[0]);
    auto w   = weight_shape(inputs);
    dnnl::memory::desc b;
    if(any_weights)
    {
        // packed weights keep broadcast batch dims as 1 (weight_lens is stored that way)
        b = {matmul_md(w).dims(), to_dnnl_type(w.type()), dnnl::memory::format_tag::any};
    }
    else
        b = matmul_md(w);
    auto d = to_dnnl_md(out, "plain");
    auto attr = user_scratchpad();
    attr.set_post_ops(make_post_ops(post_ops, post_alpha, post_beta));
    if(bias)
    {
        dnnl::memory::dims bd(out.lens().size(), 1);
        bd.back() = static_cast<std::int64_t>(out.lens().back());
        dnnl::memory::desc bmd{bd, to_dnnl_type(out.type()), dnnl::memory::dims(bd.size(), 1)};
        return {{a, b, bmd, d}, attr, *c.engine};
    }
    return {{a, b, d}, attr, *c.engine};
}

std::shared_ptr<dnnl_matmul::prim_cache> dnnl_matmul::make_cache(context& ctx, const std::vector<shape>& inputs) const
{
    auto& c   = get_dnnl_context(ctx);
    auto r    = std::make_shared<prim_cache>();
    r->inputs = inputs;
    r->pd     = make_pd(c, inputs, packed_weights);
    r->prim   = dnnl::matmul{r->pd};
    if(packed_weights and inputs[1].bytes() < r->pd.weights_desc().get_size())
        MIGRAPHX_THROW("dnnl::matmul: the packed weights are smaller than the kernel reads");
    if(packed_weights)
        check_packed_format(name(), weights_format, r->pd.weights_desc());
    return r;
}

void dnnl_matmul::finalize(context& ctx, const shape&, const std::vector<shape>& inputs)
{
    cache = make_cache(ctx, inputs);
}

std::string dnnl_matmul::packed_format(context& ctx, const std::vector<shape>& inputs) const
{
    return md_signature(make_pd(get_dnnl_context(ctx), inputs, true).weights_desc());
}

argument dnnl_matmul::compute(context& ctx, const shape& out, const std::vector<argument>& args) const
{
    auto& c = get_dnnl_context(ctx);
    argument result = sum ? sum_destination(out, args, planned, sum_in_place) : result_buffer(out, args, planned);
    if(out.elements() == 0) // an actual size of 0 (cache_for): nothing to compute
        return result;
    auto pc         = cache_for(*this, ctx, out, args);
    const auto& pd  = pc->pd;
    std::unordered_map<int, dnnl::memory> m = {
        {DNNL_ARG_SRC, make_memory(pd.src_desc(), c, args[0].data())},
        {DNNL_ARG_WEIGHTS, make_memory(pd.weights_desc(), c, args[1].data())},
        {DNNL_ARG_DST, make_memory(pd.dst_desc(), c, result.data())}};
    if(bias)
        m[DNNL_ARG_BIAS] = make_memory(pd.bias_desc(), c, args[2].data());
    run_primitive(pc->prim, pd, c, m);
    return result;
}

argument dnnl_matmul::pack(context& ctx, const std::vector<shape>& inputs, const argument& w) const
{
    auto& c = get_dnnl_context(ctx);
    auto pd = make_pd(c, inputs, true);
    auto to = pd.weights_desc();
    auto et = inputs[0].type();
    argument packed{shape{et, {to.get_size() / shape{et}.bytes()}}};
    auto from = make_memory(matmul_md(w.get_shape()), c, w.data());
    auto dst  = make_memory(to, c, packed.data());
    run_reorder(from, dst, c);
    return packed;
}

MIGRAPHX_REGISTER_OP(dnnl_matmul)

} // namespace cpu
} // namespace migraphx
