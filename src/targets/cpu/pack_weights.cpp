#include "targets/cpu/pack_weights.hpp"
#include "targets/cpu/dnnl_ops.hpp"
#include <migraphx/operation.hpp>
#include <optional>

namespace migraphx {
namespace cpu {
namespace {

/// The literal a weight input stands for (a literal, or a layout view of one), evaluated.
std::optional<argument> constant_weights(instruction_ref w)
{
    if(w->name() == "@literal")
        return w->get_literal().get_argument();
    if((w->name() == "transpose" or w->name() == "multibroadcast") and w->inputs().front()->name() == "@literal")
    {
        auto in = w->inputs().front()->get_literal().get_argument();
        return w->get_operator().compute(w->get_shape(), {in});
    }
    return std::nullopt;
}

template <class Op>
void pack(module& m, instruction_ref ins, context& ctx)
{
    auto op = *ins->get_operator().any_cast<Op>();
    if(op.packed_weights)
        return;
    auto w = constant_weights(ins->inputs()[1]);
    if(not w)
        return;
    std::vector<shape> shapes;
    for(auto i : ins->inputs())
        shapes.push_back(i->get_shape());
    auto packed = op.pack(ctx, shapes, *w);
    op.weights_format = op.packed_format(ctx, shapes);
    op.packed_weights = true;
    // broadcast batch dims (stride 0) are packed once, as 1
    op.weight_lens = w->get_shape().lens();
    for(std::size_t i = 0; i + 2 < op.weight_lens.size(); i++)
        if(w->get_shape().strides()[i] == 0)
            op.weight_lens[i] = 1;
    auto in           = ins->inputs();
    in[1]             = m.add_literal(literal{packed});
    m.replace_instruction(ins, operation{op}, in);
}

} // namespace

void pack_weights::apply(module& m) const
{
    context fallback;
    auto& c = ctx != nullptr ? *ctx : fallback;
    for(auto ins = m.begin(); ins != m.end(); ++ins)
    {
        if(ins->name() == "dnnl::convolution")
            pack<dnnl_convolution>(m, ins, c);
        else if(ins->name() == "dnnl::matmul")
            pack<dnnl_matmul>(m, ins, c);
    }
}

} // namespace cpu
} // namespace migraphx
