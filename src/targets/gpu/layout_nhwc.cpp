#include "targets/gpu/layout_nhwc.hpp"
#include "ir/env.hpp"
#include "passes/pass_utils.hpp"
#include <migraphx/instruction.hpp>
#include <migraphx/literal.hpp>
#include <migraphx/make_op.hpp>
#include <cstring>
#include <unordered_map>

namespace migraphx {
namespace gpu {

shape nhwc_shape(const shape& s)
{
    if(s.lens().size() != 4)
        MIGRAPHX_THROW("nhwc_shape: expects a 4-d shape, got " + std::to_string(s.lens().size()) + " dims");
    const auto& l = s.lens();
    return shape{s.type(), l, {l[1] * l[2] * l[3], 1, l[3] * l[1], l[1]}};
}

bool is_nhwc(const shape& s)
{
    if(s.lens().size() != 4 or s.dynamic() or s.element_space() != s.elements())
        return false;
    auto want = nhwc_shape(s).strides();
    for(std::size_t d = 0; d < 4; d++)
        if(s.lens()[d] != 1 and s.strides()[d] != want[d])
            return false;
    return true;
}

literal to_nhwc(const literal& l)
{
    auto src = l.get_argument();
    auto ns  = nhwc_shape(src.get_shape());
    argument dst{ns};
    auto ts = ns.type_size();
    // Standard element i of the source goes to where the NHWC shape puts element i.
    for(std::size_t i = 0; i < ns.elements(); i++)
        std::memcpy(dst.data() + ns.index(i) * ts, src.data() + src.get_shape().index(i) * ts, ts);
    return literal{dst};
}

namespace {

/// w (K, C, R, S) with its channels padded with zeros to c (K, c, R, S), standard.
literal pad_channels(const literal& w, std::size_t c)
{
    auto src     = w.get_argument();
    const auto& ss = src.get_shape();
    auto lens    = ss.lens();
    lens[1]      = c;
    shape ds{ss.type(), lens};
    argument dst{ds};
    std::memset(dst.data(), 0, ds.bytes());
    auto ts = ds.type_size();
    for(std::size_t i = 0; i < ss.elements(); i++)
        std::memcpy(dst.data() + ds.index(ss.multi(i)) * ts, src.data() + ss.index(i) * ts, ts);
    return literal{dst};
}

/// Channel count a half NHWC convolution's input and weights are padded to when it has few
/// channels (the stem's 3): cuDNN's tensor-core NHWC kernels want a multiple of 8.
std::size_t padded_channels(instruction_ref conv)
{
    auto c = conv->inputs()[0]->get_shape().lens()[1];
    if(c % 8 == 0 or c > 4 or conv->get_operator().to_value().at("group").get_int64() != 1)
        return c;
    return 8;
}

bool nhwc_candidate(instruction_ref ins)
{
    if(ins->name() != "convolution" or ins->inputs().size() != 2)
        return false;
    const auto& x = ins->inputs()[0]->get_shape();
    auto w        = ins->inputs()[1];
    auto v        = ins->get_operator().to_value();
    return x.type() == shape::half_type and x.lens().size() == 4 and not x.dynamic() and
           w->name() == "@literal" and w->get_shape().type() == shape::half_type and
           v.at("padding_mode").get_int64() == 0;
}

} // namespace

void layout_nhwc::apply(module& m) const
{
    if(env_enabled("MIGRAPHX_DISABLE_NHWC"))
        return;
    std::unordered_map<const instruction*, instruction_ref> done; // weights shared by convolutions
    std::unordered_map<const instruction*, instruction_ref> padded;
    // A convolution of a data-dependent result (a mask head after the NMS) stays NCHW: its
    // device form runs at the declared rows on standard operands (device_rows.hpp); with KRSC
    // weights it ran on the host (Mask R-CNN fp16: 417 ms a run against fp32's 15).
    auto data_dependent = pass_utils::data_dependent(m);
    for(auto ins = m.begin(); ins != m.end(); ++ins)
    {
        if(not nhwc_candidate(ins) or data_dependent.count(&*ins) > 0)
            continue;
        auto w = ins->inputs()[1];
        auto x = ins->inputs()[0];
        auto c = padded_channels(ins);
        if(c != x->get_shape().lens()[1])
        {
            // Zero channels add nothing to the sums: x padded (lowering writes the padded copy
            // NHWC) and the weights padded once here.
            auto it = padded.find(&*w);
            if(it == padded.end())
                it = padded.emplace(&*w, m.add_literal(to_nhwc(pad_channels(w->get_literal(), c)))).first;
            auto extra = static_cast<std::int64_t>(c - x->get_shape().lens()[1]);
            auto px    = m.insert_instruction(
                ins, make_op("pad", {{"pads", std::vector<std::int64_t>{0, 0, 0, 0, 0, extra, 0, 0}}}), {x});
            m.replace_instruction(ins, ins->get_operator(), {px, it->second});
            continue;
        }
        if(is_nhwc(w->get_shape()))
            continue;
        auto it = done.find(&*w);
        if(it == done.end())
            it = done.emplace(&*w, m.add_literal(to_nhwc(w->get_literal()))).first;
        m.replace_instruction(ins, ins->get_operator(), {ins->inputs()[0], it->second});
    }
}

} // namespace gpu
} // namespace migraphx
