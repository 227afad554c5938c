// The lowering's choice of generated kernel for reductions, softmax, pooling, concat, gather
// and pad: the op's attributes turned into the generators' arguments (codegen.hpp).
#include "targets/gpu/lowering.hpp"
#include "targets/gpu/codegen.hpp"
#include "targets/gpu/codegen_depthwise.hpp"
#include <migraphx/instruction.hpp>
#include <migraphx/literal.hpp>
#include <cstring>

namespace migraphx {
namespace gpu {
namespace {

std::vector<shape> input_shapes(instruction_ref ins)
{
    std::vector<shape> in;
    for(auto x : ins->inputs())
        in.push_back(x->get_shape());
    return in;
}

/// Whether the op's inputs and output are static, non-tuple and non-empty.
bool plain(instruction_ref ins)
{
    const auto& out = ins->get_shape();
    if(out.dynamic() or out.type() == shape::tuple_type or out.elements() == 0)
        return false;
    for(auto x : ins->inputs())
        if(x->get_shape().dynamic() or x->get_shape().type() == shape::tuple_type)
            return false;
    return true;
}

std::size_t axis_of(const value& v, std::size_t rank)
{
    auto a = v.at("axis").get_int64();
    return static_cast<std::size_t>(a < 0 ? a + static_cast<std::int64_t>(rank) : a);
}

std::optional<kernel_source> layernorm_kernel(instruction_ref ins, const shape& out, std::optional<float> e4m3_scale)
{
    auto in = input_shapes(ins);
    auto v  = ins->get_operator().to_value();
    // the addends (x0 + x1 + ...), then the scale and shift
    auto addends = v.contains("addends") ? static_cast<std::size_t>(v.at("addends").get_int64()) : 1;
    if(in.empty() or addends < 1 or in.size() < addends or in.size() > addends + 2)
        return std::nullopt;
    return generate_layernorm(static_cast<float>(v.at("epsilon").get_float()),
                              std::vector<shape>(in.begin(), in.begin() + addends), out,
                              std::vector<shape>(in.begin() + addends, in.end()), e4m3_scale);
}

} // namespace

std::optional<kernel_source> generate_layernorm_with_e4m3(instruction_ref ins, float e4m3_scale)
{
    if(ins->name() != "layernorm" or not plain(ins))
        return std::nullopt;
    return layernorm_kernel(ins, ins->get_shape(), e4m3_scale);
}

std::optional<kernel_source> generate_for(instruction_ref ins) { return generate_for(ins, ins->get_shape()); }

std::optional<kernel_source> generate_for(instruction_ref ins, const shape& out)
{
    if(not plain(ins))
        return std::nullopt;
    const auto& n = ins->name();
    if(out != ins->get_shape())
    {
        // Another layout of the same tensor: only the kernels that walk any packed output.
        if(out.lens() != ins->get_shape().lens() or out.type() != ins->get_shape().type() or
           not detail::memory_digits("i", out, "d") or
           (n != "pooling" and n != "pad" and n != "depthwise_activated"))
            return std::nullopt;
    }
    auto in         = input_shapes(ins);
    auto v          = ins->get_operator().to_value();
    if(n == "depthwise_activated" and in.size() >= 2)
        return generate_depthwise(depthwise_spec_of(v, in[0], in[1], out));
    if(n.rfind("reduce_", 0) == 0 and in.size() == 1)
        return generate_reduce(n.substr(7), in[0], out);
    if(n == "layernorm")
        return layernorm_kernel(ins, out, std::nullopt);
    if((n == "softmax" or n == "logsoftmax") and in.size() == 1)
        return generate_softmax(n == "logsoftmax", axis_of(v, out.lens().size()), in[0], out);
    if(n == "pooling" and in.size() == 1)
    {
        pooling_window w;
        w.mode     = v.at("mode").get_string();
        w.mode     = w.mode == "0" ? "average" : w.mode == "1" ? "max" : w.mode == "2" ? "lpnorm" : w.mode;
        w.lp_order = v.at("lp_order").get_int64();
        bool global = v.at("global").get_bool();
        auto lens   = v.at("lengths").to_vector<std::size_t>();
        auto stride = v.at("stride").to_vector<std::size_t>();
        auto pad    = v.at("padding").to_vector<std::size_t>();
        auto kd     = in[0].lens().size() - 2;
        if(not global and (lens.size() != kd or stride.size() != kd or pad.size() < kd))
            return std::nullopt;
        for(std::size_t i = 0; i < kd; i++)
        {
            w.len.push_back(global ? in[0].lens()[i + 2] : lens[i]);
            w.stride.push_back(global ? 1 : stride[i]);
            w.pad_begin.push_back(global ? 0 : pad[i]);
        }
        return generate_pooling(w, in[0], out);
    }
    if(n == "concat")
    {
        auto axis = axis_of(v, out.lens().size());
        for(const auto& s : in)
            if(s.type() != out.type() or s.lens().size() != out.lens().size())
                return std::nullopt;
        return generate_concat(axis, in, out);
    }
    if(n == "gather" and in.size() == 2 and in[0].type() == out.type())
        return generate_gather(axis_of(v, in[0].lens().size()), in[0], in[1], out);
    if(n == "pad" and in.size() == 1 and in[0].type() == out.type() and in[0].elements() > 0)
    {
        auto pads = v.at("pads").to_vector<std::int64_t>();
        auto mode = v.at("mode").get_int64();
        if(pads.size() != 2 * in[0].lens().size() or mode < 0 or mode > 2 or out.type_size() > 8)
            return std::nullopt;
        std::uint64_t bits = 0;
        if(mode == 0)
        {
            literal l{shape{out.type(), {1}}, std::vector<float>{static_cast<float>(v.at("value").get_float())}};
            std::memcpy(&bits, l.data(), out.type_size());
        }
        return generate_pad(pads, mode, bits, in[0], out);
    }
    return std::nullopt;
}

} // namespace gpu
} // namespace migraphx
