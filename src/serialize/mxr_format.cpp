#include "serialize/mxr_format.hpp"
#include <migraphx/errors.hpp>
#include <bit>
#include <cstring>
#include <system_error>
#include <vector>
#include <algorithm>
#include "ir/parallel_for.hpp"
#include "serialize/json_value.hpp"
#include "serialize/msgpack_value.hpp"

#define XXH_INLINE_ALL
#include <xxhash.h>

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
    std::memcpy(&w, p, sizeof(w)); // one load, not eight: the checksum reads 100 MB for ResNet-50
    if constexpr(std::endian::native == std::endian::big)
        w = __builtin_bswap64(w);
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

namespace {

/// The checksum of one chunk: XXH3 (xxHash, Debian's libxxhash-dev, used header-only so nothing
/// extra is linked or shipped), about 15 GB/s a core with SSE2.
std::uint64_t chunk_checksum(const char* data, std::size_t size) { return XXH3_64bits(data, size); }

} // namespace

std::uint64_t mxr_checksum(const char* data, std::size_t size)
{
    // Chunks of mxr_checksum_chunk bytes, each checked on its own, then their checksums folded in
    // order: a 100 MB file is checked on all cores (the chunks are independent).
    std::size_t chunks = (size + mxr_checksum_chunk - 1) / mxr_checksum_chunk;
    std::vector<std::uint64_t> sums(chunks);
    // one thread per 8 chunks (8 MiB) at most
    parallel_for(chunks, 8, [&](std::size_t b, std::size_t e) {
        for(std::size_t c = b; c < e; c++)
            sums[c] = chunk_checksum(data + c * mxr_checksum_chunk,
                                     std::min(mxr_checksum_chunk, size - c * mxr_checksum_chunk));
    });
    std::uint64_t r = size * k2;
    for(auto x : sums)
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

value read_mxr(const char* data,
               std::size_t size,
               mxr_header& header,
               bool verify_checksum,
               byte_refs* refs,
               const std::function<void(const value&)>& then)
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
        if(then)
            then(*p);
        return *p;
    }
    if(not starts_with_magic(data, size))
        MIGRAPHX_THROW("not a .mxr file: it does not start with \"" + std::string(mxr_magic) + "\" (nor is it JSON)");
    checksum_check sum(data, verify_checksum ? size : 0);
    auto corrupted = [] { MIGRAPHX_THROW("the file is truncated or corrupted (checksum mismatch)"); };
    std::size_t end    = verify_checksum ? size - 8 : size;
    std::size_t offset = mxr_magic_size;
    try
    {
        header = header_from_value(msgpack_to_value(data, end, offset), "msgpack");
    }
    catch(const exception&)
    {
        if(not sum.ok())
            corrupted();
        throw;
    }
    // A file of another version may check its content another way: say which version it is.
    if(header.mxr_version != mxr_version)
    {
        bool ok = sum.ok();
        try
        {
            check_version(header);
        }
        catch(const exception& e)
        {
            if(ok)
                throw;
            MIGRAPHX_THROW(std::string(e.what()) + ", or it is corrupted (its checksum does not match)");
        }
    }
    // The content is decoded while the checksum is computed; a mismatch wins over whatever
    // decoding said, so a damaged file always reads as damaged.
    value program;
    try
    {
        program = msgpack_to_value(data, end, offset, refs);
        if(verify_checksum and offset != end)
            MIGRAPHX_THROW("the file has " + std::to_string(end - offset) + " unexpected bytes after the program");
        if(then)
            then(program);
    }
    catch(...)
    {
        if(not sum.ok())
            corrupted();
        throw;
    }
    if(not sum.ok())
        corrupted();
    return program;
}

checksum_check::checksum_check(const char* data, std::size_t size)
{
    if(size == 0)
        return; // nothing to check
    if(size < mxr_magic_size + 8)
    {
        m_ok = false;
        return;
    }
    auto check = [data, size] { return mxr_checksum(data, size - 8) == load_le64(data + size - 8); };
    if(size >= async_min)
    {
        try
        {
            m_job = std::async(std::launch::async, check);
            return;
        }
        catch(const std::system_error&) // no thread to be had: check here
        {
        }
    }
    m_ok = check();
}

checksum_check::~checksum_check()
{
    if(m_job.valid())
        m_job.wait(); // it reads the caller's bytes
}

bool checksum_check::ok()
{
    if(m_job.valid())
        m_ok = m_job.get();
    return m_ok;
}

} // namespace serialize
} // namespace migraphx
