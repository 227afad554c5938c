// cpu::gemm end to end (compiled for the cpu target against ref) and on its own: constant and
// computed b, batches and broadcast batches, transposed inputs, the fused epilogues, a saved and
// reloaded program, and the checks on what a saved program may carry.
#include <migraphx/load_save.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include "cpu_test_util.hpp"
#include "scoped_env.hpp"
#ifdef MIGRAPHX_HAVE_CPU
#include "targets/cpu/gemm_kernel.hpp"
#include "targets/cpu/gemm_op.hpp"
#include "targets/cpu/lower_gemm.hpp"
#include <oneapi/dnnl/dnnl.hpp>
#endif

using migraphx::make_op;
using migraphx::shape;

#ifdef MIGRAPHX_HAVE_CPU
namespace {

/// The tests here are about cpu::gemm, which runs by default only where oneDNN has no AVX-512:
/// they ask for it wherever the CPU can run it (AVX2/FMA).
struct own_gemm_env
{
    migx_test::scoped_env env{"MIGRAPHX_CPU_GEMM", "own"};
};

bool kernel_in_use() { return migraphx::cpu::own_gemm_preferred(); }

std::size_t count(const migraphx::program& p, const std::string& name)
{
    auto names = migx_test::op_names(*p.get_main_module());
    return std::count(names.begin(), names.end(), name);
}

migraphx::instruction_ref constant(migraphx::module& m, const std::vector<std::size_t>& lens, unsigned long seed)
{
    return m.add_literal(migraphx::generate_literal(shape{shape::float_type, lens}, seed));
}

/// x * 0.5 * (1 + erf(x / sqrt 2)), as torch exports GELU
migraphx::instruction_ref gelu(migraphx::module& m, migraphx::instruction_ref x)
{
    auto cst = [&](float v) {
        return m.add_instruction(make_op("multibroadcast", {{"out_lens", x->get_shape().lens()}}),
                                 m.add_literal(migraphx::literal{v}));
    };
    auto d   = m.add_instruction(make_op("div"), x, cst(1.4142135f));
    auto e   = m.add_instruction(make_op("erf"), d);
    auto one = m.add_instruction(make_op("add"), e, cst(1.0f));
    auto h   = m.add_instruction(make_op("mul"), x, cst(0.5f));
    return m.add_instruction(make_op("mul"), h, one);
}

/// An encoder's feed-forward block: gelu(x W1 + b1) W2 + x, rows x d, hidden h.
migraphx::program ffn(std::size_t rows, std::size_t d, std::size_t h)
{
    migraphx::program p;
    auto* m  = p.get_main_module();
    auto x   = m->add_parameter("x", shape{shape::float_type, {1, rows, d}});
    auto w1  = m->add_instruction(make_op("multibroadcast", {{"out_lens", std::vector<std::size_t>{1, d, h}}}),
                                 constant(*m, {d, h}, 1));
    auto y   = m->add_instruction(make_op("dot"), x, w1);
    auto b1  = m->add_instruction(make_op("multibroadcast", {{"out_lens", y->get_shape().lens()}}), constant(*m, {h}, 2));
    auto g   = gelu(*m, m->add_instruction(make_op("add"), y, b1));
    auto w2  = m->add_instruction(make_op("multibroadcast", {{"out_lens", std::vector<std::size_t>{1, h, d}}}),
                                 constant(*m, {h, d}, 3));
    auto z   = m->add_instruction(make_op("dot"), g, w2);
    m->add_return({m->add_instruction(make_op("add"), z, x)});
    return p;
}

} // namespace

TEST(cpu_gemm_op, feed_forward_block_is_two_gemms)
{
    MIGX_REQUIRE_CPU();
    own_gemm_env own;
    auto cpu = migx_test::expect_cpu_matches_ref(ffn(37, 24, 70), 1e-4, 1e-4);
    if(not kernel_in_use())
        GTEST_SKIP() << "no AVX2/FMA: oneDNN's matmul runs instead";
    // bias + GELU in the first, the residual add in the second; nothing else is left
    EXPECT_EQ(migx_test::op_names(*cpu.get_main_module()),
              (std::vector<std::string>{"cpu::gemm", "cpu::gemm", "@return"}));
    for(auto it = cpu.get_main_module()->begin(); it != cpu.get_main_module()->end(); ++it)
    {
        if(it->name() != "cpu::gemm")
            continue;
        auto v = it->get_operator().to_value();
        EXPECT_TRUE(v.at("packed_weights").get_bool());
        EXPECT_EQ(it->inputs()[1]->get_shape().lens().size(), 1u);
    }
}

TEST(cpu_gemm_op, computed_and_broadcast_b)
{
    MIGX_REQUIRE_CPU();
    own_gemm_env own;
    migraphx::program p;
    auto* m = p.get_main_module();
    auto a  = m->add_parameter("a", shape{shape::float_type, {3, 2, 13, 9}});
    auto b  = m->add_parameter("b", shape{shape::float_type, {3, 2, 9, 20}});
    auto q  = m->add_parameter("q", shape{shape::float_type, {9, 5}});
    auto qb = m->add_instruction(make_op("multibroadcast", {{"out_lens", std::vector<std::size_t>{3, 2, 9, 5}}}), q);
    auto d1 = m->add_instruction(make_op("dot"), a, b);
    auto d2 = m->add_instruction(make_op("dot"), a, qb);
    m->add_return({d1, d2});
    auto cpu = migx_test::expect_cpu_matches_ref(p, 1e-4, 1e-4);
    if(kernel_in_use())
    {
        EXPECT_EQ(count(cpu, "cpu::gemm"), 2u);
    }
}

TEST(cpu_gemm_op, transposed_inputs)
{
    MIGX_REQUIRE_CPU();
    own_gemm_env own;
    // attention's q k^T: a is a transposed view (rows not contiguous: a is copied), b too
    migraphx::program p;
    auto* m  = p.get_main_module();
    auto a   = m->add_parameter("a", shape{shape::float_type, {2, 17, 11}});
    auto b   = m->add_parameter("b", shape{shape::float_type, {2, 19, 17}});
    auto at  = m->add_instruction(make_op("transpose", {{"permutation", std::vector<std::int64_t>{0, 2, 1}}}), a);
    auto bt  = m->add_instruction(make_op("transpose", {{"permutation", std::vector<std::int64_t>{0, 2, 1}}}), b);
    auto w   = constant(*m, {23, 17}, 5); // a constant b seen transposed (Gemm's transB)
    auto wt  = m->add_instruction(make_op("transpose", {{"permutation", std::vector<std::int64_t>{1, 0}}}), w);
    auto x   = m->add_parameter("x", shape{shape::float_type, {6, 17}});
    auto d1  = m->add_instruction(make_op("dot"), at, bt);
    auto d2  = m->add_instruction(make_op("dot"), x, wt);
    m->add_return({d1, d2});
    auto cpu = migx_test::expect_cpu_matches_ref(p, 1e-4, 1e-4);
    if(kernel_in_use())
    {
        EXPECT_EQ(count(cpu, "cpu::gemm"), 2u);
    }
}

TEST(cpu_gemm_op, activations_after_bias)
{
    MIGX_REQUIRE_CPU();
    own_gemm_env own;
    for(std::string act : {"relu", "sigmoid", "tanh", "leaky_relu", "clip"})
    {
        SCOPED_TRACE(act);
        migraphx::program p;
        auto* m = p.get_main_module();
        auto x  = m->add_parameter("x", shape{shape::float_type, {10, 33}});
        auto d  = m->add_instruction(make_op("dot"), x, constant(*m, {33, 18}, 6));
        auto b  = m->add_instruction(make_op("multibroadcast", {{"out_lens", d->get_shape().lens()}}),
                                    constant(*m, {18}, 7));
        auto y  = m->add_instruction(make_op("add"), d, b);
        migraphx::instruction_ref r;
        if(act == "leaky_relu")
            r = m->add_instruction(make_op("leaky_relu", {{"alpha", 0.1f}}), y);
        else if(act == "clip")
        {
            auto lo = m->add_instruction(make_op("multibroadcast", {{"out_lens", y->get_shape().lens()}}),
                                         m->add_literal(migraphx::literal{-0.5f}));
            auto hi = m->add_instruction(make_op("multibroadcast", {{"out_lens", y->get_shape().lens()}}),
                                         m->add_literal(migraphx::literal{0.5f}));
            r = m->add_instruction(make_op("clip"), y, lo, hi);
        }
        else
            r = m->add_instruction(make_op(act), y);
        m->add_return({r});
        auto cpu = migx_test::expect_cpu_matches_ref(p, 1e-4, 1e-5);
        if(kernel_in_use())
        {
            EXPECT_EQ(migx_test::op_names(*cpu.get_main_module()), (std::vector<std::string>{"cpu::gemm", "@return"}));
        }
    }
}

TEST(cpu_gemm_op, on_its_own_with_k_zero_and_packed_weights)
{
    MIGX_REQUIRE_CPU();
    own_gemm_env own;
    // K = 0: the result is the epilogue of zero (bias, then relu)
    migraphx::cpu::gemm_op op;
    op.bias     = true;
    op.post_ops = {"relu"};
    migraphx::argument a{shape{shape::float_type, {2, 0}}};
    migraphx::argument b{shape{shape::float_type, {0, 3}}};
    std::vector<float> bias_v = {1, -2, 3};
    migraphx::argument bias{shape{shape::float_type, {3}}, bias_v.data()};
    migraphx::operation o{op};
    auto out = o.compute_shape({a.get_shape(), b.get_shape(), bias.get_shape()});
    EXPECT_EQ(out.lens(), (std::vector<std::size_t>{2, 3}));
    auto r = o.compute(out, {a, b, bias});
    EXPECT_EQ(r.to_vector<float>(), (std::vector<float>{1, 0, 3, 1, 0, 3}));

    // packed weights: the same product as unpacked; a packed input of the wrong size is refused
    std::vector<float> av = {1, 2, 3, 4, 5, 6}, bv = {1, 0, 0, 1, 1, 1}; // a 2x3, b 3x2
    migraphx::argument aa{shape{shape::float_type, {2, 3}}, av.data()};
    migraphx::argument bb{shape{shape::float_type, {3, 2}}, bv.data()};
    migraphx::cpu::gemm_op packed;
    auto pb = migraphx::cpu::gemm_op::pack(bb, packed.weight_lens);
    packed.packed_weights = true;
    EXPECT_EQ(packed.weight_lens, (std::vector<std::size_t>{3, 2}));
    EXPECT_EQ(pb.get_shape().elements(), 3u * 16);
    migraphx::operation po{packed};
    auto s = po.compute_shape({aa.get_shape(), pb.get_shape()});
    EXPECT_EQ(po.compute(s, {aa, pb}).to_vector<float>(), (std::vector<float>{4, 5, 10, 11}));
    EXPECT_THROW(po.compute_shape({aa.get_shape(), shape{shape::float_type, {47}}}), migraphx::exception);
}

TEST(cpu_gemm_op, a_saved_program_may_not_carry_nonsense)
{
    MIGX_REQUIRE_CPU();
    own_gemm_env own;
    shape a{shape::float_type, {4, 5}}, b{shape::float_type, {5, 6}};
    migraphx::cpu::gemm_op op;
    op.post_ops = {"swish"};
    EXPECT_THROW(migraphx::operation{op}.compute_shape({a, b}), migraphx::exception);
    op.post_ops = {};
    op.sum      = true;
    EXPECT_THROW(migraphx::operation{op}.compute_shape({a, b, shape{shape::float_type, {4, 7}}}),
                 migraphx::exception);
    op.sum  = false;
    op.bias = true;
    EXPECT_THROW(migraphx::operation{op}.compute_shape({a, b, shape{shape::float_type, {5}}}), migraphx::exception);
    EXPECT_THROW(migraphx::operation{op}.compute_shape({a, b, shape{shape::float_type, {6}, {0}}}),
                 migraphx::exception); // the kernel reads the bias contiguous
    EXPECT_NO_THROW(migraphx::operation{op}.compute_shape({a, b, shape{shape::float_type, {6}}}));
    op.bias = false;
    EXPECT_THROW(migraphx::operation{op}.compute_shape({a, shape{shape::float_type, {4, 6}}}), migraphx::exception);
    EXPECT_THROW(migraphx::operation{op}.compute_shape({a, b, b}), migraphx::exception);
}
#endif

#ifdef MIGRAPHX_HAVE_CPU
namespace {

/// Self-attention as torch exports it: one projection to q, k, v, sliced; heads split by
/// reshape + transpose (with a copy before the reshape); q k^T; softmax; . v; heads merged back
/// by transpose + copy + reshape; the output projection.
migraphx::program attention(std::size_t seq, std::size_t heads, std::size_t dh)
{
    std::size_t d = heads * dh;
    migraphx::program p;
    auto* m  = p.get_main_module();
    auto x   = m->add_parameter("x", shape{shape::float_type, {1, seq, d}});
    auto w   = m->add_instruction(make_op("multibroadcast", {{"out_lens", std::vector<std::size_t>{1, d, 3 * d}}}),
                                constant(*m, {d, 3 * d}, 11));
    auto qkv = m->add_instruction(make_op("dot"), x, w);
    auto part = [&](std::size_t i, std::vector<std::int64_t> perm) {
        auto s = m->add_instruction(
            make_op("slice", {{"axes", std::vector<std::int64_t>{2}}, {"starts", std::vector<std::int64_t>{std::int64_t(i * d)}},
                              {"ends", std::vector<std::int64_t>{std::int64_t((i + 1) * d)}}}),
            qkv);
        auto c = m->add_instruction(make_op("contiguous"), s);
        auto r = m->add_instruction(
            make_op("reshape", {{"dims", std::vector<std::int64_t>{1, std::int64_t(seq), std::int64_t(heads), std::int64_t(dh)}}}),
            c);
        return m->add_instruction(make_op("transpose", {{"permutation", perm}}), r);
    };
    auto q  = part(0, {0, 2, 1, 3});
    auto k  = part(1, {0, 2, 3, 1});
    auto v  = part(2, {0, 2, 1, 3});
    auto s  = m->add_instruction(make_op("softmax", {{"axis", 3}}), m->add_instruction(make_op("dot"), q, k));
    auto o  = m->add_instruction(make_op("dot"), s, v);
    auto t  = m->add_instruction(make_op("transpose", {{"permutation", std::vector<std::int64_t>{0, 2, 1, 3}}}), o);
    auto c  = m->add_instruction(make_op("contiguous"), t);
    auto r  = m->add_instruction(
        make_op("reshape", {{"dims", std::vector<std::int64_t>{1, std::int64_t(seq), std::int64_t(d)}}}), c);
    auto wo = m->add_instruction(make_op("multibroadcast", {{"out_lens", std::vector<std::size_t>{1, d, d}}}),
                                 constant(*m, {d, d}, 12));
    m->add_return({m->add_instruction(make_op("dot"), r, wo)});
    return p;
}

} // namespace

TEST(cpu_gemm_op, attention_reads_its_heads_in_place)
{
    MIGX_REQUIRE_CPU();
    own_gemm_env own;
    auto cpu = migx_test::expect_cpu_matches_ref(attention(19, 3, 8), 1e-4, 1e-4);
    if(not kernel_in_use())
        GTEST_SKIP() << "no AVX2/FMA: oneDNN's matmul runs instead";
    EXPECT_EQ(count(cpu, "cpu::gemm"), 4u);
    // q, k, v read in place: slices of a reshape of the product (simplify_reshapes moves the
    // slice after the reshape), or the cpu lowering's strided views where that pass did not.
    EXPECT_EQ(count(cpu, "cpu::strided_view") + count(cpu, "slice"), 3u);
    EXPECT_EQ(count(cpu, "dnnl::reorder"), 0u);
    EXPECT_EQ(count(cpu, "contiguous"), 0u);
    // the second batched product writes {seq, head, column} order
    std::size_t permuted = 0;
    for(auto it = cpu.get_main_module()->begin(); it != cpu.get_main_module()->end(); ++it)
        if(it->name() == "cpu::gemm" and not it->get_operator().to_value().at("out_strides").to_vector<std::size_t>().empty())
        {
            permuted++;
            EXPECT_FALSE(it->get_shape().standard());
        }
    EXPECT_EQ(permuted, 1u);
}

TEST(cpu_gemm_op, strided_view_checks_its_reach)
{
    MIGX_REQUIRE_CPU();
    own_gemm_env own;
    migraphx::operation v{migraphx::cpu::strided_view{{2, 3}, {1, 2}}};
    EXPECT_EQ(v.compute_shape({shape{shape::float_type, {6}}}).strides(), (std::vector<std::size_t>{1, 2}));
    EXPECT_THROW(v.compute_shape({shape{shape::float_type, {5}}}), migraphx::exception);
    std::vector<float> data = {0, 1, 2, 3, 4, 5};
    migraphx::argument a{shape{shape::float_type, {6}}, data.data()};
    auto r = v.compute(v.compute_shape({a.get_shape()}), {a});
    EXPECT_EQ(r.to_vector<float>(), (std::vector<float>{0, 2, 4, 1, 3, 5}));
    // a result layout that is not a permutation of a standard one is refused
    migraphx::cpu::gemm_op op;
    op.out_strides = {1, 4};
    EXPECT_THROW(migraphx::operation{op}.compute_shape({shape{shape::float_type, {4, 5}}, shape{shape::float_type, {5, 4}}}),
                 migraphx::exception);
    op.out_strides = {1, 4, 1};
    EXPECT_THROW(migraphx::operation{op}.compute_shape(
                     {shape{shape::float_type, {2, 4, 5}}, shape{shape::float_type, {2, 5, 4}}}),
                 migraphx::exception);
    op.out_strides = {4, 8, 1}; // {2, 4, 4}: batches interleaved between the rows
    auto s = migraphx::operation{op}.compute_shape({shape{shape::float_type, {2, 4, 5}}, shape{shape::float_type, {2, 5, 4}}});
    EXPECT_EQ(s.strides(), (std::vector<std::size_t>{4, 8, 1}));
}

TEST(cpu_gemm_op, a_saved_program_runs_the_same)
{
    MIGX_REQUIRE_CPU();
    own_gemm_env own;
    // packed weights, strided views and a permuted result survive a save and load
    for(auto p : {ffn(20, 16, 40), attention(9, 2, 16)})
    {
        p.compile(migraphx::get_target("cpu"));
        auto params = migx_test::generated_params(p);
        auto want   = p.eval(params).front().to_vector<float>();
        auto q      = migraphx::load_buffer(migraphx::save_buffer(p));
        auto got    = q.eval(params).front().to_vector<float>();
        EXPECT_EQ(got, want);
    }
}
TEST(cpu_gemm_op, onednn_matmul_where_it_runs_avx512)
{
    MIGX_REQUIRE_CPU();
    // the machine's choice and the forced one run the same products, each matching ref
    for(const char* choice : {static_cast<const char*>(nullptr), "onednn", "own"})
    {
        SCOPED_TRACE(choice == nullptr ? "default" : choice);
        migx_test::scoped_env e("MIGRAPHX_CPU_GEMM", choice);
        // 37 x 96 x 280 multiply-adds a product: past the small-product rule (2^18)
        auto cpu = migx_test::expect_cpu_matches_ref(ffn(37, 96, 280), 1e-4, 1e-4);
        auto own = migraphx::cpu::own_gemm_preferred();
        EXPECT_EQ(count(cpu, "cpu::gemm"), own ? 2u : 0u);
        EXPECT_EQ(count(cpu, "dnnl::matmul"), own ? 0u : 2u);
        if(choice != nullptr and std::string(choice) == "onednn")
        {
            EXPECT_FALSE(own);
        }
        if(choice == nullptr and dnnl::get_effective_cpu_isa() >= dnnl::cpu_isa::avx512_core)
        {
            EXPECT_FALSE(own);
        }
    }
    migx_test::scoped_env bad("MIGRAPHX_CPU_GEMM", "fast");
    EXPECT_THROW(migraphx::cpu::own_gemm_preferred(), migraphx::exception);
}

// Small products (an LSTM step's 1 x 128 x 512: oneDNN's call costs more than the product) take
// the own kernel wherever it runs, AVX-512 machines included; MIGRAPHX_CPU_GEMM=onednn keeps
// oneDNN for them.
TEST(cpu_gemm_op, small_products_take_the_own_kernel)
{
    MIGX_REQUIRE_CPU();
    if(migraphx::cpu::gemm_best_isa() != migraphx::cpu::gemm_isa::avx2)
        GTEST_SKIP() << "the own kernel needs AVX2 and FMA";
    for(const char* choice : {static_cast<const char*>(nullptr), "onednn"})
    {
        SCOPED_TRACE(choice == nullptr ? "default" : choice);
        migx_test::scoped_env e("MIGRAPHX_CPU_GEMM", choice);
        auto cpu       = migx_test::expect_cpu_matches_ref(ffn(1, 128, 512), 1e-4, 1e-4);
        bool forced_dnnl = choice != nullptr;
        EXPECT_EQ(count(cpu, "cpu::gemm"), forced_dnnl ? 0u : 2u);
        EXPECT_EQ(count(cpu, "dnnl::matmul"), forced_dnnl ? 2u : 0u);
    }
}
// Products of at most 16 rows stream their weights once: the own kernel (its L2 prefetch) takes
// them however large (GPT-2's 8 tokens, a classifier at batch 1); 17 rows of the same size stay
// on the machine's choice.
TEST(cpu_gemm_op, few_row_products_take_the_own_kernel)
{
    MIGX_REQUIRE_CPU();
    if(migraphx::cpu::gemm_best_isa() != migraphx::cpu::gemm_isa::avx2)
        GTEST_SKIP() << "the own kernel needs AVX2 and FMA";
    migx_test::scoped_env e("MIGRAPHX_CPU_GEMM", nullptr);
    auto own = migraphx::cpu::own_gemm_preferred();
    // 8 x 256 x 1024 multiply-adds: past the small-product rule (2^18)
    auto few = migx_test::expect_cpu_matches_ref(ffn(8, 256, 1024), 1e-4, 1e-4);
    EXPECT_EQ(count(few, "cpu::gemm"), 2u);
    auto more = migx_test::expect_cpu_matches_ref(ffn(17, 256, 1024), 1e-4, 1e-4);
    EXPECT_EQ(count(more, "cpu::gemm"), own ? 2u : 0u);
    migx_test::scoped_env d("MIGRAPHX_CPU_GEMM", "onednn");
    EXPECT_EQ(count(migx_test::expect_cpu_matches_ref(ffn(8, 256, 1024), 1e-4, 1e-4), "cpu::gemm"), 0u);
}
#endif
