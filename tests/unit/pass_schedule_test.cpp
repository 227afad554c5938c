#include <migraphx/make_op.hpp>
#include <migraphx/module.hpp>
#include <migraphx/program.hpp>
#include <migraphx/reflect.hpp>
#include <gtest/gtest.h>
#include <random>
#include <sstream>
#include "passes/memory_coloring.hpp"
#include "passes/pass_manager.hpp"
#include "passes/schedule.hpp"

using migraphx::make_op;
using migraphx::shape;

namespace {

/// A lowered op: operands, then the buffer it writes (last input, returned through
/// output_alias). out[i] = a[i % |a|] + 1, or a[i % |a|] * 2 - b[i % |b|] with two operands.
struct sched_test_op
{
    std::string name() const { return "sched_test_op"; }
    shape compute_shape(const std::vector<shape>& inputs) const
    {
        if(inputs.size() < 2 or inputs.size() > 3)
            throw migraphx::exception("sched_test_op: one or two operands and an output buffer");
        return inputs.back();
    }
    migraphx::argument compute(const shape&, const std::vector<migraphx::argument>& args) const
    {
        auto a        = args[0].to_vector<float>();
        auto b        = args.size() == 3 ? args[1].to_vector<float>() : std::vector<float>{};
        auto out      = args.back();
        auto* o       = reinterpret_cast<float*>(out.data());
        std::size_t n = out.get_shape().elements();
        for(std::size_t i = 0; i < n; i++)
            o[i] = b.empty() ? a[i % a.size()] + 1 : a[i % a.size()] * 2 - b[i % b.size()];
        return out;
    }
    std::ptrdiff_t output_alias(const std::vector<shape>& inputs) const
    {
        return static_cast<std::ptrdiff_t>(inputs.size()) - 1;
    }
};

/// Records the order it ran in (must keep it: {"side_effects": true}).
struct sched_test_log
{
    int id = 0;
    std::vector<int>* log = nullptr;
    std::string name() const { return "sched_test_log"; }
    migraphx::value attributes() const { return {{"side_effects", true}}; }
    shape compute_shape(const std::vector<shape>& inputs) const { return inputs.front(); }
    migraphx::argument compute(const shape&, const std::vector<migraphx::argument>& args) const
    {
        log->push_back(id);
        return args.front();
    }
};

migraphx::instruction_ref lowered(migraphx::module& m, std::vector<migraphx::instruction_ref> args, const shape& s)
{
    args.push_back(m.add_instruction(make_op("allocate", {{"shape", migraphx::shape_to_value(s)}}), {}));
    return m.add_instruction(sched_test_op{}, args);
}

void sched(migraphx::module& m) { migraphx::run_passes(m, {migraphx::schedule{}}); }

std::string text(const migraphx::module& m)
{
    std::ostringstream ss;
    ss << m;
    return ss.str();
}

void expect_same_results(const migraphx::program& a, const migraphx::program& b)
{
    migraphx::parameter_map params;
    unsigned long seed = 3;
    for(const auto& [name, s] : a.get_parameter_shapes())
        params.emplace(name, migraphx::generate_argument(s, seed++));
    auto r1 = a.eval(params);
    auto r2 = b.eval(params);
    ASSERT_EQ(r1.size(), r2.size());
    for(std::size_t i = 0; i < r1.size(); i++)
        EXPECT_EQ(r1[i].to_vector<float>(), r2[i].to_vector<float>()) << "output " << i;
}

const shape small{shape::float_type, {1, 64}}; // 256 B
const shape big{shape::float_type, {64, 64}};  // 16 KiB

} // namespace

TEST(pass_schedule, finishes_one_branch_before_starting_the_next)
{
    // Two independent branches, each a big temporary reduced to a small value, written
    // breadth-first: both big temporaries are live at once. Scheduled, one branch runs to its
    // small result before the other's big temporary is allocated.
    migraphx::program p;
    auto* mm = p.get_main_module();
    {
        auto x  = mm->add_parameter("x", small);
        auto a1 = lowered(*mm, {x}, big);
        auto b1 = lowered(*mm, {x}, big);
        auto a2 = lowered(*mm, {a1}, small);
        auto b2 = lowered(*mm, {b1}, small);
        mm->add_return({lowered(*mm, {a2, b2}, small)});
    }
    migraphx::program before = p;
    EXPECT_EQ(migraphx::peak_live_bytes(*mm), 2 * big.bytes() + small.bytes());
    sched(*mm);
    EXPECT_EQ(text(*mm), R"(module: "main"
x = @param:x -> float_type, {1, 64}, {64, 1}
main:@1 = allocate[shape=float_type, {64, 64}, {64, 1}] -> float_type, {64, 64}, {64, 1}
main:@2 = sched_test_op(x,main:@1) -> float_type, {64, 64}, {64, 1}
main:@3 = allocate[shape=float_type, {1, 64}, {64, 1}] -> float_type, {1, 64}, {64, 1}
main:@4 = sched_test_op(main:@2,main:@3) -> float_type, {1, 64}, {64, 1}
main:@5 = allocate[shape=float_type, {64, 64}, {64, 1}] -> float_type, {64, 64}, {64, 1}
main:@6 = sched_test_op(x,main:@5) -> float_type, {64, 64}, {64, 1}
main:@7 = allocate[shape=float_type, {1, 64}, {64, 1}] -> float_type, {1, 64}, {64, 1}
main:@8 = sched_test_op(main:@6,main:@7) -> float_type, {1, 64}, {64, 1}
main:@9 = allocate[shape=float_type, {1, 64}, {64, 1}] -> float_type, {1, 64}, {64, 1}
main:@10 = sched_test_op(main:@4,main:@8,main:@9) -> float_type, {1, 64}, {64, 1}
main:@11 = @return(main:@10)
)");
    EXPECT_EQ(migraphx::peak_live_bytes(*mm), big.bytes() + 2 * small.bytes());
    mm->validate();
    expect_same_results(before, p);
    // The scratch that memory_coloring plans afterwards shrinks accordingly.
    migraphx::program unscheduled = before;
    migraphx::run_passes(*unscheduled.get_main_module(), {migraphx::memory_coloring{}});
    migraphx::run_passes(*mm, {migraphx::memory_coloring{}});
    EXPECT_LT(p.get_memory_usage(), unscheduled.get_memory_usage());
    expect_same_results(before, p);
}

TEST(pass_schedule, works_on_unlowered_ops_too)
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    {
        auto x  = mm->add_parameter("x", big);
        auto y  = mm->add_parameter("y", big);
        auto a1 = mm->add_instruction(make_op("mul"), x, x);
        auto b1 = mm->add_instruction(make_op("mul"), y, y);
        auto c1 = mm->add_instruction(make_op("add"), x, y);
        auto a2 = mm->add_instruction(make_op("reduce_sum", {{"axes", {0}}}), a1);
        auto b2 = mm->add_instruction(make_op("reduce_sum", {{"axes", {0}}}), b1);
        auto c2 = mm->add_instruction(make_op("reduce_max", {{"axes", {0}}}), c1);
        auto s  = mm->add_instruction(make_op("add"), a2, b2);
        mm->add_return({mm->add_instruction(make_op("add"), s, c2)});
    }
    migraphx::program before = p;
    auto peak_before = migraphx::peak_live_bytes(*mm);
    EXPECT_EQ(peak_before, 3 * big.bytes() + small.bytes());
    sched(*mm);
    mm->validate();
    // One big temporary at a time; the sums are formed as soon as their inputs exist.
    EXPECT_EQ(migraphx::peak_live_bytes(*mm), big.bytes() + 2 * small.bytes()) << *mm;
    expect_same_results(before, p);
}

TEST(pass_schedule, leaves_a_good_order_alone)
{
    migraphx::module m;
    auto x  = m.add_parameter("x", small);
    auto a1 = lowered(m, {x}, big);
    auto a2 = lowered(m, {a1}, small);
    auto b1 = lowered(m, {x}, big);
    auto b2 = lowered(m, {b1}, small);
    m.add_return({lowered(m, {a2, b2}, small)});
    auto t = text(m);
    sched(m);
    EXPECT_EQ(text(m), t);
}

TEST(pass_schedule, a_later_writer_of_a_buffer_waits_for_its_earlier_readers)
{
    // w writes its result into l's buffer (l is its last input) and adds no memory, so greedy
    // order would run it as soon as l exists; r reads l first and must still see l's values.
    // Two breadth-first branches make the new order worth taking.
    migraphx::program p;
    auto* mm = p.get_main_module();
    {
        auto x  = mm->add_parameter("x", small);
        auto y  = mm->add_parameter("y", small);
        auto a1 = lowered(*mm, {x}, big);
        auto b1 = lowered(*mm, {x}, big);
        auto a2 = lowered(*mm, {a1}, small);
        auto b2 = lowered(*mm, {b1}, small);
        auto l  = lowered(*mm, {x}, small);
        auto r  = lowered(*mm, {l, a2}, small);
        auto w  = mm->add_instruction(sched_test_op{}, y, l);
        auto s  = lowered(*mm, {r, b2}, small);
        mm->add_return({s, w});
    }
    migraphx::program before = p;
    auto peak_before         = migraphx::peak_live_bytes(*mm);
    sched(*mm);
    mm->validate();
    EXPECT_LT(migraphx::peak_live_bytes(*mm), peak_before);
    expect_same_results(before, p);
}

TEST(pass_schedule, values_read_inside_if_branches_come_before_the_if)
{
    // v is read only inside the branches; it costs more than the if's result, so without the
    // dependency through the sub-modules the if would be run first.
    migraphx::program p;
    auto* mm  = p.get_main_module();
    auto c    = mm->add_parameter("c", shape{shape::bool_type, {1}});
    auto x    = mm->add_parameter("x", small);
    auto a1   = lowered(*mm, {x}, big);
    auto b1   = lowered(*mm, {x}, big);
    auto a2   = lowered(*mm, {a1}, small);
    auto b2   = lowered(*mm, {b1}, small);
    auto v    = lowered(*mm, {x}, shape{shape::float_type, {4, 64}});
    auto* thn = p.create_module("then_mod");
    auto* els = p.create_module("else_mod");
    thn->add_return({thn->add_instruction(make_op("reduce_sum", {{"axes", {0}}}), v)});
    els->add_return({els->add_instruction(make_op("reduce_max", {{"axes", {0}}}), v)});
    auto i = mm->add_instruction(make_op("if"), {c}, {thn, els});
    auto f = lowered(*mm, {a2, b2}, small);
    mm->add_return({lowered(*mm, {f, i}, small)});
    migraphx::program before = p;
    auto peak_before         = migraphx::peak_live_bytes(*mm);
    sched(*mm);
    mm->validate();
    EXPECT_LT(migraphx::peak_live_bytes(*mm), peak_before);
    for(bool cv : {true, false})
    {
        bool cond = cv;
        migraphx::parameter_map params{{"c", migraphx::argument{shape{shape::bool_type, {1}}, &cond}},
                                       {"x", migraphx::generate_argument(small, 5)}};
        EXPECT_EQ(before.eval(params).front().to_vector<float>(), p.eval(params).front().to_vector<float>());
    }
}

TEST(pass_schedule, ops_with_side_effects_keep_their_order)
{
    std::vector<int> log;
    migraphx::program p;
    auto* mm = p.get_main_module();
    {
        auto x  = mm->add_parameter("x", small);
        auto a1 = lowered(*mm, {x}, big);
        auto b1 = lowered(*mm, {x}, big);
        auto a2 = lowered(*mm, {a1}, small);
        auto lb = mm->add_instruction(sched_test_log{1, &log}, lowered(*mm, {b1}, small));
        auto la = mm->add_instruction(sched_test_log{2, &log}, a2);
        mm->add_return({lowered(*mm, {la, lb}, small)});
    }
    sched(*mm);
    mm->validate();
    p.eval({{"x", migraphx::generate_argument(small, 1)}});
    EXPECT_EQ(log, (std::vector<int>{1, 2}));
}

TEST(pass_schedule, planned_modules_are_left_alone)
{
    migraphx::module m;
    auto x  = m.add_parameter("x", small);
    auto a1 = lowered(m, {x}, big);
    auto b1 = lowered(m, {x}, big);
    auto a2 = lowered(m, {a1}, small);
    auto b2 = lowered(m, {b1}, small);
    m.add_return({lowered(m, {a2, b2}, small)});
    migraphx::run_passes(m, {migraphx::memory_coloring{}});
    auto t = text(m);
    sched(m);
    EXPECT_EQ(text(m), t);
}

TEST(pass_schedule, random_programs_keep_dependencies_and_never_need_more_memory)
{
    int improved = 0;
    for(unsigned seed = 0; seed < 20; seed++)
    {
        std::mt19937 gen(seed);
        auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(gen); };
        migraphx::program p;
        auto* mm = p.get_main_module();
        std::vector<migraphx::instruction_ref> values{mm->add_parameter("x", shape{shape::float_type, {8, 8}})};
        for(int i = 0; i < 40; i++)
        {
            std::vector<migraphx::instruction_ref> args{values[pick(values.size())]};
            if(pick(2) == 0)
                args.push_back(values[pick(values.size())]);
            auto v = lowered(*mm, args, shape{shape::float_type, {std::size_t{1} << pick(6), 8}});
            if(pick(5) == 0)
                v = mm->add_instruction(make_op("transpose", {{"permutation", {1, 0}}}), v);
            values.push_back(v);
        }
        mm->add_return({values.back(), values[values.size() / 2]});
        migraphx::program before = p;
        auto peak_before         = migraphx::peak_live_bytes(*mm);
        sched(*mm);
        mm->validate();
        auto peak_after = migraphx::peak_live_bytes(*mm);
        EXPECT_LE(peak_after, peak_before) << "seed " << seed;
        improved += peak_after < peak_before ? 1 : 0;
        expect_same_results(before, p);
        migraphx::run_passes(*mm, {migraphx::memory_coloring{}});
        expect_same_results(before, p);
    }
    EXPECT_GT(improved, 0);
}
