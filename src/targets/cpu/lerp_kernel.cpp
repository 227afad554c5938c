#include "targets/cpu/lerp_kernel.hpp"
#include "targets/cpu/dnnl_context.hpp"
#include "targets/cpu/omp_region.hpp"
#include "passes/pass_utils.hpp"
#include <migraphx/errors.hpp>
#include <migraphx/instruction.hpp>
#include <migraphx/literal.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/register_op.hpp>
#include <optional>

namespace migraphx {
namespace cpu {

shape lerp_kernel::compute_shape(const std::vector<shape>& all) const
{
    auto in = own_inputs(all, planned);
    if(in.size() != 5 or not in[0].standard() or in[0].type() != shape::float_type or axis < 0 or
       static_cast<std::size_t>(axis) >= in[0].lens().size())
        MIGRAPHX_THROW("cpu::lerp: expects standard float data, an axis within its rank and four vectors");
    auto n = in[1].elements();
    for(std::size_t k = 1; k < 5; k++)
        if(in[k].lens().size() != 1 or not in[k].standard() or in[k].elements() != n or
           in[k].type() != (k % 2 == 1 ? shape::int64_type : shape::float_type))
            MIGRAPHX_THROW("cpu::lerp: indices (int64) and weights (float) must be vectors of one length");
    auto l = in[0].lens();
    l[static_cast<std::size_t>(axis)] = n;
    return planned_shape(name(), {shape::float_type, l}, all, planned);
}

argument lerp_kernel::compute(const shape& out, const std::vector<argument>& args) const
{
    const auto& d = args[0].get_shape().lens();
    auto a        = static_cast<std::size_t>(axis);
    auto len      = static_cast<std::int64_t>(d[a]);
    std::size_t inner = 1, outer = 1;
    for(std::size_t i = a + 1; i < d.size(); i++)
        inner *= d[i];
    for(std::size_t i = 0; i < a; i++)
        outer *= d[i];
    // Read in place (no copy a run); lower_lerp gives them non-negative.
    const auto* i0 = reinterpret_cast<const std::int64_t*>(args[1].data());
    const auto* i1 = reinterpret_cast<const std::int64_t*>(args[3].data());
    auto n         = args[1].get_shape().elements();
    for(const auto* v : {i0, i1})
        for(std::size_t j = 0; j < n; j++)
            if(v[j] < 0 or v[j] >= len)
                MIGRAPHX_THROW("cpu::lerp: index " + std::to_string(v[j]) + " is out of range for axis " +
                               std::to_string(axis) + " of length " + std::to_string(len));
    const auto* w0 = reinterpret_cast<const float*>(args[2].data());
    const auto* w1 = reinterpret_cast<const float*>(args[4].data());
    argument result = result_buffer(out, args, planned);
    const auto* x   = reinterpret_cast<const float*>(args[0].data());
    auto* y         = reinterpret_cast<float*>(result.data());
    auto rows       = static_cast<std::int64_t>(outer);
    bool parallel   = outer * n * inner > (1u << 15);
    if(inner == 1) // along the last axis: a row at a time
    {
        omp_for(parallel, rows, [&](std::int64_t r) {
            const float* from = x + static_cast<std::size_t>(r) * d[a];
            float* to         = y + static_cast<std::size_t>(r) * n;
            for(std::size_t j = 0; j < n; j++)
                to[j] = from[i0[j]] * w0[j] + from[i1[j]] * w1[j];
        });
        return result;
    }
    // Elsewhere whole inner blocks (rows of an image) a time, vectorised over the block.
    omp_for(parallel, rows * static_cast<std::int64_t>(n), [&](std::int64_t rj) {
        auto r            = static_cast<std::size_t>(rj) / n;
        auto j            = static_cast<std::size_t>(rj) % n;
        const float* base = x + r * d[a] * inner;
        const float* p0   = base + static_cast<std::size_t>(i0[j]) * inner;
        const float* p1   = base + static_cast<std::size_t>(i1[j]) * inner;
        float* to         = y + (r * n + j) * inner;
        float a0 = w0[j], a1 = w1[j];
        for(std::size_t k = 0; k < inner; k++)
            to[k] = p0[k] * a0 + p1[k] * a1;
    });
    return result;
}

MIGRAPHX_REGISTER_OP(lerp_kernel)

namespace {

/// A gather of literal indices: its data, axis (non-negative) and the indices.
struct gathered
{
    instruction_ref data;
    std::int64_t axis = 0;
    instruction_ref indices;
};

std::optional<gathered> literal_gather(instruction_ref g)
{
    if(g->name() != "gather" or g->inputs()[1]->name() != "@literal" or g->inputs()[1]->get_shape().lens().size() != 1)
        return std::nullopt;
    const auto& s = g->inputs()[0]->get_shape();
    if(s.dynamic() or s.type() != shape::float_type or not s.standard())
        return std::nullopt;
    auto axis = g->get_operator().to_value().at("axis").get_int64();
    auto rank = static_cast<std::int64_t>(s.lens().size());
    if(axis < -rank or axis >= rank)
        return std::nullopt;
    return gathered{g->inputs()[0], axis < 0 ? axis + rank : axis, g->inputs()[1]};
}

/// The weights along `axis` of w, a literal (or a broadcast of one) of out's lens that varies
/// along that axis only; nullopt otherwise.
std::optional<std::vector<float>> axis_weights(instruction_ref w, std::size_t axis, const shape& out)
{
    if(w->name() == "multibroadcast" or w->name() == "broadcast")
        w = w->inputs().front();
    if(w->name() != "@literal" or w->get_shape().type() != shape::float_type)
        return std::nullopt;
    const auto& wl = w->get_shape().lens();
    const auto& ol = out.lens();
    if(wl.size() != ol.size())
        return std::nullopt;
    for(std::size_t i = 0; i < wl.size(); i++)
        if(wl[i] != (i == axis ? ol[i] : 1))
            return std::nullopt;
    return w->get_literal().to_vector<float>();
}

/// mul(gather, weights) in either order: the gather and the weights.
std::optional<std::pair<gathered, std::vector<float>>> weighted_gather(instruction_ref mul)
{
    if(mul->name() != "mul" or mul->outputs().size() != 1)
        return std::nullopt;
    for(int k = 0; k < 2; k++)
    {
        auto g = literal_gather(mul->inputs()[k]);
        if(not g or mul->inputs()[k]->outputs().size() != 1)
            continue;
        if(auto w = axis_weights(mul->inputs()[1 - k], static_cast<std::size_t>(g->axis), mul->get_shape()))
            return std::make_pair(*g, *w);
    }
    return std::nullopt;
}

} // namespace

void lower_lerp::apply(module& m) const
{
    auto dd = pass_utils::data_dependent(m); // run by the reference ops, at their actual sizes
    for(auto ins = m.begin(); ins != m.end(); ++ins)
    {
        if(dd.count(&*ins) > 0)
            continue;
        if(ins->name() != "add" or ins->get_shape().type() != shape::float_type or ins->get_shape().dynamic())
            continue;
        auto a = weighted_gather(ins->inputs()[0]);
        auto b = weighted_gather(ins->inputs()[1]);
        if(not a or not b or a->first.data != b->first.data or a->first.axis != b->first.axis)
            continue;
        auto n = a->second.size();
        shape idx{shape::int64_type, {n}};
        shape wts{shape::float_type, {n}};
        // Negative indices (ONNX's count from the end) made non-negative once, here; an index
        // out of range stays as it is, for the op to report.
        auto len     = static_cast<std::int64_t>(a->first.data->get_shape().lens()[static_cast<std::size_t>(a->first.axis)]);
        auto indices = [&](instruction_ref l) {
            auto v = l->get_literal().to_vector<std::int64_t>();
            for(auto& k : v)
                k = (k < 0 and k >= -len) ? k + len : k;
            return m.add_literal(literal{idx, v});
        };
        m.replace_instruction(ins,
                              operation{lerp_kernel{a->first.axis}},
                              {a->first.data,
                               indices(a->first.indices),
                               m.add_literal(literal{wts, a->second}),
                               indices(b->first.indices),
                               m.add_literal(literal{wts, b->second})});
    }
}

} // namespace cpu
} // namespace migraphx
