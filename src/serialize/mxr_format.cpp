#include "serialize/mxr_format.hpp"
#include <migraphx/errors.hpp>
#include <cstring>
#include "serialize/json_value.hpp"
#include "serialize/msgpack_value.hpp"

#ifndef MIGRAPHX_VERSION_STRING
#define MIGRAPHX_VERSION_STRING "0.0.0"
#endif

namespace migraphx {
namespace serialize {

std::string migx_version() { return MIGRAPHX_VERSION_STRING; }

namespace {

std::uint64_t rotl(std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

constexpr std::uint64_t k1 = 0x9e3779b97f4a7c15ull;
constexpr std::uint64_t k2 = 0xc2b2ae3d27d4eb4full;

std::uint64_t lane_step(std::uint64_t h, std::uint64_t w) { return rotl(h ^ (w * k1), 31) * k2; }

std::uint64_t load_le64(const char* p)
{
    std::uint64_t w = 0;
    for(int i = 7; i >= 0; i--)
        w = (w << 8u) | static_cast<unsigned char>(p[i]);
    return w;
}

void store_le64(char* p, std::uint64_t w)
{
    for(int i = 0; i < 8; i++)
        p[i] = static_cast<char>((w >> (8 * i)) & 0xffu);
}

bool starts_with_magic(const char* data, std::size_t size)
{
    return size >= mxr_magic_size and std::memcmp(data, mxr_magic, mxr_magic_size) == 0;
}

bool looks_like_json(const char* data, std::size_t size)
{
    for(std::size_t i = 0; i < size; i++)
    {
        char c = data[i];
        if(c == ' ' or c == '\n' or c == '\r' or c == '\t')
            continue;
        return c == '{';
    }
    return false;
}

mxr_header header_from_value(const value& h, const std::string& format)
{
    if(not h.is_object())
        MIGRAPHX_THROW("not a .mxr file: the header is not an object");
    mxr_header r;
    r.format     = format;
    const auto* v = h.find("mxr_version");
    if(v == nullptr or not v->is_integer())
        MIGRAPHX_THROW("not a .mxr file: the header has no mxr_version");
    r.mxr_version = v->kind() == value::uint64_kind and v->get_uint64() > 1000000 ? -1 : v->get_int64();
    const auto* m = h.find("migx_version");
    if(m != nullptr and m->is_string())
        r.migx_version = m->get_string().substr(0, 64);
    const auto* t = h.find("target");
    if(t != nullptr and t->is_string())
        r.target = t->get_string().substr(0, 64);
    return r;
}

void check_version(const mxr_header& h)
{
    if(h.mxr_version != mxr_version)
        MIGRAPHX_THROW("the file is .mxr format version " + std::to_string(h.mxr_version) + " (written by migx " +
                       (h.migx_version.empty() ? "?" : h.migx_version) + "); this build (migx " + migx_version() +
                       ") reads version " + std::to_string(mxr_version) + " only");
}

value json_header(const std::string& target)
{
    return value::object{{"magic", mxr_magic},
                         {"mxr_version", mxr_version},
                         {"migx_version", migx_version()},
                         {"target", target}};
}

} // namespace

std::uint64_t mxr_checksum(const char* data, std::size_t size)
{
    std::uint64_t h[4] = {k1, k2, k1 ^ k2, k1 + k2};
    std::size_t i = 0;
    for(; i + 32 <= size; i += 32)
        for(int l = 0; l < 4; l++)
            h[l] = lane_step(h[l], load_le64(data + i + 8 * l));
    char tail[8];
    for(int l = 0; i < size; l = (l + 1) % 4)
    {
        std::memset(tail, 0, sizeof(tail));
        auto n = std::min<std::size_t>(8, size - i);
        std::memcpy(tail, data + i, n);
        h[l] = lane_step(h[l], load_le64(tail));
        i += n;
    }
    std::uint64_t r = size * k1;
    for(auto x : h)
        r = lane_step(r, x);
    return r;
}

std::vector<char> write_mxr(const value& program, const std::string& target, const std::string& format)
{
    if(format == "json")
    {
        auto o = json_header(target);
        o.insert("program", program);
        auto text = value_to_json_text(o);
        return {text.begin(), text.end()};
    }
    if(format != "msgpack")
        MIGRAPHX_THROW("save: unknown format '" + format + "' (msgpack or json)");
    std::vector<char> out(mxr_magic, mxr_magic + mxr_magic_size);
    auto header = json_header(target);
    header.get_object().erase(header.get_object().begin()); // the magic is the first bytes here
    value_to_msgpack(header, out);
    value_to_msgpack(program, out);
    auto sum = mxr_checksum(out.data(), out.size());
    out.resize(out.size() + 8);
    store_le64(out.data() + out.size() - 8, sum);
    return out;
}

mxr_header read_mxr_header(const char* data, std::size_t size)
{
    if(starts_with_magic(data, size))
    {
        std::size_t offset = mxr_magic_size;
        return header_from_value(msgpack_to_value(data, size, offset), "msgpack");
    }
    if(looks_like_json(data, size))
    {
        auto v = json_text_to_value(data, size);
        if(not v.is_object() or not v.contains("magic") or v.at("magic") != value(mxr_magic))
            MIGRAPHX_THROW("not a .mxr file: a JSON text without \"magic\": \"" + std::string(mxr_magic) + "\"");
        return header_from_value(v, "json");
    }
    MIGRAPHX_THROW("not a .mxr file: it does not start with \"" + std::string(mxr_magic) + "\" (nor is it JSON)");
}

value read_mxr(const char* data, std::size_t size, mxr_header& header, bool verify_checksum)
{
    if(looks_like_json(data, size) and not starts_with_magic(data, size))
    {
        auto v = json_text_to_value(data, size);
        if(not v.is_object() or not v.contains("magic") or v.at("magic") != value(mxr_magic))
            MIGRAPHX_THROW("not a .mxr file: a JSON text without \"magic\": \"" + std::string(mxr_magic) + "\"");
        header = header_from_value(v, "json");
        check_version(header);
        const auto* p = v.find("program");
        if(p == nullptr)
            MIGRAPHX_THROW("the file has no program");
        return *p;
    }
    if(not starts_with_magic(data, size))
        MIGRAPHX_THROW("not a .mxr file: it does not start with \"" + std::string(mxr_magic) + "\" (nor is it JSON)");
    bool sum_ok = true;
    if(verify_checksum)
        sum_ok = size >= mxr_magic_size + 8 and mxr_checksum(data, size - 8) == load_le64(data + size - 8);
    std::size_t end    = verify_checksum ? size - 8 : size;
    std::size_t offset = mxr_magic_size;
    try
    {
        header = header_from_value(msgpack_to_value(data, end, offset), "msgpack");
    }
    catch(const exception&)
    {
        if(not sum_ok)
            MIGRAPHX_THROW("the file is truncated or corrupted (checksum mismatch)");
        throw;
    }
    // A file of another version may check its content another way: say which version it is.
    if(not sum_ok and header.mxr_version == mxr_version)
        MIGRAPHX_THROW("the file is truncated or corrupted (checksum mismatch)");
    try
    {
        check_version(header);
    }
    catch(const exception& e)
    {
        if(sum_ok)
            throw;
        MIGRAPHX_THROW(std::string(e.what()) + ", or it is corrupted (its checksum does not match)");
    }
    auto program = msgpack_to_value(data, end, offset);
    if(verify_checksum and offset != end)
        MIGRAPHX_THROW("the file has " + std::to_string(end - offset) + " unexpected bytes after the program");
    return program;
}

} // namespace serialize
} // namespace migraphx
