// node_info: attribute access, instruction-building helpers and parse-time constant folding.

#include "onnx/onnx_parser.hpp"
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
        auto a = i->get_operator().attributes();
        if(a.is_object() and a.contains("dynamic_output") and a.at("dynamic_output").get_bool())
            return true;
        todo.insert(todo.end(), i->inputs().begin(), i->inputs().end());
    }
    return false;
}

} // namespace onnx
} // namespace migraphx
