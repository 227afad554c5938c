#include "serialize/op_serializer.hpp"
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace migraphx {
namespace serialize {

namespace {
struct registry
{
    std::mutex m;
    // Entries are never removed, and a replaced one is kept alive: find_op_serializer's pointers
    // stay valid for the life of the process.
    std::map<std::string, std::shared_ptr<const op_serializer>> exact, prefixes;
    std::vector<std::shared_ptr<const op_serializer>> retired;
};

registry& get_registry()
{
    static registry r;
    return r;
}
} // namespace

void register_op_serializer(const std::string& name, op_serializer s, bool prefix)
{
    auto& r = get_registry();
    std::lock_guard<std::mutex> lock(r.m);
    auto& slot = (prefix ? r.prefixes : r.exact)[name];
    if(slot)
        r.retired.push_back(slot);
    slot = std::make_shared<const op_serializer>(std::move(s));
}

const op_serializer* find_op_serializer(const std::string& name)
{
    auto& r = get_registry();
    std::lock_guard<std::mutex> lock(r.m);
    auto it = r.exact.find(name);
    if(it != r.exact.end())
        return it->second.get();
    const op_serializer* found = nullptr;
    std::size_t longest        = 0;
    for(const auto& [p, s] : r.prefixes)
        if(name.size() >= p.size() and p.size() >= longest and name.compare(0, p.size(), p) == 0)
        {
            found   = s.get();
            longest = p.size();
        }
    return found;
}

} // namespace serialize
} // namespace migraphx
