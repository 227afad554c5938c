// cpu::channel_shuffle (channel_shuffle_kernel.hpp) against the definition written out here:
// concatenate the parts' channels, shuffle them in g groups, split them equally. Both of its paths
// (groups read whole from one part each; any parts by a table), strided parts, and the shapes it
// refuses.
#include <migraphx/argument.hpp>
#include <migraphx/shape.hpp>
#include <gtest/gtest.h>
#ifdef MIGRAPHX_HAVE_CPU
#include "targets/cpu/channel_shuffle_kernel.hpp"
#include <migraphx/errors.hpp>
#endif

using migraphx::shape;

#ifdef MIGRAPHX_HAVE_CPU
namespace {

/// The expected {splits, N, H, W, C / splits} of parts {N, H, W, C_i}, element by element.
std::vector<float> by_definition(const std::vector<migraphx::argument>& parts, std::size_t groups, std::size_t splits)
{
    const auto& l = parts[0].get_shape().lens();
    std::size_t c = 0;
    for(const auto& p : parts)
        c += p.get_shape().lens()[3];
    auto per_group = c / groups, per_split = c / splits, pixels = l[0] * l[1] * l[2];
    std::vector<float> out(pixels * c);
    for(std::size_t n = 0; n < l[0]; n++)
        for(std::size_t h = 0; h < l[1]; h++)
            for(std::size_t w = 0; w < l[2]; w++)
            {
                std::vector<float> cat; // this pixel's channels, concatenated
                for(const auto& p : parts)
                {
                    const auto& st = p.get_shape().strides();
                    const auto* x  = reinterpret_cast<const float*>(p.data());
                    for(std::size_t k = 0; k < p.get_shape().lens()[3]; k++)
                        cat.push_back(x[n * st[0] + h * st[1] + w * st[2] + k * st[3]]);
                }
                auto px = (n * l[1] + h) * l[2] + w;
                for(std::size_t s = 0; s < c; s++) // shuffled channel s = i * groups + j: channel i of group j
                    out[(s / per_split) * pixels * per_split + px * per_split + s % per_split] =
                        cat[(s % groups) * per_group + s / groups];
            }
    return out;
}

std::vector<float> shuffled(const std::vector<migraphx::argument>& parts, std::size_t groups, std::size_t splits)
{
    migraphx::cpu::channel_shuffle_kernel op{groups, splits};
    std::vector<shape> shapes;
    for(const auto& p : parts)
        shapes.push_back(p.get_shape());
    auto out = op.compute_shape(shapes);
    return op.compute(out, parts).to_vector<float>();
}

migraphx::argument part(std::vector<std::size_t> lens, unsigned long seed)
{
    return migraphx::generate_argument(shape{shape::float_type, std::move(lens)}, seed);
}

} // namespace

TEST(cpu_channel_shuffle_kernel, shufflenet_units_match_the_definition)
{
    // Two halves, two groups, split in two (a ShuffleNetV2 unit) and not split (its last).
    for(std::size_t splits : {1, 2})
    {
        std::vector<migraphx::argument> parts{part({2, 3, 5, 6}, 1), part({2, 3, 5, 6}, 2)};
        EXPECT_EQ(shuffled(parts, 2, splits), by_definition(parts, 2, splits)) << splits;
    }
    // Three groups, one part each, split in three and in two (6 channels a split: 2 a group).
    std::vector<migraphx::argument> three{part({1, 2, 2, 4}, 3), part({1, 2, 2, 4}, 4), part({1, 2, 2, 4}, 5)};
    for(std::size_t splits : {1, 2, 3})
        EXPECT_EQ(shuffled(three, 3, splits), by_definition(three, 3, splits)) << splits;
    // One part holding both groups (the concat was not taken in).
    std::vector<migraphx::argument> one{part({1, 4, 4, 10}, 6)};
    EXPECT_EQ(shuffled(one, 2, 2), by_definition(one, 2, 2));
}

TEST(cpu_channel_shuffle_kernel, parts_across_groups_and_strided_parts_match_the_definition)
{
    // Parts of 6 and 2 channels in 2 groups of 4: a group spans both parts (the table's path).
    std::vector<migraphx::argument> uneven{part({1, 3, 3, 6}, 7), part({1, 3, 3, 2}, 8)};
    for(std::size_t splits : {1, 2, 4})
        EXPECT_EQ(shuffled(uneven, 2, splits), by_definition(uneven, 2, splits)) << splits;
    // A part read at channel stride 2 (every other channel of a wider buffer), and one whose
    // pixels are not packed (a slice of a wider row).
    auto wide = part({1, 2, 3, 8}, 9);
    auto* d   = reinterpret_cast<float*>(wide.data());
    migraphx::argument every_other{shape{shape::float_type, {1, 2, 3, 4}, {48, 24, 8, 2}}, d};
    migraphx::argument first_half{shape{shape::float_type, {1, 2, 3, 4}, {48, 24, 8, 1}}, d + 1};
    std::vector<migraphx::argument> strided{every_other, first_half};
    for(std::size_t groups : {1, 2, 4})
        EXPECT_EQ(shuffled(strided, groups, 2), by_definition(strided, groups, 2)) << groups;
    // Unit channel stride, pixels apart (a group each, read whole: the first path).
    migraphx::argument second_half{shape{shape::float_type, {1, 2, 3, 4}, {48, 24, 8, 1}}, d + 4};
    std::vector<migraphx::argument> halves{first_half, second_half};
    EXPECT_EQ(shuffled(halves, 2, 2), by_definition(halves, 2, 2));
    // A group a part, but splits of an odd 3 channels (not whole pairs): the table's path.
    std::vector<migraphx::argument> odd{part({1, 2, 2, 6}, 10), part({1, 2, 2, 6}, 11)};
    EXPECT_EQ(shuffled(odd, 2, 4), by_definition(odd, 2, 4));
}

TEST(cpu_channel_shuffle_kernel, refuses_parts_that_do_not_fit)
{
    migraphx::cpu::channel_shuffle_kernel op{2, 2};
    shape a{shape::float_type, {1, 4, 4, 6}};
    EXPECT_EQ(op.compute_shape({a, a}).lens(), (std::vector<std::size_t>{2, 1, 4, 4, 6}));
    EXPECT_THROW(op.compute_shape({a, shape{shape::float_type, {1, 4, 5, 6}}}), migraphx::exception); // other W
    EXPECT_THROW(op.compute_shape({shape{shape::float_type, {1, 4, 4, 3}}}), migraphx::exception);      // 3 channels
    EXPECT_THROW(op.compute_shape({shape{shape::half_type, {1, 4, 4, 6}}}), migraphx::exception);       // half
    EXPECT_THROW(op.compute_shape({shape{shape::float_type, {4, 4, 6}}}), migraphx::exception);         // rank 3
    EXPECT_THROW(op.compute_shape({}), migraphx::exception);
    migraphx::cpu::channel_shuffle_kernel none{0, 1};
    EXPECT_THROW(none.compute_shape({a}), migraphx::exception);
}
#else
TEST(cpu_channel_shuffle_kernel, needs_the_cpu_target)
{
    GTEST_SKIP() << "this build has no cpu target (oneDNN not found)";
}
#endif
