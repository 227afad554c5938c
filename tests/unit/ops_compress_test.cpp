#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/ref/target.hpp>
#include <gtest/gtest.h>

namespace {
using migraphx::shape;
using lvec = std::vector<std::size_t>;
shape fs(lvec l) { return shape{shape::float_type, std::move(l)}; }
} // namespace

TEST(ops_compress, shape_rules_and_bad_inputs)
{
    shape c3{shape::bool_type, {3}};
    auto op = migraphx::make_op("compress", {{"axis", 0}});
    EXPECT_EQ(op.compute_shape({fs({3, 2}), c3}), fs({3, 2}));
    EXPECT_EQ(migraphx::make_op("compress").compute_shape({fs({3, 2}), c3}), fs({3}));
    EXPECT_EQ(migraphx::make_op("compress", {{"axis", -1}}).compute_shape({fs({3, 2}), shape{shape::bool_type, {1}}}),
              fs({3, 1}));
    EXPECT_TRUE(op.attributes().at("dynamic_output").get_bool());
    EXPECT_THROW(op.compute_shape({fs({2, 2}), c3}), migraphx::exception);
    EXPECT_THROW(op.compute_shape({fs({3, 2}), shape{shape::bool_type, {3, 1}}}), migraphx::exception);
    EXPECT_THROW(migraphx::make_op("compress", {{"axis", 2}}).compute_shape({fs({3, 2}), c3}), migraphx::exception);
}

TEST(ops_compress, onnx_examples)
{
    std::vector<float> d{1, 2, 3, 4, 5, 6};
    migraphx::argument x{fs({3, 2}), d.data()};
    bool c0[3] = {false, true, true};
    migraphx::argument ac{shape{shape::bool_type, {3}}, c0};
    auto op = migraphx::make_op("compress", {{"axis", 0}});
    auto r  = op.compute(op.compute_shape({x.get_shape(), ac.get_shape()}), {x, ac});
    EXPECT_EQ(r.get_shape(), fs({2, 2}));
    EXPECT_EQ(r.to_vector<float>(), (std::vector<float>{3, 4, 5, 6}));
    bool c1[2] = {false, true};
    migraphx::argument ac1{shape{shape::bool_type, {2}}, c1};
    op = migraphx::make_op("compress", {{"axis", 1}});
    r  = op.compute(op.compute_shape({x.get_shape(), ac1.get_shape()}), {x, ac1});
    EXPECT_EQ(r.to_vector<float>(), (std::vector<float>{2, 4, 6}));
    // No axis: flattened, and a condition shorter than the input drops the rest.
    bool c2[5] = {false, true, false, false, true};
    migraphx::argument ac2{shape{shape::bool_type, {5}}, c2};
    op = migraphx::make_op("compress");
    r  = op.compute(op.compute_shape({x.get_shape(), ac2.get_shape()}), {x, ac2});
    EXPECT_EQ(r.to_vector<float>(), (std::vector<float>{2, 5}));
}

TEST(ops_compress, program_on_transposed_input)
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto x   = mm->add_literal(migraphx::literal{fs({3, 2}), std::vector<float>{1, 2, 3, 4, 5, 6}});
    auto t   = mm->add_instruction(migraphx::make_op("transpose", {{"permutation", {1, 0}}}), x); // [[1,3,5],[2,4,6]]
    auto c   = mm->add_literal(migraphx::literal{shape{shape::int32_type, {3}}, std::vector<int>{1, 0, 1}});
    mm->add_return({mm->add_instruction(migraphx::make_op("compress", {{"axis", 1}}), t, c)});
    p.compile(migraphx::ref::target{});
    auto r = p.eval({}).back();
    EXPECT_EQ(r.get_shape().lens(), (lvec{2, 2}));
    EXPECT_EQ(r.to_vector<float>(), (std::vector<float>{1, 5, 2, 6}));
}
