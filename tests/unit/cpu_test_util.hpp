#ifndef MIGX_TEST_CPU_TEST_UTIL_HPP
#define MIGX_TEST_CPU_TEST_UTIL_HPP

// Runs one program on ref and on cpu with the same generated inputs and compares the results.

#include <migraphx/program.hpp>
#include <migraphx/ref/target.hpp>
#include <migraphx/target.hpp>
#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>
#include <functional>
#include <string>

namespace migx_test {

inline bool have_cpu_target()
{
    auto t = migraphx::get_targets();
    return std::find(t.begin(), t.end(), "cpu") != t.end();
}

#define MIGX_REQUIRE_CPU()                                                                         \
    if(not migx_test::have_cpu_target())                                                           \
    GTEST_SKIP() << "this build has no cpu target (oneDNN not found)"

inline migraphx::parameter_map generated_params(const migraphx::program& p)
{
    migraphx::parameter_map m;
    unsigned long seed = 1;
    for(const auto& [name, s] : p.get_parameter_shapes())
        m[name] = migraphx::generate_argument(s, seed++);
    return m;
}

/// Compiles copies of p for ref and cpu, evaluates both, expects results within rtol/atol.
/// Returns the cpu-compiled program for further checks.
inline migraphx::program expect_cpu_matches_ref(const migraphx::program& p, double rtol = 1e-4, double atol = 1e-5)
{
    auto ref = p;
    auto cpu = p;
    ref.compile(migraphx::ref::target{});
    cpu.compile(migraphx::get_target("cpu"));
    auto params = generated_params(p);
    auto r1     = ref.eval(params);
    auto r2     = cpu.eval(params);
    EXPECT_EQ(r1.size(), r2.size());
    for(std::size_t i = 0; i < std::min(r1.size(), r2.size()); i++)
    {
        EXPECT_EQ(r1[i].get_shape().lens(), r2[i].get_shape().lens());
        auto a = r1[i].to_vector<double>();
        auto b = r2[i].to_vector<double>();
        EXPECT_EQ(a.size(), b.size());
        std::size_t bad = 0;
        std::string first_bad;
        for(std::size_t j = 0; j < std::min(a.size(), b.size()); j++)
        {
            if(std::abs(a[j] - b[j]) > atol + rtol * std::abs(a[j]))
            {
                if(bad == 0)
                    first_bad = "element " + std::to_string(j) + ": ref " + std::to_string(a[j]) + ", cpu " +
                                std::to_string(b[j]);
                bad++;
            }
        }
        EXPECT_EQ(bad, 0u) << "output " << i << ": " << bad << " of " << a.size() << " values differ (first: "
                           << first_bad << ")";
    }
    return cpu;
}

/// Names of the instructions of a module, in order, without @param/@literal.
inline std::vector<std::string> op_names(const migraphx::module& m)
{
    std::vector<std::string> r;
    for(auto it = m.begin(); it != m.end(); ++it)
        if(it->name().front() != '@' or it->name() == "@return")
            r.push_back(it->name());
    return r;
}

} // namespace migx_test

#endif
