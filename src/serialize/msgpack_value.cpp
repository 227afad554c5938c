#include "serialize/msgpack_value.hpp"
#include <migraphx/errors.hpp>
#include <msgpack.hpp>
#include <string>

namespace migraphx {
namespace serialize {

namespace {

struct vector_writer
{
    std::vector<char>* out;
    void write(const char* p, std::size_t n) { out->insert(out->end(), p, p + n); }
};

void pack(msgpack::packer<vector_writer>& pk, const value& v)
{
    switch(v.kind())
    {
    case value::null_kind: pk.pack_nil(); break;
    case value::bool_kind: v.get_bool() ? pk.pack_true() : pk.pack_false(); break;
    case value::int64_kind: pk.pack_int64(v.get_int64()); break;
    case value::uint64_kind: pk.pack_uint64(v.get_uint64()); break;
    case value::float_kind: pk.pack_double(v.get_float()); break;
    case value::string_kind:
    {
        const auto& s = v.get_string();
        if(s.size() > 0xffffffffu)
            MIGRAPHX_THROW("msgpack: a string of " + std::to_string(s.size()) + " bytes is too long (4 GiB at most)");
        pk.pack_str(static_cast<std::uint32_t>(s.size()));
        pk.pack_str_body(s.data(), static_cast<std::uint32_t>(s.size()));
        break;
    }
    case value::array_kind:
        pk.pack_array(static_cast<std::uint32_t>(v.size()));
        for(const auto& x : v.get_array())
            pack(pk, x);
        break;
    case value::object_kind:
        pk.pack_map(static_cast<std::uint32_t>(v.size()));
        for(const auto& m : v.get_object())
        {
            pk.pack_str(static_cast<std::uint32_t>(m.first.size()));
            pk.pack_str_body(m.first.data(), static_cast<std::uint32_t>(m.first.size()));
            pack(pk, m.second);
        }
        break;
    }
}

value to_value(const msgpack::object& o)
{
    switch(o.type)
    {
    case msgpack::type::NIL: return value{};
    case msgpack::type::BOOLEAN: return value(o.via.boolean);
    case msgpack::type::POSITIVE_INTEGER: return value(o.via.u64);
    case msgpack::type::NEGATIVE_INTEGER: return value(o.via.i64);
    case msgpack::type::FLOAT32:
    case msgpack::type::FLOAT64: return value(o.via.f64);
    case msgpack::type::STR: return value(std::string(o.via.str.ptr, o.via.str.size));
    case msgpack::type::BIN: return value(std::string(o.via.bin.ptr, o.via.bin.size));
    case msgpack::type::ARRAY:
    {
        value::array a;
        a.reserve(o.via.array.size);
        for(std::uint32_t i = 0; i < o.via.array.size; i++)
            a.push_back(to_value(o.via.array.ptr[i]));
        return value(std::move(a));
    }
    case msgpack::type::MAP:
    {
        value::object obj;
        obj.reserve(o.via.map.size);
        for(std::uint32_t i = 0; i < o.via.map.size; i++)
        {
            const auto& kv = o.via.map.ptr[i];
            if(kv.key.type != msgpack::type::STR)
                MIGRAPHX_THROW("msgpack: a map key is not a string");
            obj.emplace_back(std::string(kv.key.via.str.ptr, kv.key.via.str.size), to_value(kv.val));
        }
        return value(std::move(obj));
    }
    case msgpack::type::EXT: MIGRAPHX_THROW("msgpack: unexpected ext type");
    }
    MIGRAPHX_THROW("msgpack: unknown object type");
}

// Strings and binaries are referenced in place (copied once, into the value).
bool reference_all(msgpack::type::object_type, std::size_t, void*) { return true; }

} // namespace

void value_to_msgpack(const value& v, std::vector<char>& out)
{
    vector_writer w{&out};
    msgpack::packer<vector_writer> pk(w);
    pack(pk, v);
}

value msgpack_to_value(const char* data, std::size_t size, std::size_t& offset)
{
    if(offset >= size)
        MIGRAPHX_THROW("msgpack: unexpected end of data at byte " + std::to_string(offset));
    // Every element takes at least one byte, so no count may exceed what is left: this keeps a
    // corrupted count from allocating gigabytes before the data runs out.
    auto left = size - offset;
    msgpack::unpack_limit limit(left, left, left, left, left, 64);
    try
    {
        auto oh = msgpack::unpack(data, size, offset, &reference_all, nullptr, limit);
        return to_value(oh.get());
    }
    catch(const exception&)
    {
        throw;
    }
    catch(const msgpack::insufficient_bytes&)
    {
        MIGRAPHX_THROW("msgpack: truncated data (" + std::to_string(size) + " bytes)");
    }
    catch(const std::exception& e)
    {
        MIGRAPHX_THROW(std::string("msgpack: malformed data (") + e.what() + ")");
    }
}

} // namespace serialize
} // namespace migraphx
