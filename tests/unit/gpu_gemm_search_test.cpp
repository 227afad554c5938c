// gemm_search.hpp: cuBLASLt algorithms chosen by measurement. Without a device: the algorithm's
// text form, the switch (the fastest time is dnn::fastest's: gpu_cudnn_graph_test). On a device:
// a product's choice is measured once, written to the tuning cache, read back by the next compile (same bits), and
// MIGRAPHX_DISABLE_GEMM_SEARCH=1 measures nothing; results match ref either way; half products'
// kept candidates come within the accuracy limit of the exact result (gemm_reference.hpp).
#include <gtest/gtest.h>
#ifdef MIGRAPHX_HAVE_GPU
#include "gpu_test_util.hpp"
#include "scoped_env.hpp"
#include "serialize_test_util.hpp"
#include "targets/gpu/gemm_search.hpp"
#include "targets/gpu/tuning_cache.hpp"
#include <migraphx/instruction.hpp>
#include <migraphx/literal.hpp>
#include <migraphx/make_op.hpp>
#include <cstring>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;
using migraphx::shape;
using migx_test::scoped_env;
using migx_test::temp_dir;

TEST(gpu_gemm_search, algo_text_round_trip)
{
    cublasLtMatmulAlgo_t a{};
    unsigned char bytes[sizeof(a)];
    for(std::size_t i = 0; i < sizeof(a); i++)
        bytes[i] = static_cast<unsigned char>(i * 37 + 5);
    std::memcpy(&a, bytes, sizeof(a));
    auto t = migraphx::gpu::algo_text(a);
    EXPECT_EQ(t.size(), 128u);
    EXPECT_EQ(t.substr(0, 4), "052a");
    auto back = migraphx::gpu::algo_from_text(t);
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(std::memcmp(&*back, &a, sizeof(a)), 0);
}

TEST(gpu_gemm_search, algo_text_refuses_other_text)
{
    cublasLtMatmulAlgo_t a{};
    auto t = migraphx::gpu::algo_text(a);
    EXPECT_FALSE(migraphx::gpu::algo_from_text(t.substr(1)).has_value()) << "short";
    EXPECT_FALSE(migraphx::gpu::algo_from_text(t + "0").has_value()) << "long";
    auto upper = t;
    upper[3]   = 'G';
    EXPECT_FALSE(migraphx::gpu::algo_from_text(upper).has_value()) << "not a hex digit";
    EXPECT_FALSE(migraphx::gpu::algo_from_text("").has_value());
}

TEST(gpu_gemm_search, switch_follows_the_environment)
{
    {
        scoped_env e("MIGRAPHX_DISABLE_GEMM_SEARCH", nullptr);
        EXPECT_TRUE(migraphx::gpu::gemm_search_enabled());
    }
    {
        scoped_env e("MIGRAPHX_DISABLE_GEMM_SEARCH", "1");
        EXPECT_FALSE(migraphx::gpu::gemm_search_enabled());
    }
}

TEST(gpu_gemm_search, exhaustive_tune_measures_every_candidate_under_its_own_key)
{
    using migraphx::gpu::gemm_search_settings;
    scoped_env d("MIGRAPHX_GPU_GEMM_SEARCH_DATA", nullptr);
    {
        scoped_env n("MIGRAPHX_GPU_GEMM_CANDIDATES", nullptr);
        auto s = gemm_search_settings::from_env(true);
        EXPECT_EQ(s.candidates, gemm_search_settings::max_candidates);
        EXPECT_NE(s.key_suffix(), gemm_search_settings::from_env(false).key_suffix())
            << "a default search's choice must not stand in for an exhaustive one";
    }
    {
        scoped_env n("MIGRAPHX_GPU_GEMM_CANDIDATES", "4");
        EXPECT_EQ(gemm_search_settings::from_env(true).candidates, 4) << "the environment's count wins";
    }
}

// Without a problem to check (float products, or the check off) the fastest timed candidate is
// kept, ties in the heuristic's order, and nothing is run: no device needed.
TEST(gpu_gemm_search, keeps_the_fastest_timed_candidate_when_nothing_is_checked)
{
    migraphx::gpu::gemm_call call; // no problem: not a half product
    std::vector<cublasLtMatmulHeuristicResult_t> cands(4);
    std::vector<std::optional<migraphx::gpu::dnn::half_accuracy>> checked;
    auto keep = [&](std::vector<std::optional<double>> times, double limit = 2.0) {
        return migraphx::gpu::keep_gemm_candidate(call, cands, times, nullptr, limit, checked);
    };
    EXPECT_EQ(keep({0.3, 0.1, std::nullopt, 0.2}), 1u);
    EXPECT_EQ(keep({0.3, 0.1, 0.1, 0.2}), 1u) << "ties: the heuristic's order";
    EXPECT_EQ(keep({std::nullopt, std::nullopt, 0.5, std::nullopt}), 2u);
    EXPECT_EQ(keep({std::nullopt, std::nullopt, std::nullopt, std::nullopt}), 0u) << "none timed: the first";
    EXPECT_EQ(keep({0.3, 0.2, 0.1}), 2u) << "fewer times than candidates";
    EXPECT_EQ(checked.size(), cands.size());
    for(const auto& c : checked)
        EXPECT_FALSE(c.has_value()) << "nothing checked";
    call.problem = migraphx::gpu::dnn::gemm_problem{};
    EXPECT_EQ(keep({0.3, 0.1, 0.2, 0.4}, 0), 1u) << "a limit of 0: no check, no device call";
}

TEST(gpu_gemm_search, settings_follow_the_environment_and_name_themselves)
{
    using migraphx::gpu::gemm_search_settings;
    {
        scoped_env n("MIGRAPHX_GPU_GEMM_CANDIDATES", nullptr);
        scoped_env d("MIGRAPHX_GPU_GEMM_SEARCH_DATA", nullptr);
        auto s = gemm_search_settings::from_env();
        EXPECT_EQ(s.candidates, 8);
        EXPECT_FALSE(s.random_data);
        EXPECT_EQ(s.key_suffix(), "") << "the defaults keep the keys earlier caches hold";
    }
    {
        scoped_env n("MIGRAPHX_GPU_GEMM_CANDIDATES", "32");
        scoped_env d("MIGRAPHX_GPU_GEMM_SEARCH_DATA", "random");
        auto s = gemm_search_settings::from_env();
        EXPECT_EQ(s.candidates, 32);
        EXPECT_TRUE(s.random_data);
        EXPECT_EQ(s.key_suffix(), ", 32 candidates, random data");
    }
    {
        scoped_env n("MIGRAPHX_GPU_GEMM_CANDIDATES", "1000");
        EXPECT_EQ(gemm_search_settings::from_env().candidates, 64) << "capped";
    }
    for(const char* bad : {"0", "-3", "many"})
    {
        scoped_env n("MIGRAPHX_GPU_GEMM_CANDIDATES", bad);
        EXPECT_EQ(gemm_search_settings::from_env().candidates, 8) << bad;
    }
}

namespace {

/// x [96, 256] times constant weights [256, 320] plus a constant bias: one gpu::gemm with a bias
/// epilogue.
migraphx::program linear_program(shape::type_t t)
{
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{t, {96, 256}});
    std::vector<float> w(256 * 320), b(320);
    for(std::size_t i = 0; i < w.size(); i++)
        w[i] = static_cast<float>((i * 7919) % 97) / 97.0f - 0.5f;
    for(std::size_t i = 0; i < b.size(); i++)
        b[i] = static_cast<float>(i % 13) / 13.0f;
    auto wl = m->add_literal(migraphx::literal{shape{t, {256, 320}}, w});
    auto bl = m->add_literal(migraphx::literal{shape{t, {320}}, b});
    auto d  = m->add_instruction(migraphx::make_op("dot"), x, wl);
    auto bb = m->add_instruction(migraphx::make_op("multibroadcast", {{"out_lens", {96, 320}}}), bl);
    m->add_return({m->add_instruction(migraphx::make_op("add"), d, bb)});
    return p;
}

/// The tuning cache's entries for cuBLASLt algorithms in folder dir.
std::size_t gemm_entries(const fs::path& dir)
{
    std::size_t n = 0;
    std::error_code ec;
    if(not fs::is_directory(dir, ec))
        return 0;
    for(const auto& e : fs::directory_iterator(dir))
    {
        std::ifstream f(e.path(), std::ios::binary);
        std::ostringstream ss;
        ss << f.rdbuf();
        auto entry = migraphx::gpu::parse_tuning_file(ss.str());
        if(entry and entry->first.rfind("cublasLt algorithm", 0) == 0)
        {
            n++;
            EXPECT_TRUE(migraphx::gpu::algo_from_text(entry->second).has_value()) << e.path();
        }
    }
    return n;
}

} // namespace

TEST(gpu_gemm_search, measured_once_then_read_from_the_tuning_cache)
{
    MIGX_REQUIRE_GPU();
    temp_dir d;
    scoped_env dir("MIGRAPHX_GPU_CACHE_DIR", d.path.string().c_str());
    scoped_env on("MIGRAPHX_DISABLE_GEMM_SEARCH", nullptr);
    auto tdir = d.path / "tuning";
    for(auto t : {shape::half_type, shape::float_type})
    {
        migraphx::gpu::forget_tuning_choices();
        auto before = gemm_entries(tdir);
        auto p      = linear_program(t);
        auto params = migx_test::fresh_params(p);
        auto p1     = migx_test::expect_gpu_matches_ref(p, params, 2e-2, 2e-2);
        EXPECT_EQ(migx_test::occurrences(migx_test::text(p1), "gpu::gemm"), 1u);
        EXPECT_EQ(gemm_entries(tdir), before + 1) << "one product, one measured choice";
        auto want = p1.eval(params);

        // A new process's compile (choices forgotten): the algorithm from the disk, same bits.
        migraphx::gpu::forget_tuning_choices();
        auto s0 = migraphx::gpu::tuning_stats();
        auto p2 = p;
        migraphx::compile_options o;
        o.offload_copy = true;
        p2.compile(migraphx::get_target("gpu"), o);
        auto s1 = migraphx::gpu::tuning_stats();
        EXPECT_EQ(s1.writes, s0.writes) << "nothing measured again";
        EXPECT_GE(s1.hits, s0.hits + 1);
        migx_test::expect_bitwise_equal(p2.eval(params), want);
    }
    migraphx::gpu::forget_tuning_choices();
}

TEST(gpu_gemm_search, other_settings_measure_under_their_own_key)
{
    MIGX_REQUIRE_GPU();
    temp_dir d;
    scoped_env dir("MIGRAPHX_GPU_CACHE_DIR", d.path.string().c_str());
    scoped_env on("MIGRAPHX_DISABLE_GEMM_SEARCH", nullptr);
    migraphx::gpu::forget_tuning_choices();
    auto p      = linear_program(shape::half_type);
    auto params = migx_test::fresh_params(p);
    migx_test::expect_gpu_matches_ref(p, params, 2e-2, 2e-2);
    EXPECT_EQ(gemm_entries(d.path / "tuning"), 1u);
    {
        // Random data and 16 candidates: a search of its own, not the default's entry.
        scoped_env n("MIGRAPHX_GPU_GEMM_CANDIDATES", "16");
        scoped_env r("MIGRAPHX_GPU_GEMM_SEARCH_DATA", "random");
        migraphx::gpu::forget_tuning_choices();
        migx_test::expect_gpu_matches_ref(p, params, 2e-2, 2e-2);
        EXPECT_EQ(gemm_entries(d.path / "tuning"), 2u);
    }
    migraphx::gpu::forget_tuning_choices();
}

TEST(gpu_gemm_search, disabled_measures_nothing)
{
    MIGX_REQUIRE_GPU();
    temp_dir d;
    scoped_env dir("MIGRAPHX_GPU_CACHE_DIR", d.path.string().c_str());
    scoped_env off("MIGRAPHX_DISABLE_GEMM_SEARCH", "1");
    migraphx::gpu::forget_tuning_choices();
    auto p      = linear_program(shape::half_type);
    auto params = migx_test::fresh_params(p);
    migx_test::expect_gpu_matches_ref(p, params, 2e-2, 2e-2);
    EXPECT_EQ(gemm_entries(d.path / "tuning"), 0u);
    migraphx::gpu::forget_tuning_choices();
}

namespace {

/// The kept candidates' accuracy ratios in a MIGRAPHX_TRACE_GEMM_SEARCH trace (-1 where a kept
/// line has none), and how many lines were checked at all.
std::pair<std::vector<double>, std::size_t> kept_ratios(const std::string& trace)
{
    std::vector<double> kept;
    std::size_t checked = 0;
    std::istringstream in(trace);
    std::string line;
    while(std::getline(in, line))
    {
        auto e = line.find(", error ");
        checked += e != std::string::npos ? 1 : 0;
        if(line.find("(kept)") == std::string::npos)
            continue;
        kept.push_back(e == std::string::npos ? -1.0 : std::stod(line.substr(e + 8)));
    }
    return {kept, checked};
}

/// A half product a [rows, k] times b [k, cols] (b stored transposed where asked), maybe plus a
/// residual r [rows, cols]: one gpu::gemm.
migraphx::program half_product(std::size_t rows, std::size_t k, std::size_t cols, bool b_transposed, bool residual)
{
    migraphx::program p;
    auto* m = p.get_main_module();
    auto a  = m->add_parameter("a", shape{shape::half_type, {rows, k}});
    auto b  = b_transposed ? m->add_instruction(migraphx::make_op("transpose", {{"permutation", {1, 0}}}),
                                               m->add_parameter("bt", shape{shape::half_type, {cols, k}}))
                           : m->add_parameter("b", shape{shape::half_type, {k, cols}});
    auto d = m->add_instruction(migraphx::make_op("dot"), a, b);
    if(residual)
        d = m->add_instruction(migraphx::make_op("add"), d, m->add_parameter("r", shape{shape::half_type, {rows, cols}}));
    m->add_return({d});
    return p;
}

} // namespace

TEST(gpu_gemm_search, half_products_keep_a_candidate_within_the_accuracy_limit)
{
    MIGX_REQUIRE_GPU();
    temp_dir d;
    scoped_env dir("MIGRAPHX_GPU_CACHE_DIR", d.path.string().c_str());
    scoped_env on("MIGRAPHX_DISABLE_GEMM_SEARCH", nullptr);
    scoped_env limit("MIGRAPHX_GPU_ACCURACY_LIMIT", nullptr);
    scoped_env trace("MIGRAPHX_TRACE_GEMM_SEARCH", "1");
    struct product
    {
        std::size_t rows, k, cols;
        bool b_transposed, residual;
    };
    // BERT's linear layers' kinds, and a long thin product (large k) that invites split-K.
    for(auto pr : {product{96, 256, 320, false, false},
                   product{128, 768, 768, true, true},
                   product{64, 16384, 64, true, false},
                   product{32, 32768, 48, false, false}})
    {
        migraphx::gpu::forget_tuning_choices();
        auto p      = half_product(pr.rows, pr.k, pr.cols, pr.b_transposed, pr.residual);
        auto params = migx_test::fresh_params(p);
        testing::internal::CaptureStderr();
        migx_test::expect_gpu_matches_ref(p, params, 2e-2, 2e-2);
        auto out           = testing::internal::GetCapturedStderr();
        auto [kept, lines] = kept_ratios(out);
        std::string what   = std::to_string(pr.rows) + "x" + std::to_string(pr.k) + "x" + std::to_string(pr.cols);
        ASSERT_EQ(kept.size(), 1u) << what << ": one search\n" << out;
        EXPECT_GE(lines, 1u) << what;
        EXPECT_GE(kept[0], 0.99) << what << ": no better than one rounding\n" << out;
        EXPECT_LE(kept[0], 2.0) << what << ": within the default limit\n" << out;
        std::cout << "[ gemm check ] " << what << ": " << lines << " checked, kept at " << kept[0] << "x\n";
        if(lines > 1)
            std::cout << out;
    }
    migraphx::gpu::forget_tuning_choices();
}

TEST(gpu_gemm_search, a_bad_accuracy_limit_is_named)
{
    MIGX_REQUIRE_GPU();
    temp_dir d;
    scoped_env dir("MIGRAPHX_GPU_CACHE_DIR", d.path.string().c_str());
    scoped_env on("MIGRAPHX_DISABLE_GEMM_SEARCH", nullptr);
    scoped_env bad("MIGRAPHX_GPU_ACCURACY_LIMIT", "lots");
    migraphx::gpu::forget_tuning_choices();
    auto p = half_product(16, 64, 32, false, false);
    try
    {
        p.compile(migraphx::get_target("gpu"));
        ADD_FAILURE() << "compiled under a bad limit";
    }
    catch(const migraphx::exception& e)
    {
        EXPECT_NE(std::string(e.what()).find("MIGRAPHX_GPU_ACCURACY_LIMIT"), std::string::npos) << e.what();
    }
    migraphx::gpu::forget_tuning_choices();
}

#else
TEST(gpu_gemm_search, skipped) { GTEST_SKIP() << "built without CUDA"; }
#endif
