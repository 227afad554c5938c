#ifndef MIGRAPHX_CPU_OMP_REGION_HPP
#define MIGRAPHX_CPU_OMP_REGION_HPP

// OpenMP regions entered only when they run on more than one thread. `#pragma omp parallel
// if(false)` still starts a team of one in libgomp: about 0.33 us and a futex system call a
// region, which every small kernel paid (an LSTM step's gates: two calls a step). Work-sharing
// loops (`#pragma omp for`) inside a body run whole on the calling thread where it runs alone.

#include <cstdint>

namespace migraphx {
namespace cpu {

/// body() on an OpenMP team of `threads` (0: OpenMP's default) where `parallel`, else once on the
/// calling thread.
template <class F>
void omp_region(bool parallel, int threads, F&& body)
{
    if(not parallel)
    {
        body();
        return;
    }
    if(threads > 0)
    {
#pragma omp parallel num_threads(threads)
        body();
    }
    else
    {
#pragma omp parallel
        body();
    }
}

/// f(i) for i in [0, n), split statically over OpenMP's threads where `parallel`, else in order on
/// the calling thread.
template <class F>
void omp_for(bool parallel, std::int64_t n, F&& f)
{
    if(not parallel)
    {
        for(std::int64_t i = 0; i < n; i++)
            f(i);
        return;
    }
#pragma omp parallel for schedule(static)
    for(std::int64_t i = 0; i < n; i++)
        f(i);
}

} // namespace cpu
} // namespace migraphx

#endif
