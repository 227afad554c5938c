// copy_strided against its definition: element i of the result is the element at s.index(i).
#include "ir/strided_copy.hpp"
#include <migraphx/errors.hpp>
#include <gtest/gtest.h>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

using migraphx::shape;

namespace {

// Copies by the definition, one element at a time.
std::vector<char> expected(const shape& s, const std::vector<char>& src)
{
    auto ts = s.type_size();
    std::vector<char> r(s.elements() * ts);
    for(std::size_t i = 0; i < s.elements(); i++)
        std::memcpy(r.data() + i * ts, src.data() + s.index(i) * ts, ts);
    return r;
}

// Distinct bytes everywhere, so a wrong offset shows.
std::vector<char> source_for(const shape& s)
{
    std::vector<char> src(std::max<std::size_t>(s.element_space(), 1) * s.type_size());
    for(std::size_t i = 0; i < src.size(); i++)
        src[i] = static_cast<char>((i * 131 + 7) % 251);
    return src;
}

void check(const shape& s)
{
    auto src = source_for(s);
    std::vector<char> dst(s.elements() * s.type_size(), 0);
    migraphx::copy_strided(s, src.data(), dst.data());
    EXPECT_EQ(dst, expected(s, src)) << s;
}

} // namespace

TEST(strided_copy, standard_transposed_sliced_and_broadcast_views)
{
    for(auto t : {shape::int8_type, shape::half_type, shape::float_type, shape::int64_type})
    {
        check(shape{t, {2, 3, 4}});
        check(shape{t, {4, 3, 2}, {1, 4, 12}});           // transpose
        check(shape{t, {2, 3, 2}, {12, 4, 1}});           // slice of the last dim
        check(shape{t, {5, 6, 7, 7}, {1, 0, 0, 0}});      // Expand of a column, the detectors' index
        check(shape{t, {3, 4}, {0, 1}});                  // a row repeated
        check(shape{t, {2, 1, 3}, {3, 99, 1}});           // a size-1 dim with any stride
        check(shape{t, {1}, {0}});                        // a broadcast scalar
        check(shape{t, {2, 3, 5}, {30, 1, 6}});           // inner dims swapped
    }
}

TEST(strided_copy, large_views_split_over_threads_match)
{
    // Past the per-thread size, so several threads each start mid-way through the odometer.
    check(shape{shape::float_type, {300, 256, 7, 7}, {1, 0, 0, 0}});
    check(shape{shape::float_type, {64, 3, 100, 41}, {12300, 1, 123, 3}});
    check(shape{shape::half_type, {1000, 1025}, {1, 1000}});
    // Rows over 2 MB, cut into pieces: a packed tensor (one row), a repeated long row, and a row of
    // a size that the pieces do not divide.
    check(shape{shape::float_type, {3, 1000003}});
    check(shape{shape::float_type, {3, 700001}, {0, 1}});
    check(shape{shape::int8_type, {2, 3, 2500007}, {7500021, 2500007, 1}});
}

TEST(strided_copy, copy_view_writes_into_a_strided_destination_and_leaves_the_rest)
{
    // The middle part of a concatenation along dim 1 ({2, 3+4+5, 6}), from a transposed source and
    // a broadcast one; and a mismatch of dims refused.
    for(const auto& from : {shape{shape::float_type, {2, 4, 6}, {1, 12, 2}}, shape{shape::float_type, {2, 4, 6}, {0, 6, 1}},
                            shape{shape::float_type, {2, 4, 6}}})
    {
        auto src = source_for(from);
        shape to{shape::float_type, {2, 4, 6}, {72, 6, 1}};
        std::vector<char> dst(2 * 12 * 6 * 4, 0x55);
        auto* part = dst.data() + 3 * 6 * 4;
        migraphx::copy_view(from, src.data(), to, part);
        auto want = std::vector<char>(dst.size(), 0x55);
        auto dense = expected(from, src);
        for(std::size_t i = 0; i < 2; i++)
            std::memcpy(want.data() + (i * 72 + 18) * 4, dense.data() + i * 24 * 4, 24 * 4);
        EXPECT_EQ(dst, want) << from;
    }
    std::vector<char> buf(64);
    EXPECT_THROW(migraphx::copy_view(shape{shape::float_type, {2, 2}}, buf.data(), shape{shape::float_type, {4}}, buf.data()),
                 migraphx::exception);
}

TEST(strided_copy, empty_view_writes_nothing)
{
    std::vector<char> dst(4, 5);
    migraphx::copy_strided(shape{shape::float_type, {0, 3}}, nullptr, dst.data());
    EXPECT_EQ(dst, std::vector<char>(4, 5));
}

TEST(strided_copy, short_contiguous_rows_into_a_wider_destination)
{
    // A channel concatenation in NHWC: each pixel's channels are one short contiguous row, copied
    // inline 16 bytes at a time with a tail (5 floats: 20 bytes), exactly 16 and 64 bytes, 257
    // bytes (past the inline size), into every other part of a destination twice as wide.
    for(std::size_t c : {1, 4, 5, 16, 65})
    {
        for(auto t : {shape::float_type, shape::int8_type})
        {
            shape from{t, {3, 7, c}};
            shape to{t, {3, 7, c}, {7 * 2 * c, 2 * c, 1}};
            auto src = source_for(from);
            auto ts  = from.type_size();
            std::vector<char> dst(3 * 7 * 2 * c * ts, 0x55);
            migraphx::copy_view(from, src.data(), to, dst.data() + c * ts);
            auto want = std::vector<char>(dst.size(), 0x55);
            for(std::size_t r = 0; r < 21; r++)
                std::memcpy(want.data() + (r * 2 * c + c) * ts, src.data() + r * c * ts, c * ts);
            EXPECT_EQ(dst, want) << from;
        }
    }
}

// Along an axis with only ones before it (an unrolled recurrence's steps), packed parts are
// copied as blocks; a transposed part among them still goes element by element.
TEST(strided_copy, copy_concat_of_packed_blocks_and_a_strided_part)
{
    shape a{shape::int16_type, {1, 1, 2, 3}};
    shape b{shape::int16_type, {1, 2, 2, 3}, {12, 1, 6, 2}}; // not standard
    shape c{shape::int16_type, {1, 3, 2, 3}};
    shape out{shape::int16_type, {1, 6, 2, 3}};
    auto sa = source_for(a), sb = source_for(b), sc = source_for(c);
    std::vector<char> dst(out.bytes(), 0);
    migraphx::copy_concat({a, b, c}, {sa.data(), sb.data(), sc.data()}, 1, out, dst.data());
    auto el = [](const std::vector<char>& v, std::size_t i) {
        std::int16_t x;
        std::memcpy(&x, v.data() + 2 * i, 2);
        return x;
    };
    for(std::size_t j = 0; j < 6; j++)
        for(std::size_t k = 0; k < 2; k++)
            for(std::size_t l = 0; l < 3; l++)
            {
                auto want = j < 1   ? el(sa, a.index({0, j, k, l}))
                            : j < 3 ? el(sb, b.index({0, j - 1, k, l}))
                                    : el(sc, c.index({0, j - 3, k, l}));
                EXPECT_EQ(el(dst, out.index({0, j, k, l})), want) << j << " " << k << " " << l;
            }
}

TEST(strided_copy, copy_concat_puts_each_part_in_its_place)
{
    // {2, 1+3, 2} along axis 1 from a standard part and a transposed one: element by element
    shape a{shape::int8_type, {2, 1, 2}};
    shape b{shape::int8_type, {2, 3, 2}, {1, 4, 2}};
    shape out{shape::int8_type, {2, 4, 2}};
    auto sa = source_for(a), sb = source_for(b);
    std::vector<char> dst(out.elements(), 0);
    migraphx::copy_concat({a, b}, {sa.data(), sb.data()}, 1, out, dst.data());
    for(std::size_t i = 0; i < 2; i++)
        for(std::size_t j = 0; j < 4; j++)
            for(std::size_t k = 0; k < 2; k++)
            {
                char want = j == 0 ? sa[a.index({i, 0, k})] : sb[b.index({i, j - 1, k})];
                EXPECT_EQ(dst[out.index({i, j, k})], want) << i << " " << j << " " << k;
            }
}
