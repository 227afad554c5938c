// gpu::layout_nhwc (before/after) and how lowering carries the layout: these run the passes
// only (no device needed); gpu_lowering_test runs such programs on the device against ref.
#include <gtest/gtest.h>
#ifdef MIGRAPHX_HAVE_GPU
#include "passes/dead_code_elimination.hpp"
#include "passes/fuse_pointwise.hpp"
#include "passes/pass_manager.hpp"
#include "targets/gpu/layout_nhwc.hpp"
#include "targets/gpu/lowering.hpp"
#include <migraphx/generate.hpp>
#include <migraphx/instruction.hpp>
#include <migraphx/literal.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <cstdlib>

using migraphx::make_op;
using migraphx::shape;

namespace {

migraphx::instruction_ref conv_weights(migraphx::instruction_ref conv) { return conv->inputs()[1]; }

/// x -> conv(w) -> +bias -> relu -> conv(w2) -> return, in type t.
migraphx::program conv_chain(shape::type_t t, bool literal_weights = true)
{
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{t, {2, 8, 10, 10}});
    auto w  = literal_weights ? m->add_literal(migraphx::generate_literal(shape{t, {16, 8, 3, 3}}, 1))
                              : m->add_parameter("w", shape{t, {16, 8, 3, 3}});
    auto c  = m->add_instruction(make_op("convolution", {{"padding", {1, 1}}}), x, w);
    auto b  = m->add_literal(migraphx::generate_literal(shape{t, {16}}, 2));
    auto bb = m->add_instruction(make_op("broadcast", {{"axis", 1}, {"out_lens", c->get_shape().lens()}}), b);
    auto a  = m->add_instruction(make_op("add"), c, bb);
    auto r  = m->add_instruction(make_op("relu"), a);
    auto w2 = m->add_literal(migraphx::generate_literal(shape{t, {4, 16, 1, 1}}, 3));
    auto c2 = m->add_instruction(make_op("convolution"), r, w2);
    m->add_return({c2});
    return p;
}

std::vector<migraphx::instruction_ref> convolutions(const migraphx::module& m)
{
    std::vector<migraphx::instruction_ref> r;
    for(auto it = m.begin(); it != m.end(); ++it)
        if(it->name() == "convolution")
            r.push_back(it);
    return r;
}

/// The ResNet stem in half: x (3 channels) -> conv 3x3 stride 2 -> +bias -> relu -> max pool 3x3
/// stride 2 -> 1x1 conv -> return.
migraphx::program stem()
{
    migraphx::program p;
    auto* m = p.get_main_module();
    shape::type_t t = shape::half_type;
    auto x  = m->add_parameter("x", shape{t, {2, 3, 16, 16}});
    auto w  = m->add_literal(migraphx::generate_literal(shape{t, {8, 3, 3, 3}}, 1));
    auto c  = m->add_instruction(make_op("convolution", {{"padding", {1, 1}}, {"stride", {2, 2}}}), x, w);
    auto b  = m->add_literal(migraphx::generate_literal(shape{t, {8}}, 2));
    auto bb = m->add_instruction(make_op("broadcast", {{"axis", 1}, {"out_lens", c->get_shape().lens()}}), b);
    auto r  = m->add_instruction(make_op("relu"), m->add_instruction(make_op("add"), c, bb));
    auto pl = m->add_instruction(
        make_op("pooling", {{"mode", "max"}, {"lengths", {3, 3}}, {"stride", {2, 2}}, {"padding", {1, 1}}}), r);
    auto w2 = m->add_literal(migraphx::generate_literal(shape{t, {16, 8, 1, 1}}, 3));
    m->add_return({m->add_instruction(make_op("convolution"), pl, w2)});
    return p;
}

} // namespace

TEST(gpu_layout_nhwc, nhwc_shapes)
{
    shape s{shape::half_type, {2, 8, 5, 7}};
    auto n = migraphx::gpu::nhwc_shape(s);
    EXPECT_EQ(n.lens(), s.lens());
    EXPECT_EQ(n.strides(), (std::vector<std::size_t>{280, 1, 56, 8}));
    EXPECT_TRUE(migraphx::gpu::is_nhwc(n));
    EXPECT_FALSE(n.standard());
    EXPECT_FALSE(migraphx::gpu::is_nhwc(s));
    // One channel, or one pixel: the same memory in both layouts.
    EXPECT_TRUE(migraphx::gpu::is_nhwc(shape{shape::half_type, {4, 1, 3, 3}}));
    EXPECT_TRUE(migraphx::gpu::is_nhwc(shape{shape::half_type, {4, 16, 1, 1}}));
    EXPECT_FALSE(migraphx::gpu::is_nhwc(shape{shape::half_type, {4, 16, 3}}));
    EXPECT_THROW(migraphx::gpu::nhwc_shape(shape{shape::half_type, {4, 16}}), migraphx::exception);
}

TEST(gpu_layout_nhwc, half_convolution_weights_become_krsc_with_the_same_values)
{
    auto p = conv_chain(shape::half_type);
    auto* m = p.get_main_module();
    auto before = conv_weights(convolutions(*m)[0])->get_literal().to_vector<float>();
    migraphx::run_passes(*m, {migraphx::gpu::layout_nhwc{}, migraphx::dead_code_elimination{}});
    auto convs = convolutions(*m);
    ASSERT_EQ(convs.size(), 2u);
    auto w = conv_weights(convs[0]);
    EXPECT_TRUE(migraphx::gpu::is_nhwc(w->get_shape()));
    EXPECT_FALSE(w->get_shape().standard());
    EXPECT_EQ(w->get_literal().to_vector<float>(), before); // logical order unchanged
    // The convolution's own shape stays standard NCHW: lowering picks the buffers' layout.
    EXPECT_TRUE(convs[0]->get_shape().standard());
    // The old weights are gone.
    std::size_t literals = 0;
    for(const auto& ins : *m)
        literals += ins.name() == "@literal" ? 1 : 0;
    EXPECT_EQ(literals, 3u);
}

TEST(gpu_layout_nhwc, float_or_computed_weights_or_disabled_are_left_alone)
{
    for(auto p : {conv_chain(shape::float_type), conv_chain(shape::half_type, false)})
    {
        auto* m = p.get_main_module();
        migraphx::run_passes(*m, {migraphx::gpu::layout_nhwc{}});
        EXPECT_TRUE(conv_weights(convolutions(*m)[0])->get_shape().standard());
    }
    auto p = conv_chain(shape::half_type);
    setenv("MIGRAPHX_DISABLE_NHWC", "1", 1);
    migraphx::run_passes(*p.get_main_module(), {migraphx::gpu::layout_nhwc{}});
    unsetenv("MIGRAPHX_DISABLE_NHWC");
    EXPECT_TRUE(conv_weights(convolutions(*p.get_main_module())[0])->get_shape().standard());
}

// A mask head's convolution of the boxes a nonzero kept: before the pass its weights are standard,
// after it too (its device form takes standard operands), while a convolution of the static
// input beside it gets KRSC weights.
TEST(gpu_layout_nhwc, convolutions_of_a_data_dependent_result_stay_nchw)
{
    migraphx::program p;
    auto* m    = p.get_main_module();
    shape::type_t t = shape::half_type;
    auto x     = m->add_parameter("x", shape{t, {8, 8, 6, 6}});
    auto keep  = m->add_instruction(make_op("squeeze", {{"axes", {0}}}),
                                   m->add_instruction(make_op("nonzero"), m->add_parameter("c", shape{t, {8}})));
    auto boxes = m->add_instruction(make_op("gather", {{"axis", 0}}), x, keep);
    auto w     = m->add_literal(migraphx::generate_literal(shape{t, {16, 8, 3, 3}}, 1));
    auto head  = m->add_instruction(make_op("convolution", {{"padding", {1, 1}}}), boxes, w);
    auto whole = m->add_instruction(make_op("convolution", {{"padding", {1, 1}}}), x, w);
    m->add_return({head, whole});
    EXPECT_TRUE(conv_weights(head)->get_shape().standard());
    migraphx::run_passes(*m, {migraphx::gpu::layout_nhwc{}});
    EXPECT_TRUE(conv_weights(head)->get_shape().standard());
    EXPECT_TRUE(migraphx::gpu::is_nhwc(conv_weights(whole)->get_shape()));
    EXPECT_FALSE(conv_weights(whole)->get_shape().standard());
}

TEST(gpu_layout_nhwc, lowering_keeps_nhwc_between_convolutions_and_returns_standard)
{
    auto p = conv_chain(shape::half_type);
    migraphx::run_passes(p,
                         {migraphx::fuse_pointwise{},
                          migraphx::gpu::layout_nhwc{},
                          migraphx::dead_code_elimination{},
                          migraphx::gpu::lowering{true},
                          migraphx::dead_code_elimination{}});
    const auto* m = p.get_main_module();
    std::vector<std::string> seen;
    for(const auto& ins : *m)
    {
        const auto& n = ins.name();
        if(n == "gpu::convolution" or n == "gpu::conv_bias_relu" or n == "gpu::code_object" or n == "gpu::gemm")
        {
            seen.push_back(n);
            if(n == "gpu::code_object" or n == "gpu::gemm") // a gemm reads NHWC as a {pixels, C} view
                continue;
            EXPECT_TRUE(migraphx::gpu::is_nhwc(ins.inputs()[0]->get_shape())) << n;
        }
    }
    // x is copied into NHWC, conv + bias + relu is one cuDNN call writing NHWC, the second
    // convolution (1x1, no bias: lowering's lower_pointwise_convolution) is a product of the
    // NHWC pixels writing NHWC, and a copy turns it standard for the output.
    EXPECT_EQ(seen, (std::vector<std::string>{"gpu::code_object", "gpu::conv_bias_relu", "gpu::gemm",
                                              "gpu::code_object"}));
    auto ret = std::prev(m->end());
    for(auto r : ret->inputs())
        EXPECT_TRUE(r->get_shape().standard());
}
TEST(gpu_layout_nhwc, few_channels_are_padded_to_eight_with_zero_weights)
{
    auto p  = stem();
    auto* m = p.get_main_module();
    auto before = conv_weights(convolutions(*m)[0])->get_literal();
    migraphx::run_passes(*m, {migraphx::gpu::layout_nhwc{}, migraphx::dead_code_elimination{}});
    auto convs = convolutions(*m);
    ASSERT_EQ(convs.size(), 2u);
    auto x = convs[0]->inputs()[0];
    ASSERT_EQ(x->name(), "pad");
    EXPECT_EQ(x->get_shape().lens(), (std::vector<std::size_t>{2, 8, 16, 16}));
    EXPECT_EQ(x->get_operator().to_value().at("pads").to_vector<std::int64_t>(),
              (std::vector<std::int64_t>{0, 0, 0, 0, 0, 5, 0, 0}));
    EXPECT_EQ(x->inputs()[0]->name(), "@param");
    auto w = conv_weights(convs[0]);
    EXPECT_EQ(w->get_shape().lens(), (std::vector<std::size_t>{8, 8, 3, 3}));
    EXPECT_TRUE(migraphx::gpu::is_nhwc(w->get_shape()));
    EXPECT_FALSE(w->get_shape().standard());
    // Channels 0..2 are the old weights, 3..7 zeros.
    auto ws = w->get_shape();
    auto bs = before.get_shape();
    std::size_t zeros = 0, same = 0;
    for(std::size_t k = 0; k < 8; k++)
        for(std::size_t c = 0; c < 8; c++)
            for(std::size_t i = 0; i < 9; i++)
            {
                auto v = reinterpret_cast<const migraphx::half*>(w->get_literal().data())[ws.index({k, c, i / 3, i % 3})];
                if(c >= 3)
                    zeros += static_cast<float>(v) == 0.f ? 1 : 0;
                else
                    same += static_cast<float>(v) ==
                                    static_cast<float>(reinterpret_cast<const migraphx::half*>(
                                        before.data())[bs.index({k, c, i / 3, i % 3})])
                                ? 1
                                : 0;
            }
    EXPECT_EQ(zeros, 8u * 5u * 9u);
    EXPECT_EQ(same, 8u * 3u * 9u);
    // 8 or more channels (the second convolution): not padded.
    EXPECT_EQ(convs[1]->inputs()[0]->get_shape().lens()[1], 8u);
    EXPECT_EQ(conv_weights(convs[1])->get_shape().lens(), (std::vector<std::size_t>{16, 8, 1, 1}));
}

TEST(gpu_layout_nhwc, stem_lowers_to_padded_nhwc_conv_bias_relu_and_nhwc_pooling)
{
    auto p = stem();
    migraphx::run_passes(p,
                         {migraphx::fuse_pointwise{},
                          migraphx::gpu::layout_nhwc{},
                          migraphx::dead_code_elimination{},
                          migraphx::gpu::lowering{true},
                          migraphx::dead_code_elimination{}});
    const auto* m = p.get_main_module();
    std::vector<std::string> seen;
    const migraphx::instruction* pool = nullptr;
    const migraphx::instruction* cbr  = nullptr;
    for(const auto& ins : *m)
    {
        const auto& n = ins.name();
        if(n == "gpu::code_object")
        {
            auto sym = ins.get_operator().to_value().at("symbol_name").get_string();
            seen.push_back(sym);
            if(sym == "pad_kernel")
            {
                // x padded into an NHWC buffer of 8 channels in one kernel.
                EXPECT_EQ(ins.get_shape().lens(), (std::vector<std::size_t>{2, 8, 16, 16}));
                EXPECT_TRUE(migraphx::gpu::is_nhwc(ins.get_shape()));
                EXPECT_FALSE(ins.get_shape().standard());
            }
            if(sym == "max_pooling_kernel")
                pool = &ins;
        }
        else if(n == "gpu::conv_bias_relu" or n == "gpu::convolution" or n == "gpu::gemm")
        {
            seen.push_back(n);
            if(n == "gpu::conv_bias_relu")
                cbr = &ins;
        }
    }
    // pad, conv + bias + relu (one cuDNN call), max pooling reading and writing NHWC (no
    // layout copies), 1x1 convolution (a product of the NHWC pixels), a copy to standard for
    // the output.
    EXPECT_EQ(seen, (std::vector<std::string>{"pad_kernel", "gpu::conv_bias_relu", "max_pooling_kernel",
                                              "gpu::gemm", "contiguous_kernel"}));
    ASSERT_NE(cbr, nullptr);
    ASSERT_NE(pool, nullptr);
    EXPECT_EQ(cbr->inputs()[0]->get_shape().lens()[1], 8u);
    EXPECT_EQ(cbr->inputs()[1]->get_shape().lens(), (std::vector<std::size_t>{8, 8, 3, 3}));
    EXPECT_TRUE(migraphx::gpu::is_nhwc(cbr->get_shape()));
    EXPECT_FALSE(cbr->get_shape().standard());
    EXPECT_EQ(&*pool->inputs()[0], cbr);
    EXPECT_TRUE(migraphx::gpu::is_nhwc(pool->get_shape()));
    EXPECT_FALSE(pool->get_shape().standard());
}

TEST(gpu_layout_nhwc, pooling_feeding_a_standard_reader_writes_standard)
{
    // conv -> bias/relu -> max pool -> return: the pool still reads NHWC (the fusion applies),
    // and writes the standard output.
    migraphx::program p;
    auto* m = p.get_main_module();
    shape::type_t t = shape::half_type;
    auto x  = m->add_parameter("x", shape{t, {2, 8, 8, 8}});
    auto c  = m->add_instruction(make_op("convolution", {{"padding", {1, 1}}}), x,
                                m->add_literal(migraphx::generate_literal(shape{t, {16, 8, 3, 3}}, 1)));
    auto bb = m->add_instruction(make_op("broadcast", {{"axis", 1}, {"out_lens", c->get_shape().lens()}}),
                                 m->add_literal(migraphx::generate_literal(shape{t, {16}}, 2)));
    auto r  = m->add_instruction(make_op("relu"), m->add_instruction(make_op("add"), c, bb));
    m->add_return({m->add_instruction(make_op("pooling", {{"mode", "average"}, {"lengths", {2, 2}}, {"stride", {2, 2}}}), r)});
    migraphx::run_passes(p,
                         {migraphx::fuse_pointwise{},
                          migraphx::gpu::layout_nhwc{},
                          migraphx::dead_code_elimination{},
                          migraphx::gpu::lowering{true},
                          migraphx::dead_code_elimination{}});
    std::size_t pools = 0, fused = 0;
    for(const auto& ins : *p.get_main_module())
    {
        fused += ins.name() == "gpu::conv_bias_relu" ? 1 : 0;
        if(ins.name() == "gpu::code_object" and
           ins.get_operator().to_value().at("symbol_name").get_string() == "average_pooling_kernel")
        {
            pools++;
            EXPECT_TRUE(ins.get_shape().standard());
            EXPECT_TRUE(migraphx::gpu::is_nhwc(ins.inputs()[0]->get_shape()));
            EXPECT_EQ(ins.inputs()[0]->name(), "gpu::conv_bias_relu");
        }
    }
    EXPECT_EQ(pools, 1u);
    EXPECT_EQ(fused, 1u);
}
#else
TEST(gpu_layout_nhwc, skipped) { GTEST_SKIP() << "built without CUDA"; }
#endif
