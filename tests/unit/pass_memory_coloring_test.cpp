#include <migraphx/make_op.hpp>
#include <migraphx/module.hpp>
#include <migraphx/program.hpp>
#include <migraphx/reflect.hpp>
#include <gtest/gtest.h>
#include <random>
#include <sstream>
#include "passes/memory_coloring.hpp"
#include "passes/pass_manager.hpp"

using migraphx::make_op;
using migraphx::shape;

namespace {

/// A lowered op as the cpu target makes them: operands, then its output buffer (an allocate)
/// last; it writes there and returns it. out[i] = 2 * a[i % |a|] + 1 with one operand, or
/// a[i % |a|] * 1.5 - b[i % |b|] with two, so operands of any shape can feed it.
struct mc_test_op
{
    std::string name() const { return "mc_test_op"; }
    shape compute_shape(const std::vector<shape>& inputs) const
    {
        if(inputs.size() < 2 or inputs.size() > 3)
            throw migraphx::exception("mc_test_op: one or two operands and an output buffer");
        return inputs.back();
    }
    migraphx::argument compute(const shape&, const std::vector<migraphx::argument>& args) const
    {
        auto a   = args[0].to_vector<float>();
        auto out = args.back();
        auto* o  = reinterpret_cast<float*>(out.data());
        std::size_t n = out.get_shape().elements();
        if(args.size() == 2)
            for(std::size_t i = 0; i < n; i++)
                o[i] = 2 * a[i % a.size()] + 1;
        else
        {
            auto b = args[1].to_vector<float>();
            for(std::size_t i = 0; i < n; i++)
                o[i] = a[i % a.size()] * 1.5f - b[i % b.size()];
        }
        return out;
    }
    std::ptrdiff_t output_alias(const std::vector<shape>& inputs) const
    {
        return static_cast<std::ptrdiff_t>(inputs.size()) - 1;
    }
};

migraphx::operation alloc(const shape& s) { return make_op("allocate", {{"shape", migraphx::shape_to_value(s)}}); }

migraphx::instruction_ref lowered(migraphx::module& m, std::vector<migraphx::instruction_ref> args, const shape& s)
{
    args.push_back(m.add_instruction(alloc(s), {}));
    return m.add_instruction(mc_test_op{}, args);
}

void color(migraphx::module& m) { migraphx::run_passes(m, {migraphx::memory_coloring{}}); }

struct interval
{
    std::size_t start, end, bytes;
};

/// Lifetimes of the allocates of m, in module order, computed here independently of the pass:
/// an allocate's memory is held by every instruction whose output_alias leads to it, and is live
/// until the last instruction reading any of them (to the end when one is returned).
std::vector<interval> lifetimes(const migraphx::module& m)
{
    std::vector<migraphx::instruction_ref> ins;
    for(auto it = m.begin(); it != m.end(); ++it)
        ins.push_back(it);
    std::vector<interval> r;
    for(std::size_t i = 0; i < ins.size(); i++)
    {
        if(ins[i]->name() != "allocate")
            continue;
        std::vector<const migraphx::instruction*> holders{&*ins[i]};
        auto held = [&](migraphx::instruction_ref x) {
            return std::find(holders.begin(), holders.end(), &*x) != holders.end();
        };
        interval iv{i, i, ins[i]->get_shape().bytes()};
        for(std::size_t j = i + 1; j < ins.size(); j++)
        {
            bool reads = std::any_of(ins[j]->inputs().begin(), ins[j]->inputs().end(), held);
            if(not reads)
                continue;
            iv.end = ins[j]->name() == "@return" ? ins.size() : j;
            std::vector<shape> shapes;
            for(auto in : ins[j]->inputs())
                shapes.push_back(in->get_shape());
            if(ins[j]->name() == "@return")
                continue;
            auto a = ins[j]->get_operator().output_alias(shapes);
            if(a >= 0 and held(ins[j]->inputs()[a]))
                holders.push_back(&*ins[j]);
        }
        r.push_back(iv);
    }
    return r;
}

struct placement
{
    std::size_t offset, bytes;
};

std::vector<placement> loads(const migraphx::module& m)
{
    std::vector<placement> r;
    for(auto it = m.begin(); it != m.end(); ++it)
        if(it->name() == "load")
            r.push_back({it->get_operator().to_value().at("offset").to<std::size_t>(), it->get_shape().bytes()});
    return r;
}

std::size_t scratch_bytes(const migraphx::module& m)
{
    for(auto it = m.begin(); it != m.end(); ++it)
        if(it->get_operator().attributes().contains("scratch"))
            return it->get_shape().bytes();
    return 0;
}

/// Every pair of allocations live at the same time got disjoint bytes; all lie in the scratch
/// buffer at aligned offsets. Returns the sum of the allocation sizes.
std::size_t check_placements(const std::vector<interval>& lives, const migraphx::module& colored)
{
    auto ps = loads(colored);
    EXPECT_EQ(ps.size(), lives.size());
    auto total = scratch_bytes(colored);
    std::size_t sum = 0;
    for(std::size_t i = 0; i < ps.size() and i < lives.size(); i++)
    {
        sum += ps[i].bytes;
        EXPECT_EQ(ps[i].bytes, lives[i].bytes);
        EXPECT_EQ(ps[i].offset % 64, 0u);
        EXPECT_LE(ps[i].offset + ps[i].bytes, total);
        for(std::size_t j = i + 1; j < ps.size(); j++)
        {
            bool overlap_time = lives[i].start <= lives[j].end and lives[j].start <= lives[i].end;
            bool overlap_mem  = ps[i].offset < ps[j].offset + ps[j].bytes and ps[j].offset < ps[i].offset + ps[i].bytes;
            EXPECT_FALSE(overlap_time and overlap_mem) << "allocations " << i << " and " << j;
        }
    }
    return sum;
}

void expect_same_results(const migraphx::program& a, const migraphx::program& b)
{
    migraphx::parameter_map params;
    unsigned long seed = 11;
    for(const auto& [name, s] : a.get_parameter_shapes())
        params.emplace(name, migraphx::generate_argument(s, seed++));
    auto r1 = a.eval(params);
    auto r2 = b.eval(params);
    ASSERT_EQ(r1.size(), r2.size());
    for(std::size_t i = 0; i < r1.size(); i++)
        EXPECT_EQ(r1[i].to_vector<float>(), r2[i].to_vector<float>()) << "output " << i;
}

const shape s164{shape::float_type, {1, 64}};

} // namespace

TEST(pass_memory_coloring, chain_reuses_the_buffer_two_steps_back)
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    {
        auto x  = mm->add_parameter("x", s164);
        auto l0 = lowered(*mm, {x}, s164);
        auto l1 = lowered(*mm, {l0}, s164);
        auto l2 = lowered(*mm, {l1}, s164);
        mm->add_return({l2});
    }
    migraphx::program before = p;
    color(*mm);
    std::ostringstream ss;
    ss << *mm;
    // l0's buffer is free once l1 has run, so l2 writes there; l1 needs its own.
    EXPECT_EQ(ss.str(), R"(module: "main"
main:@0 = allocate[shape=uint8_type, {512}, {1},scratch=1] -> uint8_type, {512}, {1}
x = @param:x -> float_type, {1, 64}, {64, 1}
main:@2 = load[offset=0,end=256](main:@0) -> float_type, {1, 64}, {64, 1}
main:@3 = mc_test_op(x,main:@2) -> float_type, {1, 64}, {64, 1}
main:@4 = load[offset=256,end=512](main:@0) -> float_type, {1, 64}, {64, 1}
main:@5 = mc_test_op(main:@3,main:@4) -> float_type, {1, 64}, {64, 1}
main:@6 = load[offset=0,end=256](main:@0) -> float_type, {1, 64}, {64, 1}
main:@7 = mc_test_op(main:@5,main:@6) -> float_type, {1, 64}, {64, 1}
main:@8 = @return(main:@7)
)");
    EXPECT_EQ(p.get_memory_usage(), 512u);
    EXPECT_EQ(before.get_memory_usage(), 3 * 256u);
    expect_same_results(before, p);
}

TEST(pass_memory_coloring, views_keep_their_buffer_alive)
{
    // t is a transposed view of l0 that is read only at the end: l0's buffer must not be reused
    // by l1..l3 although l0 itself has no other reader.
    migraphx::program p;
    auto* mm = p.get_main_module();
    {
        shape s48{shape::float_type, {4, 8}};
        auto x  = mm->add_parameter("x", s48);
        auto l0 = lowered(*mm, {x}, s48);
        auto t  = mm->add_instruction(make_op("transpose", {{"permutation", {1, 0}}}), l0);
        auto l1 = lowered(*mm, {x}, s48);
        auto l2 = lowered(*mm, {l1}, s48);
        auto l3 = lowered(*mm, {l2}, s48);
        auto l4 = lowered(*mm, {t, l3}, shape{shape::float_type, {8, 4}});
        mm->add_return({l4});
    }
    migraphx::program before = p;
    auto lives = lifetimes(*mm);
    color(*mm);
    check_placements(lives, *mm);
    auto ps = loads(*mm);
    ASSERT_EQ(ps.size(), 5u);
    for(std::size_t i = 1; i < 4; i++)
        EXPECT_NE(ps[0].offset, ps[i].offset);
    expect_same_results(before, p);
}

TEST(pass_memory_coloring, returned_values_stay_live_to_the_end)
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    {
        auto x  = mm->add_parameter("x", s164);
        auto l0 = lowered(*mm, {x}, s164); // returned, but last read here by l1
        auto l1 = lowered(*mm, {l0}, s164);
        auto l2 = lowered(*mm, {l1}, s164);
        auto l3 = lowered(*mm, {l2}, s164);
        mm->add_return({l0, l3});
    }
    migraphx::program before = p;
    auto lives = lifetimes(*mm);
    color(*mm);
    check_placements(lives, *mm);
    auto ps = loads(*mm);
    for(std::size_t i = 1; i < 4; i++)
        EXPECT_NE(ps[0].offset, ps[i].offset);
    expect_same_results(before, p);
}

TEST(pass_memory_coloring, different_sizes_share_freed_ranges)
{
    // big (1024 B) dies early; the two small ones after it fit into its range.
    migraphx::program p;
    auto* mm = p.get_main_module();
    {
        auto x   = mm->add_parameter("x", s164);
        auto big = lowered(*mm, {x}, shape{shape::float_type, {4, 64}});
        auto a   = lowered(*mm, {big}, s164);
        auto b   = lowered(*mm, {a}, shape{shape::float_type, {1, 32}});
        auto c   = lowered(*mm, {b}, shape{shape::float_type, {1, 32}});
        mm->add_return({c});
    }
    migraphx::program before = p;
    auto lives = lifetimes(*mm);
    color(*mm);
    auto sum = check_placements(lives, *mm);
    EXPECT_EQ(sum, 1024u + 256 + 128 + 128);
    EXPECT_EQ(scratch_bytes(*mm), 1024u + 256);
    expect_same_results(before, p);
}

TEST(pass_memory_coloring, alignment_pads_offsets)
{
    migraphx::module m;
    shape s3{shape::float_type, {3}}; // 12 bytes
    auto x  = m.add_parameter("x", s3);
    auto l0 = lowered(m, {x}, s3);
    auto l1 = lowered(m, {l0}, s3);
    m.add_return({l0, l1});
    migraphx::run_passes(m, {migraphx::memory_coloring{"allocate", 16}});
    std::vector<std::size_t> offsets;
    for(auto p : loads(m))
        offsets.push_back(p.offset);
    std::sort(offsets.begin(), offsets.end());
    EXPECT_EQ(offsets, (std::vector<std::size_t>{0, 16}));
    EXPECT_EQ(scratch_bytes(m), 32u);
    EXPECT_THROW(migraphx::run_passes(m, {migraphx::memory_coloring{"allocate", 0}}), migraphx::exception);
}

TEST(pass_memory_coloring, module_without_allocations_is_unchanged_and_planning_twice_is_a_no_op)
{
    migraphx::module m;
    auto x = m.add_parameter("x", s164);
    m.add_return({m.add_instruction(make_op("relu"), x)});
    std::ostringstream a, b;
    a << m;
    color(m);
    b << m;
    EXPECT_EQ(a.str(), b.str());

    migraphx::module m2;
    auto y = m2.add_parameter("x", s164);
    m2.add_return({lowered(m2, {lowered(m2, {y}, s164)}, s164)});
    color(m2);
    std::ostringstream c, d;
    c << m2;
    color(m2);
    d << m2;
    EXPECT_EQ(c.str(), d.str());
}

TEST(pass_memory_coloring, values_read_inside_if_branches_stay_live_until_the_if)
{
    migraphx::program p;
    auto* mm  = p.get_main_module();
    auto cond = mm->add_parameter("c", shape{shape::bool_type, {1}});
    auto x    = mm->add_parameter("x", s164);
    auto l0   = lowered(*mm, {x}, s164); // read only by the branches
    auto l1   = lowered(*mm, {x}, s164);
    auto l2   = lowered(*mm, {l1}, s164);
    auto* thn = p.create_module("then_mod");
    auto* els = p.create_module("else_mod");
    thn->add_return({thn->add_instruction(make_op("add"), l0, l2)});
    els->add_return({els->add_instruction(make_op("sub"), l0, l2)});
    mm->add_return({mm->add_instruction(make_op("if"), {cond}, {thn, els})});
    migraphx::program before = p;
    color(*mm);
    auto ps = loads(*mm);
    ASSERT_EQ(ps.size(), 3u);
    EXPECT_NE(ps[0].offset, ps[2].offset);
    EXPECT_NE(ps[0].offset, ps[1].offset);
    for(bool cv : {true, false})
    {
        bool c = cv;
        migraphx::parameter_map params{{"c", migraphx::argument{shape{shape::bool_type, {1}}, &c}},
                                       {"x", migraphx::generate_argument(s164, 5)}};
        EXPECT_EQ(before.eval(params).front().to_vector<float>(), p.eval(params).front().to_vector<float>());
    }
}

TEST(pass_memory_coloring, random_programs_never_overlap_live_buffers)
{
    for(unsigned seed = 0; seed < 20; seed++)
    {
        std::mt19937 gen(seed);
        auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(gen); };
        migraphx::program p;
        auto* mm = p.get_main_module();
        std::vector<migraphx::instruction_ref> values{mm->add_parameter("x", shape{shape::float_type, {8, 8}})};
        for(int i = 0; i < 40; i++)
        {
            // Mostly recent values, sometimes one from far back.
            auto operand = [&] {
                return pick(3) == 0 ? values[pick(values.size())] : values[values.size() - 1 - pick(std::min<std::size_t>(3, values.size()))];
            };
            std::vector<migraphx::instruction_ref> args{operand()};
            if(pick(2) == 0)
                args.push_back(operand());
            std::size_t rows = std::size_t{1} << pick(5);
            auto v           = lowered(*mm, args, shape{shape::float_type, {rows, 8}});
            if(pick(4) == 0)
                v = mm->add_instruction(make_op("transpose", {{"permutation", {1, 0}}}), v);
            values.push_back(v);
        }
        mm->add_return({values.back(), values[values.size() / 2], values[values.size() / 3]});
        migraphx::program before = p;
        auto lives = lifetimes(*mm);
        color(*mm);
        mm->validate();
        auto sum = check_placements(lives, *mm);
        EXPECT_LT(scratch_bytes(*mm), sum) << "seed " << seed;
        expect_same_results(before, p);
    }
}
