#include "targets/cpu/blocked_layout.hpp"
#include "targets/cpu/channel_shuffle_kernel.hpp"
#include "targets/cpu/dnnl_ops.hpp"
#include "ir/env.hpp"
#include <migraphx/make_op.hpp>
#include <migraphx/operation.hpp>
#include <optional>
#include <memory>
#include <unordered_map>

namespace migraphx {
namespace cpu {
namespace {

/// A reorder between two layouts (its other members left at their defaults).
dnnl_reorder reorder_op(const std::string& from, const std::string& to)
{
    dnnl_reorder r;
    r.from = from;
    r.to   = to;
    return r;
}

struct layout_rewriter
{
    module& m;
    context& ctx;
    std::string layout; // nhwc, blocked8 or blocked16: what this machine's oneDNN kernels want
    std::size_t block;  // 0 for nhwc
    // plain instruction -> the instruction computing the same value in the blocked layout
    std::unordered_map<const instruction*, instruction_ref> blocked;
    layout_stats stats = {};

    bool has_blocked(instruction_ref x) const { return blocked.count(&*x) > 0; }

    /// x in the blocked layout, reordering it before pos if no blocked version exists yet.
    instruction_ref to_blocked(instruction_ref pos, instruction_ref x)
    {
        auto it = blocked.find(&*x);
        if(it != blocked.end())
            return it->second;
        auto r = m.insert_instruction(pos, operation{reorder_op("plain", layout)}, {x});
        blocked[&*x] = r;
        return r;
    }

    /// Puts the blocked computation `b` in place of `ins`: plain users read a reorder of it.
    void publish(instruction_ref ins, instruction_ref b)
    {
        auto back = m.insert_instruction(std::next(b), operation{reorder_op(layout, "plain")}, {b});
        m.replace_instruction(ins, back);
        blocked[&*back] = b;
    }

    /// oneDNN's Winograd convolution (AVX-512 only, 16-channel blocks) for a 3x3, stride 1,
    /// undilated, ungrouped convolution of at least 64 channels, where oneDNN's kernel for it is
    /// F(2x2,3x3) (`jit_fp32_wino_2x3`, which it picks for small images: ResNet-50 at 224 has it
    /// for its 56x56, 14x14 and 7x7 layers). That one rounds no more than the direct kernels: on
    /// ResNet-50's layers with random weights its max error against a double sum was 2.9e-7 -
    /// 8.6e-7 of the largest output, nChw16c's direct kernel 2.2e-7 - 2.8e-7, the channels-last
    /// one 9.1e-7 - 1.9e-6; and it took 0.57 / 0.94 / 0.67 ms where the direct kernel took 1.10
    /// / 1.83 / 0.84 (2 cores, Zen 4). F(4x4,3x3) (`jit_wino_4x3`, larger images) rounds more
    /// (2.0e-6 on the 28x28 layer; Mask R-CNN's masks went from 9.1e-4 to 1.1e-3 max rel err
    /// against torch with it, past the zoo's fp32 bound): only with MIGRAPHX_CPU_WINOGRAD=all.
    /// MIGRAPHX_CPU_WINOGRAD=off: no Winograd.
    bool winograd_fits(const dnnl_convolution& op, const std::vector<shape>& shapes) const
    {
        auto mode = winograd_mode();
        if(layout != "blocked16" or mode == "off" or op.group != 1 or op.packed_weights or
           op.stride != std::vector<std::size_t>{1, 1} or op.dilation != std::vector<std::size_t>{1, 1})
            return false;
        auto x = logical_lens(shapes[0], op.src_layout);
        const auto& w = shapes[1].lens();
        if(w.size() != 4 or w[2] != 3 or w[3] != 3 or w[0] < 64 or x[1] < 64)
            return false;
        auto wino = op;
        wino.algo = "winograd";
        try
        {
            auto impl = wino.impl(ctx, shapes);
            return impl.rfind("ref", 0) != 0 and (mode == "all" or impl.find("wino_2x3") != std::string::npos);
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
        {
            stats.left_plain++;
            return;
        }
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
        {
            stats.left_plain++;
            return;
        }
        if(winograd_fits(cand, shapes))
        {
            cand.algo = "winograd";
            stats.winograd++;
        }
        publish(ins, m.insert_instruction(ins, operation{cand}, in));
    }

    /// A deconvolution (ConvTranspose) whose input is already in the layout, with channels that
    /// fit it, runs there too: UNet's decoder took its input back to plain for each one and put
    /// the result into the layout again for the concat and convolutions after it. Where the input
    /// is plain it stays plain (oneDNN's GEMM-based plain kernel: see dnnl_deconvolution).
    void deconvolution(instruction_ref ins)
    {
        auto op = *ins->get_operator().any_cast<dnnl_deconvolution>();
        auto x  = ins->inputs()[0];
        if(op.src_layout != "plain" or not has_blocked(x) or not channels_fit(ins->get_shape()) or
           not channels_fit(x->get_shape()))
            return;
        auto cand       = op;
        cand.src_layout = layout;
        cand.dst_layout = layout;
        std::vector<instruction_ref> in = {to_blocked(ins, x), ins->inputs()[1]};
        try
        {
            if(cand.impl(ctx, {in[0]->get_shape(), in[1]->get_shape()}).rfind("ref", 0) == 0)
                return; // only where oneDNN has a real kernel for the layout
        }
        catch(const std::exception&) // oneDNN refuses the layout for it
        {
            return;
        }
        publish(ins, m.insert_instruction(ins, operation{cand}, in));
    }

    void pooling(instruction_ref ins)
    {
        auto op = *ins->get_operator().any_cast<dnnl_pooling>();
        auto x  = ins->inputs()[0];
        if(op.layout != "plain" or (not has_blocked(x) and not worth_reordering(op, x)))
            return;
        op.layout = layout;
        publish(ins, m.insert_instruction(ins, operation{op}, {to_blocked(ins, x)}));
    }

    /// A pooling of a plain value runs in the layout after a reorder where oneDNN has a jit
    /// kernel there and none for the plain layout: its plain one is a simple loop (MTCNN's 2x2
    /// max pool of 10x118x158: 1.0 ms, against a few hundredths for the reorder and a jit pool).
    bool worth_reordering(const dnnl_pooling& op, instruction_ref x) const
    {
        const auto& s = x->get_shape();
        if(s.lens().size() != 4 or not channels_fit(s))
            return false;
        auto cand   = op;
        cand.layout = layout;
        try
        {
            return op.impl(ctx, {s}).rfind("jit", 0) != 0 and
                   cand.impl(ctx, {layout_shape(s.type(), s.lens(), layout)}).rfind("jit", 0) == 0;
        }
        catch(const std::exception&) // no oneDNN kernel for one of them
        {
            return false;
        }
    }

    /// A concatenation along the channels of values that all exist in the layout runs there:
    /// along the last dim in nhwc, along the blocks in nChw8c/nChw16c (every part's channels fit
    /// the blocks). DenseNet concatenates every dense layer's input: each went back to plain for
    /// it and into the layout again for the next convolution.
    void concat(instruction_ref ins)
    {
        auto v    = ins->get_operator().to_value();
        auto axis = v.at("axis").to<std::int64_t>();
        if(ins->get_shape().lens().size() != 4 or (axis != 1 and axis != -3))
            return;
        std::vector<instruction_ref> in;
        for(auto x : ins->inputs())
        {
            if(not has_blocked(x))
                return;
            in.push_back(blocked.at(&*x));
        }
        auto physical_axis = block == 0 ? 3 : 1;
        publish(ins, m.insert_instruction(ins, make_op("concat", {{"axis", physical_axis}}), in));
    }

    /// A linear interpolation (cpu::lerp: a linear Resize) along the batch or a spatial axis of a
    /// value in the layout runs there, along that axis's physical place: the layout's tensor is
    /// a standard one of its physical dims ({N, H, W, C}, or {N, C/B, H, W, B}), and the channels
    /// are only carried along. UNet's upsampling went back to plain for it and into the layout
    /// again for the concat and convolutions after it.
    void lerp(instruction_ref ins)
    {
        auto x    = ins->inputs().front();
        auto axis = ins->get_operator().to_value().at("axis").to<std::int64_t>();
        if(not has_blocked(x) or x->get_shape().lens().size() != 4 or axis == 1)
            return;
        auto physical_axis = (block == 0 and axis > 1) ? axis - 1 : axis;
        std::vector<instruction_ref> in{blocked.at(&*x)};
        in.insert(in.end(), ins->inputs().begin() + 1, ins->inputs().end());
        publish(ins, m.insert_instruction(ins, make_op("cpu::lerp", {{"axis", physical_axis}}), in));
    }

    /// A channel shuffle of a value in the channels-last layout (ShuffleNet: reshape to
    /// {N, g, C/g, H, W}, swap those two, a copy, reshape to {N, C, H, W}; `ins` is that last
    /// reshape) runs there as one cpu::channel_shuffle, which also takes in the concatenation
    /// before it and, where the result is only split into equal parts along the channels, writes
    /// each part packed. Before, each ShuffleNetV2 unit left the layout for the shuffle and came
    /// back: 3 reorders and 2 copies where there is one pass now.
    void shuffle(instruction_ref ins)
    {
        auto groups = shuffle_groups(ins);
        if(block != 0 or groups == 0)
            return;
        auto x     = ins->inputs()[0]->inputs()[0]->inputs()[0]->inputs()[0];
        auto b     = blocked.at(&*x);
        auto parts = std::vector<instruction_ref>{b};
        if(b->name() == "concat" and x->outputs().size() == 1) // the nhwc concat of concat() above
            parts = b->inputs();
        auto pieces   = equal_channel_slices(ins);
        auto splits   = pieces.empty() ? std::size_t{1} : pieces.size();
        auto channels = ins->get_shape().lens()[1];
        auto op       = channel_shuffle_kernel{groups, splits};
        auto r        = m.insert_instruction(ins, operation{op}, parts);
        const auto& l = r->get_shape().lens();
        auto part_of  = [&](std::size_t k) {
            auto s = m.insert_instruction(ins, make_op("slice", {{"axes", {0}}, {"starts", {k}}, {"ends", {k + 1}}}), {r});
            return m.insert_instruction(ins, make_op("reshape", {{"dims", {l[1], l[2], l[3], channels / splits}}}), {s});
        };
        if(pieces.empty())
            publish(ins, part_of(0));
        else
            for(std::size_t k = 0; k < splits; k++)
                publish(pieces[k], part_of(k));
        stats.shuffles++;
    }

    /// g where ins is reshape(copy(transpose(reshape(x)))) shuffling the channels of a 4-D x in
    /// the layout in g groups (x {N, C, H, W} -> {N, g, C/g, H, W} -> swap 1 and 2 -> {N, C, H, W});
    /// 0 otherwise.
    std::size_t shuffle_groups(instruction_ref ins) const
    {
        const auto& out = ins->get_shape().lens();
        auto copy       = ins->inputs()[0];
        if(out.size() != 4 or not copy_of_view(copy))
            return 0;
        auto t = copy->inputs()[0];
        if(t->name() != "transpose" or t->inputs()[0]->name() != "reshape")
            return 0;
        auto perm = t->get_operator().to_value().at("permutation").to_vector<std::int64_t>();
        auto r    = t->inputs()[0];
        auto x    = r->inputs()[0];
        const auto& split = r->get_shape().lens();
        if(perm != std::vector<std::int64_t>{0, 2, 1, 3, 4} or not has_blocked(x) or x->get_shape().lens() != out or
           split.size() != 5 or split[0] != out[0] or split[1] * split[2] != out[1] or split[3] != out[2] or
           split[4] != out[3] or not x->get_shape().standard())
            return 0;
        return split[1];
    }

    /// Whether ins copies a view into a standard tensor (a plain-to-plain reorder or contiguous).
    static bool copy_of_view(instruction_ref ins)
    {
        if(ins->name() == "contiguous")
            return true;
        if(ins->name() != "dnnl::reorder")
            return false;
        auto v = ins->get_operator().to_value();
        return v.at("from").to<std::string>() == "plain" and v.at("to").to<std::string>() == "plain";
    }

    /// ins's users in channel order where they are all slices along the channels cutting it into
    /// two or more equal parts; empty otherwise.
    static std::vector<instruction_ref> equal_channel_slices(instruction_ref ins)
    {
        auto channels = static_cast<std::int64_t>(ins->get_shape().lens()[1]);
        auto n        = static_cast<std::int64_t>(ins->outputs().size());
        if(n < 2 or channels % n != 0)
            return {};
        std::vector<instruction_ref> pieces(static_cast<std::size_t>(n), ins);
        for(auto u : ins->outputs())
        {
            if(u->name() != "slice")
                return {};
            auto v      = u->get_operator().to_value();
            auto axes   = v.at("axes").to_vector<std::int64_t>();
            auto starts = v.at("starts").to_vector<std::int64_t>();
            auto ends   = v.at("ends").to_vector<std::int64_t>();
            auto size   = channels / n;
            if(axes != std::vector<std::int64_t>{1} or starts.size() != 1 or ends.size() != 1 or
               starts[0] % size != 0 or ends[0] != starts[0] + size or starts[0] < 0 or ends[0] > channels)
                return {};
            auto k = static_cast<std::size_t>(starts[0] / size);
            if(pieces[k] != ins)
                return {}; // two slices of one part
            pieces[k] = u;
        }
        return pieces;
    }

    /// An elementwise op whose inputs all exist in blocked layout runs on them as they are; a
    /// per-channel or scalar broadcast among them (a PReLU slope, an SE block's channel scales, a
    /// constant) is broadcast over the layout's dims instead, so the chain does not leave the
    /// layout for it (EfficientNet's 26 SE products went out and back in: 2 reorders each).
    void elementwise(instruction_ref ins)
    {
        const auto& lens = ins->get_shape().lens();
        std::vector<std::size_t> physical;
        for(auto x : ins->inputs())
            if(has_blocked(x) and x->get_shape().lens() == lens)
                physical = blocked.at(&*x)->get_shape().lens();
        if(physical.empty())
            return;
        std::vector<instruction_ref> in;
        for(auto x : ins->inputs())
        {
            if(has_blocked(x) and x->get_shape().lens() == lens)
                in.push_back(blocked.at(&*x));
            else if(auto b = channel_broadcast(ins, x, physical))
                in.push_back(*b);
            else
                return;
        }
        publish(ins, m.insert_instruction(ins, ins->get_operator(), in));
    }

    /// x, a broadcast of a standard tensor y of C values (varying along dim 1) or of one value,
    /// as a broadcast over the layout's physical dims: y read as {1, 1, 1, C} (nhwc) or
    /// {1, C/B, 1, 1, B} (B-channel blocks). Nothing where x is another kind of value.
    std::optional<instruction_ref>
    channel_broadcast(instruction_ref pos, instruction_ref x, const std::vector<std::size_t>& physical)
    {
        const auto& s = x->get_shape();
        if((x->name() != "broadcast" and x->name() != "multibroadcast") or s.lens().size() != 4)
            return std::nullopt;
        for(std::size_t d = 0; d < 4; d++)
            if(d != 1 and s.strides()[d] != 0 and s.lens()[d] != 1)
                return std::nullopt;
        auto y           = x->inputs().front();
        const auto& ys   = y->get_shape();
        auto channels    = s.lens()[1];
        bool scalar      = ys.elements() == 1;
        if(not ys.standard() or (not scalar and (ys.elements() != channels or s.strides()[1] == 0)) or
           (block != 0 and channels % block != 0))
            return std::nullopt;
        std::vector<std::size_t> view(physical.size(), 1);
        if(not scalar and block == 0)
            view.back() = channels;
        else if(not scalar)
        {
            view[1]     = channels / block;
            view.back() = block;
        }
        auto r = m.insert_instruction(pos, make_op("reshape", {{"dims", view}}), {y});
        return m.insert_instruction(pos, make_op("multibroadcast", {{"out_lens", physical}}), {r});
    }
};

bool is_pointwise(instruction_ref ins)
{
    auto a = ins->get_operator().attributes();
    return a.is_object() and a.contains("pointwise") and ins->module_inputs().empty();
}

/// m's instructions in a new module, literals as parameters of their shapes (no data copied), for
/// a trial rewrite; null where m runs sub-modules or reads another module's values.
std::unique_ptr<module> scratch_copy(const module& m)
{
    auto copy = std::make_unique<module>(m.name() + ":layout_trial");
    std::unordered_map<const instruction*, instruction_ref> map;
    std::size_t n = 0;
    for(auto it = m.begin(); it != m.end(); ++it)
    {
        if(not it->module_inputs().empty())
            return nullptr;
        if(it->name() == "@literal" or it->name() == "@param")
        {
            map[&*it] = copy->insert_parameter(copy->end(), "trial" + std::to_string(n++), it->get_shape());
            continue;
        }
        std::vector<instruction_ref> args;
        for(auto in : it->inputs())
        {
            auto found = map.find(&*in);
            if(found == map.end())
                return nullptr;
            args.push_back(found->second);
        }
        map[&*it] = it->name() == "@return"
                        ? copy->add_return(args)
                        : copy->insert_instruction_unchecked(copy->end(), it->get_operator(), it->get_shape(), args);
    }
    return copy;
}

} // namespace

layout_stats rewrite_layout(module& m, context& ctx, const std::string& layout)
{
    layout_rewriter r{m, ctx, layout, layout_block(layout), {}};
    for(auto ins = m.begin(); ins != m.end(); ++ins)
    {
        if(ins->name() == "dnnl::convolution")
            r.convolution(ins);
        else if(ins->name() == "dnnl::pooling")
            r.pooling(ins);
        else if(ins->name() == "dnnl::deconvolution")
            r.deconvolution(ins);
        else if(ins->name() == "concat" and ins->get_shape().type() == shape::float_type)
            r.concat(ins);
        else if(ins->name() == "cpu::lerp")
            r.lerp(ins);
        else if(ins->name() == "reshape" and ins->get_shape().type() == shape::float_type)
            r.shuffle(ins);
        else if(is_pointwise(ins) and ins->get_shape().type() == shape::float_type)
            r.elementwise(ins);
    }
    return r.stats;
}

std::string module_layout(const module& m, context& ctx)
{
    auto layout = preferred_layout();
    if(layout != "nhwc" or layout_forced())
        return layout;
    // On AVX-512: 16-channel blocks where every convolution fits them and some run Winograd (the
    // F(2x2,3x3) kernels exist for blocks only), else channels-last, which takes any channel
    // count (MobileNetV2's 24-channel layers would stay plain between reorders in blocks: 1.6x
    // slower) and whose direct kernels are as fast as the blocked ones (ResNet-50 on a Zen 4:
    // 1.00x over 10 alternating runs).
    auto trial = scratch_copy(m);
    if(trial == nullptr)
        return layout;
    auto stats = rewrite_layout(*trial, ctx, "blocked16");
    return stats.left_plain == 0 and stats.winograd > 0 ? "blocked16" : layout;
}

void blocked_layout::apply(module& m) const
{
    context fallback;
    auto& c = ctx != nullptr ? *ctx : fallback;
    rewrite_layout(m, c, module_layout(m, c));
}

} // namespace cpu
} // namespace migraphx
