// Reduction, softmax and pooling kernel sources (no device needed): NVRTC compiles each for sm_90,
// and the group size follows the row length. Results against ref: gpu_kernels_test.cpp, and here
// softmax's and layernorm's register path (rows contiguous, 16-byte vectors held in registers)
// against its generic loop on the device (skipped without one).
#include <gtest/gtest.h>
#include <limits>
#ifdef MIGRAPHX_HAVE_GPU
#include "gpu_test_util.hpp"
#include "scoped_env.hpp"
#include "targets/gpu/codegen.hpp"
#include "targets/gpu/kernel_compiler.hpp"
#include <migraphx/make_op.hpp>
#include <sstream>

using migraphx::shape;
namespace gpu = migraphx::gpu;

namespace {
void expect_compiles(const gpu::kernel_source& k)
{
    EXPECT_NO_THROW(gpu::compile_cuda(k.source, k.name, 9, 0)) << k.source;
}
} // namespace

TEST(gpu_codegen_reduce, reduce_kinds_and_group_sizes)
{
    for(std::string kind : {"sum", "mean", "max", "min", "prod"})
    {
        auto k = gpu::generate_reduce(kind, shape{shape::float_type, {4, 64, 9}}, shape{shape::float_type, {4, 1, 9}});
        ASSERT_TRUE(k.has_value()) << kind;
        EXPECT_EQ(k->name, "reduce_" + kind + "_kernel");
        EXPECT_EQ(k->elements, 36u * 32); // 64 per row: a warp per output
        expect_compiles(*k);
    }
    auto small = gpu::generate_reduce("sum", shape{shape::half_type, {8, 3}}, shape{shape::half_type, {8, 1}});
    ASSERT_TRUE(small.has_value());
    EXPECT_EQ(small->elements, 8u); // a thread per output
    expect_compiles(*small);
    auto big = gpu::generate_reduce("max", shape{shape::float_type, {3, 50, 40}}, shape{shape::float_type, {1, 1, 1}});
    ASSERT_TRUE(big.has_value());
    EXPECT_EQ(big->elements, 256u); // a block per output
    expect_compiles(*big);
    EXPECT_FALSE(gpu::generate_reduce("sum", shape{shape::int32_type, {4}}, shape{shape::int32_type, {1}}));
    EXPECT_FALSE(gpu::generate_reduce("median", shape{shape::float_type, {4}}, shape{shape::float_type, {1}}));
}

TEST(gpu_codegen_reduce, softmax_strided_input)
{
    shape in{shape::float_type, {6, 40}, {1, 6}};
    auto k = gpu::generate_softmax(false, 0, in, shape{shape::float_type, {6, 40}});
    ASSERT_TRUE(k.has_value());
    EXPECT_EQ(k->name, "softmax_kernel");
    EXPECT_EQ(k->elements, 40u); // rows of 6: a thread each
    expect_compiles(*k);
    // A transposed input whose row dims merge differently from the output's: one row digit set
    // must address both (this failed to compile once).
    auto t = gpu::generate_softmax(true, 1, shape{shape::float_type, {3, 9, 4}, {36, 1, 9}},
                                   shape{shape::float_type, {3, 9, 4}});
    ASSERT_TRUE(t.has_value());
    EXPECT_NE(t->source.find("obase = (o0 * 36u + o1 * 1u)"), std::string::npos) << t->source;
    expect_compiles(*t);
    auto l = gpu::generate_softmax(true, 1, shape{shape::half_type, {4, 3000}}, shape{shape::half_type, {4, 3000}});
    ASSERT_TRUE(l.has_value());
    // the register path's 128 lanes a row (3 vectors of 8 each) launch it; the generic loop
    // (a block a row) strides over the rows with that grid
    EXPECT_EQ(l->elements, 4u * 128);
    EXPECT_NE(l->source.find("constexpr unsigned G = 256;"), std::string::npos) << l->source;
    expect_compiles(*l);
}

TEST(gpu_codegen_reduce, pooling_modes)
{
    gpu::pooling_window w{"max", {3, 3}, {2, 2}, {1, 1}, 2};
    auto k = gpu::generate_pooling(w, shape{shape::float_type, {2, 8, 17, 17}}, shape{shape::float_type, {2, 8, 9, 9}});
    ASSERT_TRUE(k.has_value());
    EXPECT_EQ(k->name, "max_pooling_kernel");
    expect_compiles(*k);
    w.mode = "lpnorm";
    w.lp_order = 3;
    auto l = gpu::generate_pooling(w, shape{shape::half_type, {2, 8, 17, 17}}, shape{shape::half_type, {2, 8, 9, 9}});
    ASSERT_TRUE(l.has_value());
    expect_compiles(*l);
    gpu::pooling_window g{"average", {7, 7}, {1, 1}, {0, 0}, 2};
    auto a = gpu::generate_pooling(g, shape{shape::float_type, {2, 16, 7, 7}}, shape{shape::float_type, {2, 16, 1, 1}});
    ASSERT_TRUE(a.has_value());
    EXPECT_EQ(a->elements, 32u * 32);
    expect_compiles(*a);
    w.mode = "median";
    EXPECT_FALSE(gpu::generate_pooling(w, shape{shape::float_type, {2, 8, 17, 17}}, shape{shape::float_type, {2, 8, 9, 9}}));
}
namespace {

/// The register path's line, "" where the kernel has none.
std::string register_path(const gpu::kernel_source& k)
{
    auto c = k.source.find("// register path:");
    return c == std::string::npos ? "" : k.source.substr(c, k.source.find('\n', c) - c);
}

} // namespace

TEST(gpu_codegen_reduce, layernorm_register_path_by_row_length)
{
    // BERT-base's rows of 768 halves: a warp a row, 3 vectors of 8 a lane, 8 rows a block
    shape h768{shape::half_type, {64, 128, 768}};
    auto k = gpu::generate_layernorm(1e-12f, h768, h768);
    ASSERT_TRUE(k.has_value());
    EXPECT_EQ(register_path(*k), "// register path: a row a group of 32 lanes, 3 vector(s) of 8 a lane, held in "
                                 "registers, when x0 and y are 16-byte aligned")
        << k->source;
    EXPECT_EQ(k->elements, 8192u * 32);
    EXPECT_EQ(k->local, 256u);
    // half rows held packed (16-byte vectors), at most 40 registers a thread: 6 blocks an SM
    EXPECT_NE(k->source.find("w[j] = reinterpret_cast<const uint4*>(x0 + base)[c];"), std::string::npos) << k->source;
    EXPECT_NE(k->source.find("reinterpret_cast<uint4*>(y + obase)[c] = u.w;"), std::string::npos) << k->source;
    EXPECT_NE(k->source.find("__launch_bounds__(256, 6) layernorm_kernel"), std::string::npos) << k->source;
    // float rows in float registers, no register cap
    shape f768{shape::float_type, {64, 768}};
    auto kf = gpu::generate_layernorm(1e-12f, f768, f768);
    ASSERT_TRUE(kf.has_value());
    EXPECT_NE(kf->source.find("u.w = reinterpret_cast<const uint4*>(x0 + base)[c];"), std::string::npos);
    EXPECT_EQ(kf->source.find("__launch_bounds__"), std::string::npos);
    EXPECT_NE(k->source.find("for(idx_t e = lane; e < 768u; e += G)"), std::string::npos) << k->source; // generic
    expect_compiles(*k);
    struct row
    {
        shape::type_t t;
        std::size_t len;
        unsigned g, per_lane;
    };
    // up to a warp with a vector a lane, then 4 vectors a lane on as many lanes as that needs
    for(auto r : {row{shape::half_type, 1024, 32, 4}, row{shape::half_type, 4096, 128, 4},
                  row{shape::half_type, 8192, 256, 4}, row{shape::half_type, 800, 32, 4},
                  row{shape::half_type, 64, 8, 1}, row{shape::half_type, 8, 1, 1}, row{shape::half_type, 24, 4, 1},
                  row{shape::float_type, 768, 64, 3}, row{shape::float_type, 4096, 256, 4}})
    {
        shape s{r.t, {3, r.len}};
        auto kr = gpu::generate_layernorm(1e-5f, s, s);
        ASSERT_TRUE(kr.has_value());
        EXPECT_NE(register_path(*kr).find("a group of " + std::to_string(r.g) + " lanes, " +
                                          std::to_string(r.per_lane) + " vector(s)"),
                  std::string::npos)
            << r.len << ": " << register_path(*kr);
        EXPECT_EQ(kr->elements, 3u * r.g) << r.len;
        expect_compiles(*kr);
    }
}

TEST(gpu_codegen_reduce, layernorm_of_a_sum_and_float_out)
{
    // BERT's embeddings: the gathered rows plus a position table broadcast over the batch, then
    // the scale and shift; a half model's last layer norm writing float
    shape h768{shape::half_type, {64, 128, 768}};
    shape table{shape::half_type, {64, 128, 768}, {0, 768, 1}};
    shape col{shape::half_type, {64, 128, 768}, {0, 0, 1}};
    shape f768{shape::float_type, {64, 128, 768}};
    auto k = gpu::generate_layernorm(1e-12f, {h768, table}, h768, {col, col});
    ASSERT_TRUE(k.has_value());
    EXPECT_NE(k->source.find("reinterpret_cast<const uint4*>(x1 + base1)[c]"), std::string::npos) << k->source;
    EXPECT_NE(k->source.find("reinterpret_cast<const uint4*>(x2)[c]"), std::string::npos) << "the scale is x2";
    EXPECT_NE(k->source.find("x1[base1 + e * 1u]"), std::string::npos) << "the generic loop adds it too";
    expect_compiles(*k);
    auto kf = gpu::generate_layernorm(1e-12f, {h768, table}, f768, {col});
    ASSERT_TRUE(kf.has_value());
    EXPECT_NE(kf->source.find("float* __restrict__ y"), std::string::npos) << kf->source;
    EXPECT_NE(kf->source.find("reinterpret_cast<uint4*>(y + obase)[c * 2 + 1]"), std::string::npos) << kf->source;
    expect_compiles(*kf);
    // refused: an addend of another type or lens, half out of float rows, five addends
    shape f_in{shape::float_type, {64, 128, 768}};
    EXPECT_FALSE(gpu::generate_layernorm(1e-5f, {h768, f_in}, h768, {}).has_value());
    EXPECT_FALSE(gpu::generate_layernorm(1e-5f, {h768, shape{shape::half_type, {64, 128, 767}}}, h768, {}).has_value());
    EXPECT_FALSE(gpu::generate_layernorm(1e-5f, {f_in}, h768, {}).has_value());
    EXPECT_FALSE(gpu::generate_layernorm(1e-5f, {h768, h768, h768, h768, h768}, h768, {}).has_value());
    // an addend whose rows do not start on a 16-byte vector: the generic loop only
    shape odd{shape::half_type, {64, 128, 768}, {0, 772, 1}};
    auto ko = gpu::generate_layernorm(1e-5f, {h768, odd}, h768, {});
    ASSERT_TRUE(ko.has_value());
    EXPECT_EQ(ko->source.find("register path"), std::string::npos);
}

TEST(gpu_codegen_reduce, layernorm_blocks_from_env)
{
    // MIGRAPHX_GPU_LAYERNORM_BLOCKS: the register cap (default 6 blocks of 40 registers; 8 of 32
    // spills with a scale and shift), 0 without a bound; anything else is an error naming it.
    shape h768{shape::half_type, {64, 128, 768}};
    shape col{shape::half_type, {64, 128, 768}, {0, 0, 1}};
    {
        migx_test::scoped_env e("MIGRAPHX_GPU_LAYERNORM_BLOCKS", nullptr);
        auto k = gpu::generate_layernorm(1e-12f, h768, h768, {col, col});
        ASSERT_TRUE(k.has_value());
        EXPECT_NE(k->source.find("__launch_bounds__(256, 6) layernorm_kernel"), std::string::npos) << k->source;
    }
    {
        migx_test::scoped_env e("MIGRAPHX_GPU_LAYERNORM_BLOCKS", "8");
        auto k = gpu::generate_layernorm(1e-12f, h768, h768, {col, col});
        ASSERT_TRUE(k.has_value());
        EXPECT_NE(k->source.find("__launch_bounds__(256, 8) layernorm_kernel"), std::string::npos) << k->source;
        expect_compiles(*k);
    }
    {
        migx_test::scoped_env e("MIGRAPHX_GPU_LAYERNORM_BLOCKS", "6");
        auto k = gpu::generate_layernorm(1e-12f, h768, h768, {col, col});
        ASSERT_TRUE(k.has_value());
        EXPECT_NE(k->source.find("__launch_bounds__(256, 6) layernorm_kernel"), std::string::npos) << k->source;
        expect_compiles(*k);
    }
    {
        migx_test::scoped_env e("MIGRAPHX_GPU_LAYERNORM_BLOCKS", "0");
        auto k = gpu::generate_layernorm(1e-12f, h768, h768);
        ASSERT_TRUE(k.has_value());
        EXPECT_EQ(k->source.find("__launch_bounds__"), std::string::npos) << k->source;
    }
    for(const char* bad : {"eight", "-1", "33", "6x"})
    {
        migx_test::scoped_env e("MIGRAPHX_GPU_LAYERNORM_BLOCKS", bad);
        try
        {
            gpu::generate_layernorm(1e-12f, h768, h768);
            ADD_FAILURE() << bad << " was accepted";
        }
        catch(const migraphx::exception& ex)
        {
            EXPECT_NE(std::string(ex.what()).find("MIGRAPHX_GPU_LAYERNORM_BLOCKS"), std::string::npos) << ex.what();
        }
    }
}

TEST(gpu_codegen_reduce, layernorm_scale_and_shift_in_the_same_kernel)
{
    // BERT's trained LayerNorm weights: one value a column, broadcast over the rows
    shape h768{shape::half_type, {64, 128, 768}}, col{shape::half_type, {64, 128, 768}, {0, 0, 1}};
    auto k = gpu::generate_layernorm(1e-12f, h768, h768, {col, col});
    ASSERT_TRUE(k.has_value());
    // read as 16-byte vectors on the register path (their pointers checked for alignment too)
    EXPECT_NE(k->source.find("a1.w = reinterpret_cast<const uint4*>(x1)[c];"), std::string::npos) << k->source;
    EXPECT_NE(k->source.find("a2.w = reinterpret_cast<const uint4*>(x2)[c];"), std::string::npos) << k->source;
    EXPECT_NE(k->source.find("| (unsigned long long)(const void*)x1 | (unsigned long long)(const void*)x2)"),
              std::string::npos)
        << k->source;
    EXPECT_NE(k->source.find("u.e[k] = f2h((((h2f(p.e[k]) - m) * r * h2f(a1.e[k])) + h2f(a2.e[k])));"),
              std::string::npos)
        << k->source;
    // and element by element on the generic path
    EXPECT_NE(k->source.find("* r * h2f(x1[e * 1u])) + h2f(x2[e * 1u])"), std::string::npos) << k->source;
    expect_compiles(*k);
    // a scale alone; a scale read at a stride of 2 (no vectors: element by element on both paths)
    shape f{shape::float_type, {4, 256}}, fcol{shape::float_type, {4, 256}, {0, 1}},
        f2{shape::float_type, {4, 256}, {0, 2}};
    auto ks = gpu::generate_layernorm(1e-5f, f, f, {fcol});
    ASSERT_TRUE(ks.has_value());
    EXPECT_EQ(ks->source.find("x2"), std::string::npos);
    expect_compiles(*ks);
    auto kt = gpu::generate_layernorm(1e-5f, f, f, {f2, fcol});
    ASSERT_TRUE(kt.has_value());
    EXPECT_NE(kt->source.find("x1[(c * 4u + k) * 2u]"), std::string::npos) << kt->source;
    expect_compiles(*kt);
    // not along the last axis, or another type: no kernel
    EXPECT_FALSE(gpu::generate_layernorm(1e-5f, f, f, {shape{shape::float_type, {4, 256}, {1, 0}}}).has_value());
    EXPECT_FALSE(gpu::generate_layernorm(1e-5f, f, f, {col}).has_value());
}

TEST(gpu_codegen_reduce, layernorm_writes_an_e4m3_copy_after_its_result)
{
    // BERT under quantize_fp8: the norm (half, for the residual) and its cast for the next
    // products (e4m3, times 1 / the activation's scale) from one kernel, the copy after the norm
    shape h768{shape::half_type, {64, 128, 768}}, col{shape::half_type, {64, 128, 768}, {0, 0, 1}};
    auto k = gpu::generate_layernorm(1e-12f, {h768}, h768, {col, col}, 0.25f);
    ASSERT_TRUE(k.has_value());
    EXPECT_EQ(k->name, "layernorm_e4m3_kernel");
    EXPECT_NE(k->source.find("migx_fp8* const y8 = reinterpret_cast<migx_fp8*>(y + 6291456u);"), std::string::npos)
        << k->source;
    EXPECT_NE(k->source.find("f2f8(float f)"), std::string::npos) << "the fp8 helpers: " << k->source;
    // the register path: the 8 halves a lane stores, as 8 bytes of e4m3; y8 aligned too
    EXPECT_NE(k->source.find("reinterpret_cast<uint4*>(y + obase)[c] = u.w;"), std::string::npos) << k->source;
    EXPECT_NE(k->source.find("reinterpret_cast<uint2*>(y8 + obase)[c] = q.w;"), std::string::npos) << k->source;
    EXPECT_NE(k->source.find("| (unsigned long long)(const void*)y8)"), std::string::npos) << k->source;
    EXPECT_NE(k->source.find("q.e[k] = f2f8(h2f(h) * __int_as_float(0x3e800000));"), std::string::npos) << k->source;
    // the generic loop: the stored half, then its copy
    EXPECT_NE(k->source.find("y8[obase + e * 1u] = f2f8(h2f(h) * __int_as_float(0x3e800000));"), std::string::npos) << k->source;
    EXPECT_NE(k->source.find("__launch_bounds__(256, 6) layernorm_e4m3_kernel"), std::string::npos) << k->source;
    expect_compiles(*k);
    // rows that are no vectors: the generic loop alone, still with the copy
    shape h770{shape::half_type, {3, 770}};
    auto g = gpu::generate_layernorm(1e-5f, {h770}, h770, {}, 2.0f);
    ASSERT_TRUE(g.has_value());
    EXPECT_EQ(g->source.find("register path"), std::string::npos);
    EXPECT_NE(g->source.find("y8[obase + e * 1u] = f2f8(h2f(h) * __int_as_float(0x40000000));"), std::string::npos) << g->source;
    expect_compiles(*g);
    // refused: float rows or a float result, a scale that is no positive finite number
    shape f768{shape::float_type, {64, 128, 768}};
    EXPECT_FALSE(gpu::generate_layernorm(1e-5f, {f768}, f768, {}, 1.0f).has_value());
    EXPECT_FALSE(gpu::generate_layernorm(1e-5f, {h768}, f768, {}, 1.0f).has_value());
    for(float bad : {0.0f, -1.0f, std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()})
        EXPECT_FALSE(gpu::generate_layernorm(1e-5f, {h768}, h768, {}, bad).has_value()) << bad;
}

TEST(gpu_codegen_reduce, generic_path_only_where_rows_are_no_vectors)
{
    auto generic = [](const std::optional<gpu::kernel_source>& k) {
        return k.has_value() and register_path(*k).empty() and k->source.find("group_reduce<G>") != std::string::npos;
    };
    shape h{shape::half_type, {3, 770}}; // 770: no multiple of 8 (but of 2)
    EXPECT_TRUE(generic(gpu::generate_layernorm(1e-5f, h, h)));
    shape f{shape::float_type, {3, 772}}; // 772 floats: vectors of 4
    EXPECT_FALSE(generic(gpu::generate_layernorm(1e-5f, f, f)));
    // a slice of rows 772 apart: row starts no multiple of 8 halves; 776 apart: they are (the
    // pointer is checked at run time)
    shape out{shape::half_type, {3, 768}};
    EXPECT_TRUE(generic(gpu::generate_layernorm(1e-5f, shape{shape::half_type, {3, 768}, {772, 1}}, out)));
    auto s776 = gpu::generate_layernorm(1e-5f, shape{shape::half_type, {3, 768}, {776, 1}}, out);
    ASSERT_TRUE(s776.has_value());
    EXPECT_FALSE(register_path(*s776).empty());
    // a transposed input; rows past 8192 halves (256 lanes of 4 vectors)
    shape t16{shape::half_type, {64, 16}}, l16k{shape::half_type, {2, 16384}};
    EXPECT_TRUE(generic(gpu::generate_layernorm(1e-5f, shape{shape::half_type, {64, 16}, {1, 64}}, t16)));
    EXPECT_TRUE(generic(gpu::generate_layernorm(1e-5f, l16k, l16k)));
    // softmax along an axis the output does not hold contiguously, or the input does not
    shape s{shape::half_type, {16, 8}};
    EXPECT_TRUE(generic(gpu::generate_softmax(false, 0, s, s)));
    EXPECT_TRUE(generic(gpu::generate_softmax(false, 0, shape{shape::half_type, {16, 8}, {1, 16}}, s)));
    EXPECT_TRUE(generic(gpu::generate_softmax(false, 1, shape{shape::half_type, {16, 8}, {1, 16}}, s)));
}

TEST(gpu_codegen_reduce, softmax_register_path_keeps_the_exps)
{
    // BERT's attention scores: rows of 128 halves, 16 lanes a row (one vector each)
    shape s{shape::half_type, {64, 12, 128, 128}};
    auto k = gpu::generate_softmax(false, 3, s, s);
    ASSERT_TRUE(k.has_value());
    EXPECT_NE(register_path(*k).find("a group of 16 lanes, 1 vector(s) of 8"), std::string::npos) << k->source;
    EXPECT_EQ(k->elements, 64u * 12 * 128 * 16);
    EXPECT_NE(k->source.find("v[j][k] = expf(v[j][k] - m);"), std::string::npos) << k->source;
    EXPECT_NE(k->source.find("u.e[k] = f2h(v[j][k] * rs);"), std::string::npos) << k->source;
    expect_compiles(*k);
    auto l = gpu::generate_softmax(true, 1, shape{shape::float_type, {4, 3000}}, shape{shape::float_type, {4, 3000}});
    ASSERT_TRUE(l.has_value());
    EXPECT_NE(register_path(*l).find("a group of 256 lanes, 3 vector(s) of 4"), std::string::npos) << l->source;
    EXPECT_NE(l->source.find("u.e[k] = (v[j][k] - m) - ls;"), std::string::npos) << l->source;
    expect_compiles(*l);
}

namespace {

using migx_test::text;

/// op (layernorm, softmax or logsoftmax along the last axis) of a view of x: columns
/// [start, start + len) of rows `stride` long, against ref; `kernel` must run it.
void check_rows(const std::string& op, shape::type_t t, std::size_t rows, std::size_t stride, std::size_t start,
                std::size_t len, double rtol, double atol)
{
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{t, {rows, stride}});
    auto sl = migraphx::make_op("slice", {{"axes", {1}}, {"starts", {start}}, {"ends", {start + len}}});
    auto v  = start == 0 and len == stride ? x : m->add_instruction(sl, x);
    migraphx::value a = op == "layernorm" ? migraphx::value{{"epsilon", 1e-5f}} : migraphx::value{{"axis", -1}};
    m->add_return({m->add_instruction(migraphx::make_op(op, a), v)});
    auto g  = migx_test::expect_gpu_matches_ref(p, rtol, atol);
    auto tx = text(g);
    EXPECT_EQ(tx.find("gpu::ref::"), std::string::npos) << tx;
    EXPECT_NE(tx.find("symbol_name=" + op + "_kernel,"), std::string::npos) << tx;
}

} // namespace

TEST(gpu_codegen_reduce, layernorm_rows_on_the_device)
{
    MIGX_REQUIRE_GPU();
    for(auto t : {shape::half_type, shape::float_type})
    {
        double tol = t == shape::half_type ? 2e-3 : 1e-4; // gpu_fuse_layernorm_test: 1e-4 in float
        for(std::size_t len : {768, 1024, 4096, 800, 24, 8})
            check_rows("layernorm", t, 37, len, 0, len, tol, tol); // 37 rows: a block's last rows idle
        check_rows("layernorm", t, 5, 770, 0, 770, tol, tol);       // generic: no vectors
        check_rows("layernorm", t, 5, 776, 8, 768, tol, tol);       // register path of a slice
        check_rows("layernorm", t, 5, 776, 1, 768, tol, tol);       // ... misaligned: the generic loop
        check_rows("layernorm", t, 5, 772, 0, 768, tol, tol);       // rows 772 apart: generic
    }
}

TEST(gpu_codegen_reduce, softmax_rows_on_the_device)
{
    MIGX_REQUIRE_GPU();
    for(auto t : {shape::half_type, shape::float_type})
    {
        // softmax's small values: relative (one half rounding), absolute only below half's normals
        double rtol = t == shape::half_type ? 1e-3 : 1e-5;
        for(std::string op : {"softmax", "logsoftmax"})
        {
            double atol = op == "softmax" ? 1e-7 : rtol;
            for(std::size_t len : {128, 768, 1024, 4096, 24})
                check_rows(op, t, 37, len, 0, len, rtol, atol);
            check_rows(op, t, 5, 1004, 0, 1004, rtol, atol); // half: generic; float: vectors of 4
            check_rows(op, t, 5, 136, 1, 128, rtol, atol);   // misaligned: the generic loop
            check_rows(op, t, 5, 136, 8, 128, rtol, atol);
        }
    }
}
#else
TEST(gpu_codegen_reduce, skipped) { GTEST_SKIP() << "built without CUDA"; }
#endif
