#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/ref/target.hpp>
#include <gtest/gtest.h>

namespace {
using migraphx::shape;
using i64  = std::vector<std::int64_t>;
using lvec = std::vector<std::size_t>;
shape fs(lvec l) { return shape{shape::float_type, std::move(l)}; }

std::vector<migraphx::argument> run(const migraphx::operation& op, const migraphx::argument& x)
{
    return op.compute(op.compute_shape({x.get_shape()}), {x}).get_sub_objects();
}
} // namespace

TEST(ops_unique, shape_rules_and_bad_inputs)
{
    auto op = migraphx::make_op("unique");
    auto s  = op.compute_shape({fs({2, 3})});
    ASSERT_EQ(s.sub_shapes().size(), 4u);
    EXPECT_EQ(s.sub_shapes()[0], fs({6}));
    EXPECT_EQ(s.sub_shapes()[2], (shape{shape::int64_type, {6}}));
    EXPECT_TRUE(op.attributes().at("dynamic_output").get_bool());
    auto ax = migraphx::make_op("unique", {{"axis", -1}});
    s       = ax.compute_shape({fs({2, 3})});
    EXPECT_EQ(s.sub_shapes()[0], fs({2, 3}));
    EXPECT_EQ(s.sub_shapes()[1], (shape{shape::int64_type, {3}}));
    EXPECT_THROW(migraphx::make_op("unique", {{"axis", 2}}).compute_shape({fs({2, 3})}), migraphx::exception);
    EXPECT_THROW(migraphx::make_op("unique", {{"axis", {0, 1}}}).compute_shape({fs({2, 3})}), migraphx::exception);
    EXPECT_THROW(op.compute_shape({fs({2}), fs({2})}), migraphx::exception);
    std::ostringstream ss;
    ss << op << " " << ax;
    EXPECT_EQ(ss.str(), "unique[sorted=1,axis={}] unique[sorted=1,axis={-1}]");
}

TEST(ops_unique, onnx_without_axis)
{
    std::vector<float> d{2, 1, 1, 3, 4, 3};
    migraphx::argument x{fs({6}), d.data()};
    auto r = run(migraphx::make_op("unique"), x);
    EXPECT_EQ(r[0].to_vector<float>(), (std::vector<float>{1, 2, 3, 4}));
    EXPECT_EQ(r[1].to_vector<std::int64_t>(), (i64{1, 0, 3, 4}));
    EXPECT_EQ(r[2].to_vector<std::int64_t>(), (i64{1, 0, 0, 2, 3, 2}));
    EXPECT_EQ(r[3].to_vector<std::int64_t>(), (i64{2, 1, 2, 1}));
    r = run(migraphx::make_op("unique", {{"sorted", false}}), x);
    EXPECT_EQ(r[0].to_vector<float>(), (std::vector<float>{2, 1, 3, 4}));
    EXPECT_EQ(r[1].to_vector<std::int64_t>(), (i64{0, 1, 3, 4}));
    EXPECT_EQ(r[2].to_vector<std::int64_t>(), (i64{0, 1, 1, 2, 3, 2}));
    EXPECT_EQ(r[3].to_vector<std::int64_t>(), (i64{1, 2, 2, 1}));
}

TEST(ops_unique, onnx_with_axis)
{
    std::vector<float> d{1, 0, 0, 1, 0, 0, 2, 3, 4};
    migraphx::argument x{fs({3, 3}), d.data()};
    auto r = run(migraphx::make_op("unique", {{"axis", 0}}), x);
    EXPECT_EQ(r[0].get_shape(), fs({2, 3}));
    EXPECT_EQ(r[0].to_vector<float>(), (std::vector<float>{1, 0, 0, 2, 3, 4}));
    EXPECT_EQ(r[1].to_vector<std::int64_t>(), (i64{0, 2}));
    EXPECT_EQ(r[2].to_vector<std::int64_t>(), (i64{0, 0, 1}));
    EXPECT_EQ(r[3].to_vector<std::int64_t>(), (i64{2, 1}));

    std::vector<float> n{1, 0, 0, 1, 0, 0, 2, 3, 3};
    migraphx::argument xn{fs({3, 3}), n.data()};
    r = run(migraphx::make_op("unique", {{"axis", -1}}), xn);
    EXPECT_EQ(r[0].get_shape(), fs({3, 2}));
    EXPECT_EQ(r[0].to_vector<float>(), (std::vector<float>{0, 1, 0, 1, 3, 2}));
    EXPECT_EQ(r[1].to_vector<std::int64_t>(), (i64{1, 0}));
    EXPECT_EQ(r[2].to_vector<std::int64_t>(), (i64{1, 0, 0}));
    EXPECT_EQ(r[3].to_vector<std::int64_t>(), (i64{2, 1}));

    std::vector<float> d3{1, 1, 0, 1, 2, 1, 0, 1, 1, 1, 0, 1, 2, 1, 0, 1};
    migraphx::argument x3{fs({2, 4, 2}), d3.data()};
    r = run(migraphx::make_op("unique", {{"axis", 1}}), x3);
    EXPECT_EQ(r[0].get_shape(), fs({2, 3, 2}));
    EXPECT_EQ(r[0].to_vector<float>(), (std::vector<float>{0, 1, 1, 1, 2, 1, 0, 1, 1, 1, 2, 1}));
    EXPECT_EQ(r[1].to_vector<std::int64_t>(), (i64{1, 0, 2}));
    EXPECT_EQ(r[2].to_vector<std::int64_t>(), (i64{1, 0, 2, 0}));
    EXPECT_EQ(r[3].to_vector<std::int64_t>(), (i64{2, 1, 1}));
}

TEST(ops_unique, program_on_transposed_int_input)
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    // x = [[5, 7], [7, 5], [5, 9]]; transposed -> [[5, 7, 5], [7, 5, 9]], flattened 5 7 5 7 5 9.
    auto x  = mm->add_literal(migraphx::literal{shape{shape::int64_type, {3, 2}}, std::vector<std::int64_t>{5, 7, 7, 5, 5, 9}});
    auto t  = mm->add_instruction(migraphx::make_op("transpose", {{"permutation", {1, 0}}}), x);
    auto u  = mm->add_instruction(migraphx::make_op("unique", {{"sorted", false}}), t);
    auto y  = mm->add_instruction(migraphx::make_op("get_tuple_elem", {{"index", 0}}), u);
    auto c  = mm->add_instruction(migraphx::make_op("get_tuple_elem", {{"index", 3}}), u);
    mm->add_return({y, c});
    p.compile(migraphx::ref::target{});
    auto r = p.eval({});
    EXPECT_EQ(r[0].to_vector<std::int64_t>(), (i64{5, 7, 9}));
    EXPECT_EQ(r[1].to_vector<std::int64_t>(), (i64{3, 2, 1}));
}
