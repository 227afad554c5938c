#include "serialize/msgpack_value.hpp"
#include <migraphx/errors.hpp>
#include <msgpack.hpp>
#include <algorithm>
#include <string>

namespace migraphx {
namespace serialize {

namespace {

struct vector_writer
{
    std::vector<char>* out;
    void write(const char* p, std::size_t n) { out->insert(out->end(), p, p + n); }
};

// Bytes of a msgpack str header for a string of n bytes (msgpack-cxx's pack_str picks the smallest).
std::size_t str_header_size(std::size_t n) { return n < 32 ? 1 : n < 256 ? 2 : n < 65536 ? 3 : 5; }

bool aligned_member(const value::member& m)
{
    return m.first == "data" and m.second.is_string() and m.second.get_string().size() >= aligned_string_min;
}

struct packer
{
    std::vector<char>* out;
    vector_writer w{out};
    msgpack::packer<vector_writer> pk{w};

    void str(const char* p, std::size_t n)
    {
        if(n > 0xffffffffu)
            MIGRAPHX_THROW("msgpack: a string of " + std::to_string(n) + " bytes is too long (4 GiB at most)");
        pk.pack_str(static_cast<std::uint32_t>(n));
        pk.pack_str_body(p, static_cast<std::uint32_t>(n));
    }
    void str(const std::string& s) { str(s.data(), s.size()); }

    // Writes the entry "@pad": "<len zero bytes>" so that a string of n bytes packed right after
    // the key "data" that follows starts at a multiple of data_alignment in out.
    void padding(std::size_t n)
    {
        const std::string name = pad_key;
        const std::size_t before = out->size() + str_header_size(name.size()) + name.size();
        const std::size_t after  = str_header_size(4) + 4 + str_header_size(n); // "data", n's header
        std::size_t len          = 0;
        while((before + str_header_size(len) + len + after) % data_alignment != 0)
            len++;
        str(name);
        str(std::string(len, '\0'));
    }

    void pack(const value& v)
    {
        switch(v.kind())
        {
        case value::null_kind: pk.pack_nil(); break;
        case value::bool_kind: v.get_bool() ? pk.pack_true() : pk.pack_false(); break;
        case value::int64_kind: pk.pack_int64(v.get_int64()); break;
        case value::uint64_kind: pk.pack_uint64(v.get_uint64()); break;
        case value::float_kind: pk.pack_double(v.get_float()); break;
        case value::string_kind: str(v.get_string()); break;
        case value::array_kind:
            pk.pack_array(static_cast<std::uint32_t>(v.size()));
            for(const auto& x : v.get_array())
                pack(x);
            break;
        case value::object_kind:
        {
            const auto& obj = v.get_object();
            auto pads       = static_cast<std::size_t>(std::count_if(obj.begin(), obj.end(), &aligned_member));
            pk.pack_map(static_cast<std::uint32_t>(obj.size() + pads));
            for(const auto& m : obj)
            {
                if(aligned_member(m))
                    padding(m.second.get_string().size());
                str(m.first);
                pack(m.second);
            }
            break;
        }
        }
    }
};

struct unpacker
{
    byte_refs* refs;

    value to_value(const msgpack::object& o) const
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
                std::string key(kv.key.via.str.ptr, kv.key.via.str.size);
                if(key == pad_key)
                    continue;
                if(refs != nullptr and key == bytes_key)
                    MIGRAPHX_THROW(std::string("msgpack: a map has the reserved key '") + bytes_key + "'");
                if(refs != nullptr and key == "data" and
                   (kv.val.type == msgpack::type::STR or kv.val.type == msgpack::type::BIN))
                {
                    const auto& raw = kv.val.type == msgpack::type::STR ? kv.val.via.str.ptr : kv.val.via.bin.ptr;
                    auto n          = kv.val.type == msgpack::type::STR ? kv.val.via.str.size : kv.val.via.bin.size;
                    refs->spans.emplace_back(raw, n);
                    obj.emplace_back(std::move(key), value::object{{bytes_key, refs->spans.size() - 1}});
                    continue;
                }
                obj.emplace_back(std::move(key), to_value(kv.val));
            }
            return value(std::move(obj));
        }
        case msgpack::type::EXT: MIGRAPHX_THROW("msgpack: unexpected ext type");
        }
        MIGRAPHX_THROW("msgpack: unknown object type");
    }
};

// Strings and binaries are referenced in place (copied at most once, into the value).
bool reference_all(msgpack::type::object_type, std::size_t, void*) { return true; }

} // namespace

void value_to_msgpack(const value& v, std::vector<char>& out)
{
    packer p{&out};
    p.pack(v);
}

value msgpack_to_value(const char* data, std::size_t size, std::size_t& offset, byte_refs* refs)
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
        return unpacker{refs}.to_value(oh.get());
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
