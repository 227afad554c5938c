#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/ref/target.hpp>
#include <gtest/gtest.h>

namespace {
using migraphx::shape;
using lvec = std::vector<std::size_t>;
shape fs(lvec l) { return shape{shape::float_type, std::move(l)}; }

/// main: if(c) then {x + y, x} else {x * y, y}, or single outputs when `pair` is false.
migraphx::program make_if(bool pair)
{
    migraphx::program p;
    auto* mm  = p.get_main_module();
    auto c    = mm->add_parameter("c", shape{shape::bool_type, {1}});
    auto x    = mm->add_literal(migraphx::literal{fs({2}), std::vector<float>{2, 3}});
    auto y    = mm->add_literal(migraphx::literal{fs({2}), std::vector<float>{4, 5}});
    auto* thn = p.create_module("then_mod");
    auto* els = p.create_module("else_mod");
    auto a    = thn->add_instruction(migraphx::make_op("add"), x, y);
    auto m    = els->add_instruction(migraphx::make_op("mul"), x, y);
    thn->add_return(pair ? std::vector<migraphx::instruction_ref>{a, x} : std::vector<migraphx::instruction_ref>{a});
    els->add_return(pair ? std::vector<migraphx::instruction_ref>{m, y} : std::vector<migraphx::instruction_ref>{m});
    auto r = mm->add_instruction(migraphx::make_op("if"), {c}, {thn, els});
    if(pair)
        mm->add_return({mm->add_instruction(migraphx::make_op("get_tuple_elem", {{"index", 0}}), r),
                        mm->add_instruction(migraphx::make_op("get_tuple_elem", {{"index", 1}}), r)});
    else
        mm->add_return({r});
    p.compile(migraphx::ref::target{});
    return p;
}

std::vector<migraphx::argument> eval_if(const migraphx::program& p, bool cond)
{
    bool c = cond;
    return p.eval({{"c", migraphx::argument{shape{shape::bool_type, {1}}, &c}}});
}

/// main: loop[max_iterations](trip, 1, acc0 = {0, 0}) with body acc' = acc + x, cond' = iter < limit,
/// scan output acc'.
migraphx::program make_loop(std::int64_t trip, std::int64_t limit, std::int64_t max_iterations)
{
    migraphx::program p;
    auto* mm   = p.get_main_module();
    auto x     = mm->add_literal(migraphx::literal{fs({2}), std::vector<float>{1, 2}});
    auto t     = mm->add_literal(migraphx::literal{shape{shape::int64_type, {1}}, std::vector<std::int64_t>{trip}});
    auto c     = mm->add_literal(migraphx::literal{shape{shape::int32_type, {1}}, std::vector<int>{1}});
    auto acc0  = mm->add_literal(migraphx::literal{fs({2}), std::vector<float>{0, 0}});
    auto* body = p.create_module("body");
    auto iter  = body->add_parameter("iteration_num", shape{shape::int64_type, {1}});
    body->add_parameter("cond_in", shape{shape::bool_type, {1}});
    auto acc   = body->add_parameter("acc", fs({2}));
    auto lim   = body->add_literal(migraphx::literal{shape{shape::int64_type, {1}}, std::vector<std::int64_t>{limit}});
    auto next  = body->add_instruction(migraphx::make_op("add"), acc, x);
    auto cond  = body->add_instruction(migraphx::make_op("less"), iter, lim);
    body->add_return({cond, next, next});
    auto l = mm->add_instruction(migraphx::make_op("loop", {{"max_iterations", max_iterations}}), {t, c, acc0}, {body});
    mm->add_return({mm->add_instruction(migraphx::make_op("get_tuple_elem", {{"index", 0}}), l),
                    mm->add_instruction(migraphx::make_op("get_tuple_elem", {{"index", 1}}), l)});
    p.compile(migraphx::ref::target{});
    return p;
}
} // namespace

TEST(ops_control_flow, if_shapes_and_results)
{
    auto p = make_if(true);
    auto r = eval_if(p, true);
    EXPECT_EQ(r[0].to_vector<float>(), (std::vector<float>{6, 8}));
    EXPECT_EQ(r[1].to_vector<float>(), (std::vector<float>{2, 3}));
    r = eval_if(p, false);
    EXPECT_EQ(r[0].to_vector<float>(), (std::vector<float>{8, 15}));
    EXPECT_EQ(r[1].to_vector<float>(), (std::vector<float>{4, 5}));

    auto q = make_if(false);
    EXPECT_EQ(q.get_output_shapes().front(), fs({2}));
    EXPECT_EQ(eval_if(q, false).front().to_vector<float>(), (std::vector<float>{8, 15}));
}

TEST(ops_control_flow, if_bad_inputs_throw)
{
    migraphx::program p;
    auto* mm  = p.get_main_module();
    auto x    = mm->add_literal(migraphx::literal{fs({2}), std::vector<float>{2, 3}});
    auto z    = mm->add_literal(migraphx::literal{fs({3}), std::vector<float>{2, 3, 4}});
    auto* a   = p.create_module("a");
    auto* b   = p.create_module("b");
    a->add_return({x});
    b->add_return({z});
    auto op = migraphx::make_op("if");
    shape c{shape::bool_type, {1}};
    EXPECT_THROW(op.compute_shape({c}, {a, b}), migraphx::exception); // shapes differ
    EXPECT_THROW(op.compute_shape({c}, {a}), migraphx::exception);
    EXPECT_THROW(op.compute_shape({shape{shape::bool_type, {2}}}, {a, a}), migraphx::exception);
    EXPECT_EQ(op.compute_shape({c}, {a, a}), fs({2}));
    EXPECT_THROW(op.compute_shape({c}), migraphx::exception);
}

TEST(ops_control_flow, loop_stops_on_cond_and_trip_count)
{
    // cond' = iter < 2 is false after iteration 2: three iterations.
    auto p = make_loop(10, 2, 5);
    EXPECT_EQ(p.get_output_shapes()[1], fs({5, 2})); // static: max_iterations rows
    auto r = p.eval({});
    EXPECT_EQ(r[0].to_vector<float>(), (std::vector<float>{3, 6}));
    EXPECT_EQ(r[1].get_shape().lens(), (lvec{3, 2}));
    EXPECT_EQ(r[1].to_vector<float>(), (std::vector<float>{1, 2, 2, 4, 3, 6}));
    // The trip count stops it first.
    r = make_loop(2, 100, 5).eval({});
    EXPECT_EQ(r[0].to_vector<float>(), (std::vector<float>{2, 4}));
    EXPECT_EQ(r[1].get_shape().lens(), (lvec{2, 2}));
    // Zero iterations: initial values and an empty scan.
    r = make_loop(0, 100, 5).eval({});
    EXPECT_EQ(r[0].to_vector<float>(), (std::vector<float>{0, 0}));
    EXPECT_EQ(r[1].get_shape().lens(), (lvec{0, 2}));
    // More iterations than max_iterations throws rather than truncating.
    EXPECT_THROW(make_loop(-1, 100, 5).eval({}), migraphx::exception);
}

TEST(ops_control_flow, loop_bad_inputs_throw)
{
    migraphx::program p;
    auto* body = p.create_module("body");
    body->add_parameter("iteration_num", shape{shape::int64_type, {1}});
    auto c     = body->add_parameter("cond_in", shape{shape::bool_type, {1}});
    auto v     = body->add_parameter("v", fs({2}));
    body->add_return({c, v});
    auto op = migraphx::make_op("loop");
    shape trip{shape::int64_type, {1}}, cond{shape::bool_type, {1}};
    EXPECT_EQ(op.compute_shape({trip, cond, fs({2})}, {body}), fs({2}));
    EXPECT_THROW(op.compute_shape({trip, cond, fs({3})}, {body}), migraphx::exception);        // carried shape
    EXPECT_THROW(op.compute_shape({trip, cond, fs({2}), fs({2})}, {body}), migraphx::exception); // param count
    EXPECT_THROW(op.compute_shape({fs({1}), cond, fs({2})}, {body}), migraphx::exception);     // float trip count
    EXPECT_THROW(op.compute_shape({trip, cond, fs({2})}, {}), migraphx::exception);
    std::ostringstream ss;
    ss << op;
    EXPECT_EQ(ss.str(), "loop[max_iterations=10]");
}
