#include "targets/cpu/blocked_layout.hpp"
#include "targets/cpu/dnnl_ops.hpp"
#include "ir/env.hpp"
#include <migraphx/operation.hpp>
#include <unordered_map>

namespace migraphx {
namespace cpu {
namespace {

struct layout_rewriter
{
    module& m;
    context& ctx;
    std::string layout; // nhwc, blocked8 or blocked16: what this machine's oneDNN kernels want
    std::size_t block;  // 0 for nhwc
    // plain instruction -> the instruction computing the same value in the blocked layout
    std::unordered_map<const instruction*, instruction_ref> blocked;

    bool has_blocked(instruction_ref x) const { return blocked.count(&*x) > 0; }

    /// x in the blocked layout, reordering it before pos if no blocked version exists yet.
    instruction_ref to_blocked(instruction_ref pos, instruction_ref x)
    {
        auto it = blocked.find(&*x);
        if(it != blocked.end())
            return it->second;
        auto r = m.insert_instruction(pos, operation{dnnl_reorder{"plain", layout}}, {x});
        blocked[&*x] = r;
        return r;
    }

    /// Puts the blocked computation `b` in place of `ins`: plain users read a reorder of it.
    void publish(instruction_ref ins, instruction_ref b)
    {
        auto back = m.insert_instruction(std::next(b), operation{dnnl_reorder{layout, "plain"}}, {b});
        m.replace_instruction(ins, back);
        blocked[&*back] = b;
    }

    /// With MIGRAPHX_CPU_WINOGRAD=1: oneDNN's Winograd convolution (F(2x2,3x3) / F(4x4,3x3),
    /// AVX-512 only, 16-channel blocks) for a 3x3, stride 1, undilated, ungrouped convolution of at
    /// least 64 channels. On a 2-core AVX-512 box it took 0.34-0.62 ms where the direct kernel took
    /// 0.81-1.0 (ResNet-50's 3x3 layers, bias + residual + relu fused alike: the model 43 -> 34 ms).
    /// Not the default: its fp32 transforms round more than the direct sum (Mask R-CNN's masks went
    /// from 9.1e-4 to 1.1e-3 max rel err against torch, past the zoo's fp32 bound).
    bool winograd_fits(const dnnl_convolution& op, const std::vector<shape>& shapes) const
    {
        if(layout != "blocked16" or not env_enabled("MIGRAPHX_CPU_WINOGRAD") or op.group != 1 or
           op.packed_weights or op.stride != std::vector<std::size_t>{1, 1} or
           op.dilation != std::vector<std::size_t>{1, 1})
            return false;
        auto x = logical_lens(shapes[0], op.src_layout);
        const auto& w = shapes[1].lens();
        if(w.size() != 4 or w[2] != 3 or w[3] != 3 or w[0] < 64 or x[1] < 64)
            return false;
        auto wino = op;
        wino.algo = "winograd";
        try
        {
            return wino.impl(ctx, shapes).rfind("ref", 0) != 0;
        }
        catch(const exception&) // oneDNN has no Winograd kernel here
        {
            return false;
        }
    }

    bool channels_fit(const shape& s) const
    {
        return s.lens().size() == 4 and (block == 0 or s.lens()[1] % block == 0);
    }

    void convolution(instruction_ref ins)
    {
        auto op = *ins->get_operator().any_cast<dnnl_convolution>();
        auto x  = ins->inputs()[0];
        if(op.src_layout != "plain" or not channels_fit(ins->get_shape()) or x->get_shape().lens().size() != 4)
            return;
        // A first layer (few input channels) reads plain input and writes blocked.
        bool src_blocked = has_blocked(x) or channels_fit(x->get_shape());
        auto cand        = op;
        cand.src_layout  = src_blocked ? layout : "plain";
        cand.dst_layout  = layout;
        std::vector<instruction_ref> in = ins->inputs();
        if(src_blocked)
            in[0] = to_blocked(ins, x);
        if(op.sum)
            in.back() = to_blocked(ins, in.back());
        std::vector<shape> shapes;
        for(auto i : in)
            shapes.push_back(i->get_shape());
        // Only where oneDNN has a real kernel for the blocked layout (not its reference loops).
        if(cand.impl(ctx, shapes).rfind("ref", 0) == 0)
            return;
        if(winograd_fits(cand, shapes))
            cand.algo = "winograd";
        publish(ins, m.insert_instruction(ins, operation{cand}, in));
    }

    void pooling(instruction_ref ins)
    {
        auto op = *ins->get_operator().any_cast<dnnl_pooling>();
        auto x  = ins->inputs()[0];
        if(op.layout != "plain" or not has_blocked(x))
            return;
        op.layout = layout;
        publish(ins, m.insert_instruction(ins, operation{op}, {blocked.at(&*x)}));
    }

    /// An elementwise op whose inputs all exist in blocked layout runs on them as they are.
    void elementwise(instruction_ref ins)
    {
        std::vector<instruction_ref> in;
        for(auto x : ins->inputs())
        {
            if(not has_blocked(x) or not(x->get_shape().lens() == ins->get_shape().lens()))
                return;
            in.push_back(blocked.at(&*x));
        }
        if(in.empty())
            return;
        publish(ins, m.insert_instruction(ins, ins->get_operator(), in));
    }
};

bool is_pointwise(instruction_ref ins)
{
    auto a = ins->get_operator().attributes();
    return a.is_object() and a.contains("pointwise") and ins->module_inputs().empty();
}

} // namespace

void blocked_layout::apply(module& m) const
{
    context fallback;
    auto layout = preferred_layout();
    layout_rewriter r{m, ctx != nullptr ? *ctx : fallback, layout, layout_block(layout), {}};
    for(auto ins = m.begin(); ins != m.end(); ++ins)
    {
        if(ins->name() == "dnnl::convolution")
            r.convolution(ins);
        else if(ins->name() == "dnnl::pooling")
            r.pooling(ins);
        else if(is_pointwise(ins) and ins->get_shape().type() == shape::float_type)
            r.elementwise(ins);
    }
}

} // namespace cpu
} // namespace migraphx
