// The .mxr container (src/serialize/mxr_format.cpp): header, checksum, version checks.
#include <migraphx/errors.hpp>
#include <gtest/gtest.h>
#include "serialize/mxr_format.hpp"

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
