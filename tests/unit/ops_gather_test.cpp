#include <migraphx/make_op.hpp>
#include <migraphx/argument.hpp>
#include <gtest/gtest.h>
#include <numeric>

namespace {
using migraphx::shape;
using lvec = std::vector<std::size_t>;
migraphx::operation make_gather(std::int64_t axis) { return migraphx::make_op("gather", {{"axis", axis}}); }

std::vector<float> run(const migraphx::operation& op, const migraphx::argument& d, const migraphx::argument& i)
{
    auto out = op.compute_shape({d.get_shape(), i.get_shape()});
    auto r   = op.compute(out, {d, i});
    EXPECT_EQ(r.get_shape(), out);
    return r.to_vector<float>();
}
} // namespace

TEST(ops_gather, shape_rules)
{
    shape d{shape::float_type, {3, 4, 5}};
    EXPECT_EQ(make_gather(0).compute_shape({d, shape{shape::int32_type, {2}}}).lens(), (lvec{2, 4, 5}));
    EXPECT_EQ(make_gather(1).compute_shape({d, shape{shape::int64_type, {2, 6}}}), (shape{shape::float_type, {3, 2, 6, 5}}));
    EXPECT_EQ(make_gather(-1).compute_shape({d, shape{shape::int64_type, {7}}}).lens(), (lvec{3, 4, 7}));
    EXPECT_EQ(make_gather(1).compute_shape({d, shape{shape::int64_type}}).lens(), (lvec{3, 5}));
    EXPECT_EQ(make_gather(0).compute_shape({shape{shape::float_type, {3}}, shape{shape::int64_type}}).ndim(), 0u);
}

TEST(ops_gather, bad_inputs_throw)
{
    shape d{shape::float_type, {3, 4}};
    EXPECT_THROW(make_gather(0).compute_shape({d, shape{shape::float_type, {2}}}), migraphx::exception);
    EXPECT_THROW(make_gather(2).compute_shape({d, shape{shape::int32_type, {2}}}), migraphx::exception);
    EXPECT_THROW(make_gather(0).compute_shape({d}), migraphx::exception);
}

TEST(ops_gather, compute_axis0_and_negative)
{
    std::vector<float> x{0, 1, 2, 3, 4, 5};
    std::vector<std::int32_t> idx{2, 0, -1};
    migraphx::argument d{shape{shape::float_type, {3, 2}}, x.data()};
    migraphx::argument i{shape{shape::int32_type, {3}}, idx.data()};
    EXPECT_EQ(run(make_gather(0), d, i), (std::vector<float>{4, 5, 0, 1, 4, 5}));
}

TEST(ops_gather, compute_axis1_2d_indices_transposed_data)
{
    std::vector<float> x{0, 1, 2, 3, 4, 5}; // as {3, 2} transposed of {2, 3}: [[0,3],[1,4],[2,5]]
    std::vector<std::int64_t> idx{1, 0, 0, -1};
    migraphx::argument d{shape{shape::float_type, {3, 2}, {1, 3}}, x.data()};
    migraphx::argument i{shape{shape::int64_type, {2, 2}}, idx.data()};
    // out[r][a][b] = d[r][idx[a][b]]
    EXPECT_EQ(run(make_gather(1), d, i), (std::vector<float>{3, 0, 0, 3, 4, 1, 1, 4, 5, 2, 2, 5}));
}

TEST(ops_gather, compute_scalar_index)
{
    std::vector<float> x{0, 1, 2, 3, 4, 5};
    std::vector<std::int64_t> idx{1};
    migraphx::argument d{shape{shape::float_type, {3, 2}}, x.data()};
    migraphx::argument i{shape{shape::int64_type}, idx.data()};
    EXPECT_EQ(run(make_gather(0), d, i), (std::vector<float>{2, 3}));
    EXPECT_EQ(run(make_gather(1), d, i), (std::vector<float>{1, 3, 5}));
}

TEST(ops_gather, out_of_range_index_throws_at_compute)
{
    std::vector<float> x{0, 1, 2, 3, 4, 5};
    std::vector<std::int32_t> idx{0, 3};
    migraphx::argument d{shape{shape::float_type, {3, 2}}, x.data()};
    migraphx::argument i{shape{shape::int32_type, {2}}, idx.data()};
    auto op  = make_gather(0);
    auto out = op.compute_shape({d.get_shape(), i.get_shape()});
    try
    {
        op.compute(out, {d, i});
        FAIL() << "expected a throw";
    }
    catch(const migraphx::exception& e)
    {
        EXPECT_NE(std::string(e.what()).find("index 3"), std::string::npos) << e.what();
    }
    idx[1] = -4;
    EXPECT_THROW(op.compute(out, {d, i}), migraphx::exception);
}
