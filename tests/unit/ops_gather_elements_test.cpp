#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/ref/target.hpp>
#include <gtest/gtest.h>

namespace {
using migraphx::shape;
migraphx::operation ge(std::int64_t axis) { return migraphx::make_op("gather_elements", {{"axis", axis}}); }
} // namespace

TEST(ops_gather_elements, shape_rules_and_bad_inputs)
{
    shape d{shape::float_type, {3, 3}};
    EXPECT_EQ(ge(1).compute_shape({d, shape{shape::int64_type, {3, 2}}}), (shape{shape::float_type, {3, 2}}));
    EXPECT_EQ(ge(0).compute_shape({d, shape{shape::int32_type, {5, 3}}}), (shape{shape::float_type, {5, 3}}));
    EXPECT_THROW(ge(1).compute_shape({d, shape{shape::int64_type, {4, 2}}}), migraphx::exception);
    EXPECT_THROW(ge(0).compute_shape({d, shape{shape::int64_type, {3}}}), migraphx::exception);
    EXPECT_THROW(ge(2).compute_shape({d, shape{shape::int64_type, {3, 3}}}), migraphx::exception);
    EXPECT_THROW(ge(0).compute_shape({d, shape{shape::float_type, {3, 3}}}), migraphx::exception);
}

TEST(ops_gather_elements, onnx_examples_and_range_check)
{
    std::vector<float> d{1, 2, 3, 4};
    std::vector<std::int64_t> i{0, 0, 1, 0};
    migraphx::argument a{shape{shape::float_type, {2, 2}}, d.data()};
    migraphx::argument ia{shape{shape::int64_type, {2, 2}}, i.data()};
    EXPECT_EQ(ge(1).compute(ge(1).compute_shape({a.get_shape(), ia.get_shape()}), {a, ia}).to_vector<float>(),
              (std::vector<float>{1, 1, 4, 3}));
    std::vector<float> d9{1, 2, 3, 4, 5, 6, 7, 8, 9};
    std::vector<std::int64_t> i2{1, 2, 0, 2, 0, -3};
    migraphx::argument a9{shape{shape::float_type, {3, 3}}, d9.data()};
    migraphx::argument ib{shape{shape::int64_type, {2, 3}}, i2.data()};
    EXPECT_EQ(ge(0).compute(ge(0).compute_shape({a9.get_shape(), ib.get_shape()}), {a9, ib}).to_vector<float>(),
              (std::vector<float>{4, 8, 3, 7, 2, 3}));
    std::vector<std::int64_t> bad{0, 3, 0, 0};
    migraphx::argument ic{shape{shape::int64_type, {2, 2}}, bad.data()};
    EXPECT_THROW(ge(0).compute(shape{shape::float_type, {2, 2}}, {a, ic}), migraphx::exception);
}

TEST(ops_gather_elements, program_on_broadcast_data)
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto d   = mm->add_literal(migraphx::literal{shape{shape::float_type, {3}}, std::vector<float>{10, 20, 30}});
    auto b   = mm->add_instruction(migraphx::make_op("multibroadcast", {{"out_lens", {2, 3}}}), d);
    auto i   = mm->add_literal(migraphx::literal{shape{shape::int64_type, {2, 2}}, std::vector<std::int64_t>{2, 0, 1, 1}});
    mm->add_return({mm->add_instruction(ge(1), b, i)});
    p.compile(migraphx::ref::target{});
    EXPECT_EQ(p.eval({}).back().to_vector<float>(), (std::vector<float>{30, 10, 20, 20}));
}
