// AveragePool, MaxPool (dilated ones and Indices composed from strided slices), LpPool, the Global
// pools, and MaxUnpool.

#include "onnx/onnx_padding.hpp"
#include <limits>

namespace migraphx {
namespace onnx {

namespace {

std::vector<instruction_ref> parse_global_pool(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() != 1 or rank_of(args[0]) < 3)
        info.fail("expects 1 input of rank >= 3");
    auto kd   = rank_of(args[0]) - 2;
    auto mode = info.op_type == "GlobalMaxPool" ? "max" : info.op_type == "GlobalLpPool" ? "lpnorm" : "average";
    return {info.add("pooling",
                     {{"mode", mode},
                      {"padding", std::vector<std::size_t>(kd, 0)},
                      {"stride", std::vector<std::size_t>(kd, 1)},
                      {"lengths", std::vector<std::size_t>(kd, 1)},
                      {"lp_order", info.get_int("p", 2)},
                      {"global", true}},
                     args)};
}
MIGRAPHX_ONNX_PARSER(parse_global_pool, "GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool")

/// Max pooling as the max over every kernel offset of a strided slice of the input padded with
/// the lowest value (for dilations, and for the Indices output: the flat input index of the
/// first maximum, row-major or, with storage_order 1, column-major over the spatial dims).
std::vector<instruction_ref> sliced_max_pool(const node_info& info,
                                             instruction_ref x,
                                             const std::vector<std::size_t>& k,
                                             const std::vector<std::size_t>& strides,
                                             const std::vector<std::size_t>& dilations,
                                             const std::vector<std::size_t>& pads,
                                             bool ceil_mode,
                                             bool want_indices)
{
    auto kd = k.size();
    auto r  = rank_of(x);
    if(product(k) > 65536)
        info.fail("the kernel is too large");
    std::vector<std::size_t> out(kd);
    std::vector<std::int64_t> padv(2 * r, 0);
    for(std::size_t i = 0; i < kd; i++)
    {
        auto in     = lens_of(x)[i + 2];
        auto span   = (k[i] - 1) * dilations[i] + 1;
        auto padded = in + pads[i] + pads[i + kd];
        if(padded < span)
            info.fail("the dilated window is larger than the padded input");
        auto n = padded - span;
        out[i] = (ceil_mode ? (n + strides[i] - 1) / strides[i] : n / strides[i]) + 1;
        if(ceil_mode and out[i] > 1 and (out[i] - 1) * strides[i] >= in + pads[i])
            out[i]--;
        auto need         = (out[i] - 1) * strides[i] + span;
        padv[i + 2]       = static_cast<std::int64_t>(pads[i]);
        padv[i + 2 + r]   = static_cast<std::int64_t>(need > in + pads[i] ? need - in - pads[i] : 0);
    }
    double lowest = -std::numeric_limits<double>::infinity();
    if(not shape::is_floating(type_of(x)))
        shape::visit(type_of(x), [&](auto as) {
            using T = typename decltype(as)::type;
            lowest  = static_cast<double>(std::numeric_limits<T>::lowest());
        });
    auto p = info.add("pad", {{"pads", padv}, {"value", lowest}}, {x});
    std::vector<std::int64_t> axes, steps;
    for(std::size_t i = 0; i < kd; i++)
    {
        axes.push_back(static_cast<std::int64_t>(i + 2));
        steps.push_back(static_cast<std::int64_t>(strides[i]));
    }
    std::optional<instruction_ref> result, indices;
    std::vector<std::size_t> pos(kd, 0);
    std::vector<std::size_t> olens(lens_of(x).begin(), lens_of(x).begin() + 2);
    olens.insert(olens.end(), out.begin(), out.end());
    shape os{shape::int64_type, olens};
    if(want_indices)
        info.check_size(os.elements() * product(k), "the Indices table");
    bool col_major = info.get_int("storage_order", 0) != 0;
    while(true)
    {
        std::vector<std::int64_t> starts, ends;
        for(std::size_t i = 0; i < kd; i++)
        {
            auto s = static_cast<std::int64_t>(pos[i] * dilations[i]);
            starts.push_back(s);
            ends.push_back(s + static_cast<std::int64_t>((out[i] - 1) * strides[i] + 1));
        }
        auto s = info.add("slice", {{"axes", axes}, {"starts", starts}, {"ends", ends}}, {p});
        s = info.add("step", {{"axes", axes}, {"steps", steps}}, {s});
        if(want_indices)
        {
            std::vector<std::int64_t> idx(os.elements());
            const auto& il = lens_of(x);
            for(std::size_t i = 0; i < idx.size(); i++)
            {
                auto m = os.multi(i);
                std::int64_t flat = static_cast<std::int64_t>(m[0] * il[1] + m[1]);
                std::int64_t sp   = 0, mul = 1;
                for(std::size_t d = 0; d < kd; d++)
                {
                    auto dd = col_major ? kd - 1 - d : d;
                    auto p  = static_cast<std::int64_t>(m[dd + 2] * strides[dd] + pos[dd] * dilations[dd]) -
                             static_cast<std::int64_t>(pads[dd]);
                    sp      = sp * static_cast<std::int64_t>(il[dd + 2]) + p;
                    mul *= static_cast<std::int64_t>(il[dd + 2]);
                }
                idx[i] = flat * mul + sp;
            }
            auto lit = info.add_literal(literal{os, idx});
            if(result)
            {
                auto better = info.add("greater", {s, *result});
                indices     = info.add("where", {better, lit, *indices});
            }
            else
                indices = lit;
        }
        result = result ? info.add("max", {*result, s}) : s;
        std::size_t d = kd;
        while(d > 0 and ++pos[d - 1] == k[d - 1])
            pos[--d] = 0;
        if(d == 0)
            break;
    }
    if(want_indices)
        return {*result, *indices};
    return {*result};
}

std::vector<instruction_ref> parse_pool(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() != 1 or rank_of(args[0]) < 3)
        info.fail("expects 1 input of rank >= 3");
    auto x  = args[0];
    auto kd = rank_of(x) - 2;
    auto kernel = info.get_ints("kernel_shape");
    if(kernel.size() != kd)
        info.fail("kernel_shape must have " + std::to_string(kd) + " values");
    auto k         = size_attr(info, "kernel_shape", kd, 1);
    auto strides   = size_attr(info, "strides", kd, 1);
    auto dilations = size_attr(info, "dilations", kd, 1);
    std::vector<std::size_t> in(lens_of(x).begin() + 2, lens_of(x).end());
    auto pads      = pads_attr(info, in, k, strides, dilations, false);
    bool ceil_mode = info.get_int("ceil_mode", 0) != 0;
    bool dilated   = std::any_of(dilations.begin(), dilations.end(), [](auto d) { return d != 1; });
    std::string mode = info.op_type == "MaxPool" ? "max" : info.op_type == "LpPool" ? "lpnorm" : "average";
    bool want_indices = info.used_outputs > 1;
    if(dilated or want_indices)
    {
        if(mode != "max")
            info.fail("dilations are only supported for MaxPool");
        return sliced_max_pool(info, x, k, strides, dilations, pads, ceil_mode, want_indices);
    }
    if(mode == "average" and info.get_int("count_include_pad", 0) != 0 and
       std::any_of(pads.begin(), pads.end(), [](auto p) { return p != 0; }))
    {
        // Padded zeros count in the average: pad explicitly, then pool without padding.
        std::vector<std::int64_t> padv(2 * rank_of(x), 0);
        for(std::size_t i = 0; i < kd; i++)
        {
            padv[i + 2]               = static_cast<std::int64_t>(pads[i]);
            padv[i + 2 + rank_of(x)] = static_cast<std::int64_t>(pads[i + kd]);
        }
        x    = info.add("pad", {{"pads", padv}}, {x});
        pads = std::vector<std::size_t>(2 * kd, 0);
    }
    return {info.add("pooling",
                     {{"mode", mode},
                      {"padding", pads},
                      {"stride", strides},
                      {"lengths", k},
                      {"ceil_mode", ceil_mode},
                      {"lp_order", info.get_int("p", 2)}},
                     {x})};
}
MIGRAPHX_ONNX_PARSER(parse_pool, "AveragePool", "MaxPool", "LpPool")

std::vector<instruction_ref> parse_max_unpool(const node_info& info, std::vector<instruction_ref> args)
{
    require_op(info, "scatter_none");
    if(args.size() < 2 or rank_of(args[0]) < 3)
        info.fail("expects X of rank >= 3 and I");
    auto x  = args[0];
    auto kd = rank_of(x) - 2;
    // The indices address the default output; a given output_shape adds zeros at the end.
    std::vector<std::size_t> out(lens_of(x).begin(), lens_of(x).begin() + 2);
    auto k       = size_attr(info, "kernel_shape", kd, 1);
    auto strides = size_attr(info, "strides", kd, 1);
    auto pads    = size_attr(info, "pads", 2 * kd, 0);
    for(std::size_t i = 0; i < kd; i++)
    {
        auto full = (lens_of(x)[i + 2] - 1) * strides[i] + k[i];
        if(full < pads[i] + pads[i + kd])
            info.fail("pads are larger than the output");
        out.push_back(full - pads[i] - pads[i + kd]);
    }
    std::vector<std::size_t> given = out;
    if(args.size() > 2 and not info.is_undefined(args[2]))
    {
        given.clear();
        for(auto d : to_int64s(info.require_constant(args[2], "output_shape")))
            given.push_back(static_cast<std::size_t>(std::max<std::int64_t>(d, 0)));
        if(given.size() != rank_of(x))
            info.fail("output_shape must have the input's rank");
    }
    // Scatter X's values at the flat indices I into zeros of the output shape.
    auto n     = product(out);
    auto zeros = info.broadcast_to(info.add_scalar(0, type_of(x)), {n});
    auto idx   = reshape_to(info, info.convert(args[1], shape::int64_type), {args[1]->get_shape().elements()});
    auto upd   = reshape_to(info, x, {x->get_shape().elements()});
    auto r     = reshape_to(info, info.add("scatter_none", {{"axis", 0}}, {zeros, idx, upd}), out);
    if(given == out)
        return {r};
    std::vector<std::int64_t> padv(2 * out.size(), 0);
    for(std::size_t i = 0; i < out.size(); i++)
        padv[out.size() + i] = static_cast<std::int64_t>(given[i]) - static_cast<std::int64_t>(out[i]);
    return {info.add("pad", {{"pads", padv}}, {r})};
}
MIGRAPHX_ONNX_PARSER(parse_max_unpool, "MaxUnpool")

} // namespace
} // namespace onnx
} // namespace migraphx
