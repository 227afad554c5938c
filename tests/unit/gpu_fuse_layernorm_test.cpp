// gpu::fuse_layernorm: the importer's LayerNormalization runs as one layernorm_kernel, its scale and
// shift included (before: two reduce_mean and four pointwise kernels, then a mul_add kernel), with
// ref's results, float and half.
#include "gpu_test_util.hpp"
#include <migraphx/literal.hpp>
#include <migraphx/make_op.hpp>
#include <algorithm>
#include <sstream>
#ifdef MIGRAPHX_HAVE_GPU
#include "passes/pass_manager.hpp"
#include "targets/gpu/lowering.hpp"

using migraphx::make_op;
using migraphx::shape;

namespace {

/// x + r, layer-normalized over the last axis with scale and shift, as BERT's blocks end.
migraphx::program layer_norm(shape::type_t t, std::vector<std::size_t> lens, bool with_epsilon)
{
    migraphx::program p;
    auto* m  = p.get_main_module();
    auto x   = m->add_parameter("x", shape{t, lens});
    auto r   = m->add_parameter("r", shape{t, lens});
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
    m->add_return({y});
    return p;
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
            // the scale and shift are the kernel's inputs 1 and 2, not a kernel after it
            EXPECT_EQ(tx.find("mul_add"), std::string::npos) << tx;
            auto open = tx.find("](", tx.find("symbol_name=layernorm_kernel")) + 2;
            auto args = tx.substr(open, tx.find(')', open) - open);
            EXPECT_EQ(std::count(args.begin(), args.end(), ','), 3) << args; // x, scale, shift, output
        }
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
            auto p   = layer_norm(t, lens, true);
            double e = t == shape::half_type ? 2e-2 : 1e-4;
            auto g   = migx_test::expect_gpu_matches_ref(p, migx_test::fresh_params(p), e, e);
            std::ostringstream ss;
            ss << g;
            EXPECT_NE(ss.str().find("layernorm_kernel"), std::string::npos) << ss.str();
        }
}

#endif
