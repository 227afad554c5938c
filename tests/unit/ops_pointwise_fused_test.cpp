#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/ref/target.hpp>
#include <gtest/gtest.h>

using migraphx::literal;
using migraphx::make_op;
using migraphx::shape;

namespace {

const shape s23{shape::float_type, {2, 3}};

/// A pointwise body computing x0 * x1 + 1 (the 1 a broadcast one-element literal).
migraphx::module* mul_add_one(migraphx::program& p, const std::string& name = "main:pointwise0")
{
    auto* pm = p.create_module(name);
    auto x0  = pm->add_parameter("x0", s23);
    auto x1  = pm->add_parameter("x1", s23);
    auto one = pm->add_instruction(make_op("multibroadcast", {{"out_lens", {2, 3}}}), pm->add_literal(literal{1.0f}));
    auto m   = pm->add_instruction(make_op("mul"), x0, x1);
    pm->add_return({pm->add_instruction(make_op("add"), m, one)});
    return pm;
}

} // namespace

TEST(ops_pointwise_fused, runs_its_module_on_whole_tensors_including_strided_inputs)
{
    migraphx::program p;
    auto* pm = mul_add_one(p);
    auto* mm = p.get_main_module();
    auto x   = mm->add_literal(literal{s23, {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f}});
    // y^T: y is {3, 2} = {{1, 2}, {3, 4}, {5, 6}}, so y^T = {{1, 3, 5}, {2, 4, 6}}.
    auto y  = mm->add_literal(literal{shape{shape::float_type, {3, 2}}, {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f}});
    auto yt = mm->add_instruction(make_op("transpose", {{"permutation", {1, 0}}}), y);
    auto r  = mm->add_instruction(make_op("pointwise"), {x, yt}, {pm});
    mm->add_return({r});
    EXPECT_EQ(r->get_shape(), s23);
    std::ostringstream ss;
    mm->print_instruction(ss, r, mm->instruction_names());
    EXPECT_EQ(ss.str(), "main:@3 = pointwise(main:@1,main:@2), [main:pointwise0] -> float_type, {2, 3}, {3, 1}");
    p.compile(migraphx::ref::target{});
    auto out = p.eval({}).front();
    EXPECT_EQ(out.get_shape(), s23);
    EXPECT_EQ(out.to_vector<float>(), (std::vector<float>{2, 7, 16, 9, 21, 37}));
}

TEST(ops_pointwise_fused, broadcast_input_and_type_of_the_result)
{
    migraphx::program p;
    auto* pm = p.create_module("main:pointwise0");
    {
        auto x0 = pm->add_parameter("x0", s23);
        auto x1 = pm->add_parameter("x1", s23);
        pm->add_return({pm->add_instruction(make_op("less"), x0, x1)});
    }
    auto* mm = p.get_main_module();
    auto x   = mm->add_literal(literal{s23, {1.0f, 5.0f, 3.0f, 4.0f, 0.0f, 6.0f}});
    auto c   = mm->add_literal(literal{shape{shape::float_type, {3}}, {2.0f, 2.0f, 5.0f}});
    auto cb  = mm->add_instruction(make_op("broadcast", {{"axis", 1}, {"out_lens", {2, 3}}}), c);
    auto r   = mm->add_instruction(make_op("pointwise"), {x, cb}, {pm});
    mm->add_return({r});
    EXPECT_EQ(r->get_shape(), (shape{shape::bool_type, {2, 3}}));
    auto out = p.eval({}).front();
    EXPECT_EQ(out.to_vector<int>(), (std::vector<int>{1, 0, 1, 0, 1, 0}));
}

TEST(ops_pointwise_fused, result_never_shares_an_input_buffer)
{
    // A body that returns its parameter unchanged still yields a fresh standard buffer.
    migraphx::program p;
    auto* pm = p.create_module("main:pointwise0");
    pm->add_return({pm->add_parameter("x0", s23)});
    auto* mm = p.get_main_module();
    auto y   = mm->add_literal(literal{shape{shape::float_type, {3, 2}}, {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f}});
    auto yt  = mm->add_instruction(make_op("transpose", {{"permutation", {1, 0}}}), y);
    mm->add_return({mm->add_instruction(make_op("pointwise"), {yt}, {pm})});
    auto out = p.eval({}).front();
    EXPECT_TRUE(out.get_shape().standard());
    EXPECT_EQ(out.to_vector<float>(), (std::vector<float>{1, 3, 5, 2, 4, 6}));
}

TEST(ops_pointwise_fused, shape_errors)
{
    migraphx::program p;
    auto* pm = mul_add_one(p);
    auto* mm = p.get_main_module();
    auto x   = mm->add_parameter("x", s23);
    auto y   = mm->add_parameter("y", s23);
    auto z   = mm->add_parameter("z", shape{shape::float_type, {3, 2}});
    auto i   = mm->add_parameter("i", shape{shape::int32_type, {2, 3}});
    auto op  = make_op("pointwise");
    EXPECT_NO_THROW(mm->add_instruction(op, {x, y}, {pm}));
    EXPECT_THROW(mm->add_instruction(op, {x, y}), migraphx::exception);            // no module
    EXPECT_THROW(mm->add_instruction(op, {x, y}, {pm, pm}), migraphx::exception);  // two modules
    EXPECT_THROW(mm->add_instruction(op, {x}, {pm}), migraphx::exception);         // too few inputs
    EXPECT_THROW(mm->add_instruction(op, {x, y, y}, {pm}), migraphx::exception);   // too many
    EXPECT_THROW(mm->add_instruction(op, {x, i}, {pm}), migraphx::exception);      // type differs
    EXPECT_THROW(mm->add_instruction(op, {x, z}, {pm}), migraphx::exception);      // lens differ
    auto* two = p.create_module("two_outputs");
    auto a    = two->add_parameter("x0", s23);
    two->add_return({two->add_instruction(make_op("neg"), a), a});
    EXPECT_THROW(mm->add_instruction(op, {x}, {two}), migraphx::exception);
}
