#include "serialize/dynamic_value.hpp"
#include <migraphx/errors.hpp>
#include "serialize/json_value.hpp"

namespace migraphx {
namespace serialize {

namespace {

[[noreturn]] void fail(const std::string& what) { MIGRAPHX_THROW("program: dynamic: " + what); }

const value& member(const value& v, const char* key)
{
    if(not v.is_object())
        fail("expected an object");
    const auto* f = v.find(key);
    if(f == nullptr)
        fail(std::string("missing '") + key + "'");
    return *f;
}

std::size_t count(const value& v, const char* what)
{
    if(v.kind() == value::uint64_kind or (v.kind() == value::int64_kind and v.get_int64() >= 0))
        return v.get_uint64();
    fail(std::string(what) + " is not a non-negative integer");
}

const value::array& array_of(const value& v, const char* what)
{
    if(not v.is_array())
        fail(std::string(what) + " is not an array");
    return v.get_array();
}

std::string payload_of(const value& v, const byte_refs* refs)
{
    if(const auto* d = v.find("data"); d != nullptr)
    {
        if(d->is_string())
            return d->get_string();
        const auto* i = d->is_object() ? d->find(bytes_key) : nullptr;
        if(i == nullptr or refs == nullptr)
            fail("data is not a string");
        auto k = count(*i, "data");
        if(k >= refs->spans.size())
            fail("data refers to bytes that are not there");
        return {refs->spans[k].first, refs->spans[k].second};
    }
    const auto& b = member(v, "base64");
    if(not b.is_string())
        fail("base64 is not a string");
    return base64_decode(b.get_string());
}

} // namespace

value dynamic_to_value(const dynamic_source& source, literal_encoding enc)
{
    value::array ranges;
    for(const auto& [name, dims] : source.ranges)
    {
        value::array ds;
        for(const auto& d : dims)
            ds.push_back(value::array{d.min, d.max, value(std::vector<std::size_t>(d.optimals.begin(), d.optimals.end()))});
        ranges.push_back(value::object{{"name", name}, {"dims", value(std::move(ds))}});
    }
    value::object o;
    o.emplace_back("kind", source.kind);
    o.emplace_back("options", source.options);
    o.emplace_back("ranges", value(std::move(ranges)));
    const auto& bytes = *source.payload;
    if(enc == literal_encoding::raw)
        o.emplace_back("data", bytes);
    else
        o.emplace_back("base64", base64_encode(bytes.data(), bytes.size()));
    return value(std::move(o));
}

std::shared_ptr<dynamic_source> dynamic_from_value(const value& v, const byte_refs* refs)
{
    auto src      = std::make_shared<dynamic_source>();
    const auto& k = member(v, "kind");
    if(not k.is_string())
        fail("kind is not a string");
    src->kind    = k.get_string();
    src->options = member(v, "options");
    for(const auto& r : array_of(member(v, "ranges"), "ranges"))
    {
        const auto& n = member(r, "name");
        if(not n.is_string())
            fail("a range's name is not a string");
        std::vector<shape::dynamic_dimension> dims;
        for(const auto& d : array_of(member(r, "dims"), "dims"))
        {
            const auto& x = array_of(d, "a dim");
            if(x.size() != 3)
                fail("a dim is not [min, max, optimals]");
            shape::dynamic_dimension dd{count(x[0], "min"), count(x[1], "max"), {}};
            for(const auto& o : array_of(x[2], "optimals"))
                dd.optimals.insert(count(o, "an optimal value"));
            if(dd.min == 0 or dd.min > dd.max)
                fail("a dim has min " + std::to_string(dd.min) + " and max " + std::to_string(dd.max));
            dims.push_back(dd);
        }
        src->ranges[n.get_string()] = dims;
    }
    src->payload = std::make_shared<const std::string>(payload_of(v, refs));
    try
    {
        restore_specializer(*src);
    }
    catch(const exception& e)
    {
        fail(e.what());
    }
    catch(const std::exception& e)
    {
        fail(std::string("its options are malformed: ") + e.what());
    }
    return src;
}

} // namespace serialize
} // namespace migraphx
