// The gpu target's compile options (target.cpp, context.hpp): tf32 and exhaustive_tune reach the
// context at compile and at a saved program's load; float products round as TF32 only with tf32
// and convolutions are searched with TF32 allowed; an exhaustive search keeps its choices under
// keys of its own.
#include <gtest/gtest.h>
#ifdef MIGRAPHX_HAVE_GPU
#include "gpu_test_util.hpp"
#include "scoped_env.hpp"
#include "targets/gpu/context.hpp"
#include "targets/gpu/tuning_cache.hpp"
#include <migraphx/literal.hpp>
#include <migraphx/load_save.hpp>
#include <migraphx/make_op.hpp>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;
using migraphx::make_op;
using migraphx::shape;
using migx_test::scoped_env;
using migx_test::temp_dir;

namespace {

migraphx::compile_options options(bool tf32, bool exhaustive)
{
    migraphx::compile_options o;
    o.offload_copy    = true;
    o.tf32            = tf32;
    o.exhaustive_tune = exhaustive;
    return o;
}

/// A float product [256, 1024] x [1024, 256] and a 3x3 convolution of 256 channels over 28x28:
/// enough work that cuDNN's and cuBLASLt's fastest choice with TF32 allowed is a tensor-core one
/// (a small convolution's fastest may be an FMA kernel either way).
migraphx::program float_products()
{
    migraphx::program p;
    auto* m = p.get_main_module();
    auto a  = m->add_parameter("a", shape{shape::float_type, {256, 1024}});
    auto b  = m->add_parameter("b", shape{shape::float_type, {1024, 256}});
    auto x  = m->add_parameter("x", shape{shape::float_type, {4, 256, 28, 28}});
    auto w  = m->add_parameter("w", shape{shape::float_type, {256, 256, 3, 3}});
    auto d  = m->add_instruction(make_op("dot"), a, b);
    auto c  = m->add_instruction(make_op("convolution", {{"padding", {1, 1}}}), x, w);
    m->add_return({d, c});
    return p;
}

/// An argument of shape s holding v everywhere.
migraphx::argument filled(const shape& s, float v)
{
    migraphx::argument r{s};
    std::fill_n(reinterpret_cast<float*>(r.data()), s.elements(), v);
    return r;
}

/// The keys of the tuning cache's entries in folder dir.
std::vector<std::string> tuning_keys(const fs::path& dir)
{
    std::vector<std::string> keys;
    std::error_code ec;
    if(not fs::is_directory(dir, ec))
        return keys;
    for(const auto& e : fs::directory_iterator(dir))
    {
        std::ifstream f(e.path(), std::ios::binary);
        std::ostringstream ss;
        ss << f.rdbuf();
        if(auto entry = migraphx::gpu::parse_tuning_file(ss.str()))
            keys.push_back(entry->first);
    }
    return keys;
}

std::size_t count_containing(const std::vector<std::string>& keys, const std::string& what)
{
    return std::count_if(keys.begin(), keys.end(), [&](const auto& k) { return k.find(what) != std::string::npos; });
}

} // namespace

TEST(gpu_compile_options, float_tf32_follows_the_option_and_the_environment)
{
    migraphx::gpu::gpu_context g; // no device needed: nothing is opened
    {
        scoped_env e("MIGRAPHX_GPU_TF32", nullptr);
        EXPECT_FALSE(g.float_tf32());
        g.tf32 = true;
        EXPECT_TRUE(g.float_tf32());
        g.tf32 = false;
    }
    scoped_env e("MIGRAPHX_GPU_TF32", "1");
    EXPECT_TRUE(g.float_tf32()) << "the environment variable still turns it on";
}

TEST(gpu_compile_options, the_options_reach_the_context_at_compile_and_at_load)
{
    MIGX_REQUIRE_GPU();
    for(bool on : {false, true})
    {
        migraphx::program p;
        auto* m = p.get_main_module();
        m->add_return({m->add_instruction(make_op("relu"), m->add_parameter("x", shape{shape::float_type, {4}}))});
        p.compile(migraphx::get_target("gpu"), options(on, on));
        const auto& g = migraphx::gpu::get_gpu_context(p.get_context());
        EXPECT_EQ(g.tf32, on);
        EXPECT_EQ(g.exhaustive_tune, on);
        auto q         = migraphx::load_buffer(migraphx::save_buffer(p));
        const auto& lg = migraphx::gpu::get_gpu_context(q.get_context());
        EXPECT_EQ(lg.tf32, on) << "a loaded program keeps its compile's math";
        EXPECT_EQ(lg.exhaustive_tune, on);
    }
}

TEST(gpu_compile_options, float_products_round_as_tf32_and_convolutions_may_only_with_the_option)
{
    MIGX_REQUIRE_GPU();
    scoped_env e("MIGRAPHX_GPU_TF32", nullptr);
    temp_dir d;
    scoped_env dir("MIGRAPHX_GPU_CACHE_DIR", d.path.string().c_str());
    migraphx::gpu::forget_tuning_choices();
    auto p = float_products();
    // Data (1 + 2^-12) times weights 1: every product is exact in FP32, and every sum too (at most
    // 2304 terms: 12 + 12 bits) but for an algorithm's own rounding, while TF32 keeps 10 bits of
    // mantissa and reads the data as 1: a TF32 sum is 2^-12 (~2.4e-4) smaller.
    const float data = 1.0f + 1.0f / 4096.0f;
    migraphx::parameter_map params;
    for(const auto& [name, s] : p.get_parameter_shapes())
        params[name] = filled(s, name == "a" or name == "x" ? data : 1.0f);
    std::vector<std::vector<migraphx::argument>> got;
    for(bool tf32 : {false, true})
    {
        auto q = p;
        q.compile(migraphx::get_target("gpu"), options(tf32, false));
        got.push_back(q.eval(params));
        ASSERT_EQ(got.back().size(), 2u);
    }
    for(std::size_t i = 0; i < 2; i++)
    {
        auto what = std::string(i == 0 ? "dot" : "convolution");
        auto f    = got[0][i].to_vector<double>();
        auto t    = got[1][i].to_vector<double>();
        // (within 1e-6: a Winograd or FFT algorithm rounds its transforms)
        if(i == 0)
        {
            EXPECT_NEAR(f.front(), 1024.0 * data, 1024e-6) << "dot in FP32";
        }
        else
        {
            EXPECT_NEAR(f[28 * 28 + 28 + 1], 2304.0 * data, 2304e-6) << "convolution in FP32: an inner pixel";
        }
        double smallest = 1, largest = 0;
        for(std::size_t k = 0; k < f.size(); k++)
        {
            auto rel = (f[k] - t[k]) / f[k];
            smallest = std::min(smallest, rel);
            largest  = std::max(largest, rel);
        }
        EXPECT_LT(largest, 3e-4) << what << " with tf32: off by more than TF32's rounding";
        // cuBLASLt's TF32 compute type always rounds; cuDNN, allowed TF32, keeps the fastest of
        // its algorithms, which for this problem on an H100 was an FP32 one (1.96e-5 off with
        // random data): there, what the option changes is the search (its key, and the
        // algorithms it may pick: ResNet-50 b32 fp32 2.3x faster, bench/results).
        if(i == 0)
        {
            EXPECT_GT(smallest, 2e-4) << "dot with tf32: no TF32 rounding seen; the option had no effect";
        }
    }
    auto keys = tuning_keys(d.path / "tuning");
    EXPECT_GE(count_containing(keys, "tf32 0"), 1u) << "the FP32 convolution's search";
    EXPECT_GE(count_containing(keys, "tf32 1"), 1u) << "the convolution searched again with TF32 allowed";
    migraphx::gpu::forget_tuning_choices();
}

TEST(gpu_compile_options, an_exhaustive_search_keeps_its_choices_under_keys_of_its_own)
{
    MIGX_REQUIRE_GPU();
    temp_dir d;
    scoped_env dir("MIGRAPHX_GPU_CACHE_DIR", d.path.string().c_str());
    scoped_env on("MIGRAPHX_DISABLE_GEMM_SEARCH", nullptr);
    scoped_env n("MIGRAPHX_GPU_GEMM_CANDIDATES", nullptr);
    // A half product and a half convolution with constant weights (the engine search's case).
    migraphx::program p;
    auto* m = p.get_main_module();
    auto a  = m->add_parameter("a", shape{shape::half_type, {128, 256}});
    auto x  = m->add_parameter("x", shape{shape::half_type, {1, 32, 16, 16}});
    std::vector<float> bw(256 * 128), cw(32 * 32 * 9);
    for(std::size_t i = 0; i < bw.size(); i++)
        bw[i] = static_cast<float>((i * 7919) % 97) / 97.0f - 0.5f;
    for(std::size_t i = 0; i < cw.size(); i++)
        cw[i] = static_cast<float>((i * 104729) % 89) / 89.0f - 0.5f;
    auto b = m->add_literal(migraphx::literal{shape{shape::half_type, {256, 128}}, bw});
    auto w = m->add_literal(migraphx::literal{shape{shape::half_type, {32, 32, 3, 3}}, cw});
    m->add_return({m->add_instruction(make_op("dot"), a, b),
                   m->add_instruction(make_op("convolution", {{"padding", {1, 1}}}), x, w)});
    auto params = migx_test::fresh_params(p);
    auto tdir   = d.path / "tuning";

    migraphx::gpu::forget_tuning_choices();
    auto q = p;
    q.compile(migraphx::get_target("gpu"), options(false, false));
    auto plain = tuning_keys(tdir);
    EXPECT_EQ(count_containing(plain, "64 candidates"), 0u);
    EXPECT_EQ(count_containing(plain, "candidates 1000+1000"), 0u);

    migraphx::gpu::forget_tuning_choices();
    auto ex = p;
    ex.compile(migraphx::get_target("gpu"), options(false, true));
    auto keys = tuning_keys(tdir);
    EXPECT_EQ(count_containing(keys, "cublasLt algorithm"), count_containing(plain, "cublasLt algorithm") + 1)
        << "the product measured again, under its own key";
    EXPECT_EQ(count_containing(keys, "64 candidates"), 1u);
    EXPECT_EQ(count_containing(keys, "cudnn graph engine (candidates 1000+1000"), 1u);
    migraphx::gpu::forget_tuning_choices();

    auto r = p;
    r.compile(migraphx::get_target("ref"));
    auto want = r.eval(params);
    auto got  = ex.eval(params);
    for(std::size_t i = 0; i < 2; i++)
        migx_test::expect_close(got[i], want[i], 2e-2, 2e-2, "exhaustive output " + std::to_string(i));
}

#else
TEST(gpu_compile_options, skipped) { GTEST_SKIP() << "built without CUDA"; }
#endif
