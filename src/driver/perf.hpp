#ifndef MIGRAPHX_DRIVER_PERF_HPP
#define MIGRAPHX_DRIVER_PERF_HPP

#include <migraphx/program.hpp>
#include <cstddef>
#include <iosfwd>

namespace migraphx {
namespace driver {

/// The spec's performance report (chapter 8) for a compiled program:
///  - Total time: median of n timed program::eval runs (after one warm-up run), with the
///    min, median and max of those runs;
///  - each instruction's time: the main module evaluated one instruction at a time with
///    ctx.finish() after each, n times; the average is the mean of the middle half of the n
///    times (fastest and slowest quarters dropped), and its % is of Total instructions time;
///  - Summary: those averages summed per op (gpu::code_object per kernel symbol), sorted;
///  - Overhead time: the same walk n times without running any instruction (first figure), and
///    Total time - Total instructions time (second); Overhead: both as % of Total time.
///  - Rate = 1000 / Total time * batch.
/// graph_replay: whether p's runs replay as a CUDA graph (a note then explains why the instruction
/// times add up to more than a run).
void perf_report(std::ostream& os,
                 const program& p,
                 const parameter_map& params,
                 std::size_t n,
                 std::size_t batch,
                 bool graph_replay = false);

/// The host's side of a run (perf --enqueue-times): the main module evaluated one instruction at a
/// time, each timed from its start until it returns without waiting for the device after it (a
/// kernel's launch; an op that reads results back waits there), then one wait for the device, n
/// times. Prints "Enqueue summary:" (the middle-half means summed per op, sorted) and "Enqueue time:"
/// (their sum) and "Device wait after enqueue:" (the final wait's mean). A run whose enqueue time is
/// most of its Total time is bound by the host, not the device.
void enqueue_report(std::ostream& os, const program& p, const parameter_map& params, std::size_t n);

} // namespace driver
} // namespace migraphx

#endif
