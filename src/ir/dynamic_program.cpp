#include "ir/dynamic_program.hpp"
#include <migraphx/errors.hpp>
#include <algorithm>
#include <sstream>
#include "ir/env.hpp"
#include "ir/program_impl.hpp"

namespace migraphx {

namespace {

std::map<std::string, specializer_factory>& specializers()
{
    static std::map<std::string, specializer_factory> table;
    return table;
}

std::string range_text(const std::vector<shape::dynamic_dimension>& dims)
{
    std::ostringstream ss;
    ss << "{";
    for(std::size_t i = 0; i < dims.size(); i++)
    {
        ss << (i ? ", " : "");
        if(dims[i].is_fixed())
            ss << dims[i].min;
        else
            ss << dims[i].min << ".." << dims[i].max;
    }
    ss << "}";
    return ss.str();
}

std::string dims_text(const std::vector<std::size_t>& dims)
{
    std::ostringstream ss;
    ss << "{";
    for(std::size_t i = 0; i < dims.size(); i++)
        ss << (i ? ", " : "") << dims[i];
    ss << "}";
    return ss.str();
}

std::size_t cache_capacity()
{
    auto n = env_level("MIGRAPHX_DYNAMIC_CACHE_SIZE");
    return n > 0 ? static_cast<std::size_t>(n) : 16;
}

} // namespace

void register_specializer(const std::string& kind, specializer_factory f) { specializers()[kind] = std::move(f); }

namespace {
std::map<std::string, variant_transform>& transforms()
{
    static std::map<std::string, variant_transform> table;
    return table;
}
} // namespace

void register_variant_transform(const std::string& name, variant_transform f) { transforms()[name] = std::move(f); }

void restore_specializer(dynamic_source& source)
{
    auto it = specializers().find(source.kind);
    if(it == specializers().end())
        MIGRAPHX_THROW("dynamic program: no way to rebuild a source of kind '" + source.kind +
                       "' in this build (is the ONNX parser built in?)");
    auto base = it->second(source.payload, source.options);
    std::vector<std::pair<variant_transform, value>> steps;
    if(source.options.is_object() and source.options.contains("transforms"))
    {
        for(const auto& t : source.options.at("transforms").get_array())
        {
            auto name = t.at("name").get_string();
            auto f    = transforms().find(name);
            if(f == transforms().end())
                MIGRAPHX_THROW("dynamic program: unknown transform '" + name + "' recorded on its source");
            steps.emplace_back(f->second, t.at("args"));
        }
    }
    if(steps.empty())
    {
        source.specialize = base;
        return;
    }
    source.specialize = [base, steps](const input_dims_map& dims) {
        auto p = base(dims);
        for(const auto& [f, args] : steps)
            f(p, args);
        return p;
    };
}

void record_transform(program& p, const std::string& name, const value& args)
{
    auto& impl = p.get_impl();
    if(impl.dynamic == nullptr)
        return;
    auto copy = std::make_shared<dynamic_source>(*impl.dynamic);
    if(not copy->options.is_object())
        copy->options = value::object{};
    value t = value::object{};
    t.insert("name", name);
    t.insert("args", args);
    auto list = copy->options.contains("transforms") ? copy->options.at("transforms").get_array() : value::array{};
    list.push_back(t);
    copy->options.insert("transforms", value(list));
    restore_specializer(*copy);
    set_dynamic_source(p, std::move(copy));
}

void set_dynamic_source(program& p, std::shared_ptr<const dynamic_source> source)
{
    auto& impl = p.get_impl();
    impl.dynamic  = std::move(source);
    impl.variants = std::make_shared<variant_cache>();
}

std::shared_ptr<const dynamic_source> get_dynamic_source(const program& p) { return p.get_impl().dynamic; }

input_dims_map dynamic_input_dims(const dynamic_source& source, const parameter_map& params)
{
    input_dims_map r;
    for(const auto& [name, range] : source.ranges)
    {
        auto it = params.find(name);
        if(it == params.end())
            MIGRAPHX_THROW("eval: parameter '" + name + "' is missing (a dynamic input, range " + range_text(range) +
                           ")");
        const auto& lens = it->second.get_shape().lens();
        if(lens.size() != range.size())
            MIGRAPHX_THROW("eval: parameter '" + name + "' has shape " + dims_text(lens) + " of rank " +
                           std::to_string(lens.size()) + " but the program's input has rank " +
                           std::to_string(range.size()) + " (range " + range_text(range) + ")");
        for(std::size_t i = 0; i < lens.size(); i++)
            if(not range[i].within(lens[i]))
                MIGRAPHX_THROW("eval: parameter '" + name + "' has shape " + dims_text(lens) + ": dimension " +
                               std::to_string(i) + " is " + std::to_string(lens[i]) +
                               ", outside the program's range " + range_text(range));
        r.emplace(name, lens);
    }
    return r;
}

std::shared_ptr<program> variant_cache::get(const input_dims_map& dims, const std::function<program()>& make)
{
    key_type key(dims.begin(), dims.end());
    // The entry for key, now the most recently used (last); nullptr where there is none.
    auto touch = [&]() -> std::shared_ptr<program> {
        auto it = std::find_if(entries.begin(), entries.end(), [&](const auto& e) { return e.first == key; });
        if(it == entries.end())
            return nullptr;
        std::rotate(it, it + 1, entries.end());
        return entries.back().second;
    };
    {
        std::lock_guard<std::mutex> lock(m);
        if(auto found = touch())
            return found;
    }
    // Compiling takes seconds: other threads' lookups (other shapes) go on meanwhile.
    auto p = std::make_shared<program>(make());
    std::lock_guard<std::mutex> lock(m);
    if(auto found = touch()) // another thread made it meanwhile
        return found;
    auto cap = cache_capacity();
    while(entries.size() >= cap)
        entries.erase(entries.begin());
    entries.emplace_back(std::move(key), p);
    return p;
}

std::size_t variant_cache::size() const
{
    std::lock_guard<std::mutex> lock(m);
    return entries.size();
}

namespace {

/// Whether dims are the ones p itself was built for (its largest).
bool at_main_dims(const program& p, const input_dims_map& dims)
{
    auto shapes = p.get_main_module()->get_parameter_shapes();
    return std::all_of(dims.begin(), dims.end(), [&](const auto& kv) {
        auto it = shapes.find(kv.first);
        return it != shapes.end() and it->second.lens() == kv.second;
    });
}

program make_variant(const program::impl& impl, const input_dims_map& dims)
{
    program v;
    try
    {
        v = impl.dynamic->specialize(dims);
        if(impl.compiled)
            v.compile(impl.target_ref, impl.options);
    }
    catch(const std::exception& e)
    {
        std::string given;
        for(const auto& [name, d] : dims)
            given += (given.empty() ? "" : ", ") + name + " " + dims_text(d);
        MIGRAPHX_THROW("eval: the dynamic program could not be specialised for " + given + ": " + e.what());
    }
    return v;
}

} // namespace

void precompile_optimals(const program& p)
{
    const auto& impl = p.get_impl();
    if(impl.dynamic == nullptr)
        return;
    // Every combination of the optimal values (other dims at their largest), at most 8.
    std::vector<input_dims_map> combos{max_dims_of(impl.dynamic->ranges)};
    for(const auto& [name, range] : impl.dynamic->ranges)
        for(std::size_t i = 0; i < range.size(); i++)
        {
            if(range[i].optimals.empty())
                continue;
            std::vector<input_dims_map> next;
            for(const auto& c : combos)
                for(auto o : range[i].optimals)
                {
                    auto d         = c;
                    d.at(name)[i] = o;
                    next.push_back(d);
                }
            combos = next;
        }
    if(combos.size() > 8)
        combos.resize(8);
    for(const auto& dims : combos)
        if(not at_main_dims(p, dims))
            impl.variants->get(dims, [&]() { return make_variant(impl, dims); });
}

input_dims_map max_dims_of(const input_ranges_map& ranges)
{
    input_dims_map r;
    for(const auto& [name, range] : ranges)
    {
        std::vector<std::size_t> d;
        for(const auto& x : range)
            d.push_back(x.max);
        r.emplace(name, d);
    }
    return r;
}

std::shared_ptr<const program> variant_for(const program& p, const parameter_map& params)
{
    const auto& impl = p.get_impl();
    if(impl.dynamic == nullptr)
        return nullptr;
    auto dims = dynamic_input_dims(*impl.dynamic, params);
    if(at_main_dims(p, dims))
        return nullptr;
    auto make = [&]() { return make_variant(impl, dims); };
    return impl.variants->get(dims, make);
}

parameter_map params_for(const program& v, const parameter_map& params)
{
    const auto& out_names = v.get_impl().output_param_names;
    if(out_names.empty())
        return params;
    parameter_map r = params;
    auto shapes     = v.get_main_module()->get_parameter_shapes();
    for(const auto& n : out_names)
    {
        auto it = r.find(n);
        if(it == r.end())
            continue;
        const auto& want = shapes.at(n);
        if(it->second.get_shape().lens() == want.lens())
            continue;
        if(it->second.get_shape().bytes() < want.bytes())
            MIGRAPHX_THROW("eval: output buffer '" + n + "' has " + std::to_string(it->second.get_shape().bytes()) +
                           " bytes, the output needs " + std::to_string(want.bytes()));
        it->second = argument{want, it->second.data()};
    }
    return r;
}

} // namespace migraphx
