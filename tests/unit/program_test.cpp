#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/ref/target.hpp>
#include "ir/target_availability.hpp"
#include <gtest/gtest.h>
#include <algorithm>
#include <cstdlib>
#include <sstream>

using migraphx::shape;

namespace {
// The spec's CreateNet (section 3.9.1).
migraphx::program create_net()
{
    migraphx::program net;
    auto* mm   = net.get_main_module();
    auto input = mm->add_parameter("input", shape{shape::float_type, {1, 1, 4, 6}});
    auto w     = mm->add_literal(migraphx::literal{shape{shape::float_type, {1, 1, 1, 1}}, std::vector<float>{1}});
    auto conv  = mm->add_instruction(
        migraphx::make_json_op("convolution", "{padding:[0,0],stride:[1,1],dilation:[1,1],group:1,padding_mode:0}"),
        input,
        w);
    auto slice = mm->add_instruction(migraphx::make_json_op("slice", "{axes:[2,3],starts:[0,2],ends:[4,5]}"), conv);
    auto cont  = mm->add_instruction(migraphx::make_op("contiguous"), slice);
    auto flat  = mm->add_instruction(migraphx::make_op("flatten"), cont);
    mm->add_return({flat});
    return net;
}

migraphx::argument iota_input(std::vector<float>& storage)
{
    storage.resize(24);
    for(std::size_t i = 0; i < storage.size(); i++)
        storage[i] = static_cast<float>(i);
    return {shape{shape::float_type, {1, 1, 4, 6}}, storage.data()};
}
} // namespace

TEST(program, create_net_runs_on_ref)
{
    auto net = create_net();
    net.compile(migraphx::ref::target{});
    std::vector<float> data;
    auto results = net.eval({{"input", iota_input(data)}});
    ASSERT_EQ(results.size(), 1);
    EXPECT_EQ(results[0].get_shape(), (shape{shape::float_type, {1, 12}}));
    EXPECT_EQ(results[0].to_vector<int>(), (std::vector<int>{2, 3, 4, 8, 9, 10, 14, 15, 16, 20, 21, 22}));
}

TEST(program, inputs_and_outputs)
{
    auto net    = create_net();
    auto inputs = net.get_inputs();
    ASSERT_EQ(inputs.size(), 1);
    EXPECT_EQ(inputs.at("input"), (shape{shape::float_type, {1, 1, 4, 6}}));
    auto outputs = net.get_outputs();
    ASSERT_EQ(outputs.size(), 1);
    EXPECT_EQ(outputs.at("main:#output_0"), (shape{shape::float_type, {1, 12}}));
    net.set_output_names({"out"});
    EXPECT_EQ(net.get_outputs().count("out"), 1);
}

TEST(program, eval_errors_name_the_parameter)
{
    auto net = create_net();
    net.compile(migraphx::ref::target{});
    auto expect_error = [&](const migraphx::parameter_map& m, const std::string& needle) {
        try
        {
            net.eval(m);
            FAIL() << "no error for " << needle;
        }
        catch(const migraphx::exception& e)
        {
            EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
        }
    };
    expect_error({}, "input");
    std::vector<float> small(6);
    expect_error({{"input", migraphx::argument{shape{shape::float_type, {1, 6}}, small.data()}}}, "input");
    std::vector<double> d(24);
    expect_error({{"input", migraphx::argument{shape{shape::double_type, {1, 1, 4, 6}}, d.data()}}}, "double_type");
    std::vector<float> data;
    EXPECT_THROW(net.eval({{"input", iota_input(data)}}, {"nope"}), migraphx::exception);
}

TEST(program, strided_input_is_accepted)
{
    auto net = create_net();
    net.compile(migraphx::ref::target{});
    // The same values given through a transposed layout.
    std::vector<float> t(24);
    for(std::size_t h = 0; h < 4; h++)
        for(std::size_t w = 0; w < 6; w++)
            t[w * 4 + h] = static_cast<float>(h * 6 + w);
    migraphx::argument arg{shape{shape::float_type, {1, 1, 4, 6}, {24, 24, 1, 4}}, t.data()};
    auto r = net.eval({{"input", arg}});
    EXPECT_EQ(r[0].to_vector<int>(), (std::vector<int>{2, 3, 4, 8, 9, 10, 14, 15, 16, 20, 21, 22}));
}

TEST(program, eval_by_output_name)
{
    auto net = create_net();
    net.set_output_names({"flat"});
    net.compile(migraphx::ref::target{});
    std::vector<float> data;
    auto r = net.eval({{"input", iota_input(data)}}, {"flat"});
    ASSERT_EQ(r.size(), 1);
    EXPECT_EQ(r[0].get_shape().elements(), 12);
}

TEST(program, copy_is_deep_and_equal)
{
    auto net  = create_net();
    auto copy = net;
    EXPECT_EQ(net, copy);
    copy.get_main_module()->add_parameter("extra", shape{shape::float_type, {1}});
    EXPECT_NE(net, copy);
    EXPECT_EQ(net.get_inputs().size(), 1);
}

TEST(program, compile_twice_throws_and_memory_usage_reported)
{
    auto net = create_net();
    net.compile(migraphx::ref::target{});
    EXPECT_THROW(net.compile(migraphx::ref::target{}), migraphx::exception);
    EXPECT_GT(net.get_memory_usage(), 0);
}

TEST(program, get_target_by_name)
{
    EXPECT_EQ(migraphx::get_target("ref").name(), "ref");
    EXPECT_THROW(migraphx::get_target("tpu"), migraphx::exception);
}

// A target built in that this machine cannot run is named with the reason, not called unknown;
// registering it for real forgets the reason.
TEST(program, an_unavailable_target_says_why)
{
    auto message = [](const std::string& name) {
        try
        {
            migraphx::get_target(name);
        }
        catch(const migraphx::exception& e)
        {
            return std::string(e.what());
        }
        return std::string("no exception");
    };
    EXPECT_NE(message("tpu").find("unknown target 'tpu'"), std::string::npos);
    EXPECT_EQ(migraphx::unavailable_target_reason("tpu"), "");
    migraphx::register_unavailable_target("test_unavailable", "its device is switched off");
    EXPECT_EQ(migraphx::unavailable_target_reason("test_unavailable"), "its device is switched off");
    auto m = message("test_unavailable");
    EXPECT_NE(m.find("target 'test_unavailable' is not available here: its device is switched off"), std::string::npos)
        << m;
    EXPECT_NE(m.find("available: "), std::string::npos) << m;
    // a registered target is never "unavailable"
    migraphx::register_unavailable_target("ref", "ignored");
    EXPECT_EQ(migraphx::unavailable_target_reason("ref"), "");
    EXPECT_EQ(migraphx::get_target("ref").name(), "ref");
#ifdef MIGRAPHX_HAVE_GPU
    // a build with the gpu target, on a machine without a device (as the build machine)
    auto names = migraphx::get_targets();
    if(std::find(names.begin(), names.end(), "gpu") == names.end())
    {
        auto g = message("gpu");
        EXPECT_NE(g.find("no CUDA device was found"), std::string::npos) << g;
    }
#endif
}

TEST(program, trace_eval_prints_instructions_and_outputs)
{
    auto net = create_net();
    net.compile(migraphx::ref::target{});
    std::vector<float> data;
    setenv("MIGRAPHX_TRACE_EVAL", "2", 1);
    testing::internal::CaptureStdout();
    net.eval({{"input", iota_input(data)}});
    auto out = testing::internal::GetCapturedStdout();
    unsetenv("MIGRAPHX_TRACE_EVAL");
    EXPECT_NE(out.find("Run instruction: main:@5 = flatten[axis=1](main:@4) -> float_type, {1, 12}, {12, 1}"),
              std::string::npos)
        << out;
    EXPECT_NE(out.find("Time: "), std::string::npos);
    EXPECT_NE(out.find("Output has normal"), std::string::npos);
    EXPECT_NE(out.find("Output: 2, 3, 4, 8, 9, ..., 15, 16, 20, 21, 22"), std::string::npos) << out;
}

TEST(program, sub_modules_are_printed_and_copied)
{
    migraphx::program p;
    auto* sub = p.create_module("sub");
    auto x    = sub->add_parameter("x", shape{shape::float_type, {2}});
    sub->add_return({sub->add_instruction(migraphx::make_op("relu"), x)});
    EXPECT_THROW(p.create_module("sub"), migraphx::exception);
    auto copy = p;
    std::ostringstream ss;
    ss << copy;
    EXPECT_NE(ss.str().find("module: \"sub\""), std::string::npos);
}
