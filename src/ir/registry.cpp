#include <migraphx/make_op.hpp>
#include <migraphx/register_op.hpp>
#include <migraphx/target.hpp>
#include "ir/target_availability.hpp"
#include <algorithm>
#include <map>
#include <mutex>

namespace migraphx {

namespace {
std::map<std::string, std::function<operation()>>& op_registry()
{
    static std::map<std::string, std::function<operation()>> r;
    return r;
}
std::map<std::string, target>& target_registry()
{
    static std::map<std::string, target> r;
    return r;
}
std::map<std::string, std::string>& unavailable_registry()
{
    static std::map<std::string, std::string> r;
    return r;
}
std::mutex& registry_mutex()
{
    static std::mutex m;
    return m;
}
} // namespace

void register_op_factory(const std::string& name, std::function<operation()> factory)
{
    std::lock_guard<std::mutex> lock(registry_mutex());
    op_registry()[name] = std::move(factory);
}

operation make_op(const std::string& name)
{
    std::function<operation()> f;
    {
        std::lock_guard<std::mutex> lock(registry_mutex());
        auto it = op_registry().find(name);
        if(it == op_registry().end())
            MIGRAPHX_THROW("make_op: unknown operator '" + name + "'");
        f = it->second;
    }
    return f();
}

operation make_op(const std::string& name, const value& v)
{
    auto op = make_op(name);
    op.from_value(v);
    return op;
}

operation make_json_op(const std::string& name, const std::string& json)
{
    value v;
    try
    {
        v = value::from_json(json);
    }
    catch(const exception& e)
    {
        MIGRAPHX_THROW("make_json_op(" + name + "): " + e.what());
    }
    return make_op(name, v);
}

std::vector<std::string> get_operators()
{
    std::lock_guard<std::mutex> lock(registry_mutex());
    std::vector<std::string> r;
    for(const auto& kv : op_registry())
        if(kv.first.front() != '@')
            r.push_back(kv.first);
    return r;
}

void register_target(const target& t)
{
    std::lock_guard<std::mutex> lock(registry_mutex());
    target_registry()[t.name()] = t;
    unavailable_registry().erase(t.name());
}

void register_unavailable_target(const std::string& name, const std::string& reason)
{
    std::lock_guard<std::mutex> lock(registry_mutex());
    if(target_registry().count(name) == 0)
        unavailable_registry()[name] = reason;
}

std::string unavailable_target_reason(const std::string& name)
{
    std::lock_guard<std::mutex> lock(registry_mutex());
    auto it = unavailable_registry().find(name);
    return it == unavailable_registry().end() ? std::string{} : it->second;
}

target get_target(const std::string& name)
{
    std::lock_guard<std::mutex> lock(registry_mutex());
    auto it = target_registry().find(name);
    if(it == target_registry().end())
    {
        std::string known;
        for(const auto& kv : target_registry())
            known += (known.empty() ? "" : ", ") + kv.first;
        if(auto why = unavailable_registry().find(name); why != unavailable_registry().end())
            MIGRAPHX_THROW("get_target: target '" + name + "' is not available here: " + why->second +
                           "; available: " + known);
        MIGRAPHX_THROW("get_target: unknown target '" + name + "'; available: " + known);
    }
    return it->second;
}

std::vector<std::string> get_targets()
{
    std::lock_guard<std::mutex> lock(registry_mutex());
    std::vector<std::string> r;
    for(const auto& kv : target_registry())
        r.push_back(kv.first);
    return r;
}

} // namespace migraphx
