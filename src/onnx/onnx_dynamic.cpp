#include "onnx/onnx_dynamic.hpp"
#include <migraphx/errors.hpp>
#include <google/protobuf/io/coded_stream.h>
#include <climits>

namespace migraphx {
namespace onnx {

namespace {

bool is_symbolic(const pb::TensorShapeProto::Dimension& d) { return not d.has_dim_value(); }

std::set<std::string> initializer_names(const pb::GraphProto& g)
{
    std::set<std::string> r;
    for(const auto& t : g.initializer())
        r.insert(t.name());
    return r;
}

/// The ranges of one input; all fixed when nothing about it is dynamic.
std::vector<shape::dynamic_dimension> ranges_of(const pb::ValueInfoProto& input, const onnx_options& options)
{
    const auto& name = input.name();
    const auto& tt   = input.type().tensor_type();
    int rank         = tt.has_shape() ? tt.shape().dim_size() : -1;
    auto dyn         = options.map_dyn_input_dims.find(name);
    if(dyn != options.map_dyn_input_dims.end())
    {
        if(rank >= 0 and static_cast<std::size_t>(rank) != dyn->second.size())
            throw exception("input '" + name + "': map_dyn_input_dims gives " + std::to_string(dyn->second.size()) +
                            " dims but the model's input has rank " + std::to_string(rank));
        for(const auto& d : dyn->second)
            if(d.min == 0 or d.min > d.max)
                throw exception("input '" + name + "': map_dyn_input_dims has a range {" + std::to_string(d.min) +
                                ", " + std::to_string(d.max) + "}; it needs 1 <= min <= max");
        return dyn->second;
    }
    if(rank <= 0)
        return {};
    std::vector<shape::dynamic_dimension> r;
    auto fixed = options.map_input_dims.find(name);
    for(int i = 0; i < rank; i++)
    {
        const auto& d = tt.shape().dim(i);
        if(fixed != options.map_input_dims.end())
        {
            if(fixed->second.size() != static_cast<std::size_t>(rank))
                return {}; // the parser reports the rank mismatch
            auto v = fixed->second[i];
            // The spec's dynamic models: the value given for a symbolic dim is its maximum.
            if(is_symbolic(d) and v > 1)
                r.push_back({1, v, {}});
            else
                r.push_back({v, v, {}});
        }
        else if(not is_symbolic(d))
            r.push_back({static_cast<std::size_t>(std::max<std::int64_t>(d.dim_value(), 0)),
                         static_cast<std::size_t>(std::max<std::int64_t>(d.dim_value(), 0)),
                         {}});
        else if(options.default_dim_value != 0)
            r.push_back({options.default_dim_value, options.default_dim_value, {}});
        else
            r.push_back(options.default_dyn_dim_value);
    }
    return r;
}

value options_value(const onnx_options& o, const std::string& dir)
{
    value dims = value::make_object();
    for(const auto& [name, d] : options_at(o, {}).map_input_dims)
        dims.insert(name, value(d));
    return value{{"map_input_dims", dims},
                 {"default_dim_value", o.default_dim_value},
                 {"skip_unknown_operators", o.skip_unknown_operators},
                 {"max_loop_iterations", o.max_loop_iterations},
                 {"dir", dir}};
}

std::function<program(const input_dims_map&)>
make_specializer(std::shared_ptr<const std::string> bytes, onnx_options options, std::string dir)
{
    return [bytes = std::move(bytes), options = std::move(options), dir = std::move(dir)](const input_dims_map& dims) {
        return parse_static_bytes(bytes->data(), bytes->size(), options_at(options, dims), dir);
    };
}

const bool registered = [] {
    register_specializer("onnx", [](std::shared_ptr<const std::string> bytes, const value& v) {
        onnx_options o;
        for(const auto& [name, d] : v.at("map_input_dims").get_object())
            o.map_input_dims[name] = d.to_vector<std::size_t>();
        o.default_dim_value      = v.at("default_dim_value").to<std::size_t>();
        o.skip_unknown_operators = v.at("skip_unknown_operators").to<bool>();
        o.max_loop_iterations    = v.at("max_loop_iterations").to<std::int64_t>();
        return make_specializer(std::move(bytes), o, v.at("dir").get_string());
    });
    return true;
}();

} // namespace

input_ranges_map dynamic_input_ranges(const pb::ModelProto& model, const onnx_options& options)
{
    input_ranges_map r;
    if(not model.has_graph())
        return r;
    auto inits = initializer_names(model.graph());
    for(const auto& input : model.graph().input())
    {
        if(inits.count(input.name()) > 0 or not input.type().has_tensor_type() or
           options.map_input_constants.count(input.name()) > 0)
            continue;
        auto ranges = ranges_of(input, options);
        if(std::any_of(ranges.begin(), ranges.end(), [](const auto& d) { return not d.is_fixed(); }))
            r.emplace(input.name(), std::move(ranges));
    }
    for(const auto& kv : options.map_dyn_input_dims)
    {
        bool found = std::any_of(model.graph().input().begin(), model.graph().input().end(),
                                 [&](const auto& in) { return in.name() == kv.first and inits.count(kv.first) == 0; });
        if(not found)
            throw exception("map_dyn_input_dims: the model has no input '" + kv.first + "'");
    }
    return r;
}

onnx_options options_at(const onnx_options& options, const input_dims_map& dims)
{
    auto r = options;
    // Inputs given fixed ranges are fixed dims; the dynamic ones take dims.
    for(const auto& [name, d] : max_dims_of(options.map_dyn_input_dims))
        r.map_input_dims[name] = d;
    r.map_dyn_input_dims.clear();
    for(const auto& [name, d] : dims)
        r.map_input_dims[name] = d;
    return r;
}

void attach_onnx_source(program& p,
                        std::shared_ptr<const std::string> bytes,
                        const onnx_options& options,
                        const std::string& dir,
                        input_ranges_map ranges)
{
    auto src        = std::make_shared<dynamic_source>();
    src->ranges     = std::move(ranges);
    src->kind       = "onnx";
    src->payload    = bytes;
    src->options    = options_value(options, dir);
    src->specialize = make_specializer(std::move(bytes), options, dir);
    set_dynamic_source(p, std::move(src));
}

} // namespace onnx
} // namespace migraphx
