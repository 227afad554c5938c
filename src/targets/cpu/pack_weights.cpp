#include "targets/cpu/pack_weights.hpp"
#include "targets/cpu/dnnl_ops.hpp"
#include <migraphx/operation.hpp>
#include <map>
#include <string>

namespace migraphx {
namespace cpu {
namespace {

/// Whether a weight input is a literal, or a layout view of one.
bool constant_source(instruction_ref w)
{
    return w->name() == "@literal" or
           ((w->name() == "transpose" or w->name() == "multibroadcast") and w->inputs().front()->name() == "@literal");
}

/// The literal a weight input stands for (constant_source), evaluated.
argument constant_weights(instruction_ref w)
{
    if(w->name() == "@literal")
        return w->get_literal().get_argument();
    auto in = w->inputs().front()->get_literal().get_argument();
    return w->get_operator().compute(w->get_shape(), {in});
}

/// Packed literals made so far, by source weight and packed format: an unrolled recurrence or a
/// shared projection reads the same weights many times and needs one packed copy.
using packed_cache = std::map<std::pair<const instruction*, std::string>, instruction_ref>;

template <class Op>
void pack(module& m, instruction_ref ins, context& ctx, packed_cache& cache)
{
    auto op = *ins->get_operator().any_cast<Op>();
    if(op.packed_weights)
        return;
    auto in = ins->inputs();
    if(not constant_source(in[1]))
        return;
    std::vector<shape> shapes;
    for(auto i : in)
        shapes.push_back(i->get_shape());
    // format and packing as the op reads plain weights (before packed_weights is set)
    auto key = std::make_pair(&*in[1], op.packed_format(ctx, shapes));
    auto it  = cache.find(key);
    if(it == cache.end())
        it = cache.emplace(key, m.add_literal(literal{op.pack(ctx, shapes, constant_weights(in[1]))})).first;
    op.weights_format = key.second;
    op.packed_weights = true;
    // broadcast batch dims (stride 0) are packed once, as 1
    const auto& ws = in[1]->get_shape();
    op.weight_lens = ws.lens();
    for(std::size_t i = 0; i + 2 < op.weight_lens.size(); i++)
        if(ws.strides()[i] == 0)
            op.weight_lens[i] = 1;
    in[1] = it->second;
    m.replace_instruction(ins, operation{op}, in);
}

} // namespace

void pack_weights::apply(module& m) const
{
    context fallback;
    auto& c = ctx != nullptr ? *ctx : fallback;
    packed_cache cache;
    for(auto ins = m.begin(); ins != m.end(); ++ins)
    {
        if(ins->name() == "dnnl::convolution")
            pack<dnnl_convolution>(m, ins, c, cache);
        else if(ins->name() == "dnnl::matmul")
            pack<dnnl_matmul>(m, ins, c, cache);
    }
}

} // namespace cpu
} // namespace migraphx
