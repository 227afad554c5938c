#include <migraphx/argument.hpp>
#include <migraphx/generate.hpp>
#include <gtest/gtest.h>
#include <algorithm>
#include <cstring>
#include <sstream>

using migraphx::argument;
using migraphx::shape;

TEST(argument, owning_memory_is_allocated_for_the_shape)
{
    argument a{shape{shape::float_type, {2, 3}}};
    ASSERT_NE(a.data(), nullptr);
    EXPECT_EQ(a.get_shape().bytes(), 24);
    EXPECT_EQ(a.to_vector<float>(), std::vector<float>(6, 0.0f));
}

TEST(argument, fresh_memory_is_zero_even_where_freed_memory_is_reused)
{
    // Sizes served from the heap (reused blocks) and from fresh mappings; each is dirtied and
    // freed, then the same size is allocated again: it must read as zeros.
    for(std::size_t n : {std::size_t{7}, std::size_t{4096}, std::size_t{200000}, std::size_t{48} << 20})
    {
        shape s{shape::int8_type, {n}};
        {
            argument dirty{s};
            std::memset(dirty.data(), 0x5a, n);
        }
        argument a{s};
        const auto* p = reinterpret_cast<const unsigned char*>(a.data());
        EXPECT_TRUE(std::all_of(p, p + n, [](unsigned char c) { return c == 0; })) << n << " bytes";
    }
    argument empty{shape{shape::float_type, {0}}};
    EXPECT_NE(empty.data(), nullptr) << "a zero-size argument still owns a (1-byte) block";
}

TEST(argument, borrowed_pointer_is_not_copied_or_freed)
{
    std::vector<float> data = {1, 2, 3, 4};
    {
        argument a{shape{shape::float_type, {2, 2}}, data.data()};
        EXPECT_EQ(reinterpret_cast<float*>(a.data()), data.data());
        reinterpret_cast<float*>(a.data())[0] = 7;
    }
    EXPECT_EQ(data[0], 7); // still alive and written through
}

TEST(argument, copies_share_memory)
{
    argument a{shape{shape::int32_type, {3}}};
    argument b = a;
    reinterpret_cast<int*>(b.data())[1] = 5;
    EXPECT_EQ(a.at<int>(1), 5);
    auto c = a.copy();
    reinterpret_cast<int*>(c.data())[1] = 9;
    EXPECT_EQ(a.at<int>(1), 5);
}

TEST(argument, strided_view_reads_logically)
{
    std::vector<float> data(24);
    for(std::size_t i = 0; i < data.size(); i++)
        data[i] = static_cast<float>(i);
    argument full{shape{shape::float_type, {1, 1, 4, 6}}, data.data()};
    auto sliced = full.view(shape{shape::float_type, {1, 1, 4, 3}, {24, 24, 6, 1}}, 2 * sizeof(float));
    EXPECT_EQ(sliced.to_vector<int>(), (std::vector<int>{2, 3, 4, 8, 9, 10, 14, 15, 16, 20, 21, 22}));
    auto c = sliced.contiguous();
    EXPECT_TRUE(c.get_shape().standard());
    EXPECT_EQ(c.get_shape().strides(), (std::vector<std::size_t>{12, 12, 3, 1}));
    EXPECT_EQ(c, sliced);
}

TEST(argument, view_past_the_end_throws)
{
    argument a{shape{shape::float_type, {4}}};
    EXPECT_THROW(a.view(shape{shape::float_type, {4}}, 4), migraphx::exception);
}

TEST(argument, printing_and_equality)
{
    std::vector<int> d = {1, 2, 3};
    argument a{shape{shape::int32_type, {3}}, d.data()};
    std::ostringstream ss;
    ss << a;
    EXPECT_EQ(ss.str(), "1, 2, 3");
    argument b{shape{shape::int32_type, {3}}};
    EXPECT_NE(a, b);
}

TEST(argument, generate_is_deterministic_per_seed)
{
    shape s{shape::float_type, {64}};
    auto a = migraphx::generate_argument(s, 1);
    auto b = migraphx::generate_argument(s, 1);
    auto c = migraphx::generate_argument(s, 2);
    EXPECT_EQ(a, b);
    EXPECT_NE(a, c);
    for(float x : a.to_vector<float>())
    {
        EXPECT_GE(x, -1.0f);
        EXPECT_LT(x, 1.0f);
    }
    auto h = migraphx::generate_argument(shape{shape::half_type, {8}});
    EXPECT_EQ(h.get_shape().type(), shape::half_type);
}

TEST(argument, tuple)
{
    argument a{shape{shape::float_type, {2}}};
    argument b{shape{shape::int64_type, {1}}};
    argument t{std::vector<argument>{a, b}};
    EXPECT_EQ(t.get_shape().type(), shape::tuple_type);
    EXPECT_EQ(t.get_sub_objects().size(), 2);
    EXPECT_THROW(t.visit([](auto) {}), migraphx::exception);
}
