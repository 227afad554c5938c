// cpu::pointwise: each step's loop against the reference ops, on standard, broadcast and
// transposed inputs.
#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include "cpu_test_util.hpp"
#ifdef MIGRAPHX_HAVE_CPU
#include "targets/cpu/pointwise_kernel.hpp"
#endif

using migraphx::make_op;
using migraphx::shape;

namespace {

// x (standard), y (transposed view), z (per-row broadcast): op applied as a one-op program.
migraphx::program binary_program(const std::string& op)
{
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{shape::float_type, {37, 45}});
    auto y  = m->add_parameter("y", shape{shape::float_type, {45, 37}});
    auto yt = m->add_instruction(make_op("transpose", {{"permutation", std::vector<std::int64_t>{1, 0}}}), y);
    auto a  = m->add_instruction(make_op(op), x, yt);
    auto z  = m->add_parameter("z", shape{shape::float_type, {37, 1}});
    auto zb = m->add_instruction(make_op("multibroadcast", {{"out_lens", std::vector<std::size_t>{37, 45}}}), z);
    m->add_return({m->add_instruction(make_op(op), a, zb)});
    return p;
}

migraphx::program unary_program(const std::string& op, float scale)
{
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{shape::float_type, {3, 1000}});
    auto s  = m->add_instruction(make_op("multibroadcast", {{"out_lens", std::vector<std::size_t>{3, 1000}}}),
                                m->add_literal(migraphx::literal{scale}));
    auto xs = m->add_instruction(make_op("mul"), x, s);
    m->add_return({m->add_instruction(make_op(op), xs)});
    return p;
}

} // namespace

TEST(cpu_pointwise_kernel, binary_ops_on_views)
{
    MIGX_REQUIRE_CPU();
    for(const auto* op : {"add", "sub", "mul", "max", "min"})
    {
        SCOPED_TRACE(op);
        migx_test::expect_cpu_matches_ref(binary_program(op), 1e-6, 1e-6);
    }
}

TEST(cpu_pointwise_kernel, math_functions_within_float_accuracy)
{
    MIGX_REQUIRE_CPU();
    // generated inputs are small; scale them to cover the interesting range of each function
    for(const auto* op : {"exp", "tanh", "sigmoid", "erf", "relu", "neg", "abs"})
    {
        SCOPED_TRACE(op);
        migx_test::expect_cpu_matches_ref(unary_program(op, 8.0f), 2e-6, 2e-7);
    }
    migx_test::expect_cpu_matches_ref(unary_program("sqrt", 1.0f), 1e-6, 1e-7);
}

TEST(cpu_pointwise_kernel, lowered_kernel_is_used)
{
    MIGX_REQUIRE_CPU();
    auto cpu   = migx_test::expect_cpu_matches_ref(unary_program("tanh", 1.0f));
    auto names = migx_test::op_names(*cpu.get_main_module());
    EXPECT_GE(std::count(names.begin(), names.end(), "cpu::pointwise"), 1);
    EXPECT_EQ(std::count(names.begin(), names.end(), "tanh"), 0);
}

// PReLU (a per-channel slope, as MTCNN's), HardSwish and HardSigmoid (MobileNetV3's; two
// attributes, run as a multiply, an add and a clip) run in the kernel, bit for bit as ref
// where the arithmetic is the same, and no reference op is left.
TEST(cpu_pointwise_kernel, prelu_hardswish_hardsigmoid)
{
    MIGX_REQUIRE_CPU();
    auto check = [](const migraphx::program& p, const std::string& op) {
        SCOPED_TRACE(op);
        auto cpu   = migx_test::expect_cpu_matches_ref(p, 1e-6, 1e-7);
        auto names = migx_test::op_names(*cpu.get_main_module());
        EXPECT_GE(std::count(names.begin(), names.end(), "cpu::pointwise"), 1);
        EXPECT_EQ(std::count(names.begin(), names.end(), op), 0);
        EXPECT_EQ(std::count(names.begin(), names.end(), "pointwise"), 0);
    };
    {
        migraphx::program p;
        auto* m    = p.get_main_module();
        auto x     = m->add_parameter("x", shape{shape::float_type, {1, 4, 5, 6}});
        auto slope = m->add_literal(migraphx::literal{shape{shape::float_type, {4, 1, 1}}, {0.25f, -0.5f, 0.0f, 2.0f}});
        auto sb    = m->add_instruction(make_op("multibroadcast", {{"out_lens", std::vector<std::size_t>{1, 4, 5, 6}}}), slope);
        m->add_return({m->add_instruction(make_op("prelu"), x, sb)});
        check(p, "prelu");
    }
    check(unary_program("hardswish", 8.0f), "hardswish");
    migraphx::program hs;
    {
        auto* m = hs.get_main_module();
        auto x  = m->add_parameter("x", shape{shape::float_type, {3, 1000}});
        auto s  = m->add_instruction(make_op("multibroadcast", {{"out_lens", std::vector<std::size_t>{3, 1000}}}),
                                    m->add_literal(migraphx::literal{8.0f}));
        auto xs = m->add_instruction(make_op("mul"), x, s);
        m->add_return({m->add_instruction(make_op("hardsigmoid", {{"alpha", 1.0f / 6}, {"beta", 0.5f}}), xs)});
    }
    check(hs, "hardsigmoid");
}

// Short rows (a per-channel operand on channels-last data merges no dims: rows of C values) run
// several rows an item: an operand repeated every row (filled once), one whose rows follow each
// other (read in place), a transposed one and a broadcast along another dim (gathered row by
// row); 7 * 9 * 2 rows of 12 is not a multiple of the rows an item.
TEST(cpu_pointwise_kernel, several_short_rows_an_item)
{
    MIGX_REQUIRE_CPU();
    migraphx::program p;
    auto* m     = p.get_main_module();
    std::vector<std::size_t> lens{2, 7, 9, 12};
    auto x      = m->add_parameter("x", shape{shape::float_type, lens});
    auto slope  = m->add_parameter("slope", shape{shape::float_type, {12}});
    auto sb     = m->add_instruction(make_op("multibroadcast", {{"out_lens", lens}}), slope);
    auto y      = m->add_parameter("y", shape{shape::float_type, {2, 7, 12, 9}});
    auto yt     = m->add_instruction(make_op("transpose", {{"permutation", std::vector<std::int64_t>{0, 1, 3, 2}}}), y);
    auto z      = m->add_parameter("z", shape{shape::float_type, {7}});
    auto zb     = m->add_instruction(make_op("broadcast", {{"axis", 1}, {"out_lens", lens}}), z);
    auto pr     = m->add_instruction(make_op("prelu"), x, sb);
    auto prod   = m->add_instruction(make_op("mul"), yt, zb);
    m->add_return({m->add_instruction(make_op("add"), pr, prod)});
    auto cpu   = migx_test::expect_cpu_matches_ref(p, 1e-6, 1e-7);
    auto names = migx_test::op_names(*cpu.get_main_module());
    EXPECT_EQ(std::count(names.begin(), names.end(), "cpu::pointwise"), 1);
}

// Small calls whose inputs are all dense run in one tile straight from the inputs: an LSTM step's
// gates (slices {1, 128} of a {1, 512} row, a constant, several steps), a call of exactly one tile,
// and beside them small ones that are not dense (a transposed operand, a broadcast) and take the
// general path; all as ref computes them.
TEST(cpu_pointwise_kernel, small_dense_calls_match_ref)
{
    MIGX_REQUIRE_CPU();
    {
        migraphx::program p;
        auto* m    = p.get_main_module();
        auto g     = m->add_parameter("g", shape{shape::float_type, {1, 512}});
        auto c     = m->add_parameter("c", shape{shape::float_type, {1, 128}});
        auto gate  = [&](std::int64_t i) {
            return m->add_instruction(make_op("slice", {{"axes", {1}}, {"starts", {i * 128}}, {"ends", {i * 128 + 128}}}),
                                      g);
        };
        auto i     = m->add_instruction(make_op("sigmoid"), gate(0));
        auto f     = m->add_instruction(make_op("sigmoid"), gate(2));
        auto cand  = m->add_instruction(make_op("tanh"), gate(3));
        auto half  = m->add_instruction(make_op("multibroadcast", {{"out_lens", std::vector<std::size_t>{1, 128}}}),
                                       m->add_literal(migraphx::literal{0.5f}));
        auto c2    = m->add_instruction(make_op("add"), m->add_instruction(make_op("mul"), f, c),
                                     m->add_instruction(make_op("mul"), i, cand));
        m->add_return({m->add_instruction(make_op("mul"), c2, half)});
        auto cpu   = migx_test::expect_cpu_matches_ref(p, 2e-6, 2e-7);
        auto names = migx_test::op_names(*cpu.get_main_module());
        EXPECT_EQ(std::count(names.begin(), names.end(), "cpu::pointwise"), 1);
    }
    for(std::size_t n : {1, 7, 1024})
    {
        SCOPED_TRACE(n);
        migraphx::program p;
        auto* m = p.get_main_module();
        auto x  = m->add_parameter("x", shape{shape::float_type, {n, 1}});
        auto y  = m->add_parameter("y", shape{shape::float_type, {1, n}});
        auto yt = m->add_instruction(make_op("transpose", {{"permutation", std::vector<std::int64_t>{1, 0}}}), y);
        auto z  = m->add_parameter("z", shape{shape::float_type, {1, 1}});
        auto zb = m->add_instruction(make_op("multibroadcast", {{"out_lens", std::vector<std::size_t>{n, 1}}}), z);
        auto a  = m->add_instruction(make_op("sub"), x, yt); // {n, 1} from {1, n}: dense all the same
        m->add_return({m->add_instruction(make_op("mul"), m->add_instruction(make_op("exp"), a), zb)});
        migx_test::expect_cpu_matches_ref(p, 2e-6, 2e-7);
    }
    {
        migraphx::program p; // 6 x 5 read through a transpose: not dense, the general path
        auto* m = p.get_main_module();
        auto x  = m->add_parameter("x", shape{shape::float_type, {6, 5}});
        auto y  = m->add_parameter("y", shape{shape::float_type, {5, 6}});
        auto yt = m->add_instruction(make_op("transpose", {{"permutation", std::vector<std::int64_t>{1, 0}}}), y);
        m->add_return({m->add_instruction(make_op("tanh"), m->add_instruction(make_op("add"), x, yt))});
        migx_test::expect_cpu_matches_ref(p, 2e-6, 2e-7);
    }
}

#ifdef MIGRAPHX_HAVE_CPU
// Each step's loop is found by name once a kernel; a copy (whose steps a pass may change) finds
// its own; the same name gives the same loop; a name without a loop is an error.
TEST(cpu_pointwise_kernel, step_loops_are_found_once)
{
    migraphx::cpu::pointwise_kernel k;
    k.inputs = 1;
    k.ops    = {"exp", "neg", "exp"};
    k.args   = {0, 1, 2};
    k.arity  = {1, 1, 1};
    auto c   = k.step_codes();
    ASSERT_EQ(c->size(), 3u);
    EXPECT_EQ((*c)[0], (*c)[2]);
    EXPECT_NE((*c)[0], (*c)[1]);
    EXPECT_EQ(k.step_codes(), c); // found once
    auto copy = k;                // its steps changed before it runs: it finds its own
    copy.ops  = {"neg", "exp", "neg"};
    auto own  = copy.step_codes();
    ASSERT_EQ(own->size(), 3u);
    EXPECT_EQ((*own)[0], (*c)[1]);
    EXPECT_EQ((*own)[1], (*c)[0]);
    migraphx::cpu::pointwise_kernel bad;
    bad.inputs = 1;
    bad.ops    = {"nope"};
    EXPECT_ANY_THROW(bad.step_codes()); // a name without a loop (compute_shape refuses it first)
}
#endif
