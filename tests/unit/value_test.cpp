#include <migraphx/value.hpp>
#include <gtest/gtest.h>

using migraphx::value;

TEST(value, relaxed_json_with_unquoted_keys)
{
    auto v = value::from_json("{padding:[0,0],stride:[1,1],dilation:[1,1],group:1,padding_mode:0}");
    ASSERT_TRUE(v.is_object());
    EXPECT_EQ(v.size(), 5);
    EXPECT_EQ(v.at("padding").to_vector<int>(), (std::vector<int>{0, 0}));
    EXPECT_EQ(v.at("group").to<int>(), 1);
    // Order of keys is kept.
    EXPECT_EQ(v.get_object()[1].first, "stride");
}

TEST(value, standard_json_and_scalars)
{
    auto v = value::from_json(R"({"a": -3, "b": 2.5, "c": "x\"y", "d": true, "e": null, "f": [1, [2]]})");
    EXPECT_EQ(v.at("a").get_int64(), -3);
    EXPECT_DOUBLE_EQ(v.at("b").get_float(), 2.5);
    EXPECT_EQ(v.at("c").get_string(), "x\"y");
    EXPECT_TRUE(v.at("d").get_bool());
    EXPECT_TRUE(v.at("e").is_null());
    EXPECT_EQ(v.at("f").at(1).at(0).to<int>(), 2);
    EXPECT_EQ(value::from_json(v.to_json()), v);
}

TEST(value, large_integers_are_exact)
{
    auto v = value::from_json("[9223372036854775807, -9223372036854775808, 18446744073709551615]");
    EXPECT_EQ(v.at(0).get_int64(), INT64_MAX);
    EXPECT_EQ(v.at(1).get_int64(), INT64_MIN);
    EXPECT_EQ(v.at(2).get_uint64(), UINT64_MAX);
}

TEST(value, malformed_json_throws)
{
    for(const char* bad : {"{a:", "[1,2", "{a 1}", "", "}", "[1,]x", "{\"a\":1} trailing", "'open"})
        EXPECT_THROW(value::from_json(bad), migraphx::exception) << bad;
}

TEST(value, missing_key_and_wrong_kind_throw)
{
    value v = {{"a", 1}};
    EXPECT_THROW(v.at("b"), migraphx::exception);
    EXPECT_THROW(v.at("a").get_string(), migraphx::exception);
    EXPECT_THROW(value("x").get_int64(), migraphx::exception);
    EXPECT_THROW(value(-1).get_uint64(), migraphx::exception);
}

TEST(value, building_objects)
{
    value v;
    v["x"] = 1;
    v["y"] = std::vector<int>{1, 2};
    v["x"] = 3;
    EXPECT_EQ(v.size(), 2);
    EXPECT_EQ(v.at("x").to<int>(), 3);
    EXPECT_EQ(v.to_json(), R"({"x":3,"y":[1,2]})");
}

TEST(value, numeric_equality_across_kinds)
{
    EXPECT_EQ(value(1), value(1u));
    EXPECT_EQ(value(2), value(2.0));
    EXPECT_NE(value(-1), value(1u));
    EXPECT_NE(value("1"), value(1));
}

TEST(value, deep_nesting_is_rejected_not_crashing)
{
    std::string deep(10000, '[');
    EXPECT_THROW(value::from_json(deep), migraphx::exception);
}
