// dnnl::reorder: copies between layouts with oneDNN's threaded reorder, built once in finalize.

#include "targets/cpu/dnnl_ops.hpp"
#include <migraphx/register_op.hpp>

namespace migraphx {
namespace cpu {

shape dnnl_reorder::compute_shape(const std::vector<shape>& all) const
{
    auto inputs = own_inputs(all, planned);
    if(inputs.size() != 1)
        MIGRAPHX_THROW("dnnl::reorder: expected 1 input");
    for(const auto& l : {from, to})
        layout_block(l); // throws for an unknown layout name
    auto l = logical_lens(inputs[0], from);
    return planned_shape("dnnl::reorder", layout_shape(inputs[0].type(), l, to), all, planned);
}

void dnnl_reorder::finalize(context& ctx, const shape& out, const std::vector<shape>& inputs)
{
    auto& c     = get_dnnl_context(ctx);
    cache       = std::make_shared<prim_cache>();
    cache->src  = to_dnnl_md(inputs.at(0), from);
    cache->dst  = to_dnnl_md(out, to);
    cache->pd   = dnnl::reorder::primitive_desc{*c.engine, cache->src, *c.engine, cache->dst, user_scratchpad()};
    cache->prim = dnnl::reorder{cache->pd};
}

argument dnnl_reorder::compute(context& ctx, const shape& out, const std::vector<argument>& args) const
{
    auto& c = get_dnnl_context(ctx);
    if(not cache)
        const_cast<dnnl_reorder*>(this)->finalize(ctx, out, {args[0].get_shape()}); // NOLINT: lazy
    argument result = result_buffer(out, args, planned);
    auto src        = make_memory(cache->src, c, args[0].data());
    auto dst        = make_memory(cache->dst, c, result.data());
    run_primitive(cache->prim, cache->pd, c, {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}});
    return result;
}

MIGRAPHX_REGISTER_OP(dnnl_reorder)

} // namespace cpu
} // namespace migraphx
