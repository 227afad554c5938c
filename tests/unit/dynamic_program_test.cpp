// Dynamic programs by specialisation (src/ir/dynamic_program.cpp), with a hand-made source:
// the variant cache, copies, errors, and output buffers narrowed to a variant's shape.
#include <gtest/gtest.h>
#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/quantization.hpp>
#include <migraphx/ref/target.hpp>
#include <migraphx/target.hpp>
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <thread>
#include "ir/dynamic_program.hpp"
#include "ir/program_impl.hpp"

namespace {

using dd = migraphx::shape::dynamic_dimension;

/// y = relu(x) for x of dims {n, 2}; counts how many programs it made.
std::shared_ptr<migraphx::dynamic_source> relu_source(int* made)
{
    auto src    = std::make_shared<migraphx::dynamic_source>();
    src->ranges = {{"x", {{1, 4, {}}, {2, 2, {}}}}};
    src->kind   = "test";
    src->specialize = [made](const migraphx::input_dims_map& dims) {
        (*made)++;
        migraphx::program p;
        auto* mm = p.get_main_module();
        auto x   = mm->add_parameter("x", migraphx::shape{migraphx::shape::float_type, dims.at("x")});
        mm->add_return({mm->add_instruction(migraphx::make_op("relu"), x)});
        return p;
    };
    return src;
}

migraphx::program relu_program(int* made)
{
    auto src = relu_source(made);
    auto p   = src->specialize({{"x", {4, 2}}});
    migraphx::set_dynamic_source(p, src);
    return p;
}

std::vector<float> run(const migraphx::program& p, std::size_t n)
{
    std::vector<float> data(n * 2);
    for(std::size_t i = 0; i < data.size(); i++)
        data[i] = (i % 2 == 0 ? -1.0f : 1.0f) * static_cast<float>(i);
    migraphx::shape s{migraphx::shape::float_type, {n, 2}};
    auto r = p.eval({{"x", migraphx::argument{s, data.data()}}}).at(0);
    EXPECT_EQ(r.get_shape().lens(), (std::vector<std::size_t>{n, 2}));
    return r.to_vector<float>();
}

} // namespace

TEST(dynamic_program, inputs_show_the_range)
{
    int made = 0;
    auto p   = relu_program(&made);
    auto s   = p.get_inputs().at("x");
    ASSERT_TRUE(s.dynamic());
    EXPECT_EQ(s.dyn_dims().at(0), (dd{1, 4, {}}));
    EXPECT_EQ(p.get_parameter_shapes().at("x"), s);
    EXPECT_EQ(migraphx::get_dynamic_source(p)->kind, "test");
    migraphx::program plain;
    EXPECT_EQ(migraphx::get_dynamic_source(plain), nullptr);
}

TEST(dynamic_program, a_shape_is_specialised_once_and_the_largest_runs_the_program_itself)
{
    int made = 0;
    auto p   = relu_program(&made);
    p.compile(migraphx::ref::target{});
    EXPECT_EQ(made, 1);
    EXPECT_EQ(run(p, 4), (std::vector<float>{0, 1, 0, 3, 0, 5, 0, 7}));
    EXPECT_EQ(made, 1); // the program's own dims: no variant
    EXPECT_EQ(run(p, 2), (std::vector<float>{0, 1, 0, 3}));
    EXPECT_EQ(made, 2);
    EXPECT_EQ(run(p, 2), (std::vector<float>{0, 1, 0, 3}));
    EXPECT_EQ(run(p, 1), (std::vector<float>{0, 1}));
    EXPECT_EQ(made, 3);
    // The variant is compiled for the program's target.
    migraphx::shape s{migraphx::shape::float_type, {2, 2}};
    std::vector<float> d(4, 1.0f);
    auto v = migraphx::variant_for(p, {{"x", migraphx::argument{s, d.data()}}});
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v, migraphx::variant_for(p, {{"x", migraphx::argument{s, d.data()}}}));
    EXPECT_EQ(v->target_name(), "ref");
    std::vector<float> d4(8, 1.0f);
    migraphx::shape s4{migraphx::shape::float_type, {4, 2}};
    EXPECT_EQ(migraphx::variant_for(p, {{"x", migraphx::argument{s4, d4.data()}}}), nullptr)
        << "the program's own dims run the program itself";
}

TEST(dynamic_program, the_cache_keeps_the_most_recently_used)
{
    setenv("MIGRAPHX_DYNAMIC_CACHE_SIZE", "2", 1);
    int made = 0;
    auto p   = relu_program(&made);
    p.compile(migraphx::ref::target{});
    run(p, 1);
    run(p, 2);
    run(p, 1); // 1 is now the most recent
    run(p, 3); // evicts 2
    EXPECT_EQ(made, 4);
    run(p, 1);
    EXPECT_EQ(made, 4);
    run(p, 2);
    EXPECT_EQ(made, 5);
    unsetenv("MIGRAPHX_DYNAMIC_CACHE_SIZE");
}

TEST(dynamic_program, a_copy_shares_the_source_not_the_variants)
{
    int made = 0;
    auto p   = relu_program(&made);
    p.compile(migraphx::ref::target{});
    run(p, 2);
    migraphx::program q = p;
    EXPECT_EQ(migraphx::get_dynamic_source(q), migraphx::get_dynamic_source(p));
    EXPECT_TRUE(q.get_inputs().at("x").dynamic());
    run(q, 2);
    EXPECT_EQ(made, 3);
}

TEST(dynamic_program, errors_name_the_input_the_shape_and_the_range)
{
    int made = 0;
    auto p   = relu_program(&made);
    p.compile(migraphx::ref::target{});
    std::vector<float> d(20);
    auto msg_of = [&](std::vector<std::size_t> lens) -> std::string {
        try
        {
            p.eval({{"x", migraphx::argument{migraphx::shape{migraphx::shape::float_type, lens}, d.data()}}});
        }
        catch(const migraphx::exception& e)
        {
            return e.what();
        }
        return "";
    };
    auto too_big = msg_of({5, 2});
    EXPECT_NE(too_big.find("'x'"), std::string::npos) << too_big;
    EXPECT_NE(too_big.find("{5, 2}"), std::string::npos) << too_big;
    EXPECT_NE(too_big.find("{1..4, 2}"), std::string::npos) << too_big;
    auto rank = msg_of({2, 2, 1});
    EXPECT_NE(rank.find("rank"), std::string::npos) << rank;
    EXPECT_NE(msg_of({2, 3}).find("dimension 1"), std::string::npos);
    try
    {
        p.eval({});
        FAIL();
    }
    catch(const migraphx::exception& e)
    {
        EXPECT_NE(std::string(e.what()).find("missing"), std::string::npos) << e.what();
    }
    EXPECT_EQ(made, 1); // nothing specialised for bad shapes
}

TEST(dynamic_program, a_failing_specialisation_is_reported)
{
    auto src    = std::make_shared<migraphx::dynamic_source>();
    src->ranges = {{"x", {{1, 4, {}}}}};
    src->specialize = [](const migraphx::input_dims_map& dims) -> migraphx::program {
        if(dims.at("x").at(0) == 3)
            throw std::runtime_error("three is not allowed");
        migraphx::program p;
        auto* mm = p.get_main_module();
        mm->add_return({mm->add_parameter("x", migraphx::shape{migraphx::shape::float_type, dims.at("x")})});
        return p;
    };
    auto p = src->specialize({{"x", {4}}});
    migraphx::set_dynamic_source(p, src);
    std::vector<float> d(4);
    try
    {
        p.eval({{"x", migraphx::argument{migraphx::shape{migraphx::shape::float_type, {3}}, d.data()}}});
        FAIL();
    }
    catch(const migraphx::exception& e)
    {
        std::string msg = e.what();
        EXPECT_NE(msg.find("x {3}"), std::string::npos) << msg;
        EXPECT_NE(msg.find("three is not allowed"), std::string::npos) << msg;
    }
}

TEST(dynamic_program, output_buffers_are_narrowed_to_the_variant)
{
    // A program that takes its output buffer as a parameter, as offload_copy=false does.
    migraphx::program v;
    auto* mm = v.get_main_module();
    migraphx::shape small{migraphx::shape::float_type, {2, 2}};
    mm->add_parameter("x", small);
    mm->add_parameter("out", small);
    v.get_impl().output_param_names = {"out"};
    std::vector<float> big(8), x(4);
    migraphx::shape big_shape{migraphx::shape::float_type, {4, 2}};
    migraphx::parameter_map params{{"x", migraphx::argument{small, x.data()}},
                                   {"out", migraphx::argument{big_shape, big.data()}}};
    auto r = migraphx::params_for(v, params);
    EXPECT_EQ(r.at("out").get_shape(), small);
    EXPECT_EQ(r.at("out").data(), reinterpret_cast<char*>(big.data()));
    std::vector<float> tiny(2);
    params["out"] = migraphx::argument{migraphx::shape{migraphx::shape::float_type, {2}}, tiny.data()};
    EXPECT_THROW(migraphx::params_for(v, params), migraphx::exception);
}

TEST(dynamic_program, a_source_of_an_unknown_kind_cannot_be_restored)
{
    migraphx::dynamic_source s;
    s.kind = "no-such-kind";
    EXPECT_THROW(migraphx::restore_specializer(s), migraphx::exception);
}

TEST(dynamic_program, optimal_dims_are_compiled_with_the_program)
{
    int made = 0;
    auto src = relu_source(&made);
    src->ranges.at("x")[0].optimals = {1, 2};
    auto p = src->specialize({{"x", {4, 2}}});
    migraphx::set_dynamic_source(p, src);
    EXPECT_EQ(made, 1);
    p.compile(migraphx::ref::target{});
    EXPECT_EQ(made, 3); // 1 and 2 made and compiled at compile time
    EXPECT_EQ(run(p, 2), (std::vector<float>{0, 1, 0, 3}));
    EXPECT_EQ(run(p, 1), (std::vector<float>{0, 1}));
    EXPECT_EQ(made, 3);
}

namespace {
/// The relu source under a registered kind, so it can be rebuilt (as from a .mxr file).
std::shared_ptr<migraphx::dynamic_source> restorable_relu_source(int* made)
{
    static int* counter = nullptr;
    counter             = made;
    migraphx::register_specializer("test_relu", [](auto, const migraphx::value&) {
        return relu_source(counter)->specialize;
    });
    auto src  = relu_source(made);
    src->kind = "test_relu";
    return src;
}

bool has_half(const migraphx::program& p)
{
    for(const auto& ins : *p.get_main_module())
        if(ins.get_shape().type() == migraphx::shape::half_type)
            return true;
    return false;
}
} // namespace

TEST(dynamic_program, quantize_fp16_applies_to_every_variant)
{
    int made = 0;
    auto src = restorable_relu_source(&made);
    auto p   = src->specialize({{"x", {4, 2}}});
    migraphx::set_dynamic_source(p, src);
    migraphx::quantize_fp16(p);
    EXPECT_TRUE(has_half(p));
    ASSERT_TRUE(migraphx::get_dynamic_source(p)->options.contains("transforms"));
    p.compile(migraphx::ref::target{});
    std::vector<float> data(4, -1.5f);
    migraphx::shape s{migraphx::shape::float_type, {2, 2}};
    migraphx::parameter_map params{{"x", migraphx::argument{s, data.data()}}};
    auto v = migraphx::variant_for(p, params);
    ASSERT_NE(v, nullptr);
    EXPECT_TRUE(has_half(*v)) << "the {2, 2} variant is not quantized:\n" << *v;
    EXPECT_EQ(run(p, 2), (std::vector<float>{0, 1, 0, 3}));
}

TEST(dynamic_program, an_unknown_recorded_transform_is_reported)
{
    int made = 0;
    auto src = restorable_relu_source(&made);
    migraphx::dynamic_source copy = *src;
    copy.options = migraphx::value{{"transforms", migraphx::value::array{migraphx::value{{"name", "no_such"}, {"args", 1}}}}};
    try
    {
        migraphx::restore_specializer(copy);
        FAIL() << "expected an exception";
    }
    catch(const migraphx::exception& e)
    {
        EXPECT_NE(std::string(e.what()).find("unknown transform 'no_such'"), std::string::npos) << e.what();
    }
}

namespace {
/// Threads running shapes in turn on a dynamic relu program compiled for t.
void run_on_threads(const migraphx::target& t)
{
    // Threads running shapes in turn while a cache of 2 keeps evicting: each must get its own
    // shape's result, and a variant one thread runs must outlive its eviction by another.
    setenv("MIGRAPHX_DYNAMIC_CACHE_SIZE", "2", 1);
    auto src = relu_source(nullptr); // its ranges; its counting specialize is replaced below
    std::atomic<int> variants{0};
    src->specialize = [&variants](const migraphx::input_dims_map& dims) {
        variants++;
        migraphx::program v;
        auto* mm = v.get_main_module();
        auto x   = mm->add_parameter("x", migraphx::shape{migraphx::shape::float_type, dims.at("x")});
        mm->add_return({mm->add_instruction(migraphx::make_op("relu"), x)});
        return v;
    };
    auto p = src->specialize({{"x", {4, 2}}});
    migraphx::set_dynamic_source(p, src);
    p.compile(t);
    std::atomic<int> wrong{0};
    std::vector<std::thread> threads;
    for(int t = 0; t < 8; t++)
        threads.emplace_back([&, t] {
            for(int i = 0; i < 150; i++)
            {
                std::size_t n = 1 + static_cast<std::size_t>((t + i) % 4);
                std::vector<float> data(n * 2);
                for(std::size_t k = 0; k < data.size(); k++)
                    data[k] = (k % 2 == 0 ? -1.0f : 1.0f) * static_cast<float>(k);
                migraphx::shape s{migraphx::shape::float_type, {n, 2}};
                auto r = p.eval({{"x", migraphx::argument{s, data.data()}}}).at(0);
                auto v = r.to_vector<float>();
                bool ok = r.get_shape().lens() == std::vector<std::size_t>{n, 2};
                for(std::size_t k = 0; ok and k < v.size(); k++)
                    ok = v[k] == std::max(0.0f, data[k]);
                if(not ok)
                    wrong++;
            }
        });
    for(auto& th : threads)
        th.join();
    unsetenv("MIGRAPHX_DYNAMIC_CACHE_SIZE");
    EXPECT_EQ(wrong.load(), 0) << t.name();
    EXPECT_GT(variants.load(), 3) << t.name() << ": the cache of 2 made shapes again after evicting them";
}
} // namespace

TEST(dynamic_program, runs_on_several_threads_at_once_share_the_variants_safely)
{
    run_on_threads(migraphx::ref::target{});
}

TEST(dynamic_program, runs_on_several_threads_at_once_on_the_cpu)
{
    auto targets = migraphx::get_targets();
    if(std::find(targets.begin(), targets.end(), "cpu") == targets.end())
        GTEST_SKIP() << "built without the cpu target";
    run_on_threads(migraphx::get_target("cpu"));
}
