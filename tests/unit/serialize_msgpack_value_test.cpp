// value <-> MessagePack (src/serialize/msgpack_value.cpp).
#include <migraphx/errors.hpp>
#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include "serialize/msgpack_value.hpp"

using migraphx::value;
using migraphx::serialize::msgpack_to_value;
using migraphx::serialize::value_to_msgpack;

namespace {

value round_trip(const value& v)
{
    std::vector<char> bytes;
    value_to_msgpack(v, bytes);
    std::size_t offset = 0;
    auto r             = msgpack_to_value(bytes.data(), bytes.size(), offset);
    EXPECT_EQ(offset, bytes.size());
    return r;
}

std::string error_of(const std::vector<char>& bytes)
{
    try
    {
        std::size_t offset = 0;
        msgpack_to_value(bytes.data(), bytes.size(), offset);
    }
    catch(const migraphx::exception& e)
    {
        return e.what();
    }
    return "(no exception)";
}

} // namespace

TEST(serialize_msgpack_value, every_kind_round_trips)
{
    std::string bytes("\0\x01\xff\x80 binary", 10);
    value v = value::object{{"null", nullptr},
                            {"t", true},
                            {"f", false},
                            {"neg", std::int64_t{-5}},
                            {"big", std::numeric_limits<std::uint64_t>::max()},
                            {"min", std::numeric_limits<std::int64_t>::min()},
                            {"pi", 3.141592653589793},
                            {"tiny", 1e-300},
                            {"s", "text"},
                            {"bytes", bytes},
                            {"list", {1, 2.5, "x", value::array{}}},
                            {"nested", value::object{{"a", value::object{}}}}};
    auto r = round_trip(v);
    EXPECT_EQ(r, v);
    EXPECT_EQ(r.at("bytes").get_string(), bytes);
    EXPECT_EQ(r.at("big").get_uint64(), std::numeric_limits<std::uint64_t>::max());
    EXPECT_EQ(r.at("min").get_int64(), std::numeric_limits<std::int64_t>::min());
    // keys keep their order
    EXPECT_EQ(r.get_object().at(3).first, "neg");
}

TEST(serialize_msgpack_value, floats_are_exact)
{
    for(double d : {0.1, -0.0, 1.0 / 3.0, std::numeric_limits<double>::denorm_min(),
                    std::numeric_limits<double>::infinity()})
        EXPECT_EQ(round_trip(d).get_float(), d);
    EXPECT_TRUE(std::isnan(round_trip(std::nan("")).get_float()));
    EXPECT_EQ(round_trip(0.1f).get_float(), static_cast<double>(0.1f));
}

TEST(serialize_msgpack_value, two_objects_in_a_row)
{
    std::vector<char> bytes;
    value_to_msgpack(value("first"), bytes);
    value_to_msgpack(value{1, 2}, bytes);
    std::size_t offset = 0;
    EXPECT_EQ(msgpack_to_value(bytes.data(), bytes.size(), offset), value("first"));
    EXPECT_EQ(msgpack_to_value(bytes.data(), bytes.size(), offset), (value{1, 2}));
    EXPECT_EQ(offset, bytes.size());
    EXPECT_THROW(msgpack_to_value(bytes.data(), bytes.size(), offset), migraphx::exception);
}

TEST(serialize_msgpack_value, truncated_throws)
{
    std::vector<char> bytes;
    value_to_msgpack(value{{"a", "some text"}}, bytes);
    bytes.pop_back();
    EXPECT_NE(error_of(bytes).find("truncated"), std::string::npos) << error_of(bytes);
}

TEST(serialize_msgpack_value, huge_counts_do_not_allocate)
{
    // array32 / map32 / str32 claiming 4 billion elements in a 5-byte buffer
    for(unsigned char tag : {0xdd, 0xdf, 0xdb, 0xc6})
    {
        std::vector<char> bytes{static_cast<char>(tag), '\xff', '\xff', '\xff', '\xff'};
        auto msg = error_of(bytes);
        EXPECT_NE(msg.find("msgpack:"), std::string::npos) << int(tag) << ": " << msg;
    }
}

TEST(serialize_msgpack_value, deep_nesting_throws)
{
    std::vector<char> bytes(100000, '\x91'); // fixarray of one element, nested
    bytes.push_back('\xc0');
    EXPECT_NE(error_of(bytes).find("malformed"), std::string::npos) << error_of(bytes);
}

TEST(serialize_msgpack_value, non_string_key_and_ext_throw)
{
    EXPECT_NE(error_of({'\x81', '\x01', '\x02'}).find("map key is not a string"), std::string::npos);
    EXPECT_NE(error_of({'\xd4', '\x01', '\x00'}).find("ext"), std::string::npos);
    EXPECT_NE(error_of({'\xc1'}).find("malformed"), std::string::npos) << error_of({'\xc1'});
}

// A "data" string of at least aligned_string_min bytes starts at a multiple of data_alignment
// of the output, whatever comes before it; the padding entry is gone after decoding.
TEST(serialize_msgpack_value, big_data_strings_are_aligned)
{
    using namespace migraphx::serialize;
    for(std::size_t n : {aligned_string_min, std::size_t{65535}, std::size_t{65536}, std::size_t{100001}})
    {
        std::string payload(n, '\0');
        for(std::size_t i = 0; i < n; i++)
            payload[i] = static_cast<char>(i * 7 + 3);
        for(std::size_t prefix = 0; prefix < 2 * data_alignment + 3; prefix++)
        {
            std::vector<char> bytes(prefix, 'x');
            value v = value::object{{"op", "@literal"}, {"data", payload}, {"after", 1}};
            value_to_msgpack(v, bytes);
            auto at = std::search(bytes.begin(), bytes.end(), payload.begin(), payload.end());
            ASSERT_NE(at, bytes.end());
            EXPECT_EQ(static_cast<std::size_t>(at - bytes.begin()) % data_alignment, 0) << n << " " << prefix;
            std::size_t offset = prefix;
            auto r             = msgpack_to_value(bytes.data(), bytes.size(), offset);
            EXPECT_EQ(offset, bytes.size());
            EXPECT_EQ(r, v) << "no @pad left";
        }
    }
    // small strings and other keys are written as they are
    std::vector<char> a;
    std::vector<char> b;
    value_to_msgpack(value::object{{"data", std::string(aligned_string_min - 1, 'a')}}, a);
    value_to_msgpack(value::object{{"text", std::string(5000, 'a')}}, b);
    EXPECT_EQ(a.size(), 1 + 5 + 3 + aligned_string_min - 1);
    EXPECT_EQ(b.size(), 1 + 5 + 3 + 5000);
}

TEST(serialize_msgpack_value, byte_refs_leave_data_in_the_input)
{
    using namespace migraphx::serialize;
    std::string big(3000, 'b');
    value v = value::object{{"a", value::object{{"data", "small"}, {"name", "n"}}},
                            {"b", value::array{value::object{{"data", big}}}}};
    std::vector<char> bytes;
    value_to_msgpack(v, bytes);
    byte_refs refs;
    std::size_t offset = 0;
    auto r             = msgpack_to_value(bytes.data(), bytes.size(), offset, &refs);
    ASSERT_EQ(refs.spans.size(), 2);
    EXPECT_EQ(r.at("a").at("data"), (value::object{{bytes_key, 0}}));
    EXPECT_EQ(r.at("a").at("name"), value("n"));
    EXPECT_EQ(r.at("b").get_array().at(0).at("data"), (value::object{{bytes_key, 1}}));
    // the spans point into the input itself
    EXPECT_EQ(std::string(refs.spans[0].first, refs.spans[0].second), "small");
    EXPECT_EQ(std::string(refs.spans[1].first, refs.spans[1].second), big);
    EXPECT_GE(refs.spans[1].first, bytes.data());
    EXPECT_LE(refs.spans[1].first + refs.spans[1].second, bytes.data() + bytes.size());
    EXPECT_EQ(static_cast<std::size_t>(refs.spans[1].first - bytes.data()) % data_alignment, 0);
    // a non-string "data" is decoded as usual
    bytes.clear();
    value_to_msgpack(value::object{{"data", 5}}, bytes);
    offset = 0;
    byte_refs none;
    EXPECT_EQ(msgpack_to_value(bytes.data(), bytes.size(), offset, &none), (value::object{{"data", 5}}));
    EXPECT_TRUE(none.spans.empty());
    // the placeholder's key cannot come from the input
    bytes.clear();
    value_to_msgpack(value::object{{bytes_key, 0}}, bytes);
    offset = 0;
    EXPECT_THROW(msgpack_to_value(bytes.data(), bytes.size(), offset, &none), migraphx::exception);
    offset = 0;
    EXPECT_EQ(msgpack_to_value(bytes.data(), bytes.size(), offset), (value::object{{bytes_key, 0}}));
}
