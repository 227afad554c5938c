#ifndef MIGX_BENCH_UTIL_HPP
#define MIGX_BENCH_UTIL_HPP

// What the benchmark programs share: input values and a millisecond clock.
#include <migraphx/argument.hpp>
#include <migraphx/generate.hpp>
#include <migraphx/shape.hpp>
#include <chrono>

namespace migx_bench {

using clock_type = std::chrono::steady_clock;

inline double ms_since(clock_type::time_point t0)
{
    return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

/// Integer inputs (token ids, masks) get i % 100; float inputs pseudo-random values.
inline migraphx::argument make_input(const migraphx::shape& s, unsigned seed)
{
    if(migraphx::shape::is_integral(s.type()))
    {
        migraphx::argument a{s};
        a.visit([](auto v) {
            using T = typename decltype(v)::value_type;
            for(std::size_t i = 0; i < v.size(); i++)
                v[i] = static_cast<T>(static_cast<int>(i % 100));
        });
        return a;
    }
    return migraphx::generate_argument(s, seed);
}

} // namespace migx_bench

#endif
