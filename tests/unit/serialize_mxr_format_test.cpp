// The .mxr container (src/serialize/mxr_format.cpp): header, checksum, version checks.
#include <migraphx/errors.hpp>
#include <gtest/gtest.h>
#include <algorithm>
#include <cstdint>
#include <string>
#include <functional>
#include <stdexcept>
#include "serialize/mxr_format.hpp"
#define XXH_INLINE_ALL
#include <xxhash.h>

using migraphx::value;
using namespace migraphx::serialize;

namespace {
std::string error_of(const std::vector<char>& bytes)
{
    try
    {
        mxr_header h;
        read_mxr(bytes.data(), bytes.size(), h);
    }
    catch(const migraphx::exception& e)
    {
        return e.what();
    }
    return "(no exception)";
}
} // namespace

TEST(serialize_mxr_format, msgpack_layout)
{
    value program{{"modules", value::array{}}};
    auto bytes = write_mxr(program, "cpu", "msgpack");
    ASSERT_GT(bytes.size(), 16);
    EXPECT_EQ(std::string(bytes.data(), 8), "MIGX-MXR");
    auto h = read_mxr_header(bytes.data(), bytes.size());
    EXPECT_EQ(h.format, "msgpack");
    EXPECT_EQ(h.mxr_version, mxr_version);
    EXPECT_EQ(h.migx_version, migx_version());
    EXPECT_EQ(h.target, "cpu");
    mxr_header h2;
    EXPECT_EQ(read_mxr(bytes.data(), bytes.size(), h2), program);
    EXPECT_EQ(h2.target, "cpu");
}

TEST(serialize_mxr_format, json_layout)
{
    value program{{"modules", value::array{}}};
    auto bytes = write_mxr(program, "", "json");
    std::string text(bytes.begin(), bytes.end());
    EXPECT_EQ(text.rfind("{\"magic\":\"MIGX-MXR\",\"mxr_version\":", 0), 0) << text;
    auto h = read_mxr_header(bytes.data(), bytes.size());
    EXPECT_EQ(h.format, "json");
    EXPECT_EQ(h.target, "");
    mxr_header h2;
    EXPECT_EQ(read_mxr(bytes.data(), bytes.size(), h2), program);
}

TEST(serialize_mxr_format, checksum_sees_every_byte)
{
    std::string s(100, 'a');
    auto base = mxr_checksum(s.data(), s.size());
    for(std::size_t i = 0; i < s.size(); i++)
    {
        auto t = s;
        t[i] ^= 1;
        EXPECT_NE(mxr_checksum(t.data(), t.size()), base) << i;
    }
    EXPECT_NE(mxr_checksum(s.data(), 99), base);
    EXPECT_NE(mxr_checksum(s.data(), 0), mxr_checksum(s.data(), 1));
}

TEST(serialize_mxr_format, errors)
{
    auto bytes = write_mxr(value{{"modules", value::array{}}}, "", "msgpack");
    auto bad   = bytes;
    bad[0]     = 'X';
    EXPECT_NE(error_of(bad).find("not a .mxr file"), std::string::npos);
    bad = bytes;
    bad.back() ^= 1;
    EXPECT_NE(error_of(bad).find("corrupted (checksum mismatch)"), std::string::npos) << error_of(bad);
    bad = bytes;
    bad.resize(bytes.size() - 3);
    EXPECT_NE(error_of(bad).find("truncated or corrupted"), std::string::npos) << error_of(bad);
    std::string json = R"({"magic":"MIGX-MXR","mxr_version":42,"migx_version":"9.9.9","program":{}})";
    std::vector<char> j(json.begin(), json.end());
    EXPECT_NE(error_of(j).find("format version 42 (written by migx 9.9.9)"), std::string::npos) << error_of(j);
    json = R"({"magic":"MIGX-MXR","mxr_version":)" + std::to_string(mxr_version) + "}";
    j.assign(json.begin(), json.end());
    EXPECT_NE(error_of(j).find("no program"), std::string::npos) << error_of(j);
    EXPECT_THROW(write_mxr(value{}, "", "xml"), migraphx::exception);
}

namespace {
// The checksum as docs/mxr.md defines it, byte by byte: files written before it was made
// faster must still check.
// Written from the format's description (docs/mxr.md), on one thread.
std::uint64_t reference_checksum(const char* data, std::size_t size)
{
    const std::uint64_t k1 = 0x9e3779b97f4a7c15ull;
    const std::uint64_t k2 = 0xc2b2ae3d27d4eb4full;
    auto step              = [&](std::uint64_t h, std::uint64_t w) {
        auto x = h ^ (w * k1);
        return ((x << 31) | (x >> 33)) * k2;
    };
    auto chunk = [](const char* p, std::size_t n) { return XXH3_64bits(p, n); };
    const std::size_t mib = std::size_t{1} << 20;
    std::uint64_t r       = size * k2;
    for(std::size_t at = 0; at < size; at += mib)
        r = step(r, chunk(data + at, std::min(mib, size - at)));
    return r;
}
} // namespace

TEST(serialize_mxr_format, checksum_is_the_documented_one)
{
    std::string s(1000, '\0');
    for(std::size_t i = 0; i < s.size(); i++)
        s[i] = static_cast<char>(i * 131 + 17);
    for(std::size_t n = 0; n < 300; n++)
        for(std::size_t start : {0, 1, 3})
            ASSERT_EQ(mxr_checksum(s.data() + start, n), reference_checksum(s.data() + start, n)) << n << " " << start;
    EXPECT_EQ(mxr_checksum(s.data(), s.size()), reference_checksum(s.data(), s.size()));
    EXPECT_EQ(mxr_checksum("MIGX-MXR", 8), 0x17a5bf6996aa8d54ull) << std::hex << mxr_checksum("MIGX-MXR", 8);
}

// Several chunks (checked on several threads where the machine has them): the same as the
// one-thread reference, and a flipped byte on either side of a chunk border is seen.
TEST(serialize_mxr_format, checksum_of_many_chunks_is_the_documented_one)
{
    std::string s(std::size_t{9} * mxr_checksum_chunk + 5, '\0');
    for(std::size_t i = 0; i < s.size(); i++)
        s[i] = static_cast<char>(i * 2654435761u >> 13);
    auto base = mxr_checksum(s.data(), s.size());
    EXPECT_EQ(base, reference_checksum(s.data(), s.size()));
    for(std::size_t at : {mxr_checksum_chunk - 1, mxr_checksum_chunk, 8 * mxr_checksum_chunk + 4})
    {
        auto t = s;
        t[at] ^= 0x40;
        EXPECT_NE(mxr_checksum(t.data(), t.size()), base) << at;
    }
    // Two chunks swapped: the chunks are folded in order.
    auto t = s;
    std::swap_ranges(t.begin(), t.begin() + mxr_checksum_chunk, t.begin() + mxr_checksum_chunk);
    EXPECT_NE(mxr_checksum(t.data(), t.size()), base);
}

// A file of more than checksum_check::async_min bytes is checked on another thread while it is
// decoded: a damaged byte is still reported as such, even when the decoding (here `then`)
// fails for another reason first.
TEST(serialize_mxr_format, large_file_checksum_runs_beside_the_decoding)
{
    std::string big(checksum_check::async_min + 12345, '\0');
    for(std::size_t i = 0; i < big.size(); i++)
        big[i] = static_cast<char>(i * 31);
    value program{{"modules", value::array{}}, {"blob", value::object{{"data", big}}}};
    auto bytes = write_mxr(program, "", "msgpack");
    int calls  = 0;
    mxr_header h;
    byte_refs refs;
    auto v = read_mxr(bytes.data(), bytes.size(), h, true, &refs, [&](const value& p) {
        calls++;
        EXPECT_TRUE(p.contains("modules"));
    });
    EXPECT_EQ(calls, 1);
    ASSERT_EQ(refs.spans.size(), 1);
    EXPECT_EQ(std::string(refs.spans[0].first, refs.spans[0].second), big);

    auto bad = bytes;
    bad[bad.size() / 2] ^= 4;
    auto message = [&](const std::function<void(const value&)>& then) {
        try
        {
            mxr_header h2;
            read_mxr(bad.data(), bad.size(), h2, true, nullptr, then);
        }
        catch(const migraphx::exception& e)
        {
            return std::string(e.what());
        }
        return std::string("(no exception)");
    };
    auto msg = message(nullptr);
    EXPECT_NE(msg.find("corrupted (checksum mismatch)"), std::string::npos) << msg;
    msg = message([](const value&) { MIGRAPHX_THROW("a decoding error"); });
    EXPECT_NE(msg.find("corrupted (checksum mismatch)"), std::string::npos) << msg;
    msg = message([](const value&) { throw std::runtime_error("a library's error"); });
    EXPECT_NE(msg.find("corrupted (checksum mismatch)"), std::string::npos) << msg;
    // an intact file: the decoding's own error comes through
    try
    {
        mxr_header h3;
        read_mxr(bytes.data(), bytes.size(), h3, true, nullptr, [](const value&) { MIGRAPHX_THROW("a decoding error"); });
        ADD_FAILURE() << "no exception";
    }
    catch(const migraphx::exception& e)
    {
        EXPECT_NE(std::string(e.what()).find("a decoding error"), std::string::npos) << e.what();
    }
}
