#include <migraphx/make_op.hpp>
#include <migraphx/module.hpp>
#include <migraphx/program.hpp>
#include <gtest/gtest.h>
#include <sstream>

using migraphx::shape;

namespace {
std::string text(const migraphx::module& m)
{
    std::ostringstream ss;
    ss << m;
    return ss.str();
}
} // namespace

TEST(module, literals_and_parameters_go_first_like_migraphx)
{
    migraphx::module m;
    auto x = m.add_parameter("x", shape{shape::float_type, {2}});
    auto l = m.add_literal(migraphx::literal{shape{shape::float_type, {2}}, {1.0f, 2.0f}});
    auto a = m.add_instruction(migraphx::make_op("add"), x, l);
    m.add_return({a});
    EXPECT_EQ(text(m), "module: \"main\"\n"
                       "main:@0 = @literal{1, 2} -> float_type, {2}, {1}\n"
                       "x = @param:x -> float_type, {2}, {1}\n"
                       "main:@2 = add(x,main:@0) -> float_type, {2}, {1}\n"
                       "main:@3 = @return(main:@2)\n");
    EXPECT_NO_THROW(m.validate());
}

TEST(module, users_are_tracked_and_replace_rewires_them)
{
    migraphx::module m;
    auto x  = m.add_parameter("x", shape{shape::float_type, {2}});
    auto r1 = m.add_instruction(migraphx::make_op("relu"), x);
    auto r2 = m.add_instruction(migraphx::make_op("neg"), r1);
    m.add_return({r2});
    EXPECT_EQ(r1->outputs().size(), 1);
    auto e = m.add_instruction(migraphx::make_op("exp"), x);
    m.move_instruction(e, r2);
    m.replace_instruction(r1, e);
    EXPECT_TRUE(r1->outputs().empty());
    EXPECT_EQ(r2->inputs().front(), e);
    m.remove_instruction(r1);
    EXPECT_NO_THROW(m.validate());
    EXPECT_EQ(m.size(), 4);
}

TEST(module, replace_with_new_op_recomputes_user_shapes)
{
    migraphx::module m;
    auto x = m.add_parameter("x", shape{shape::float_type, {2, 3}});
    auto t = m.add_instruction(migraphx::make_op("relu"), x);
    auto u = m.add_instruction(migraphx::make_op("neg"), t);
    m.replace_instruction(t, migraphx::make_op("transpose", {{"permutation", {1, 0}}}), {x});
    EXPECT_EQ(u->get_shape().lens(), (std::vector<std::size_t>{3, 2}));
    EXPECT_NO_THROW(m.validate());
}

TEST(module, removing_a_used_instruction_throws)
{
    migraphx::module m;
    auto x = m.add_parameter("x", shape{shape::float_type, {2}});
    m.add_instruction(migraphx::make_op("relu"), x);
    EXPECT_THROW(m.remove_instruction(x), migraphx::exception);
}

TEST(module, builder_errors_name_the_problem)
{
    migraphx::module m;
    auto x = m.add_parameter("x", shape{shape::float_type, {2, 3}});
    auto y = m.add_parameter("y", shape{shape::float_type, {3, 2}});
    try
    {
        m.add_instruction(migraphx::make_op("add"), x, y);
        FAIL() << "mismatched shapes accepted";
    }
    catch(const migraphx::exception& e)
    {
        EXPECT_NE(std::string(e.what()).find("add"), std::string::npos) << e.what();
    }
    EXPECT_THROW(m.add_instruction(migraphx::make_op("add"), x), migraphx::exception);
    EXPECT_THROW(m.add_parameter("x", shape{shape::float_type, {1}}), migraphx::exception);
    EXPECT_THROW(m.add_instruction(migraphx::operation{}, {x}), migraphx::exception);
}

TEST(module, validate_catches_out_of_order_use)
{
    migraphx::module m;
    auto x = m.add_parameter("x", shape{shape::float_type, {2}});
    auto a = m.add_instruction(migraphx::make_op("relu"), x);
    auto b = m.add_instruction(migraphx::make_op("neg"), a);
    m.move_instruction(b, a); // b now before its input
    EXPECT_THROW(m.validate(), migraphx::exception);
}

TEST(module, parameter_names_in_added_order)
{
    migraphx::module m;
    m.add_parameter("b", shape{shape::float_type, {1}});
    m.add_parameter("a", shape{shape::float_type, {1}});
    EXPECT_EQ(m.get_parameter_names(), (std::vector<std::string>{"b", "a"}));
    EXPECT_NE(m.get_parameter("a"), m.end());
    EXPECT_EQ(m.get_parameter("zz"), m.end());
}

// Every change through the module's methods counts: tables made from a module note the count.
TEST(module, every_change_counts_as_an_edit)
{
    migraphx::module m("m");
    auto count = m.edits();
    auto step  = [&](const char* what) {
        EXPECT_GT(m.edits(), count) << what;
        count = m.edits();
    };
    migraphx::shape s{migraphx::shape::float_type, {2}};
    auto x = m.add_parameter("x", s);
    step("parameter");
    auto one = m.add_literal(migraphx::literal{s, {1.f, 1.f}});
    step("literal");
    auto a = m.add_instruction(migraphx::make_op("add"), x, one);
    step("instruction");
    auto b = m.add_instruction(migraphx::make_op("mul"), a, a);
    step("another");
    m.add_return({b});
    step("return");
    m.replace_instruction(b, migraphx::make_op("sub"), {a, x});
    step("replace in place");
    auto c = m.insert_instruction(b, migraphx::make_op("relu"), a);
    step("insert");
    m.replace_instruction(a, c);
    step("replace users");
    m.move_instruction(c, b);
    step("move");
    m.replace_return({a});
    step("replace return");
    auto before = m.edits();
    (void)m.get_output_shapes();
    m.validate();
    EXPECT_EQ(m.edits(), before) << "reading is not an edit";
}
