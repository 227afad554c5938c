#include <migraphx/make_op.hpp>
#include <migraphx/argument.hpp>
#include <gtest/gtest.h>
#include <sstream>
#include "ops/broadcast_lens.hpp"

namespace {
using migraphx::shape;
using lvec = std::vector<std::size_t>;

std::string str(const migraphx::operation& op)
{
    std::ostringstream ss;
    ss << op;
    return ss.str();
}
} // namespace

TEST(ops_broadcast, shape_places_input_at_axis)
{
    auto op = migraphx::make_op("broadcast", {{"axis", 1}, {"out_lens", lvec{2, 3, 4, 5}}});
    EXPECT_EQ(str(op), "broadcast[axis=1,out_lens={2, 3, 4, 5}]");
    auto out = op.compute_shape({shape{shape::half_type, {3}}});
    EXPECT_EQ(out, (shape{shape::half_type, {2, 3, 4, 5}, {0, 1, 0, 0}}));
    EXPECT_EQ(op.output_alias({shape{shape::half_type, {3}}}), 0);
    // Two input dims at axis 1 keep their strides.
    auto op2 = migraphx::make_op("broadcast", {{"axis", 1}, {"out_lens", lvec{2, 3, 4, 5}}});
    EXPECT_EQ(op2.compute_shape({shape{shape::float_type, {3, 4}}}),
              (shape{shape::float_type, {2, 3, 4, 5}, {0, 4, 1, 0}}));
}

TEST(ops_broadcast, bad_shapes_throw)
{
    auto op = migraphx::make_op("broadcast", {{"axis", 1}, {"out_lens", lvec{2, 3, 4}}});
    EXPECT_THROW(op.compute_shape({shape{shape::float_type, {4}}}), migraphx::exception);
    EXPECT_THROW(op.compute_shape({shape{shape::float_type, {3, 4, 5}}}), migraphx::exception);
    EXPECT_THROW(op.compute_shape({}), migraphx::exception);
}

TEST(ops_broadcast, compute_is_view)
{
    std::vector<float> x{1, 2, 3};
    migraphx::argument in{shape{shape::float_type, {3}}, x.data()};
    auto op  = migraphx::make_op("broadcast", {{"axis", 0}, {"out_lens", lvec{3, 2}}});
    auto out = op.compute_shape({in.get_shape()});
    EXPECT_EQ(out.strides(), (lvec{1, 0}));
    auto r = op.compute(out, {in});
    EXPECT_EQ(r.data(), in.data());
    EXPECT_EQ(r.to_vector<float>(), (std::vector<float>{1, 1, 2, 2, 3, 3}));
}

TEST(ops_multibroadcast, shape_rules)
{
    auto op = migraphx::make_op("multibroadcast", {{"out_lens", lvec{2, 3, 4}}});
    EXPECT_EQ(str(op), "multibroadcast[out_lens={2, 3, 4}]");
    EXPECT_EQ(op.compute_shape({shape{shape::float_type, {3, 1}}}), (shape{shape::float_type, {2, 3, 4}, {0, 1, 0}}));
    EXPECT_EQ(op.compute_shape({shape{shape::float_type, {4}}}), (shape{shape::float_type, {2, 3, 4}, {0, 0, 1}}));
    EXPECT_EQ(op.compute_shape({shape{shape::float_type, {2, 3, 4}}}), (shape{shape::float_type, {2, 3, 4}}));
    EXPECT_EQ(op.compute_shape({shape{shape::float_type}}), (shape{shape::float_type, {2, 3, 4}, {0, 0, 0}}));
    // A transposed input keeps its strides.
    EXPECT_EQ(op.compute_shape({shape{shape::float_type, {3, 4}, {1, 3}}}),
              (shape{shape::float_type, {2, 3, 4}, {0, 1, 3}}));
    EXPECT_EQ(op.output_alias({shape{shape::float_type, {4}}}), 0);
}

TEST(ops_multibroadcast, mismatch_throws_naming_shapes)
{
    auto op = migraphx::make_op("multibroadcast", {{"out_lens", lvec{2, 4}}});
    try
    {
        op.compute_shape({shape{shape::float_type, {3}}});
        FAIL() << "expected a throw";
    }
    catch(const migraphx::exception& e)
    {
        std::string msg = e.what();
        EXPECT_NE(msg.find("{2, 4}"), std::string::npos) << msg;
        EXPECT_NE(msg.find("{3}"), std::string::npos) << msg;
    }
    EXPECT_THROW(op.compute_shape({shape{shape::float_type, {1, 2, 4}}}), migraphx::exception);
}

TEST(ops_multibroadcast, compute_values_and_memory)
{
    std::vector<float> x{1, 2, 3};
    migraphx::argument in{shape{shape::float_type, {3, 1}}, x.data()};
    auto op  = migraphx::make_op("multibroadcast", {{"out_lens", lvec{2, 3, 2}}});
    auto out = op.compute_shape({in.get_shape()});
    auto r   = op.compute(out, {in});
    EXPECT_EQ(r.data(), in.data());
    EXPECT_EQ(r.to_vector<float>(), (std::vector<float>{1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3}));
    // contiguous of the broadcast materializes it.
    auto c    = migraphx::make_op("contiguous");
    auto cout = c.compute_shape({out});
    EXPECT_EQ(cout, (shape{shape::float_type, {2, 3, 2}}));
    auto cr = c.compute(cout, {r});
    EXPECT_NE(cr.data(), in.data());
    EXPECT_EQ(cr.to_vector<float>(), r.to_vector<float>());
}

TEST(ops_multibroadcast, compute_broadcasted_lens)
{
    using migraphx::compute_broadcasted_lens;
    EXPECT_EQ(compute_broadcasted_lens({2, 1, 4}, {3, 1}), (lvec{2, 3, 4}));
    EXPECT_EQ(compute_broadcasted_lens({3, 1}, {2, 1, 4}), (lvec{2, 3, 4}));
    EXPECT_EQ(compute_broadcasted_lens({}, {2}), (lvec{2}));
    EXPECT_EQ(compute_broadcasted_lens({1}, {0}), (lvec{0}));
    EXPECT_THROW(compute_broadcasted_lens({2, 3}, {4}), migraphx::exception);
}
