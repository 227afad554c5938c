// ir/shared_literals: equal literals of 64 KiB and more share the first live one's buffer; a
// byte's difference, a small literal or an expired first one does not; programs compiled twice
// and a dynamic program's variants hold their weights once, and run as before.
#include <gtest/gtest.h>
#include <migraphx/generate.hpp>
#include <migraphx/load_save.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/ref/target.hpp>
#include "ir/dynamic_program.hpp"
#include "ir/shared_literals.hpp"
#include <cstring>
#include <algorithm>
#include <memory>
#include <thread>
#include <vector>

namespace {

using migraphx::literal;
using migraphx::shape;

/// A literal with its own buffer holding the bytes of l.
literal copy_of(const literal& l)
{
    std::shared_ptr<char> bytes(new char[l.get_shape().bytes()], std::default_delete<char[]>());
    std::memcpy(bytes.get(), l.data(), l.get_shape().bytes());
    return literal::adopt(l.get_shape(), bytes);
}

const shape big{shape::float_type, {256, 256}}; // 256 KiB

} // namespace

TEST(shared_literals, an_equal_literal_takes_the_first_ones_buffer)
{
    auto first  = migraphx::generate_literal(big, 11);
    auto second = copy_of(first);
    ASSERT_NE(first.data(), second.data());
    EXPECT_EQ(migraphx::share_literal(first).data(), first.data()); // the first registers itself
    auto shared = migraphx::share_literal(second);
    EXPECT_EQ(shared.data(), first.data());
    EXPECT_EQ(shared.get_shape(), second.get_shape());
    EXPECT_EQ(migraphx::share_literal(first).data(), first.data()); // and stays itself
}

TEST(shared_literals, a_byte_of_difference_or_another_shape_is_not_shared)
{
    auto first = migraphx::generate_literal(big, 12);
    migraphx::share_literal(first);
    // one byte off in the part the lookup's samples do not read: the full comparison tells
    auto other = copy_of(first);
    const_cast<char*>(other.data())[big.bytes() / 4] ^= 1;
    EXPECT_EQ(migraphx::share_literal(other).data(), other.data());
    // the same bytes as another shape
    auto flat = literal::adopt(shape{shape::float_type, {256 * 256}}, copy_of(first).get_argument().share_data());
    EXPECT_EQ(migraphx::share_literal(flat).data(), flat.data());
}

TEST(shared_literals, small_literals_and_expired_ones_are_left_alone)
{
    shape small{shape::float_type, {1000}};
    auto a = migraphx::generate_literal(small, 13);
    migraphx::share_literal(a);
    auto b = copy_of(a);
    EXPECT_EQ(migraphx::share_literal(b).data(), b.data());
    {
        auto first = migraphx::generate_literal(big, 14);
        migraphx::share_literal(first);
    }
    auto later = migraphx::generate_literal(big, 14); // equal to the one gone
    EXPECT_EQ(migraphx::share_literal(later).data(), later.data());
    // and it is the one registered now
    EXPECT_EQ(migraphx::share_literal(copy_of(later)).data(), later.data());
}

namespace {

/// y = x W + b, W {256, 256} and b {256} literals made anew each time (as a parse makes them).
migraphx::program dense(std::size_t rows)
{
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{shape::float_type, {rows, 256}});
    auto w  = m->add_literal(copy_of(migraphx::generate_literal(big, 21)));
    auto b  = m->add_literal(copy_of(migraphx::generate_literal(shape{shape::float_type, {256}}, 22)));
    auto d  = m->add_instruction(migraphx::make_op("dot"), x, w);
    auto bb = m->add_instruction(migraphx::make_op("multibroadcast", {{"out_lens", {rows, 256}}}), b);
    m->add_return({m->add_instruction(migraphx::make_op("add"), d, bb)});
    return p;
}

/// The buffers of p's literals that take part (W).
std::vector<const char*> literal_buffers(const migraphx::program& p)
{
    std::vector<const char*> r;
    for(const auto& ins : *p.get_main_module())
        if(ins.name() == "@literal" and ins.get_shape().bytes() >= migraphx::shared_literal_min_bytes)
            r.push_back(ins.get_literal().data());
    return r;
}

migraphx::parameter_map input(std::size_t rows)
{
    return {{"x", migraphx::generate_argument(shape{shape::float_type, {rows, 256}}, 5)}};
}

} // namespace

TEST(shared_literals, a_program_compiled_twice_holds_its_weights_once)
{
    auto one = dense(256), two = dense(256);
    // before compiling: each program has buffers of its own
    auto before_one = literal_buffers(one), before_two = literal_buffers(two);
    ASSERT_EQ(before_one.size(), 1u);
    EXPECT_NE(before_one, before_two);
    one.compile(migraphx::ref::target{});
    auto want = one.eval(input(256)).at(0);
    two.compile(migraphx::ref::target{});
    // after: the second's weights are the first's buffers
    EXPECT_EQ(literal_buffers(two), literal_buffers(one));
    EXPECT_EQ(two.eval(input(256)).at(0), want);
    // and outlive the first program
    one = migraphx::program{};
    EXPECT_EQ(two.eval(input(256)).at(0), want);
}

TEST(shared_literals, a_dynamic_programs_variants_share_its_weights)
{
    auto src    = std::make_shared<migraphx::dynamic_source>();
    src->ranges = {{"x", {{1, 256, {}}, {256, 256, {}}}}};
    src->kind   = "test";
    src->specialize = [](const migraphx::input_dims_map& dims) { return dense(dims.at("x").at(0)); };
    auto p          = src->specialize({{"x", {256, 256}}});
    migraphx::set_dynamic_source(p, src);
    p.compile(migraphx::ref::target{});
    auto params = input(3);
    auto got    = p.eval(params).at(0);
    auto variant = migraphx::variant_for(p, params);
    ASSERT_NE(variant, nullptr);
    EXPECT_EQ(literal_buffers(*variant), literal_buffers(p));
    // the same result as a program of that shape on its own
    auto alone = dense(3);
    alone.compile(migraphx::ref::target{});
    EXPECT_EQ(got, alone.eval(params).at(0));
}

TEST(shared_literals, a_program_loaded_twice_holds_its_weights_once)
{
    auto p = dense(4);
    p.compile(migraphx::ref::target{});
    auto bytes = migraphx::save_buffer(p);
    auto one   = migraphx::load_buffer(bytes);
    auto two   = migraphx::load_buffer(bytes);
    ASSERT_EQ(literal_buffers(one).size(), 1u);
    EXPECT_EQ(literal_buffers(two), literal_buffers(one));
    EXPECT_EQ(two.eval(input(4)).at(0), p.eval(input(4)).at(0));
}

TEST(shared_literals, programs_compiled_on_several_threads_at_once_share_and_agree)
{
    std::vector<migraphx::program> ps;
    for(int i = 0; i < 4; i++)
        ps.push_back(dense(8));
    std::vector<std::thread> threads;
    for(auto& p : ps)
        threads.emplace_back([&p] { p.compile(migraphx::ref::target{}); });
    for(auto& t : threads)
        t.join();
    auto want = ps.front().eval(input(8)).at(0);
    for(const auto& p : ps)
    {
        EXPECT_EQ(p.eval(input(8)).at(0), want);
        ASSERT_EQ(literal_buffers(p).size(), 1u);
    }
    // the lookup is one locked step: the first to finalize registers, every other finds it
    std::vector<const char*> distinct;
    for(const auto& p : ps)
        if(std::find(distinct.begin(), distinct.end(), literal_buffers(p).front()) == distinct.end())
            distinct.push_back(literal_buffers(p).front());
    EXPECT_EQ(distinct.size(), 1u);
    auto again = dense(8);
    again.compile(migraphx::ref::target{});
    EXPECT_NE(std::find(distinct.begin(), distinct.end(), literal_buffers(again).front()), distinct.end());
}
