// hoist_broadcasts: elementwise ops whose inputs are all broadcast along the same dims run on
// one index of those dims and broadcast their result. Before/after on the module and the
// values (ref eval of both).
#include <migraphx/instruction.hpp>
#include <migraphx/literal.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <gtest/gtest.h>
#include <functional>
#include "passes/dead_code_elimination.hpp"
#include "passes/hoist_broadcasts.hpp"
#include "passes/pass_manager.hpp"

using migraphx::make_op;
using migraphx::shape;

namespace {

void run_hoist(migraphx::module& m)
{
    migraphx::run_passes(m, {migraphx::hoist_broadcasts{}, migraphx::dead_code_elimination{}});
}

migraphx::instruction_ref bcast(migraphx::module& m, migraphx::instruction_ref x, std::vector<std::size_t> lens)
{
    return m.add_instruction(make_op("multibroadcast", {{"out_lens", lens}}), x);
}

migraphx::instruction_ref scalar(migraphx::module& m, float v, std::vector<std::size_t> lens)
{
    return bcast(m, m.add_literal(migraphx::literal{shape{shape::float_type, {1}}, {v}}), lens);
}

/// A padding mask as exporters write it: ids [2, 1, 1, 5] expanded over the query rows, cast,
/// (1 - m) * lowest, added to the scores [2, 3, 4, 5].
void padding_mask(migraphx::module& m)
{
    std::vector<std::size_t> mlens{2, 1, 4, 5}, slens{2, 3, 4, 5};
    auto ids    = m.add_parameter("ids", shape{shape::int64_type, {2, 1, 1, 5}});
    auto scores = m.add_parameter("scores", shape{shape::float_type, slens});
    auto e      = bcast(m, ids, mlens);
    auto f      = m.add_instruction(make_op("convert", {{"target_type", shape::float_type}}), e);
    auto inv    = m.add_instruction(make_op("sub"), scalar(m, 1.0f, mlens), f);
    auto mask   = m.add_instruction(make_op("mul"), inv, scalar(m, -1000.0f, mlens));
    auto s      = m.add_instruction(make_op("add"), scores, bcast(m, mask, slens));
    m.add_return({m.add_instruction(make_op("softmax", {{"axis", 3}}), s)});
}

std::vector<float> eval(const std::function<void(migraphx::module&)>& build, bool hoisted)
{
    migraphx::program p;
    build(*p.get_main_module());
    if(hoisted)
        run_hoist(*p.get_main_module());
    std::vector<std::int64_t> ids{1, 1, 0, 1, 0, 1, 0, 0, 1, 1};
    std::vector<float> sc(120);
    for(std::size_t i = 0; i < sc.size(); i++)
        sc[i] = static_cast<float>(i % 7) * 0.25f;
    migraphx::parameter_map params{{"ids", migraphx::argument{shape{shape::int64_type, {2, 1, 1, 5}}, ids.data()}},
                                   {"scores", migraphx::argument{shape{shape::float_type, {2, 3, 4, 5}}, sc.data()}}};
    return p.eval(params).back().to_vector<float>();
}

} // namespace

TEST(pass_hoist_broadcasts, padding_mask_stays_one_row)
{
    migraphx::module m;
    padding_mask(m);
    run_hoist(m);
    // convert, sub and mul now run on [2, 1, 1, 5]; the add gets the mask as a broadcast
    for(const auto& ins : m)
    {
        if(ins.name() == "convert" or ins.name() == "sub" or ins.name() == "mul")
        {
            EXPECT_EQ(ins.get_shape().lens(), (std::vector<std::size_t>{2, 1, 1, 5})) << m;
        }
        if(ins.name() == "add")
        {
            EXPECT_EQ(ins.get_shape().lens(), (std::vector<std::size_t>{2, 3, 4, 5}));
            auto mask = ins.inputs()[1]->get_shape();
            EXPECT_EQ(mask.strides()[1], 0u);
            EXPECT_EQ(mask.strides()[2], 0u) << "one row for all the query rows";
        }
    }
    EXPECT_EQ(eval(padding_mask, true), eval(padding_mask, false));
}

TEST(pass_hoist_broadcasts, left_alone)
{
    // a packed input; broadcasts along different dims; a returned value
    auto build = [](migraphx::module& m) {
        auto x  = m.add_parameter("x", shape{shape::float_type, {3, 4}});
        auto r  = m.add_parameter("r", shape{shape::float_type, {3, 1}});
        auto c  = m.add_parameter("c", shape{shape::float_type, {1, 4}});
        auto a  = m.add_instruction(make_op("add"), x, bcast(m, r, {3, 4}));
        auto b  = m.add_instruction(make_op("mul"), bcast(m, r, {3, 4}), bcast(m, c, {3, 4}));
        auto rr = m.add_instruction(make_op("neg"), bcast(m, c, {3, 4}));
        m.add_return({a, b, rr});
    };
    migraphx::module m1, m2;
    build(m1);
    build(m2);
    run_hoist(m1);
    EXPECT_EQ(m1, m2) << m1;
}

TEST(pass_hoist_broadcasts, chains_hoist_in_turn_and_values_hold)
{
    // exp(neg(b)) of [2, 1, 1, 5] values broadcast to [2, 3, 4, 5], then a packed add
    auto build = [](migraphx::module& m) {
        auto col = m.add_parameter("ids", shape{shape::int64_type, {2, 1, 1, 5}});
        auto sc  = m.add_parameter("scores", shape{shape::float_type, {2, 3, 4, 5}});
        auto f   = m.add_instruction(make_op("convert", {{"target_type", shape::float_type}}), col);
        auto b   = bcast(m, f, {2, 3, 4, 5});
        auto e   = m.add_instruction(make_op("exp"), m.add_instruction(make_op("neg"), b));
        m.add_return({m.add_instruction(make_op("add"), sc, e)});
    };
    migraphx::module m;
    build(m);
    run_hoist(m);
    std::size_t small = 0;
    for(const auto& ins : m)
        if((ins.name() == "neg" or ins.name() == "exp") and ins.get_shape().elements() == 10)
            small++;
    EXPECT_EQ(small, 2u) << m;
    EXPECT_EQ(eval(build, true), eval(build, false));
}
