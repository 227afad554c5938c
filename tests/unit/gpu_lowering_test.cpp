// The gpu target end to end: each lowering (cuDNN convolution, cuBLASLt gemm, generated
// pointwise and copy kernels, host fallback) against ref on random data, both offload modes.
#include "gpu_test_util.hpp"
#include <migraphx/literal.hpp>
#include <migraphx/make_op.hpp>
#include <sstream>

using migraphx::make_op;
using migraphx::shape;

namespace {

std::string text(const migraphx::program& p)
{
    std::ostringstream ss;
    ss << p;
    return ss.str();
}

migraphx::instruction_ref lit(migraphx::module* m, const shape& s, unsigned long seed)
{
    return m->add_literal(migraphx::generate_literal(s, seed));
}

} // namespace

TEST(gpu_lowering, conv_bias_relu)
{
    MIGX_REQUIRE_GPU();
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{shape::float_type, {2, 3, 9, 9}});
    auto w  = lit(m, shape{shape::float_type, {8, 3, 3, 3}}, 1);
    auto b  = lit(m, shape{shape::float_type, {8}}, 2);
    auto c  = m->add_instruction(make_op("convolution", {{"padding", {1, 1}}, {"stride", {2, 2}}}), x, w);
    auto bb = m->add_instruction(make_op("broadcast", {{"axis", 1}, {"out_lens", c->get_shape().lens()}}), b);
    auto a  = m->add_instruction(make_op("add"), c, bb);
    auto r  = m->add_instruction(make_op("relu"), a);
    m->add_return({r});
    auto g = migx_test::expect_gpu_matches_ref(p);
    auto t = text(g);
    EXPECT_NE(t.find("gpu::convolution[padding={1, 1, 1, 1},stride={2, 2}"), std::string::npos) << t;
    EXPECT_NE(t.find("gpu::code_object[code_object="), std::string::npos) << t;
    EXPECT_NE(t.find("symbol_name=add_relu_kernel"), std::string::npos) << t;
    EXPECT_NE(t.find("hip::copy_to_gpu(x,"), std::string::npos) << t;
    EXPECT_NE(t.find("hip::hip_copy_literal[id=main:@literal:"), std::string::npos) << t;
    EXPECT_NE(t.find("hip::hip_allocate_memory[shape=uint8_type"), std::string::npos) << t;
    EXPECT_NE(t.find("load[offset="), std::string::npos) << t;
    EXPECT_NE(t.find("hip::copy_from_gpu[shape=float_type"), std::string::npos) << t;
    EXPECT_NE(t.find("hip::sync_stream("), std::string::npos) << t;
    EXPECT_GT(g.get_memory_usage(), 2u * 8 * 5 * 5 * 4);
}

TEST(gpu_lowering, conv_grouped_dilated_1d_3d)
{
    MIGX_REQUIRE_GPU();
    {
        migraphx::program p;
        auto* m = p.get_main_module();
        auto x  = m->add_parameter("x", shape{shape::float_type, {2, 4, 11, 10}});
        auto w  = lit(m, shape{shape::float_type, {6, 2, 3, 3}}, 3);
        m->add_return({m->add_instruction(
            make_op("convolution", {{"padding", {2, 2}}, {"dilation", {2, 2}}, {"group", 2}}), x, w)});
        migx_test::expect_gpu_matches_ref(p);
    }
    {
        migraphx::program p;
        auto* m = p.get_main_module();
        auto x  = m->add_parameter("x", shape{shape::float_type, {3, 5, 17}});
        auto w  = lit(m, shape{shape::float_type, {4, 5, 3}}, 4);
        m->add_return({m->add_instruction(
            make_op("convolution", {{"padding", {1}}, {"stride", {2}}, {"dilation", {1}}}), x, w)});
        migx_test::expect_gpu_matches_ref(p);
    }
    {
        migraphx::program p;
        auto* m = p.get_main_module();
        auto x  = m->add_parameter("x", shape{shape::float_type, {1, 2, 5, 6, 7}});
        auto w  = lit(m, shape{shape::float_type, {3, 2, 3, 3, 3}}, 5);
        m->add_return({m->add_instruction(
            make_op("convolution", {{"padding", {1, 1, 1}}, {"stride", {1, 1, 1}}, {"dilation", {1, 1, 1}}}), x, w)});
        migx_test::expect_gpu_matches_ref(p);
    }
}

TEST(gpu_lowering, conv_asymmetric_padding_falls_back)
{
    MIGX_REQUIRE_GPU();
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{shape::float_type, {1, 2, 6, 6}});
    auto w  = lit(m, shape{shape::float_type, {3, 2, 2, 2}}, 6);
    m->add_return({m->add_instruction(make_op("convolution", {{"padding", {0, 0, 1, 1}}}), x, w)});
    auto g = migx_test::expect_gpu_matches_ref(p);
    EXPECT_NE(text(g).find("gpu::ref::convolution"), std::string::npos) << g;
}

TEST(gpu_lowering, transposed_convolution_through_cudnn)
{
    MIGX_REQUIRE_GPU();
    {
        // UNet's upsampling: kernel 2, stride 2.
        migraphx::program p;
        auto* m = p.get_main_module();
        auto x  = m->add_parameter("x", shape{shape::float_type, {2, 8, 5, 5}});
        auto w  = lit(m, shape{shape::float_type, {8, 4, 2, 2}}, 8);
        m->add_return({m->add_instruction(
            make_op("convolution_backwards", {{"padding", {0, 0}}, {"stride", {2, 2}}, {"dilation", {1, 1}}}), x, w)});
        auto g = migx_test::expect_gpu_matches_ref(p);
        EXPECT_NE(text(g).find("gpu::convolution_backwards[padding={0, 0, 0, 0},stride={2, 2}"), std::string::npos) << g;
    }
    {
        // grouped, padded, dilated, 1-d and 3-d
        migraphx::program p;
        auto* m = p.get_main_module();
        auto x  = m->add_parameter("x", shape{shape::float_type, {1, 4, 6, 7}});
        auto w  = lit(m, shape{shape::float_type, {4, 3, 3, 3}}, 9);
        auto a  = m->add_instruction(
            make_op("convolution_backwards", {{"padding", {1, 1}}, {"stride", {2, 3}}, {"dilation", {2, 1}}, {"group", 2}}),
            x,
            w);
        auto x1 = m->add_parameter("x1", shape{shape::float_type, {2, 3, 9}});
        auto w1 = lit(m, shape{shape::float_type, {3, 2, 4}}, 10);
        auto b  = m->add_instruction(
            make_op("convolution_backwards", {{"padding", {1}}, {"stride", {2}}, {"dilation", {1}}}), x1, w1);
        auto x3 = m->add_parameter("x3", shape{shape::float_type, {1, 2, 3, 4, 3}});
        auto w3 = lit(m, shape{shape::float_type, {2, 2, 2, 2, 2}}, 11);
        auto c  = m->add_instruction(
            make_op("convolution_backwards", {{"padding", {0, 0, 0}}, {"stride", {2, 2, 2}}, {"dilation", {1, 1, 1}}}),
            x3,
            w3);
        m->add_return({a, b, c});
        auto g = migx_test::expect_gpu_matches_ref(p);
        EXPECT_EQ(text(g).find("gpu::ref::"), std::string::npos) << g;
    }
}

TEST(gpu_lowering, gemm_plain_batched_transposed_broadcast)
{
    MIGX_REQUIRE_GPU();
    migraphx::program p;
    auto* m = p.get_main_module();
    auto a  = m->add_parameter("a", shape{shape::float_type, {7, 5}});
    auto b  = m->add_parameter("b", shape{shape::float_type, {5, 3}});
    auto d0 = m->add_instruction(make_op("dot"), a, b);
    // batched, A transposed by a view
    auto at = m->add_parameter("at", shape{shape::float_type, {4, 6, 9}});
    auto bt = m->add_parameter("bt", shape{shape::float_type, {4, 6, 8}});
    auto tr = m->add_instruction(make_op("transpose", {{"permutation", {0, 2, 1}}}), at);
    auto d1 = m->add_instruction(make_op("dot"), tr, bt);
    // B broadcast over the batch
    auto bb = m->add_instruction(make_op("multibroadcast", {{"out_lens", {4, 8, 5}}}),
                                 lit(m, shape{shape::float_type, {8, 5}}, 7));
    auto d2 = m->add_instruction(make_op("dot"), d1, bb);
    // B transposed and sliced
    auto bs = m->add_parameter("bs", shape{shape::float_type, {3, 12}});
    auto sl = m->add_instruction(make_op("slice", {{"axes", {1}}, {"starts", {2}}, {"ends", {7}}}), bs);
    auto d3 = m->add_instruction(make_op("dot"), a, m->add_instruction(make_op("transpose", {{"permutation", {1, 0}}}), sl));
    m->add_return({d0, d2, d3});
    auto g = migx_test::expect_gpu_matches_ref(p, 1e-4, 1e-4);
    EXPECT_NE(text(g).find("gpu::gemm"), std::string::npos);
}

TEST(gpu_lowering, pointwise_float_chain_and_transposed_inputs)
{
    MIGX_REQUIRE_GPU();
    migraphx::program p;
    auto* m = p.get_main_module();
    shape s{shape::float_type, {3, 4, 5}};
    auto x = m->add_parameter("x", s);
    auto y = m->add_parameter("y", shape{shape::float_type, {5, 4, 3}});
    auto yt = m->add_instruction(make_op("transpose", {{"permutation", {2, 1, 0}}}), y);
    auto e  = m->add_instruction(make_op("sigmoid"), x);
    auto f  = m->add_instruction(make_op("mul"), e, yt);
    auto g1 = m->add_instruction(make_op("tanh"), f);
    auto h  = m->add_instruction(make_op("leaky_relu", {{"alpha", 0.1f}}), g1);
    auto mx = m->add_instruction(make_op("max"), h, yt);
    auto ex = m->add_instruction(make_op("exp"), mx);
    auto sq = m->add_instruction(make_op("sqrt"), m->add_instruction(make_op("abs"), ex));
    auto dv = m->add_instruction(make_op("div"), sq, m->add_instruction(make_op("add"), ex, ex));
    m->add_return({dv, m->add_instruction(make_op("contiguous"), yt)});
    auto g = migx_test::expect_gpu_matches_ref(p, 1e-5, 1e-5);
    EXPECT_NE(text(g).find("contiguous_kernel"), std::string::npos) << g;
}

TEST(gpu_lowering, pointwise_half)
{
    MIGX_REQUIRE_GPU();
    migraphx::program p;
    auto* m = p.get_main_module();
    shape s{shape::half_type, {2, 33, 17}};
    auto x = m->add_parameter("x", s);
    auto y = m->add_parameter("y", s);
    auto a = m->add_instruction(make_op("add"), x, y);
    auto r = m->add_instruction(make_op("relu"), m->add_instruction(make_op("mul"), a, x));
    auto c = m->add_instruction(make_op("convert", {{"target_type", shape::float_type}}), r);
    m->add_return({r, c});
    migx_test::expect_gpu_matches_ref(p, 1e-2, 1e-2);
}

TEST(gpu_lowering, half_conv_and_gemm)
{
    MIGX_REQUIRE_GPU();
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{shape::half_type, {2, 8, 6, 6}});
    auto w  = lit(m, shape{shape::half_type, {8, 8, 3, 3}}, 8);
    auto c  = m->add_instruction(make_op("convolution", {{"padding", {1, 1}}}), x, w);
    auto a  = m->add_parameter("a", shape{shape::half_type, {16, 32}});
    auto b  = m->add_parameter("b", shape{shape::half_type, {32, 24}});
    m->add_return({c, m->add_instruction(make_op("dot"), a, b)});
    migx_test::expect_gpu_matches_ref(p, 2e-2, 2e-2);
}

TEST(gpu_lowering, host_fallback_ops)
{
    MIGX_REQUIRE_GPU();
    migraphx::program p;
    auto* m = p.get_main_module();
    shape s{shape::float_type, {2, 3, 8, 8}};
    auto x  = m->add_parameter("x", s);
    auto sm = m->add_instruction(make_op("softmax", {{"axis", 1}}), x);
    auto rs = m->add_instruction(make_op("reduce_sum", {{"axes", {2, 3}}}), x);
    auto pl = m->add_instruction(
        make_op("pooling", {{"mode", "max"}, {"lengths", {2, 2}}, {"stride", {2, 2}}, {"padding", {0, 0}}}), x);
    auto cc = m->add_instruction(make_op("concat", {{"axis", 1}}), x, sm);
    auto gt = m->add_instruction(make_op("greater"), x, sm);
    auto wh = m->add_instruction(make_op("where"), gt, x, sm);
    auto idx = m->add_literal(migraphx::literal{shape{shape::int32_type, {3}}, std::vector<int>{2, 0, 1}});
    auto ga = m->add_instruction(make_op("gather", {{"axis", 1}}), x, idx);
    auto am = m->add_instruction(make_op("argmax", {{"axis", 1}}), x);
    m->add_return({sm, rs, pl, cc, wh, ga, am});
    auto g = migx_test::expect_gpu_matches_ref(p, 1e-5, 1e-6);
    // softmax, reduce, pooling, concat and gather run as generated kernels (gpu_kernels_test);
    // argmax and a pointwise chain with a bool value (greater, where) still run on the host.
    EXPECT_NE(text(g).find("gpu::ref::argmax[axis=1"), std::string::npos) << g;
    EXPECT_NE(text(g).find("gpu::ref::pointwise"), std::string::npos) << g;
    EXPECT_NE(text(g).find("softmax_kernel"), std::string::npos) << g;
    EXPECT_EQ(text(g).find("gpu::ref::softmax"), std::string::npos) << g;
}

TEST(gpu_lowering, pointwise_reads_integer_and_bool_inputs_through_convert)
{
    MIGX_REQUIRE_GPU();
    // BERT's mask: 1 - float(int64 mask), times a float.
    migraphx::program p;
    auto* m  = p.get_main_module();
    auto k   = m->add_parameter("mask", shape{shape::int64_type, {2, 16}});
    auto b   = m->add_parameter("flag", shape{shape::bool_type, {2, 16}});
    auto x   = m->add_parameter("x", shape{shape::float_type, {2, 16}});
    auto one = m->add_instruction(make_op("multibroadcast", {{"out_lens", {2, 16}}}),
                                  m->add_literal(migraphx::literal{shape{shape::float_type}, std::vector<float>{1}}));
    auto kf  = m->add_instruction(make_op("convert", {{"target_type", shape::float_type}}), k);
    auto bf  = m->add_instruction(make_op("convert", {{"target_type", shape::float_type}}), b);
    auto r   = m->add_instruction(make_op("mul"), m->add_instruction(make_op("sub"), one, kf), x);
    m->add_return({m->add_instruction(make_op("add"), r, bf)});
    auto g = migx_test::expect_gpu_matches_ref(p, 1e-6, 1e-6);
    EXPECT_EQ(text(g).find("gpu::ref::"), std::string::npos) << g;
}

TEST(gpu_lowering, returned_param_and_literal)
{
    MIGX_REQUIRE_GPU();
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{shape::float_type, {4, 5}});
    auto l  = lit(m, shape{shape::float_type, {3}}, 9);
    auto t  = m->add_instruction(make_op("transpose", {{"permutation", {1, 0}}}), x);
    m->add_return({x, l, t});
    migx_test::expect_gpu_matches_ref(p, 0, 0);
}

TEST(gpu_lowering, offload_false_outputs_are_caller_buffers)
{
    MIGX_REQUIRE_GPU();
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{shape::float_type, {6, 7}});
    m->add_return({m->add_instruction(make_op("relu"), x)});
    p.set_output_names({"y"});
    auto gt = migraphx::get_target("gpu");
    migraphx::compile_options o;
    o.offload_copy = false;
    p.compile(gt, o);
    auto outs = p.get_outputs();
    ASSERT_EQ(outs.size(), 1u);
    ASSERT_EQ(outs.count("y"), 1u);
    EXPECT_EQ(p.get_inputs().count("y"), 0u);
    auto host = migraphx::generate_argument(shape{shape::float_type, {6, 7}}, 3);
    migraphx::parameter_map params;
    params["x"] = gt.copy_to(host);
    auto buf    = gt.allocate(outs.at("y"));
    params["y"] = buf;
    auto r      = p.eval(params);
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0].data(), buf.data()); // the result is the caller's buffer
    auto v  = gt.copy_from(r[0]).to_vector<float>();
    auto hv = host.to_vector<float>();
    for(std::size_t i = 0; i < v.size(); i++)
        EXPECT_EQ(v[i], hv[i] < 0 ? 0.0f : hv[i]);
}

TEST(gpu_lowering, device_id_out_of_range_is_an_error)
{
    MIGX_REQUIRE_GPU();
    migraphx::program p;
    auto* m = p.get_main_module();
    m->add_return({m->add_instruction(make_op("relu"), m->add_parameter("x", shape{shape::float_type, {2}}))});
    migraphx::compile_options o;
    o.device_id = 1000;
    EXPECT_THROW(p.compile(migraphx::get_target("gpu"), o), migraphx::exception);
}
