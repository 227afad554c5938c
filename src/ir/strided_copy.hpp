#ifndef MIGRAPHX_IR_STRIDED_COPY_HPP
#define MIGRAPHX_IR_STRIDED_COPY_HPP
// Copies between strided views (a slice, a transpose, a broadcast with stride 0, a part of a
// concatenation). argument::contiguous and the reference concat use it; the data-dependent ops
// (Expand, ConstantOfShape at run time) materialise views as large as a detector's RoI features
// through it, so it walks rows, not elements: adjacent dims that step evenly on both sides are
// merged, a row of stride 1 on both sides is one memcpy, a source row of stride 0 a fill, and
// large copies are split over the host's threads.

#include <migraphx/shape.hpp>
#include <cstddef>
#include <functional>
#include <vector>

namespace migraphx {

/// How a copy splits its rows over threads. By default parallel_for's plain threads, started for
/// copies of 1 MB a thread or more. The cpu target runs its copies on its OpenMP team instead:
/// those threads spin a while after each region, and plain threads started beside them slowed
/// both (UNet's channel concats 0.5 -> 2.4-3 ms at 256 KB a thread on 2 cores).
struct copy_threads
{
    /// run(n, grain, f): f(begin, end) over ranges covering [0, n), each of at least grain items
    /// where n allows; null: parallel_for.
    std::function<void(std::size_t, std::size_t, const std::function<void(std::size_t, std::size_t)>&)> run = nullptr;
    std::size_t bytes_per_thread = std::size_t{1} << 20;
};

/// Writes the elements of the view `from` over `src` to the view `to` over `dst`: the element at
/// each multi-index, offsets by each shape's strides. Same lens and element type; `to` must not
/// have two indices at one offset, and the memory must not overlap.
void copy_view(const shape& from, const char* src, const shape& to, char* dst, const copy_threads& threads = {});

/// A concatenation along `axis`: each of `parts` (any strides) into its part of `out`, the view
/// over `dst` they make together (the reference concat; the host fallbacks of both targets run it).
void copy_concat(const std::vector<shape>& parts, const std::vector<const char*>& srcs, std::size_t axis,
                 const shape& out, char* dst, const copy_threads& threads = {});

/// copy_view into packed row-major memory: s.elements() * s.type_size() bytes at dst.
void copy_strided(const shape& s, const char* src, char* dst);

} // namespace migraphx

#endif
