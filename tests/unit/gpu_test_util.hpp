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
#include <string>

namespace migx_test {

inline bool have_gpu_target()
{
    auto t = migraphx::get_targets();
    return std::find(t.begin(), t.end(), "gpu") != t.end();
}

#define MIGX_REQUIRE_GPU()                                                                         \
    if(not migx_test::have_gpu_target())                                                           \
    GTEST_SKIP() << "no gpu target (built without CUDA, or no CUDA device present)"

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

/// Compiles copies of p for ref and gpu (both offload modes), runs them on the given host
/// inputs, expects results within rtol/atol; returns the offload_copy=true gpu program. With
/// offload_copy=false the inputs and outputs are device buffers the caller owns (outputs
/// poisoned first), which must give what offload_copy=true gives.
inline migraphx::program
expect_gpu_matches_ref(const migraphx::program& p, const migraphx::parameter_map& params, double rtol, double atol)
{
    auto ref    = p;
    ref.compile(migraphx::ref::target{});
    auto want = ref.eval(params);
    auto gt   = migraphx::get_target("gpu");

    auto on = p;
    migraphx::compile_options o;
    o.offload_copy = true;
    on.compile(gt, o);
    auto got = on.eval(params);
    EXPECT_EQ(got.size(), want.size());
    for(std::size_t i = 0; i < std::min(got.size(), want.size()); i++)
        expect_close(got[i], want[i], rtol, atol, "offload_copy=true output " + std::to_string(i));

    auto off = p;
    o.offload_copy = false;
    off.compile(gt, o);
    migraphx::parameter_map dev;
    for(const auto& [name, a] : params)
        dev[name] = gt.copy_to(a);
    for(const auto& [name, s] : off.get_outputs())
        dev[name] = gt.copy_to(nan_filled(s));
    auto res = off.eval(dev);
    EXPECT_EQ(res.size(), want.size());
    for(std::size_t i = 0; i < std::min(res.size(), want.size()); i++)
        expect_close(gt.copy_from(res[i]), want[i], rtol, atol, "offload_copy=false output " + std::to_string(i));
    return on;
}

/// As above, on fresh random inputs.
inline migraphx::program expect_gpu_matches_ref(const migraphx::program& p, double rtol = 1e-4, double atol = 1e-4)
{
    return expect_gpu_matches_ref(p, fresh_params(p), rtol, atol);
}

} // namespace migx_test

#endif
