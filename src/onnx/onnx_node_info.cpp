// node_info: attribute access, instruction-building helpers and parse-time constant folding.

#include "onnx/onnx_parser.hpp"
#include "passes/pass_utils.hpp"
#include "ops/broadcast_lens.hpp"
#include <algorithm>
#include <unordered_set>

namespace migraphx {
namespace onnx {

namespace {
const pb::AttributeProto& attr_of(const node_info& info, const std::string& name, pb::AttributeProto::AttributeType t)
{
    const auto* a = info.attributes.at(name);
    // Old exporters leave the type unset; accept that.
    if(a->type() != t and a->type() != pb::AttributeProto::UNDEFINED)
        info.fail("attribute '" + name + "' has type " + pb::AttributeProto::AttributeType_Name(a->type()) +
                  ", expected " + pb::AttributeProto::AttributeType_Name(t));
    return *a;
}
} // namespace

void node_info::fail(const std::string& msg) const { throw exception(msg); }

void node_info::check_size(std::size_t n, const std::string& what) const
{
    if(n > (std::size_t{1} << 24))
        fail(what + " is too large (" + std::to_string(n) + " entries)");
}

std::int64_t node_info::get_int(const std::string& attr, std::int64_t def) const
{
    if(not has(attr))
        return def;
    return attr_of(*this, attr, pb::AttributeProto::INT).i();
}

float node_info::get_float(const std::string& attr, float def) const
{
    if(not has(attr))
        return def;
    const auto* a = attributes.at(attr);
    if(a->type() == pb::AttributeProto::INT)
        return static_cast<float>(a->i());
    return attr_of(*this, attr, pb::AttributeProto::FLOAT).f();
}

std::string node_info::get_string(const std::string& attr, const std::string& def) const
{
    if(not has(attr))
        return def;
    return attr_of(*this, attr, pb::AttributeProto::STRING).s();
}

std::vector<std::int64_t> node_info::get_ints(const std::string& attr, std::vector<std::int64_t> def) const
{
    if(not has(attr))
        return def;
    const auto& a = attr_of(*this, attr, pb::AttributeProto::INTS);
    return {a.ints().begin(), a.ints().end()};
}

std::vector<float> node_info::get_floats(const std::string& attr, std::vector<float> def) const
{
    if(not has(attr))
        return def;
    const auto& a = attr_of(*this, attr, pb::AttributeProto::FLOATS);
    return {a.floats().begin(), a.floats().end()};
}

literal node_info::get_tensor(const std::string& attr) const
{
    return parser->parse_tensor(attr_of(*this, attr, pb::AttributeProto::TENSOR).t());
}

const pb::GraphProto& node_info::get_graph(const std::string& attr) const
{
    if(not has(attr))
        fail("missing sub-graph attribute '" + attr + "'");
    return attr_of(*this, attr, pb::AttributeProto::GRAPH).g();
}

instruction_ref node_info::add_instruction(const operation& op, std::vector<instruction_ref> args) const
{
    return mod->add_instruction(op, std::move(args));
}

instruction_ref node_info::add(const std::string& op_name, std::vector<instruction_ref> args) const
{
    return mod->add_instruction(make_op(op_name), std::move(args));
}

instruction_ref node_info::add(const std::string& op_name, const value& attrs, std::vector<instruction_ref> args) const
{
    return mod->add_instruction(make_op(op_name, attrs), std::move(args));
}

instruction_ref node_info::add_literal(literal l) const { return mod->add_literal(std::move(l)); }

instruction_ref node_info::add_scalar(double x, shape::type_t t) const
{
    literal l{shape{t}, std::vector<double>{x}};
    return add_literal(l);
}

instruction_ref node_info::broadcast_to(instruction_ref x, const std::vector<std::size_t>& lens) const
{
    if(x->get_shape().lens() == lens)
        return x;
    return add("multibroadcast", {{"out_lens", lens}}, {x});
}

std::vector<instruction_ref> node_info::broadcast_all(std::vector<instruction_ref> args) const
{
    if(args.empty())
        return args;
    auto lens = args.front()->get_shape().lens();
    for(auto a : args)
        lens = compute_broadcasted_lens(lens, a->get_shape().lens());
    for(auto& a : args)
        a = broadcast_to(a, lens);
    return args;
}

instruction_ref
node_info::add_broadcastable_binary_op(const std::string& op_name, instruction_ref a, instruction_ref b) const
{
    return add_common_op(op_name, {a, b});
}

instruction_ref node_info::add_common_op(const std::string& op_name, std::vector<instruction_ref> args) const
{
    return add(op_name, broadcast_all(std::move(args)));
}

instruction_ref node_info::convert(instruction_ref x, shape::type_t t) const
{
    if(x->get_shape().type() == t)
        return x;
    return add("convert", {{"target_type", static_cast<std::int64_t>(t)}}, {x});
}

instruction_ref node_info::make_contiguous(instruction_ref x) const
{
    if(x->get_shape().standard())
        return x;
    return add("contiguous", {x});
}

std::optional<argument> node_info::eval(instruction_ref x) const { return parser->eval(x); }

std::optional<argument> node_info::eval_declared(instruction_ref x) const { return parser->eval(x, true); }

argument node_info::require_constant(instruction_ref x, const std::string& what) const
{
    if(is_undefined(x))
        fail("input '" + what + "' is missing");
    auto r = eval(x);
    if(not r)
        r = eval_declared(x);
    if(not r)
    {
        // Name the graph inputs the value depends on, so the caller knows what to fix.
        std::vector<instruction_ref> params;
        std::vector<instruction_ref> stack{x};
        std::unordered_map<const instruction*, bool> seen;
        while(not stack.empty())
        {
            auto ins = stack.back();
            stack.pop_back();
            if(seen[&*ins])
                continue;
            seen[&*ins] = true;
            if(ins->name() == "@param")
                params.push_back(ins);
            for(auto in : ins->inputs())
                stack.push_back(in);
        }
        std::string source;
        for(const auto& kv : *scope)
            if(std::find(params.begin(), params.end(), kv.second) != params.end())
                source += (source.empty() ? " (" : ", ") + std::string("graph input '") + kv.first + "'";
        if(not source.empty())
            source += ")";
        fail("input '" + what + "' must be a constant" + source +
             "; static shapes need it at compile time: make it an initializer or set it through "
             "onnx_options::map_input_constants");
    }
    return *r;
}

bool node_info::is_undefined(instruction_ref x) const { return x->name() == "undefined"; }

namespace {
/// Stands for a sequence value; removed at the end of parsing.
struct sequence_op
{
    std::string name() const { return "onnx_sequence"; }
    shape compute_shape(const std::vector<shape>&) const { return {}; }
};
} // namespace

instruction_ref node_info::make_sequence(std::vector<instruction_ref> elements) const
{
    auto s = mod->add_instruction(operation{sequence_op{}}, {});
    parser->sequences[&*s] = std::move(elements);
    return s;
}

const std::vector<instruction_ref>& node_info::get_sequence(instruction_ref x) const
{
    auto it = parser->sequences.find(&*x);
    if(it == parser->sequences.end())
        fail("expects a sequence input");
    return it->second;
}

std::optional<argument> onnx_parser::eval(instruction_ref x, bool declared) const
{
    // Folding is a convenience: it is skipped for values too large to be worth holding twice.
    constexpr std::size_t max_fold_bytes = std::size_t{1} << 28;
    auto& cache = declared ? folded_declared : folded;
    std::vector<std::pair<instruction_ref, bool>> stack{{x, false}};
    while(not stack.empty())
    {
        auto [ins, expanded] = stack.back();
        if(cache.count(&*ins) > 0)
        {
            stack.pop_back();
            continue;
        }
        if(ins->name() == "@literal")
        {
            cache[&*ins] = ins->get_literal().get_argument();
            stack.pop_back();
            continue;
        }
        if(declared and ins->name() == "dimensions_of")
        {
            // Its input's declared lens: the op reads nothing but the shape.
            auto v    = ins->get_operator().to_value();
            auto lens = ins->inputs().front()->get_shape().lens();
            auto b    = v.at("start").to<std::size_t>();
            auto e    = v.at("end").to<std::size_t>();
            std::vector<std::int64_t> dims(lens.begin() + b, lens.begin() + e);
            cache[&*ins] = literal{shape{shape::int64_type, std::vector<std::size_t>{dims.size()}}, dims}.get_argument();
            stack.pop_back();
            continue;
        }
        if(ins->name().front() == '@' or ins->name() == "undefined" or not ins->module_inputs().empty() or
           (ins->get_shape().type() != shape::tuple_type and ins->get_shape().bytes() > max_fold_bytes))
            return std::nullopt;
        if(not expanded)
        {
            stack.back().second = true;
            for(auto in : ins->inputs())
                if(cache.count(&*in) == 0)
                    stack.emplace_back(in, false);
            continue;
        }
        std::vector<argument> args;
        for(auto in : ins->inputs())
            args.push_back(cache.at(&*in));
        try
        {
            cache[&*ins] = ins->get_operator().compute(ins->get_shape(), args);
        }
        catch(const std::exception&)
        {
            return std::nullopt;
        }
        stack.pop_back();
    }
    return cache.at(&*x);
}

namespace {

/// x and its ancestors, inputs before users.
std::vector<instruction_ref> ancestors_in_order(instruction_ref x)
{
    std::vector<instruction_ref> order;
    std::unordered_set<const instruction*> seen;
    std::vector<std::pair<instruction_ref, bool>> stack{{x, false}};
    while(not stack.empty())
    {
        auto [i, expanded] = stack.back();
        stack.pop_back();
        if(expanded)
        {
            order.push_back(i);
            continue;
        }
        if(not seen.insert(&*i).second)
            continue;
        stack.emplace_back(i, true);
        for(auto in : i->inputs())
            if(seen.count(&*in) == 0)
                stack.emplace_back(in, false);
    }
    return order;
}

/// For an elementwise op or a broadcast that refused its probed input shapes (its other input was
/// broadcast to the declared length at parse time): the output dims that vary, where an input's
/// dim does (inputs aligned to the output's last dims). nullopt for any other op.
std::optional<std::vector<std::size_t>> varying_where_inputs_do(instruction_ref i, const std::vector<shape>& inputs)
{
    const auto& out = i->get_shape().lens();
    if(i->name() != "multibroadcast" and i->name() != "broadcast" and
       not std::all_of(i->inputs().begin(), i->inputs().end(), [&](auto in) { return in->get_shape().lens() == out; }))
        return std::nullopt;
    std::vector<std::size_t> axes;
    for(std::size_t k = 0; k < inputs.size(); k++)
    {
        const auto& was = i->inputs()[k]->get_shape().lens();
        const auto& now = inputs[k].lens();
        if(was.size() != now.size() or was.size() > out.size())
            return std::nullopt;
        for(std::size_t d = 0; d < was.size(); d++)
            if(was[d] != now[d])
                axes.push_back(out.size() - was.size() + d);
    }
    return axes;
}

} // namespace

std::vector<bool> dynamic_dims(instruction_ref x)
{
    const auto& declared = x->get_shape().lens();
    std::vector<bool> all(declared.size(), true);
    auto order = ancestors_in_order(x);
    std::vector<bool> dynamic(declared.size(), false);
    for(std::size_t probe : {1, 2})
    {
        std::unordered_map<const instruction*, shape> probed;
        // tuples computed from probed values or data-dependent sizes: the dims of their elements
        // that vary (every dim when empty)
        std::unordered_map<const instruction*, std::vector<std::size_t>> tuples;
        // i's output with its dims `axes` (every dim when empty) at the probe length
        auto probe_source = [&](instruction_ref i, std::vector<std::size_t> axes) {
            auto lens = i->get_shape().lens();
            if(axes.empty() or std::any_of(axes.begin(), axes.end(), [&](auto d) { return d >= lens.size(); }))
            {
                axes.clear();
                for(std::size_t d = 0; d < lens.size(); d++)
                    axes.push_back(d);
            }
            for(auto d : axes)
                lens.at(d) = probe;
            probed[&*i] = shape{i->get_shape().type(), lens};
        };
        auto is_probed = [&](instruction_ref in) { return probed.count(&*in) > 0; };
        for(auto i : order)
        {
            auto a = i->get_operator().attributes();
            // a data-dependent result, or topk with its k read at run time (its sizes input)
            bool run_time_k = i->name() == "topk" and i->inputs().size() == 2;
            bool source     = pass_utils::has_dynamic_output(i) or run_time_k;
            bool touched = std::any_of(i->inputs().begin(), i->inputs().end(), [&](auto in) {
                return is_probed(in) or tuples.count(&*in) > 0;
            });
            if(i->get_shape().type() == shape::tuple_type)
            {
                // not probed itself; topk with a run-time k varies along its axis only
                if(run_time_k and not is_probed(i->inputs().front()))
                {
                    auto axis = i->get_operator().to_value().at("axis").to<std::int64_t>();
                    auto rank = static_cast<std::int64_t>(i->inputs().front()->get_shape().lens().size());
                    tuples[&*i] = {static_cast<std::size_t>(axis < 0 ? axis + rank : axis)};
                }
                else if(source or touched)
                    tuples[&*i] = {};
                continue;
            }
            if(i->inputs().size() == 1 and tuples.count(&*i->inputs().front()) > 0)
            {
                probe_source(i, tuples.at(&*i->inputs().front()));
                continue;
            }
            if(source and i->name() == "reshape_with_dims" and i->inputs().back()->name() == "@literal")
            {
                // sizes given as constants (a -1 or a copied 0 over a data-dependent input): only
                // those vary
                std::vector<std::size_t> axes;
                auto sizes = i->inputs().back()->get_literal().to_vector<std::int64_t>();
                bool allowzero = i->get_operator().to_value().at("allowzero").to<bool>();
                for(std::size_t d = 0; d < sizes.size(); d++)
                    if(sizes[d] == -1 or (sizes[d] == 0 and not allowzero))
                        axes.push_back(d);
                probe_source(i, axes);
                continue;
            }
            if(source)
            {
                probe_source(i, a.contains("dynamic_axes") ? a.at("dynamic_axes").to_vector<std::size_t>()
                                                           : std::vector<std::size_t>{});
                continue;
            }
            if(not touched)
                continue;
            std::vector<shape> inputs;
            for(auto in : i->inputs())
                inputs.push_back(probed.count(&*in) > 0 ? probed.at(&*in) : in->get_shape());
            try
            {
                if(i->module_inputs().empty())
                {
                    probed[&*i] = i->get_operator().compute_shape(inputs);
                    continue;
                }
            }
            catch(const std::exception&)
            {
                // refused: varies where its inputs do (elementwise, broadcast), else in every dim
                if(auto axes = varying_where_inputs_do(i, inputs))
                {
                    if(axes->empty())
                        probed[&*i] = i->get_shape(); // refused for another reason: unchanged
                    else
                        probe_source(i, *axes);
                    continue;
                }
            }
            probe_source(i, {}); // an op with sub-modules, or one refusing for other reasons
        }
        if(probed.count(&*x) == 0)
            continue;
        const auto& lens = probed.at(&*x).lens();
        if(lens.size() != declared.size())
            return all;
        for(std::size_t d = 0; d < lens.size(); d++)
            dynamic[d] = dynamic[d] or lens[d] != declared[d];
    }
    return dynamic;
}

bool from_dynamic_output(instruction_ref x)
{
    std::vector<instruction_ref> todo{x};
    std::unordered_set<const instruction*> seen;
    while(not todo.empty())
    {
        auto i = todo.back();
        todo.pop_back();
        if(not seen.insert(&*i).second)
            continue;
        if(pass_utils::has_dynamic_output(i))
            return true;
        todo.insert(todo.end(), i->inputs().begin(), i->inputs().end());
    }
    return false;
}

} // namespace onnx
} // namespace migraphx
