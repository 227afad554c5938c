#include <migraphx/literal.hpp>
#include <migraphx/generate.hpp>
#include <gtest/gtest.h>
#include <sstream>
#include <cstring>
#include <memory>

using migraphx::literal;
using migraphx::shape;

TEST(literal, from_vector_pointer_and_list)
{
    shape s{shape::float_type, {2, 2}};
    std::vector<float> v = {1, 2, 3, 4};
    literal a{s, v};
    literal b{s, v.data()};
    literal c{s, {1.0f, 2.0f, 3.0f, 4.0f}};
    EXPECT_EQ(a, b);
    EXPECT_EQ(a, c);
    EXPECT_EQ(a.to_vector<float>(), v);
    // The literal copied the data: changing the source does not change it.
    v[0] = 100;
    EXPECT_EQ(a.at<float>(0), 1.0f);
}

TEST(literal, converts_values_to_its_type)
{
    literal h{shape{shape::half_type, {3}}, std::vector<double>{0.5, -2, 1024}};
    EXPECT_EQ(h.to_vector<float>(), (std::vector<float>{0.5f, -2.0f, 1024.0f}));
    literal i{shape{shape::int64_type, {2}}, std::vector<std::int64_t>{INT64_MAX, INT64_MIN}};
    EXPECT_EQ(i.at<std::int64_t>(0), INT64_MAX);
    EXPECT_EQ(i.at<std::int64_t>(1), INT64_MIN);
}

TEST(literal, scalar_and_fill)
{
    literal s{3.5f};
    EXPECT_EQ(s.get_shape().type(), shape::float_type);
    EXPECT_EQ(s.get_shape().elements(), 1);
    literal fill{shape{shape::int32_type, {4}}, std::vector<int>{7}};
    EXPECT_EQ(fill.to_vector<int>(), std::vector<int>(4, 7));
}

TEST(literal, wrong_count_throws)
{
    EXPECT_THROW((literal{shape{shape::float_type, {3}}, std::vector<float>{1, 2}}), migraphx::exception);
}

TEST(literal, generate_literal_like_the_spec)
{
    auto l = migraphx::generate_literal(shape{shape::float_type, {64, 3, 7, 7}}, 0);
    EXPECT_EQ(l.get_shape().elements(), 9408);
    EXPECT_EQ(l, migraphx::generate_literal(shape{shape::float_type, {64, 3, 7, 7}}, 0));
    std::ostringstream ss;
    ss << literal{shape{shape::float_type, {1, 1, 1, 1}}, std::vector<float>{1}};
    EXPECT_EQ(ss.str(), "1");
}

TEST(literal, adopt_shares_the_buffer_without_copying)
{
    shape s{shape::float_type, {2, 2}};
    // Four floats at byte 16 of a larger buffer, which the literal keeps alive.
    std::shared_ptr<char> buffer(new char[64], std::default_delete<char[]>());
    std::vector<float> v = {1, 2, 3, 4};
    std::memcpy(buffer.get() + 16, v.data(), 16);
    auto l = literal::adopt(s, std::shared_ptr<char>(buffer, buffer.get() + 16));
    EXPECT_EQ(l.data(), buffer.get() + 16);
    EXPECT_EQ(l.to_vector<float>(), v);
    EXPECT_EQ(buffer.use_count(), 2);
    buffer.reset(); // the literal still holds it
    EXPECT_EQ(l.to_vector<float>(), v);
    auto copy = l; // copies share it too
    EXPECT_EQ(copy.data(), l.data());
    EXPECT_EQ(copy.get_argument().data(), l.data());
}

TEST(literal, adopt_checks_its_arguments)
{
    EXPECT_THROW(literal::adopt(shape{shape::float_type, {2}}, nullptr), migraphx::exception);
    EXPECT_TRUE(literal::adopt(shape{shape::float_type, {0}}, nullptr).empty());
    EXPECT_THROW(literal::adopt(shape{std::vector<shape>{shape{shape::float_type, {1}}}},
                                std::shared_ptr<char>(new char[4], std::default_delete<char[]>())),
                 migraphx::exception);
}
