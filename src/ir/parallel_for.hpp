#ifndef MIGRAPHX_IR_PARALLEL_FOR_HPP
#define MIGRAPHX_IR_PARALLEL_FOR_HPP
// Work split over the machine's cores with plain threads, for the core library's own loops (the
// reference ops, the .mxr checksum), which must not depend on the cpu target's OpenMP. The
// reference ops are also what the cpu and gpu targets run for ops sized by data (Mask R-CNN's
// mask head after its NMS), so their speed matters there.

#include <cstddef>
#include <functional>

namespace migraphx {

/// Threads for work on the host: MIGRAPHX_CPU_THREADS, else OMP_NUM_THREADS (a positive number),
/// else every hardware thread. The cpu target and parallel_for both use it.
std::size_t host_thread_count();

/// The threads parallel_for would use for n items of which each thread takes at least `grain`:
/// min(host_thread_count(), n / grain), at least 1.
std::size_t parallel_threads(std::size_t n, std::size_t grain);

/// Calls f(begin, end) over disjoint ranges covering [0, n), from up to parallel_threads(n, grain)
/// threads (the caller's among them), ranges taken in order as threads free up; returns when all
/// are done. The first exception thrown by f is rethrown here after every thread has stopped.
/// Where no thread can be started, the caller's thread does the work alone.
void parallel_for(std::size_t n, std::size_t grain, const std::function<void(std::size_t, std::size_t)>& f);

} // namespace migraphx

#endif
