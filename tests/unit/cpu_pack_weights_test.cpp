// cpu::pack_weights before/after: constant weights become a packed literal; others stay.
#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include "cpu_test_util.hpp"
#include <algorithm>

using migraphx::make_op;
using migraphx::shape;

TEST(cpu_pack_weights, constant_weights_are_packed_and_parameters_are_not)
{
    MIGX_REQUIRE_CPU();
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{shape::float_type, {1, 8, 6, 6}});
    auto w  = m->add_literal(migraphx::generate_literal(shape{shape::float_type, {16, 8, 3, 3}}, 1));
    auto wp = m->add_parameter("w", shape{shape::float_type, {8, 8, 3, 3}});
    auto c1 = m->add_instruction(make_op("convolution"), x, w);
    auto c2 = m->add_instruction(make_op("convolution"), x, wp);
    m->add_return({c1, c2});
    auto cpu = migx_test::expect_cpu_matches_ref(p, 1e-4, 1e-4);
    int packed = 0, unpacked = 0;
    for(auto it = cpu.get_main_module()->begin(); it != cpu.get_main_module()->end(); ++it)
    {
        if(it->name() != "dnnl::convolution")
            continue;
        auto v = it->get_operator().to_value();
        if(v.at("packed_weights").get_bool())
        {
            packed++;
            EXPECT_EQ(v.at("weight_lens").to_vector<std::size_t>(), (std::vector<std::size_t>{16, 8, 3, 3}));
            EXPECT_EQ(it->inputs()[1]->get_shape().lens().size(), 1u);
        }
        else
            unpacked++;
    }
    EXPECT_EQ(packed, 1);
    EXPECT_EQ(unpacked, 1);
}

// Packed weights carry the format they were packed for; an op finalized where oneDNN's kernel
// reads another format (a program compiled on another machine) refuses to run instead of
// reading them wrongly.
TEST(cpu_pack_weights, weights_packed_for_another_kernel_are_refused)
{
    MIGX_REQUIRE_CPU();
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{shape::float_type, {1, 16, 6, 6}});
    auto w  = m->add_literal(migraphx::generate_literal(shape{shape::float_type, {16, 16, 3, 3}}, 1));
    m->add_return({m->add_instruction(make_op("convolution"), x, w)});
    p.compile(migraphx::get_target("cpu"));
    auto conv = std::find_if(p.get_main_module()->begin(), p.get_main_module()->end(),
                             [](const auto& ins) { return ins.name() == "dnnl::convolution"; });
    ASSERT_NE(conv, p.get_main_module()->end());
    auto v = conv->get_operator().to_value();
    ASSERT_TRUE(v.at("packed_weights").get_bool());
    EXPECT_EQ(v.at("weights_format").get_string().size(), 16u);
    // the same op, as if packed for another kernel: finalize refuses it, naming the cause
    v["weights_format"] = std::string("0123456789abcdef");
    auto other          = migraphx::make_op("dnnl::convolution", v);
    std::vector<shape> in;
    for(auto i : conv->inputs())
        in.push_back(i->get_shape());
    migraphx::context ctx = migraphx::get_target("cpu").get_context();
    try
    {
        other.finalize(ctx, conv->get_shape(), in);
        ADD_FAILURE() << "finalize accepted weights packed for another format";
    }
    catch(const migraphx::exception& e)
    {
        EXPECT_NE(std::string(e.what()).find("packed for another oneDNN kernel"), std::string::npos) << e.what();
    }
}

// Two convolutions reading the same weights (a shared branch, an unrolled recurrence) share one
// packed copy; results still match ref.
TEST(cpu_pack_weights, weights_read_twice_are_packed_once)
{
    MIGX_REQUIRE_CPU();
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{shape::float_type, {1, 8, 6, 6}});
    auto y  = m->add_parameter("y", shape{shape::float_type, {1, 8, 6, 6}});
    auto w  = m->add_literal(migraphx::generate_literal(shape{shape::float_type, {16, 8, 3, 3}}, 1));
    auto c1 = m->add_instruction(make_op("convolution"), x, w);
    auto c2 = m->add_instruction(make_op("convolution"), y, w);
    m->add_return({c1, c2});
    auto cpu = migx_test::expect_cpu_matches_ref(p, 1e-4, 1e-4);
    std::vector<const migraphx::instruction*> weights;
    for(auto it = cpu.get_main_module()->begin(); it != cpu.get_main_module()->end(); ++it)
        if(it->name() == "dnnl::convolution")
        {
            ASSERT_TRUE(it->get_operator().to_value().at("packed_weights").get_bool());
            weights.push_back(&*it->inputs()[1]);
        }
    ASSERT_EQ(weights.size(), 2u);
    EXPECT_EQ(weights[0], weights[1]);
}
