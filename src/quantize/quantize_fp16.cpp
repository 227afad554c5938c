// quantize_fp16: float compute becomes half compute. Each converted op reads half versions of
// its float inputs (float literals become half literals; other float values get one convert)
// and its float result is converted back once, for users left in float; chains of converted ops
// pass half values directly, so converts remain only at the edges of the half region.
// Reductions and softmax keep their precision through the reference ops' double accumulation.
#include "ir/dynamic_program.hpp"
#include <migraphx/quantization.hpp>
#include <migraphx/make_op.hpp>
#include "passes/dead_code_elimination.hpp"
#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace migraphx {
namespace {

struct fp16_rewriter
{
    module& m;
    std::vector<std::string> names;
    std::unordered_map<const instruction*, instruction_ref> half_of{};

    bool selected(instruction_ref ins) const
    {
        auto n = ins->name();
        if(n.empty() or n.front() == '@' or n == "convert" or not ins->module_inputs().empty() or broadcast_view(ins))
            return false;
        if(ins->get_shape().dynamic() or (is_tuple(ins) and not split_float_tuple(ins)))
            return false;
        return std::find(names.begin(), names.end(), "all") != names.end() or
               std::find(names.begin(), names.end(), n) != names.end();
    }

    static bool is_float(instruction_ref x) { return x->get_shape().type() == shape::float_type; }
    /// A broadcast computes nothing: its half form is the same view of its input's half form
    /// (to_half), so it keeps its zero strides. Rewritten like other ops, it became a convert back
    /// to float, a packed copy, which ops that take broadcasts only refuse (layernorm's scale and
    /// shift: quantize_fp16 threw on such a program).
    static bool broadcast_view(instruction_ref x)
    {
        return (x->name() == "multibroadcast" or x->name() == "broadcast") and x->inputs().size() == 1 and
               not x->get_shape().dynamic();
    }
    static bool is_tuple(instruction_ref x) { return x->get_shape().type() == shape::tuple_type; }

    /// A tuple with float results taken apart only by get_tuple_elem (rnn, gru, lstm; topk's
    /// values and indices): its float results become half, and the users get them back in float.
    static bool split_float_tuple(instruction_ref x)
    {
        const auto& subs = x->get_shape().sub_shapes();
        return std::any_of(subs.begin(), subs.end(), [](const shape& s) { return s.type() == shape::float_type; }) and
               std::all_of(x->outputs().begin(), x->outputs().end(),
                           [](instruction_ref u) { return u->name() == "get_tuple_elem"; });
    }

    instruction_ref to_half(instruction_ref x)
    {
        auto it = half_of.find(&*x);
        if(it != half_of.end())
            return it->second;
        instruction_ref h;
        if(x->name() == "@literal")
        {
            // Finite constants beyond half's range become its largest finite value, not inf:
            // masks written as (1 - mask) * finfo(float).min would otherwise give 0 * -inf = NaN.
            constexpr float half_max = 65504.0f;
            auto v = x->get_literal().to_vector<float>();
            std::vector<half> hv;
            hv.reserve(v.size());
            for(float f : v)
                hv.emplace_back(std::isfinite(f) ? std::clamp(f, -half_max, half_max) : f);
            h = m.insert_literal(std::next(x), literal{shape{shape::half_type, x->get_shape().lens()}, hv});
        }
        else if(broadcast_view(x) and is_float(x->inputs().front()))
            h = m.insert_instruction(std::next(x), x->get_operator(), {to_half(x->inputs().front())});
        else
            h = m.insert_instruction(std::next(x), make_op("convert", {{"target_type", shape::half_type}}), {x});
        half_of[&*x] = h;
        return h;
    }

    void rewrite(instruction_ref ins)
    {
        const auto& in = ins->inputs();
        if(std::none_of(in.begin(), in.end(), is_float) or
           std::any_of(in.begin(), in.end(), [](auto x) { return x->get_shape().type() == shape::double_type; }))
            return;
        // Ops that do not take half (the reference op says so) stay in float.
        std::vector<shape> shapes;
        for(auto x : in)
            shapes.push_back(is_float(x) ? x->get_shape().with_type(shape::half_type) : x->get_shape());
        try
        {
            ins->get_operator().compute_shape(shapes);
        }
        catch(const std::exception&)
        {
            return;
        }
        std::vector<instruction_ref> args;
        for(auto x : in)
            args.push_back(is_float(x) ? to_half(x) : x);
        auto h = m.insert_instruction(ins, ins->get_operator(), args);
        if(is_tuple(ins))
        {
            auto users = ins->outputs(); // a copy: the loop changes the list
            for(auto u : users)
            {
                auto part = m.insert_instruction(u, u->get_operator(), {h});
                if(is_float(u))
                {
                    m.replace_instruction(u, make_op("convert", {{"target_type", shape::float_type}}), {part});
                    half_of[&*u] = part;
                }
                else
                    m.replace_instruction(u, part); // topk's indices: the same type either way
            }
        }
        else if(is_float(ins))
        {
            m.replace_instruction(ins, make_op("convert", {{"target_type", shape::float_type}}), {h});
            half_of[&*ins] = h;
        }
        else
            m.replace_instruction(ins, h);
    }
};

} // namespace

void quantize_fp16(program& prog, const std::vector<std::string>& ins_names)
{
    if(prog.is_compiled())
        MIGRAPHX_THROW("quantize_fp16: the program is already compiled; quantize before compile");
    auto* m = prog.get_main_module();
    fp16_rewriter r{*m, ins_names};
    for(auto ins = m->begin(); ins != m->end(); ++ins)
        if(r.selected(ins))
            r.rewrite(ins);
    dead_code_elimination{}.apply(*m);
    // A dynamic program's other shapes are built later from its source: they get the same.
    record_transform(prog, "quantize_fp16", value(ins_names));
}

namespace {
const bool registered = [] {
    register_variant_transform("quantize_fp16", [](program& p, const value& names) {
        quantize_fp16(p, names.to_vector<std::string>());
    });
    return true;
}();
} // namespace

} // namespace migraphx
