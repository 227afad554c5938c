// dnnl::quant_matmul: oneDNN int8 matmul (u8 or s8 rows x s8 constant weights, int32
// accumulation) with the dequantize folded in as output scales, plus bias/sum/activation
// post-ops. Leading dims of the data are rows ({..., M, K} is one {M', K} product); the weights
// are reordered into the kernel's format on the first run and kept.

#include "targets/cpu/dnnl_quant_ops.hpp"
#include <migraphx/register_op.hpp>
#include <numeric>

namespace migraphx {
namespace cpu {
namespace {

std::size_t rows_of(const std::vector<std::size_t>& lens)
{
    return std::accumulate(lens.begin(), lens.end() - 1, std::size_t{1}, std::multiplies<>{});
}

} // namespace

shape dnnl_quant_matmul::compute_shape(const std::vector<shape>& inputs) const
{
    std::size_t need = 2 + (bias ? 1 : 0) + (sum ? 1 : 0);
    if(inputs.size() != need)
        MIGRAPHX_THROW("cpu::quant_matmul: expected " + std::to_string(need) + " inputs, got " +
                       std::to_string(inputs.size()));
    const auto& a = inputs[0];
    const auto& w = inputs[1];
    if((a.type() != shape::int8_type and a.type() != shape::uint8_type) or w.type() != shape::int8_type)
        MIGRAPHX_THROW("cpu::quant_matmul: needs int8/uint8 data and int8 weights");
    if(a.lens().size() < 2 or w.lens().size() < 2 or not a.standard() or not w.standard())
        MIGRAPHX_THROW("cpu::quant_matmul: needs standard data and weights of rank 2 or more");
    const auto& wl = w.lens();
    if(rows_of(wl) != wl[wl.size() - 2])
        MIGRAPHX_THROW("cpu::quant_matmul: the weights' leading dims must be 1");
    if(a.lens().back() != wl[wl.size() - 2])
        MIGRAPHX_THROW("cpu::quant_matmul: inner dimensions do not match");
    if(scales.size() != 1 and scales.size() != wl.back())
        MIGRAPHX_THROW("cpu::quant_matmul: one scale or one per column");
    auto out   = a.lens();
    out.back() = wl.back();
    shape r{shape::float_type, out};
    if(bias and inputs[2].elements() != wl.back())
        MIGRAPHX_THROW("cpu::quant_matmul: the bias must have one value per column");
    if(sum and not(inputs.back() == r))
        MIGRAPHX_THROW("cpu::quant_matmul: the summed input must have the result's shape");
    return r;
}

dnnl::matmul::primitive_desc dnnl_quant_matmul::make_pd(const dnnl_context& c, const std::vector<shape>& inputs) const
{
    auto out    = compute_shape(inputs);
    auto m      = static_cast<std::int64_t>(rows_of(inputs[0].lens()));
    auto k      = static_cast<std::int64_t>(inputs[0].lens().back());
    auto n      = static_cast<std::int64_t>(out.lens().back());
    using dt    = dnnl::memory::data_type;
    using tag   = dnnl::memory::format_tag;
    dnnl::memory::desc a{{m, k}, to_dnnl_type(inputs[0].type()), tag::ab};
    dnnl::memory::desc b{{k, n}, dt::s8, tag::any};
    dnnl::memory::desc d{{m, n}, dt::f32, tag::ab};
    auto attr = user_scratchpad();
    attr.set_output_scales(scales.size() > 1 ? 2 : 0, scales);
    attr.set_post_ops(make_post_ops(post_ops, post_alpha, post_beta));
    if(bias)
    {
        dnnl::memory::desc bmd{{1, n}, dt::f32, tag::ab};
        return {{a, b, bmd, d}, attr, *c.engine};
    }
    return {{a, b, d}, attr, *c.engine};
}

void dnnl_quant_matmul::finalize(context& ctx, const shape&, const std::vector<shape>& inputs)
{
    cache       = std::make_shared<prim_cache>();
    cache->pd   = make_pd(get_dnnl_context(ctx), inputs);
    cache->prim = dnnl::matmul{cache->pd};
}

argument dnnl_quant_matmul::compute(context& ctx, const shape& out, const std::vector<argument>& args) const
{
    auto& c = get_dnnl_context(ctx);
    finalize_once(*this, ctx, out, args);
    const auto& pd = cache->pd;
    // weights are constants: reordered once and kept
    auto weights = cache->weights.get(args[1].data(), true, [&] {
        const auto& wl = args[1].get_shape().lens();
        auto k         = static_cast<std::int64_t>(wl[wl.size() - 2]);
        auto n         = static_cast<std::int64_t>(wl.back());
        dnnl::memory::desc from_md{{k, n}, dnnl::memory::data_type::s8, dnnl::memory::format_tag::ab};
        return reorder_int8_weights(from_md, pd.weights_desc(), c, args[1].data());
    });
    return run_int8_primitive(cache->prim, pd, c, out, args, weights, bias, sum);
}

MIGRAPHX_REGISTER_OP(dnnl_quant_matmul)

} // namespace cpu
} // namespace migraphx
