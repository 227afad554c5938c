// cpu::lerp (lerp_kernel.hpp): the two-gather, two-weight sum a linear Resize becomes, matched
// (either operand order, every axis, an ONNX-style bilinear upsampling) and checked against ref;
// what it does not take (weights varying along another axis, two data, a third use of a gather).
#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include "cpu_test_util.hpp"
#include <algorithm>

using migraphx::make_op;
using migraphx::shape;

namespace {

using ins_ref = migraphx::instruction_ref;

/// x [2, 3, 4, 5] resampled to n along axis: indices i0 = floor, i1 = next (clamped), weights
/// 1 - f and f, as a linear Resize is parsed. swap: the operands of the muls and of the add the
/// other way round.
ins_ref add_lerp(migraphx::module& m, ins_ref x, std::int64_t axis, std::size_t n, bool swap)
{
    auto lens = x->get_shape().lens();
    auto len  = lens[static_cast<std::size_t>(axis)];
    std::vector<std::int64_t> i0(n), i1(n);
    std::vector<float> w0(n), w1(n);
    for(std::size_t j = 0; j < n; j++)
    {
        float pos = std::max(0.0f, (static_cast<float>(j) + 0.5f) * static_cast<float>(len) / static_cast<float>(n) - 0.5f);
        auto lo   = static_cast<std::int64_t>(pos);
        i0[j]     = lo;
        i1[j]     = std::min<std::int64_t>(lo + 1, static_cast<std::int64_t>(len) - 1);
        w1[j]     = pos - static_cast<float>(lo);
        w0[j]     = 1 - w1[j];
    }
    auto out = lens;
    out[static_cast<std::size_t>(axis)] = n;
    std::vector<std::size_t> wl(lens.size(), 1);
    wl[static_cast<std::size_t>(axis)] = n;
    auto idx = [&](const std::vector<std::int64_t>& v) { return m.add_literal(migraphx::literal{shape{shape::int64_type, {n}}, v}); };
    auto wts = [&](const std::vector<float>& v) {
        auto l = m.add_literal(migraphx::literal{shape{shape::float_type, wl}, v});
        return m.add_instruction(make_op("multibroadcast", {{"out_lens", out}}), l);
    };
    auto g0 = m.add_instruction(make_op("gather", {{"axis", axis}}), x, idx(i0));
    auto g1 = m.add_instruction(make_op("gather", {{"axis", axis}}), x, idx(i1));
    auto a  = swap ? m.add_instruction(make_op("mul"), wts(w0), g0) : m.add_instruction(make_op("mul"), g0, wts(w0));
    auto b  = swap ? m.add_instruction(make_op("mul"), wts(w1), g1) : m.add_instruction(make_op("mul"), g1, wts(w1));
    return swap ? m.add_instruction(make_op("add"), b, a) : m.add_instruction(make_op("add"), a, b);
}

std::size_t lerps(const migraphx::program& p)
{
    auto names = migx_test::op_names(*p.get_main_module());
    return static_cast<std::size_t>(std::count(names.begin(), names.end(), "cpu::lerp"));
}

} // namespace

TEST(cpu_lerp_kernel, every_axis_either_order_matches_ref)
{
    MIGX_REQUIRE_CPU();
    for(std::int64_t axis : {0, 1, 2, 3})
        for(bool swap : {false, true})
        {
            SCOPED_TRACE(std::to_string(axis) + (swap ? " swapped" : ""));
            migraphx::program p;
            auto* m = p.get_main_module();
            auto x  = m->add_parameter("x", shape{shape::float_type, {2, 3, 4, 5}});
            m->add_return({add_lerp(*m, x, axis, 7, swap)});
            auto cpu = migx_test::expect_cpu_matches_ref(p, 1e-6, 1e-6);
            EXPECT_EQ(lerps(cpu), 1u);
        }
}

TEST(cpu_lerp_kernel, a_bilinear_upsampling_is_two_lerps)
{
    MIGX_REQUIRE_CPU();
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{shape::float_type, {1, 16, 32, 32}});
    auto w  = add_lerp(*m, x, 3, 64, false);
    m->add_return({add_lerp(*m, w, 2, 64, false)});
    auto cpu = migx_test::expect_cpu_matches_ref(p, 1e-6, 1e-6);
    EXPECT_EQ(lerps(cpu), 2u);
}

TEST(cpu_lerp_kernel, other_sums_of_gathers_are_left_alone)
{
    MIGX_REQUIRE_CPU();
    {
        // weights varying along another axis than the gathers'
        migraphx::program p;
        auto* m  = p.get_main_module();
        auto x   = m->add_parameter("x", shape{shape::float_type, {2, 3, 4}});
        auto idx = m->add_literal(migraphx::literal{shape{shape::int64_type, {4}}, std::vector<std::int64_t>{0, 1, 1, 2}});
        auto w   = m->add_literal(migraphx::literal{shape{shape::float_type, {1, 3, 1}}, std::vector<float>{0.5f, 1, 2}});
        auto wb  = m->add_instruction(make_op("multibroadcast", {{"out_lens", {2, 3, 4}}}), w);
        auto g0  = m->add_instruction(make_op("gather", {{"axis", 2}}), x, idx);
        auto g1  = m->add_instruction(make_op("gather", {{"axis", 2}}), x, idx);
        m->add_return({m->add_instruction(make_op("add"), m->add_instruction(make_op("mul"), g0, wb),
                                          m->add_instruction(make_op("mul"), g1, wb))});
        EXPECT_EQ(lerps(migx_test::expect_cpu_matches_ref(p, 1e-6, 1e-6)), 0u);
    }
    {
        // a gather also used elsewhere: it must stay
        migraphx::program p;
        auto* m   = p.get_main_module();
        auto x    = m->add_parameter("x", shape{shape::float_type, {2, 3, 4, 5}});
        auto sum  = add_lerp(*m, x, 1, 6, false);
        auto mul0 = sum->inputs()[0];
        auto g0   = mul0->inputs()[0];
        m->add_return({sum, m->add_instruction(make_op("relu"), g0)});
        EXPECT_EQ(lerps(migx_test::expect_cpu_matches_ref(p, 1e-6, 1e-6)), 0u);
    }
}

TEST(cpu_lerp_kernel, negative_gather_indices_count_from_the_end)
{
    MIGX_REQUIRE_CPU();
    migraphx::program p;
    auto* m  = p.get_main_module();
    auto x   = m->add_parameter("x", shape{shape::float_type, {3, 4}});
    auto idx = [&](std::vector<std::int64_t> v) { return m->add_literal(migraphx::literal{shape{shape::int64_type, {3}}, v}); };
    auto wts = [&](std::vector<float> v) {
        auto l = m->add_literal(migraphx::literal{shape{shape::float_type, {1, 3}}, v});
        return m->add_instruction(make_op("multibroadcast", {{"out_lens", {3, 3}}}), l);
    };
    auto g0 = m->add_instruction(make_op("gather", {{"axis", 1}}), x, idx({0, -3, 2}));
    auto g1 = m->add_instruction(make_op("gather", {{"axis", 1}}), x, idx({-1, 2, -2}));
    m->add_return({m->add_instruction(make_op("add"), m->add_instruction(make_op("mul"), g0, wts({0.5f, 0.25f, 1})),
                                      m->add_instruction(make_op("mul"), g1, wts({0.5f, 0.75f, 0})))});
    EXPECT_EQ(lerps(migx_test::expect_cpu_matches_ref(p, 1e-6, 1e-6)), 1u);
}

TEST(cpu_lerp_kernel, out_of_range_index_throws)
{
    MIGX_REQUIRE_CPU();
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{shape::float_type, {2, 4}});
    auto i  = m->add_literal(migraphx::literal{shape{shape::int64_type, {2}}, std::vector<std::int64_t>{0, 9}});
    auto w  = m->add_literal(migraphx::literal{shape{shape::float_type, {2}}, std::vector<float>{0.5f, 0.5f}});
    m->add_return({m->add_instruction(migraphx::make_op("cpu::lerp", {{"axis", 1}}), x, i, w, i, w)});
    p.compile(migraphx::get_target("cpu"));
    std::vector<float> d(8, 1.0f);
    try
    {
        p.eval({{"x", migraphx::argument{shape{shape::float_type, {2, 4}}, d.data()}}});
        FAIL() << "no exception";
    }
    catch(const migraphx::exception& e)
    {
        EXPECT_NE(std::string(e.what()).find("index 9 is out of range for axis 1 of length 4"), std::string::npos) << e.what();
    }
}
