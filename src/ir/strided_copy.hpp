#ifndef MIGRAPHX_IR_STRIDED_COPY_HPP
#define MIGRAPHX_IR_STRIDED_COPY_HPP
// Copies a strided view (a slice, a transpose, a broadcast with stride 0) into packed row-major
// memory. argument::contiguous uses it; the data-dependent ops (Expand, ConstantOfShape at run
// time) materialise views as large as a detector's RoI features through it, so it walks rows, not
// elements: adjacent dims that step evenly are merged, a row of stride 1 is one memcpy, a row of
// stride 0 a fill, and large copies are split over the host's threads.

#include <migraphx/shape.hpp>

namespace migraphx {

/// Writes the elements of the view `s` over `src` (element offsets by s's strides) to `dst` in
/// standard order: s.elements() * s.type_size() bytes. `src` and `dst` must not overlap.
void copy_strided(const shape& s, const char* src, char* dst);

} // namespace migraphx

#endif
