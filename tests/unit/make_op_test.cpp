#include <migraphx/make_op.hpp>
#include <gtest/gtest.h>
#include <sstream>

namespace {
std::string str(const migraphx::operation& op)
{
    std::ostringstream ss;
    ss << op;
    return ss.str();
}
} // namespace

TEST(make_op, json_op_like_the_spec)
{
    auto conv = migraphx::make_json_op("convolution", "{padding:[0,0],stride:[1,1],dilation:[1,1],group:1,padding_mode:0}");
    EXPECT_EQ(str(conv),
              "convolution[padding={0, 0},stride={1, 1},dilation={1, 1},group=1,padding_mode=0,use_dynamic_same_auto_pad=0]");
    auto slice = migraphx::make_json_op("slice", "{axes:[2,3],starts:[0,2],ends:[4,5]}");
    EXPECT_EQ(str(slice), "slice[axes={2, 3},starts={0, 2},ends={4, 5}]");
    EXPECT_EQ(str(migraphx::make_op("contiguous")), "contiguous");
    EXPECT_EQ(str(migraphx::make_op("flatten")), "flatten[axis=1]");
}

TEST(make_op, value_round_trip_and_equality)
{
    auto a = migraphx::make_op("transpose", {{"permutation", {1, 0}}});
    auto b = migraphx::make_op("transpose", a.to_value());
    EXPECT_EQ(a, b);
    EXPECT_NE(a, migraphx::make_op("transpose", {{"permutation", {0, 1}}}));
}

TEST(make_op, bad_names_and_attributes_throw)
{
    EXPECT_THROW(migraphx::make_op("no_such_op"), migraphx::exception);
    EXPECT_THROW(migraphx::make_op("flatten", {{"axes", 1}}), migraphx::exception);
    EXPECT_THROW(migraphx::make_json_op("flatten", "{axis:"), migraphx::exception);
    EXPECT_THROW(migraphx::make_json_op("flatten", "{axis:\"x\"}"), migraphx::exception);
    EXPECT_THROW(migraphx::make_op("contiguous", {{"axis", 1}}), migraphx::exception);
}

TEST(make_op, registry_lists_ops)
{
    auto ops = migraphx::get_operators();
    EXPECT_TRUE(std::is_sorted(ops.begin(), ops.end()));
    for(const char* n : {"convolution", "slice", "contiguous", "flatten", "add", "relu", "dot", "pooling"})
        EXPECT_NE(std::find(ops.begin(), ops.end(), n), ops.end()) << n;
}
