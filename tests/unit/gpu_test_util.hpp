#ifndef MIGX_TEST_GPU_TEST_UTIL_HPP
#define MIGX_TEST_GPU_TEST_UTIL_HPP

// Runs one program on ref and on gpu (offload_copy true and false) with fresh random inputs and
// compares the results. Device output buffers are poisoned with NaN before each run, so an
// element the gpu never writes fails the comparison.

#include <migraphx/generate.hpp>
#include <migraphx/program.hpp>
#include <migraphx/ref/target.hpp>
#include <migraphx/target.hpp>
#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace migx_test {

inline bool have_gpu_target()
{
    auto t = migraphx::get_targets();
    return std::find(t.begin(), t.end(), "gpu") != t.end();
}

#define MIGX_REQUIRE_GPU()                                                                         \
    if(not migx_test::have_gpu_target())                                                           \
    GTEST_SKIP() << "no gpu target (built without CUDA, or no CUDA device present)"

/// n values of a normal distribution N(0, scale^2), seeded: weights and data of a fixed test.
inline std::vector<float> random_values(std::size_t n, unsigned seed, float scale)
{
    std::mt19937 gen(seed);
    std::normal_distribution<float> d(0.0f, scale);
    std::vector<float> v(n);
    for(auto& x : v)
        x = d(gen);
    return v;
}

inline migraphx::parameter_map fresh_params(const migraphx::program& p)
{
    static std::random_device rd;
    migraphx::parameter_map m;
    for(const auto& [name, s] : p.get_parameter_shapes())
        m[name] = migraphx::generate_argument(s, rd());
    return m;
}

inline migraphx::argument nan_filled(const migraphx::shape& s)
{
    migraphx::argument a{s};
    if(s.type() == migraphx::shape::float_type)
        std::fill_n(reinterpret_cast<float*>(a.data()), s.element_space(), std::numeric_limits<float>::quiet_NaN());
    else
        std::fill_n(a.data(), s.bytes(), static_cast<char>(0x7f)); // half: 0x7f7f is a NaN
    return a;
}

inline void expect_close(const migraphx::argument& got, const migraphx::argument& want, double rtol, double atol,
                         const std::string& what)
{
    ASSERT_EQ(got.get_shape().lens(), want.get_shape().lens()) << what;
    auto g = got.to_vector<double>();
    auto w = want.to_vector<double>();
    ASSERT_EQ(g.size(), w.size()) << what;
    std::size_t bad = 0;
    for(std::size_t i = 0; i < g.size(); i++)
    {
        bool same = (std::isnan(g[i]) and std::isnan(w[i])) or g[i] == w[i];
        if(not same and not(std::fabs(g[i] - w[i]) <= atol + rtol * std::fabs(w[i])))
        {
            if(bad++ < 5)
                ADD_FAILURE() << what << ": element " << i << " is " << g[i] << ", ref " << w[i];
        }
    }
    EXPECT_EQ(bad, 0u) << what << ": " << bad << " of " << g.size() << " elements differ";
}

/// Other values for the same inputs: floats mapped by 0.5 x + 0.25 (keeps an input inside
/// [-1, 1] or (0, 1] where a test chose such), integers (indices) kept.
inline migraphx::parameter_map other_values(const migraphx::parameter_map& params)
{
    migraphx::parameter_map r;
    for(const auto& [name, a] : params)
    {
        auto t = a.get_shape().type();
        if(t != migraphx::shape::float_type and t != migraphx::shape::half_type and t != migraphx::shape::double_type)
        {
            r[name] = a;
            continue;
        }
        migraphx::argument b{a.get_shape()};
        std::copy_n(a.data(), a.get_shape().bytes(), b.data());
        b.visit([](auto v) {
            using T = typename decltype(v)::value_type;
            for(std::size_t i = 0; i < v.size(); i++)
                v[i] = static_cast<T>(0.5 * static_cast<double>(v[i]) + 0.25);
        });
        r[name] = b;
    }
    return r;
}

/// Compiles copies of p for ref and gpu (both offload modes), runs them on the given host
/// inputs, expects results within rtol/atol; returns the offload_copy=true gpu program. With
/// offload_copy=false the inputs and outputs are device buffers the caller owns (outputs
/// poisoned first), which must give what offload_copy=true gives.
/// Each gpu program runs several times on two input sets (A, then other_values B), so that the
/// recorded and replayed runs (CUDA graphs: the first run is plain, later ones replay) are
/// checked as well as the first: a replay that computed nothing would leave the other set's
/// results behind.
inline migraphx::program
expect_gpu_matches_ref(const migraphx::program& p, const migraphx::parameter_map& params, double rtol, double atol)
{
    auto ref    = p;
    ref.compile(migraphx::ref::target{});
    auto params_b = other_values(params);
    auto want     = ref.eval(params);
    auto want_b   = ref.eval(params_b);
    auto gt   = migraphx::get_target("gpu");

    auto on = p;
    migraphx::compile_options o;
    o.offload_copy = true;
    on.compile(gt, o);
    const char* order = "ABAB";
    for(int run = 0; run < 4; run++)
    {
        bool a    = order[run] == 'A';
        auto got  = on.eval(a ? params : params_b);
        const auto& w = a ? want : want_b;
        EXPECT_EQ(got.size(), w.size());
        for(std::size_t i = 0; i < std::min(got.size(), w.size()); i++)
            expect_close(got[i], w[i], rtol, atol,
                         "offload_copy=true run " + std::to_string(run + 1) + " output " + std::to_string(i));
    }

    auto off = p;
    o.offload_copy = false;
    off.compile(gt, o);
    // Set 1: inputs A, outputs O1; set 2: inputs B, outputs O2; set 3: inputs B, outputs O1.
    migraphx::parameter_map in_a, in_b, out_1, out_2;
    for(const auto& [name, x] : params)
        in_a[name] = gt.copy_to(x);
    for(const auto& [name, x] : params_b)
        in_b[name] = gt.copy_to(x);
    for(const auto& [name, s] : off.get_outputs())
    {
        out_1[name] = gt.copy_to(nan_filled(s));
        out_2[name] = gt.copy_to(nan_filled(s));
    }
    auto set = [](migraphx::parameter_map in, const migraphx::parameter_map& out) {
        in.insert(out.begin(), out.end());
        return in;
    };
    std::vector<std::pair<migraphx::parameter_map, const std::vector<migraphx::argument>*>> runs = {
        {set(in_a, out_1), &want}, {set(in_b, out_2), &want_b}, {set(in_b, out_1), &want_b},
        {set(in_a, out_1), &want}, {set(in_b, out_1), &want_b}, {set(in_a, out_1), &want}};
    for(std::size_t run = 0; run < runs.size(); run++)
    {
        auto res      = off.eval(runs[run].first);
        const auto& w = *runs[run].second;
        EXPECT_EQ(res.size(), w.size());
        for(std::size_t i = 0; i < std::min(res.size(), w.size()); i++)
            expect_close(gt.copy_from(res[i]), w[i], rtol, atol,
                         "offload_copy=false run " + std::to_string(run + 1) + " output " + std::to_string(i));
    }
    return on;
}

/// As above, on fresh random inputs.
inline migraphx::program expect_gpu_matches_ref(const migraphx::program& p, double rtol = 1e-4, double atol = 1e-4)
{
    return expect_gpu_matches_ref(p, fresh_params(p), rtol, atol);
}

/// Input `name` of shape s with values drawn from `pool` at random (repeats: ties), as a test's input.
inline migraphx::parameter_map
drawn_from(const migraphx::shape& s, const std::vector<float>& pool, unsigned seed, const std::string& name = "x")
{
    std::mt19937 gen(seed);
    std::uniform_int_distribution<std::size_t> pick(0, pool.size() - 1);
    migraphx::argument a{s};
    a.visit([&](auto v) {
        using T = typename decltype(v)::value_type;
        for(std::size_t i = 0; i < v.size(); i++)
            v[i] = static_cast<T>(pool[pick(gen)]);
    });
    return {{name, a}};
}

/// The program as printed.
inline std::string text(const migraphx::program& p)
{
    std::ostringstream ss;
    ss << p;
    return ss.str();
}

/// How many times `what` occurs in `text` (ops of a kind in a printed program).
inline std::size_t occurrences(const std::string& text, const std::string& what)
{
    std::size_t n = 0;
    for(auto pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1))
        n++;
    return n;
}

} // namespace migx_test

#ifdef MIGRAPHX_HAVE_GPU
#include "passes/pass_manager.hpp"
#include "targets/gpu/lowering.hpp"
#include <sstream>

namespace migx_test {
/// The program's text after the gpu target's device-free passes (lowering included): what the
/// target makes of it, seen without a device (`sm`: the compute capability to lower for, as
/// passes_before_device takes it; 0, none known).
inline std::string lowered_for_gpu(migraphx::program p, int sm = 0)
{
    migraphx::run_passes(p, migraphx::gpu::passes_before_device(true, true, sm));
    std::ostringstream ss;
    ss << p;
    return ss.str();
}
} // namespace migx_test
#endif

#endif
