// value <-> JSON text and base64 (src/serialize/json_value.cpp).
#include <migraphx/errors.hpp>
#include <gtest/gtest.h>
#include "serialize/json_value.hpp"

using migraphx::value;
using namespace migraphx::serialize;

TEST(serialize_json_value, round_trip)
{
    value v = value::object{{"name", "main"}, {"xs", {1, -2, 3.5}}, {"flag", true}, {"none", nullptr}};
    auto text = value_to_json_text(v);
    EXPECT_EQ(text, R"({"name":"main","xs":[1,-2,3.5],"flag":true,"none":null})");
    EXPECT_EQ(json_text_to_value(text.data(), text.size()), v);
}

TEST(serialize_json_value, malformed_throws_migraphx_exception)
{
    for(std::string bad : {"{", "{\"a\":}", "[1,2", "\"\\uzzzz\"", "{\"a\":1} x"})
    {
        try
        {
            json_text_to_value(bad.data(), bad.size());
            ADD_FAILURE() << bad << " parsed";
        }
        catch(const migraphx::exception& e)
        {
            EXPECT_NE(std::string(e.what()).find("json:"), std::string::npos) << e.what();
        }
    }
    std::string deep(100000, '[');
    EXPECT_THROW(json_text_to_value(deep.data(), deep.size()), migraphx::exception);
}

TEST(serialize_json_value, base64)
{
    EXPECT_EQ(base64_encode("", 0), "");
    EXPECT_EQ(base64_encode("f", 1), "Zg==");
    EXPECT_EQ(base64_encode("fo", 2), "Zm8=");
    EXPECT_EQ(base64_encode("foo", 3), "Zm9v");
    EXPECT_EQ(base64_encode("foob", 4), "Zm9vYg==");
    std::string all;
    for(int i = 0; i < 256; i++)
        all += static_cast<char>(i);
    for(std::size_t n = 0; n <= all.size(); n += 37)
        EXPECT_EQ(base64_decode(base64_encode(all.data(), n)), all.substr(0, n)) << n;
    EXPECT_THROW(base64_decode("Zg="), migraphx::exception);
    EXPECT_THROW(base64_decode("Z!=="), migraphx::exception);
    EXPECT_THROW(base64_decode("Z=g="), migraphx::exception);
    EXPECT_THROW(base64_decode("Zg==Zg=="), migraphx::exception);
}
