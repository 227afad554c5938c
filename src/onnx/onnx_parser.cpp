// The ONNX importer: model loading, graphs, nodes and the public parse_onnx API.

#include "onnx/onnx_parser.hpp"
#include "onnx/onnx_dynamic.hpp"
#include <google/protobuf/io/coded_stream.h>
#include <algorithm>
#include <climits>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

namespace migraphx {
namespace onnx {

namespace {

/// The placeholder of an omitted optional input; removed at the end of parsing if unused.
struct undefined_op
{
    std::string name() const { return "undefined"; }
    shape compute_shape(const std::vector<shape>&) const { return {}; }
    argument compute(const shape&, const std::vector<argument>&) const { return {}; }
};

/// An operator the parser does not know, kept when onnx_options::skip_unknown_operators is set.
struct unknown_op
{
    std::string op = "unknown";
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.op, "op");
    }
    std::string name() const { return "unknown:" + op; }
    shape compute_shape(const std::vector<shape>& inputs) const
    {
        if(inputs.empty())
            return {};
        return inputs.front();
    }
};

std::map<std::string, parse_fn>& parser_table()
{
    static std::map<std::string, parse_fn> table;
    return table;
}

std::string node_label(const pb::NodeProto& node, std::int64_t opset)
{
    return node.op_type() + " node '" + node.name() + "' (opset " + std::to_string(opset) + ")";
}

} // namespace

void register_onnx_parser(const std::vector<std::string>& names, parse_fn fn)
{
    for(const auto& n : names)
        parser_table()[n] = fn;
}

const parse_fn* find_onnx_parser(const std::string& op_type)
{
    auto it = parser_table().find(op_type);
    return it == parser_table().end() ? nullptr : &it->second;
}

instruction_ref onnx_parser::undefined(module* mod) { return mod->add_instruction(operation{undefined_op{}}, {}); }

shape onnx_parser::parse_input_shape(const pb::ValueInfoProto& input)
{
    const auto& name = input.name();
    if(not input.type().has_tensor_type())
        throw exception("input '" + name + "': only tensor inputs are supported (not sequences, maps or optionals)");
    const auto& tt = input.type().tensor_type();
    auto type      = get_onnx_type(tt.elem_type());
    auto it = options.map_input_dims.find(name);
    if(it != options.map_input_dims.end())
    {
        if(tt.has_shape() and static_cast<std::size_t>(tt.shape().dim_size()) != it->second.size())
            throw exception("input '" + name + "': map_input_dims gives " + std::to_string(it->second.size()) +
                            " dims but the model's input has rank " + std::to_string(tt.shape().dim_size()));
        return it->second.empty() ? shape{type} : shape{type, it->second};
    }
    if(not tt.has_shape() or tt.shape().dim_size() == 0)
        return shape{type};
    std::vector<std::size_t> dims;
    for(const auto& d : tt.shape().dim())
    {
        if(d.has_dim_value() and d.dim_value() >= 0)
        {
            dims.push_back(static_cast<std::size_t>(d.dim_value()));
            continue;
        }
        if(d.has_dim_value() and d.dim_value() < 0)
            throw exception("input '" + name + "': negative dim " + std::to_string(d.dim_value()));
        // A symbolic (or unknown) dim: the same symbol gets the same value everywhere.
        std::size_t v = options.default_dim_value != 0 ? options.default_dim_value : 1;
        if(d.has_dim_param() and not d.dim_param().empty())
        {
            auto sym = symbolic_dims.find(d.dim_param());
            if(sym == symbolic_dims.end())
                symbolic_dims[d.dim_param()] = v;
            else
                v = sym->second;
        }
        dims.push_back(v);
    }
    return shape{type, dims};
}

std::vector<instruction_ref> onnx_parser::parse_node(module* mod, const pb::NodeProto& node, const scope_map& scope)
{
    const auto& domain = node.domain();
    std::int64_t opset = 1;
    auto dom           = opsets.find(domain == "ai.onnx" ? "" : domain);
    if(dom != opsets.end())
        opset = dom->second;
    node_info info;
    info.op_type     = node.op_type();
    info.name        = node.name();
    info.opset       = opset;
    info.num_outputs = node.output_size();
    info.used_outputs = 0;
    for(int i = 0; i < node.output_size(); i++)
        if(not node.output(i).empty())
            info.used_outputs = i + 1;
    info.mod         = mod;
    info.parser      = this;
    info.scope       = &scope;
    for(const auto& a : node.attribute())
        info.attributes[a.name()] = &a;

    std::vector<instruction_ref> args;
    for(const auto& in : node.input())
    {
        if(in.empty())
        {
            args.push_back(undefined(mod));
            continue;
        }
        auto it = scope.find(in);
        if(it == scope.end())
            throw exception(node_label(node, opset) + ": input '" + in + "' is not defined before the node");
        args.push_back(it->second);
    }
    while(not args.empty() and args.back()->name() == "undefined")
        args.pop_back();

    const parse_fn* fn = nullptr;
    if(domain.empty() or domain == "ai.onnx")
        fn = find_onnx_parser(node.op_type());
    if(fn == nullptr)
    {
        if(options.skip_unknown_operators)
            return {mod->add_instruction(operation{unknown_op{node.op_type()}}, args)};
        throw exception(node_label(node, opset) + ": unknown operator" +
                        (domain.empty() ? std::string{} : " in domain '" + domain + "'") +
                        " (see get_onnx_operators() for the supported ones)");
    }
    // Unrolled loops and inlined sub-graphs multiply instructions: bound the total.
    if(mod->size() > (std::size_t{1} << 22))
        throw exception(node_label(node, opset) + ": the model unrolls to too many instructions");
    try
    {
        return (*fn)(info, args);
    }
    catch(const std::exception& e)
    {
        throw exception(node_label(node, opset) + ": " + e.what());
    }
}

std::vector<instruction_ref>
onnx_parser::parse_graph_nodes(module* mod, const pb::GraphProto& g, scope_map& scope, bool initializers)
{
    for(int i = 0; initializers and i < g.initializer_size(); i++)
        scope[g.initializer(i).name()] = mod->add_literal(parse_tensor(g.initializer(i)));
    for(const auto& node : g.node())
    {
        auto results = parse_node(mod, node, scope);
        for(int i = 0; i < node.output_size(); i++)
        {
            const auto& out = node.output(i);
            if(out.empty())
                continue;
            if(static_cast<std::size_t>(i) >= results.size())
                throw exception(node_label(node, opsets[""]) + ": output '" + out + "' (#" + std::to_string(i) +
                                ") is not supported; the node gives " + std::to_string(results.size()) +
                                " output(s)");
            scope[out] = results[i];
        }
    }
    std::vector<instruction_ref> outputs;
    for(const auto& out : g.output())
    {
        auto it = scope.find(out.name());
        if(it == scope.end())
            throw exception("graph '" + g.name() + "': output '" + out.name() + "' is not produced by any node");
        outputs.push_back(it->second);
    }
    return outputs;
}

std::vector<instruction_ref> onnx_parser::inline_subgraph(module* mod,
                                                          const pb::GraphProto& g,
                                                          const scope_map& outer,
                                                          const std::vector<instruction_ref>& args)
{
    if(subgraph_depth > 64)
        throw exception("sub-graphs are nested too deeply");
    if(static_cast<std::size_t>(g.input_size()) != args.size())
        throw exception("sub-graph '" + g.name() + "' takes " + std::to_string(g.input_size()) + " inputs, given " +
                        std::to_string(args.size()));
    scope_map scope = outer;
    for(std::size_t i = 0; i < args.size(); i++)
        scope[g.input(static_cast<int>(i)).name()] = args[i];
    subgraph_depth++;
    struct restore
    {
        std::size_t& d;
        ~restore() { d--; }
    } r{subgraph_depth};
    return parse_graph_nodes(mod, g, scope);
}

void onnx_parser::parse_model(const pb::ModelProto& model)
{
    if(model.ir_version() <= 0 or not model.has_graph())
        throw exception("not an ONNX model (no ir_version or no graph)");
    for(const auto& o : model.opset_import())
        opsets[o.domain() == "ai.onnx" ? "" : o.domain()] = o.version();
    if(opsets.count("") == 0)
        opsets[""] = 17; // no opset given: the latest this parser knows

    const auto& g = model.graph();
    auto* mm      = prog.get_main_module();
    // As MIGraphX: initializers first, then the inputs that are not initializers, then the nodes.
    scope_map scope;
    for(const auto& t : g.initializer())
        scope[t.name()] = mm->add_literal(parse_tensor(t));
    for(const auto& input : g.input())
    {
        const auto& name = input.name();
        if(scope.count(name) > 0)
            continue; // an initializer: a constant, not an input
        auto s = parse_input_shape(input);
        auto c = options.map_input_constants.find(name);
        if(c == options.map_input_constants.end())
        {
            scope[name] = mm->add_parameter(name, s);
            continue;
        }
        if(c->second.get_shape().type() != s.type())
            throw exception("input '" + name + "': map_input_constants gives type " +
                            c->second.get_shape().type_string() + " but the model's input has type " +
                            s.type_string());
        scope[name] = mm->add_literal(literal{c->second});
    }
    auto outputs = parse_graph_nodes(mm, g, scope, false);
    for(auto out : outputs)
        if(out->name() == "onnx_sequence")
            throw exception("graph outputs that are sequences are not supported");
    std::vector<std::string> names;
    for(const auto& out : g.output())
        names.push_back(out.name());
    mm->add_return(outputs);
    prog.set_output_names(names);
    // Drop the placeholders of omitted inputs and of sequences that no op kept.
    for(auto ins = mm->begin(); ins != mm->end();)
    {
        auto next = std::next(ins);
        if((ins->name() == "undefined" or ins->name() == "onnx_sequence") and ins->outputs().empty())
            mm->remove_instruction(ins);
        ins = next;
    }
}

namespace {

program parse_model_proto(const pb::ModelProto& model, const onnx_options& options, const std::string& dir)
{
    onnx_parser parser;
    parser.options   = options;
    parser.model_dir = dir;
    try
    {
        parser.parse_model(model);
    }
    catch(const std::exception& e)
    {
        if(options.print_program_on_error)
            std::cerr << "parse_onnx: the program parsed so far:\n" << parser.prog << std::endl;
        if(dynamic_cast<const exception*>(&e) != nullptr)
            throw;
        throw exception(std::string("parse_onnx: ") + e.what());
    }
    return std::move(parser.prog);
}

pb::ModelProto read_model(const void* data, std::size_t size)
{
    if(data == nullptr and size > 0)
        throw exception("parse_onnx_buffer: null data");
    if(size > static_cast<std::size_t>(INT_MAX))
        throw exception("parse_onnx: model is larger than 2 GiB; store its weights as external data");
    google::protobuf::io::CodedInputStream stream(static_cast<const std::uint8_t*>(data), static_cast<int>(size));
    stream.SetTotalBytesLimit(INT_MAX);
    stream.SetRecursionLimit(256);
    pb::ModelProto model;
    if(not model.ParseFromCodedStream(&stream) or not stream.ConsumedEntireMessage())
        throw exception("parse_onnx: the data is not a valid ONNX model (protobuf parse failed)");
    return model;
}

/// A static program, or a dynamic one (ir/dynamic_program.hpp) when some input has a range;
/// owned holds data already (or is null, and data is copied if the program needs it).
program parse_bytes(const void* data,
                    std::size_t size,
                    const onnx_options& options,
                    const std::string& dir,
                    std::shared_ptr<const std::string> owned)
{
    auto model  = read_model(data, size);
    auto ranges = dynamic_input_ranges(model, options);
    if(ranges.empty())
        return parse_model_proto(model, options_at(options, {}), dir);
    auto p = parse_model_proto(model, options_at(options, max_dims_of(ranges)), dir);
    if(owned == nullptr)
        owned = std::make_shared<const std::string>(static_cast<const char*>(data), size);
    attach_onnx_source(p, std::move(owned), options, dir, std::move(ranges));
    return p;
}

} // namespace

program parse_static_bytes(const void* data, std::size_t size, const onnx_options& options, const std::string& dir)
{
    return parse_model_proto(read_model(data, size), options_at(options, {}), dir);
}

} // namespace onnx

namespace {

/// The whole file, or an exception naming `who` and the file.
std::string read_whole_file(const std::string& path, const std::string& who)
{
    std::ifstream f(path, std::ios::binary);
    if(not f)
        throw exception(who + ": cannot open '" + path + "'");
    std::stringstream ss;
    ss << f.rdbuf();
    if(f.bad())
        throw exception(who + ": cannot read '" + path + "'");
    return ss.str();
}

/// The folder a file is in (where its external data lives): "" for a bare name.
std::string folder_of(const std::string& path)
{
    auto slash = path.find_last_of('/');
    return slash == std::string::npos ? "" : slash == 0 ? "/" : path.substr(0, slash);
}

} // namespace

program parse_onnx(const std::string& path, const onnx_options& options)
{
    auto buffer     = std::make_shared<const std::string>(read_whole_file(path, "parse_onnx"));
    std::string dir = folder_of(path);
    try
    {
        return onnx::parse_bytes(buffer->data(), buffer->size(), options, dir, buffer);
    }
    catch(const exception& e)
    {
        throw exception(std::string(e.what()) + " [file '" + path + "']");
    }
}

program parse_onnx_buffer(const std::string& buffer, const onnx_options& options)
{
    return onnx::parse_bytes(buffer.data(), buffer.size(), options, "", nullptr);
}

program parse_onnx_buffer(const void* data, std::size_t size, const onnx_options& options)
{
    return onnx::parse_bytes(data, size, options, "", nullptr);
}

argument read_onnx_tensor(const std::string& path)
{
    auto bytes = read_whole_file(path, "read_onnx_tensor");
    if(bytes.size() > static_cast<std::size_t>(INT_MAX))
        throw exception("read_onnx_tensor: '" + path + "' is larger than 2 GiB");
    google::protobuf::io::CodedInputStream stream(reinterpret_cast<const std::uint8_t*>(bytes.data()),
                                                  static_cast<int>(bytes.size()));
    stream.SetTotalBytesLimit(INT_MAX);
    onnx::pb::TensorProto t;
    if(not t.ParseFromCodedStream(&stream) or not stream.ConsumedEntireMessage())
        throw exception("read_onnx_tensor: '" + path + "' is not an ONNX TensorProto (protobuf parse failed)");
    try
    {
        return onnx::tensor_literal(t, folder_of(path)).get_argument();
    }
    catch(const exception& e)
    {
        throw exception("read_onnx_tensor: " + std::string(e.what()) + " [file '" + path + "']");
    }
}

std::vector<std::string> get_onnx_operators()
{
    std::vector<std::string> r;
    for(const auto& kv : onnx::parser_table())
        r.push_back(kv.first);
    return r;
}

} // namespace migraphx
