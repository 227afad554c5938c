// ir/last_use: where a run may drop each result (after its last reader), and that eval still
// computes what it did with results dropped early.
#include "ir/last_use.hpp"
#include <migraphx/instruction.hpp>
#include <migraphx/literal.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/ref/target.hpp>
#include <gtest/gtest.h>
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace {

using migraphx::shape;

bool listed(const std::vector<const migraphx::instruction*>& v, migraphx::instruction_ref x)
{
    return std::find(v.begin(), v.end(), &*x) != v.end();
}

/// main: a condition c, x = {2, 3} and y = -x, for branches that read x and y from main.
struct branch_program
{
    migraphx::program p;
    migraphx::module* mm = p.get_main_module();
    migraphx::instruction_ref c = mm->add_parameter("c", shape{shape::bool_type, {1}});
    migraphx::instruction_ref x =
        mm->add_literal(migraphx::literal{shape{shape::float_type, {2}}, std::vector<float>{2, 3}});
    migraphx::instruction_ref y = mm->add_instruction(migraphx::make_op("neg"), x);

    /// Two modules named prefix_add and prefix_mul returning x + y (0 0) and x * y (-4 -9).
    std::pair<migraphx::module*, migraphx::module*> add_and_mul(const std::string& prefix)
    {
        auto* a = p.create_module(prefix + "_add");
        auto* m = p.create_module(prefix + "_mul");
        a->add_return({a->add_instruction(migraphx::make_op("add"), x, y)});
        m->add_return({m->add_instruction(migraphx::make_op("mul"), x, y)});
        return {a, m};
    }

    /// main's result for condition `cond`, compiled for ref.
    std::vector<float> run(bool cond)
    {
        auto out = p.eval({{"c", migraphx::argument{shape{shape::bool_type, {1}}, &cond}}});
        EXPECT_EQ(out.size(), 1u);
        const auto& r = out.at(0);
        return r.get_sub_objects().empty() ? r.to_vector<float>() : r.get_sub_objects().at(0).to_vector<float>();
    }
};

/// main: x = {1, -2, 3} (a parameter), a = -x, b = |a|.
struct chain_program
{
    migraphx::program p;
    migraphx::module* mm        = p.get_main_module();
    migraphx::instruction_ref x = mm->add_parameter("x", shape{shape::float_type, {3}});
    migraphx::instruction_ref a = mm->add_instruction(migraphx::make_op("neg"), x);
    migraphx::instruction_ref b = mm->add_instruction(migraphx::make_op("abs"), a);
    std::vector<float> in{1, -2, 3};
    migraphx::parameter_map inputs() { return {{"x", migraphx::argument{shape{shape::float_type, {3}}, in.data()}}}; }
};

} // namespace

TEST(last_use, each_result_is_dropped_after_its_last_reader)
{
    migraphx::module m;
    auto x = m.add_parameter("x", shape{shape::float_type, {4}});  // 0
    auto a = m.add_instruction(migraphx::make_op("relu"), x);       // 1
    auto b = m.add_instruction(migraphx::make_op("neg"), a);        // 2
    auto c = m.add_instruction(migraphx::make_op("add"), a, b);     // 3
    auto d = m.add_instruction(migraphx::make_op("abs"), c);        // 4: read by nothing after
    m.add_return({c});                                              // 5
    auto points = migraphx::last_use_points(m);
    ASSERT_EQ(points.size(), m.size());
    EXPECT_TRUE(listed(points[1], x));
    EXPECT_TRUE(listed(points[3], a)); // read by b and c: kept until c
    EXPECT_FALSE(listed(points[2], a));
    EXPECT_TRUE(listed(points[3], b));
    for(const auto& p : points)
    {
        EXPECT_FALSE(listed(p, c)); // returned: the caller keeps it
        EXPECT_FALSE(listed(p, d)); // read by nothing: never listed
    }
}

// What eval reads instead of maps: each input's position (or outside, for a value of the module
// around), and the positions to drop after each instruction.
TEST(last_use, the_table_gives_positions_of_inputs_and_drops)
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto x   = mm->add_parameter("x", shape{shape::float_type, {4}}); // 0
    auto a   = mm->add_instruction(migraphx::make_op("relu"), x);      // 1
    auto b   = mm->add_instruction(migraphx::make_op("add"), a, x);    // 2
    mm->add_return({b});                                               // 3
    auto t = migraphx::make_last_use_table(*mm);
    ASSERT_EQ(t.order.size(), 4u);
    ASSERT_EQ(t.input_begin, (std::vector<std::size_t>{0, 0, 1, 3, 4}));
    EXPECT_EQ(t.input_pos, (std::vector<std::size_t>{0, 1, 0, 2})); // a: x; b: a, x; return: b
    EXPECT_EQ(t.input_list[1], &*a);
    EXPECT_EQ(t.release[2], (std::vector<std::size_t>{0, 1})); // x and a, both last read by b
    EXPECT_TRUE(t.release[3].empty());                         // b is returned
    EXPECT_EQ(t.position.at(&*b), 2u);
    ASSERT_EQ(t.parameters.size(), 1u);
    EXPECT_EQ(t.parameters[0].first, "x");
    // a sub-module's input from main is outside its own table
    auto* sub = p.create_module("sub");
    sub->add_return({sub->add_instruction(migraphx::make_op("neg"), a)});
    auto st = migraphx::make_last_use_table(*sub);
    EXPECT_EQ(st.input_pos, (std::vector<std::size_t>{migraphx::last_use_table::outside, 0})); // neg: a; return: neg
}

TEST(last_use, a_module_running_sub_modules_keeps_everything)
{
    branch_program b;
    auto [thn, els] = b.add_and_mul("branch");
    auto r          = b.mm->add_instruction(migraphx::make_op("if"), {b.c}, {thn, els});
    b.mm->add_return({r});
    for(const auto& pts : migraphx::last_use_points(*b.mm))
        EXPECT_TRUE(pts.empty());
    // the branch reads y from main after main's neg: eval must still have it
    b.p.compile(migraphx::ref::target{});
    EXPECT_EQ(b.run(true), (std::vector<float>{0, 0}));
}

// A branch inside a branch reads values of main: eval finds them two modules out.
TEST(last_use, nested_branches_read_values_of_main)
{
    branch_program b;
    auto [inner_add, inner_mul] = b.add_and_mul("inner");
    auto* outer_then            = b.p.create_module("outer_then");
    auto* outer_else            = b.p.create_module("outer_else");
    outer_then->add_return({outer_then->add_instruction(migraphx::make_op("if"), {b.c}, {inner_mul, inner_add})});
    outer_else->add_return({outer_else->add_instruction(migraphx::make_op("abs"), b.y)});
    b.mm->add_return({b.mm->add_instruction(migraphx::make_op("if"), {b.c}, {outer_then, outer_else})});
    b.p.compile(migraphx::ref::target{});
    EXPECT_EQ(b.run(true), (std::vector<float>{-4, -9}));
    EXPECT_EQ(b.run(false), (std::vector<float>{2, 3}));
}

// A compiled program changed afterwards (not meant to happen, but possible through the module's
// API) runs by a table made again, not by the stale one.
TEST(last_use, a_changed_module_gets_a_new_table)
{
    chain_program ch;
    auto& p  = ch.p;
    auto* mm = ch.mm;
    auto x = ch.x, a = ch.a, b = ch.b;
    mm->add_return({b});
    p.compile(migraphx::ref::target{});
    auto m = ch.inputs();
    EXPECT_EQ(p.eval(m).at(0).to_vector<float>(), (std::vector<float>{1, 2, 3}));
    // same size, other inputs: b = a * a
    mm->replace_instruction(b, migraphx::make_op("mul"), {a, a});
    EXPECT_EQ(p.eval(m).at(0).to_vector<float>(), (std::vector<float>{1, 4, 9}));
    // one more instruction: return a + x
    auto c = mm->insert_instruction(mm->get_return(), migraphx::make_op("add"), a, x);
    mm->replace_return({c});
    EXPECT_EQ(p.eval(m).at(0).to_vector<float>(), (std::vector<float>{0, 0, 0}));
    // the same instructions, inputs swapped: x - a
    mm->replace_instruction(c, migraphx::make_op("sub"), {x, a});
    EXPECT_EQ(p.eval(m).at(0).to_vector<float>(), (std::vector<float>{2, -4, 6}));
}

// A parameter removed after compile is not asked for by the old table: the run finds the table
// stale before it checks the parameters.
TEST(last_use, a_parameter_removed_after_compile_is_not_asked_for)
{
    chain_program ch;
    auto& p  = ch.p;
    auto* mm = ch.mm;
    auto y   = mm->add_parameter("y", shape{shape::float_type, {3}});
    auto s   = mm->add_instruction(migraphx::make_op("add"), ch.b, y);
    mm->add_return({s});
    p.compile(migraphx::ref::target{});
    std::vector<float> yv{10, 20, 30};
    auto m = ch.inputs();
    m["y"] = migraphx::argument{shape{shape::float_type, {3}}, yv.data()};
    EXPECT_EQ(p.eval(m).at(0).to_vector<float>(), (std::vector<float>{11, 22, 33}));
    // y gone: b + b, and y not passed any more
    mm->replace_instruction(s, migraphx::make_op("add"), {ch.b, ch.b});
    mm->remove_instruction(y);
    EXPECT_EQ(p.eval(ch.inputs()).at(0).to_vector<float>(), (std::vector<float>{2, 4, 6}));
}

TEST(last_use, eval_with_early_drops_computes_the_same)
{
    // a is read at the start and at the end of a chain: dropping anything too early would fail
    chain_program ch;
    auto& p  = ch.p;
    auto* mm = ch.mm;
    auto a = ch.a, b = ch.b;
    auto c   = mm->add_instruction(migraphx::make_op("mul"), b, b);
    auto d   = mm->add_instruction(migraphx::make_op("add"), c, a);
    mm->add_return({d, b});
    p.compile(migraphx::ref::target{});
    for(int run = 0; run < 2; run++)
    {
        auto out = p.eval(ch.inputs());
        ASSERT_EQ(out.size(), 2u);
        EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{0, 6, 6}));
        EXPECT_EQ(out[1].to_vector<float>(), (std::vector<float>{1, 2, 3}));
    }
}
