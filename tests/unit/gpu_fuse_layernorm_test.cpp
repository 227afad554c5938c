// gpu::fuse_layernorm: the importer's LayerNormalization runs as one layernorm_kernel, its scale and
// shift included (before: two reduce_mean and four pointwise kernels, then a mul_add kernel), with
// ref's results, float and half; the add before it (not a product's) and a convert to float after
// it go into the same kernel.
#include "gpu_test_util.hpp"
#include <migraphx/literal.hpp>
#include <migraphx/make_op.hpp>
#include <algorithm>
#include <sstream>
#ifdef MIGRAPHX_HAVE_GPU
#include "passes/pass_manager.hpp"
#include "targets/gpu/lowering.hpp"
#include "targets/gpu/fuse_layernorm.hpp"

using migraphx::make_op;
using migraphx::shape;

namespace {

/// What comes before and after the layer norm.
struct around
{
    bool product_first = false; // x times a [last, last] weight, plus r (a gemm's residual epilogue)
    bool to_float      = false; // the result converted to float (a half model's output)
};

/// x + r, layer-normalized over the last axis with scale and shift, as BERT's blocks end.
migraphx::program layer_norm(shape::type_t t, std::vector<std::size_t> lens, bool with_epsilon, around a = {})
{
    migraphx::program p;
    auto* m  = p.get_main_module();
    auto x   = m->add_parameter("x", shape{t, lens});
    auto r   = m->add_parameter("r", shape{t, lens});
    if(a.product_first)
    {
        auto w  = m->add_literal(migraphx::generate_literal(shape{t, {lens.back(), lens.back()}}, 5));
        auto wb = m->add_instruction(make_op("multibroadcast", {{"out_lens", [&] {
                                                                     auto l = lens;
                                                                     l[l.size() - 2] = lens.back();
                                                                     return l;
                                                                 }()}}),
                                     w);
        x = m->add_instruction(make_op("dot"), x, wb);
    }
    auto s   = m->add_instruction(make_op("add"), x, r);
    auto bc  = [&](migraphx::instruction_ref v) {
        return m->add_instruction(make_op("multibroadcast", {{"out_lens", lens}}), v);
    };
    auto axes = std::vector<std::int64_t>{static_cast<std::int64_t>(lens.size()) - 1};
    auto mean = m->add_instruction(make_op("reduce_mean", {{"axes", axes}}), s);
    auto d    = m->add_instruction(make_op("sub"), s, bc(mean));
    auto var  = m->add_instruction(make_op("reduce_mean", {{"axes", axes}}), m->add_instruction(make_op("mul"), d, d));
    if(with_epsilon)
        var = m->add_instruction(
            make_op("add"), var,
            m->add_instruction(make_op("multibroadcast", {{"out_lens", var->get_shape().lens()}}),
                               m->add_literal(migraphx::literal{shape{t}, std::vector<float>{1e-5f}})));
    auto n     = m->add_instruction(make_op("mul"), d, bc(m->add_instruction(make_op("rsqrt"), var)));
    auto last  = lens.back();
    auto gamma = m->add_literal(migraphx::generate_literal(shape{t, {last}}, 3));
    auto beta  = m->add_literal(migraphx::generate_literal(shape{t, {last}}, 4));
    auto y     = m->add_instruction(make_op("add"), m->add_instruction(make_op("mul"), n, bc(gamma)), bc(beta));
    if(a.to_float)
        y = m->add_instruction(make_op("convert", {{"target_type", shape::float_type}}), y);
    m->add_return({y});
    return p;
}

/// The arguments of the lowered program's layernorm kernel (its inputs and its output).
std::string kernel_args(const std::string& tx)
{
    auto open = tx.find("](", tx.find("symbol_name=layernorm_kernel")) + 2;
    return tx.substr(open, tx.find(')', open) - open);
}

std::string lowered(migraphx::program p) { return migx_test::lowered_for_gpu(std::move(p)); }

} // namespace

TEST(gpu_fuse_layernorm_no_device, pattern_becomes_one_kernel)
{
    for(auto t : {shape::float_type, shape::half_type})
        for(bool eps : {true, false})
        {
            auto tx = lowered(layer_norm(t, {2, 7, 96}, eps));
            EXPECT_NE(tx.find("symbol_name=layernorm_kernel"), std::string::npos) << tx;
            EXPECT_EQ(tx.find("reduce_mean"), std::string::npos) << tx;
            EXPECT_EQ(tx.find("rsqrt"), std::string::npos) << tx;
            // the scale and shift are the kernel's inputs, not a kernel after it, and so are the
            // two addends of the sum before it
            EXPECT_EQ(tx.find("mul_add"), std::string::npos) << tx;
            EXPECT_EQ(tx.find("add_kernel"), std::string::npos) << tx;
            auto args = kernel_args(tx);
            EXPECT_EQ(std::count(args.begin(), args.end(), ','), 4) << args; // x, r, scale, shift, output
        }
}

TEST(gpu_fuse_layernorm_no_device, a_products_residual_add_stays_the_gemms)
{
    auto tx = lowered(layer_norm(shape::half_type, {2, 7, 96}, true, {true, false}));
    EXPECT_NE(tx.find("residual=1"), std::string::npos) << tx;
    auto args = kernel_args(tx);
    EXPECT_EQ(std::count(args.begin(), args.end(), ','), 3) << args; // the gemm's result, scale, shift, output
}

TEST(gpu_fuse_layernorm_no_device, a_residual_add_after_a_products_bias_and_convert_is_not_folded)
{
    // ((x W + b) as float, back to half) + r: a product a few steps up is still the product's
    migraphx::program p;
    auto* m = p.get_main_module();
    auto t  = shape::half_type;
    auto x  = m->add_parameter("x", shape{t, {2, 7, 96}});
    auto r  = m->add_parameter("r", shape{t, {2, 7, 96}});
    auto w  = m->add_instruction(make_op("multibroadcast", {{"out_lens", {2, 96, 96}}}),
                                m->add_literal(migraphx::generate_literal(shape{t, {96, 96}}, 5)));
    auto b  = m->add_instruction(make_op("multibroadcast", {{"out_lens", {2, 7, 96}}}),
                                m->add_literal(migraphx::generate_literal(shape{t, {96}}, 6)));
    auto d  = m->add_instruction(make_op("add"), m->add_instruction(make_op("dot"), x, w), b);
    auto f  = m->add_instruction(make_op("convert", {{"target_type", shape::half_type}}),
                                m->add_instruction(make_op("convert", {{"target_type", shape::float_type}}), d));
    auto s  = m->add_instruction(make_op("add"), f, r);
    m->add_return({m->add_instruction(make_op("layernorm", {{"epsilon", 1e-5f}}), s)});
    migraphx::gpu::fuse_layernorm{}.apply(*m);
    auto ln = std::prev(m->end(), 2);
    ASSERT_EQ(ln->name(), "layernorm");
    EXPECT_EQ(ln->inputs().size(), 1u);
    EXPECT_EQ(ln->inputs().front(), s);
}

TEST(gpu_fuse_layernorm_no_device, folds_can_be_turned_off)
{
    setenv("MIGRAPHX_DISABLE_LAYERNORM_FOLDS", "1", 1);
    auto tx = lowered(layer_norm(shape::half_type, {2, 7, 96}, true, {false, true}));
    unsetenv("MIGRAPHX_DISABLE_LAYERNORM_FOLDS");
    EXPECT_NE(tx.find("add_kernel"), std::string::npos) << tx;
    auto args = kernel_args(tx);
    EXPECT_EQ(std::count(args.begin(), args.end(), ','), 3) << args;
    EXPECT_NE(tx.find("copy_kernel"), std::string::npos) << tx; // the convert to float
}

TEST(gpu_fuse_layernorm_no_device, a_convert_to_float_after_it_is_its_output)
{
    auto tx = lowered(layer_norm(shape::half_type, {2, 7, 96}, true, {false, true}));
    auto at = tx.find("symbol_name=layernorm_kernel");
    ASSERT_NE(at, std::string::npos) << tx;
    auto line = tx.substr(at, tx.find('\n', at) - at);
    EXPECT_NE(line.find("-> float_type"), std::string::npos) << line;
    EXPECT_EQ(tx.find("convert"), std::string::npos) << tx;
    EXPECT_EQ(tx.find("copy_kernel"), std::string::npos) << tx;
}

TEST(gpu_fuse_layernorm_no_device, before_the_pass_the_scale_and_shift_are_a_kernel_of_their_own)
{
    setenv("MIGRAPHX_DISABLE_PASSES", "gpu::fuse_layernorm", 1);
    auto tx = lowered(layer_norm(shape::half_type, {2, 7, 96}, true));
    unsetenv("MIGRAPHX_DISABLE_PASSES");
    EXPECT_NE(tx.find("mul_add"), std::string::npos) << tx;
}

TEST(gpu_fuse_layernorm_no_device, disabled_by_name)
{
    setenv("MIGRAPHX_DISABLE_PASSES", "gpu::fuse_layernorm", 1);
    auto tx = lowered(layer_norm(shape::float_type, {2, 7, 96}, true));
    unsetenv("MIGRAPHX_DISABLE_PASSES");
    EXPECT_EQ(tx.find("layernorm_kernel"), std::string::npos) << tx;
    EXPECT_NE(tx.find("reduce_mean_kernel"), std::string::npos) << tx;
}

// Rows of 96 (a warp a row), 768 (BERT-base) and 2048 (a block of 256 a row).
TEST(gpu_fuse_layernorm, matches_ref_float_and_half)
{
    MIGX_REQUIRE_GPU();
    for(auto t : {shape::float_type, shape::half_type})
        for(std::vector<std::size_t> lens : {std::vector<std::size_t>{2, 7, 96}, {3, 768}, {2, 2048}})
        {
            for(around a : {around{}, around{true, false}, around{false, true}})
            {
                if(a.to_float and t != shape::half_type)
                    continue;
                auto p   = layer_norm(t, lens, true, a);
                double e = t == shape::half_type ? 2e-2 : 1e-4;
                auto g   = migx_test::expect_gpu_matches_ref(p, migx_test::fresh_params(p), e, e);
                std::ostringstream ss;
                ss << g;
                EXPECT_NE(ss.str().find("layernorm_kernel"), std::string::npos) << ss.str();
            }
        }
}

#endif
