#ifndef MIGRAPHX_CPU_LOWER_ACTUAL_SIZES_HPP
#define MIGRAPHX_CPU_LOWER_ACTUAL_SIZES_HPP

#include <migraphx/module.hpp>
#include <string>

namespace migraphx {
namespace cpu {

/// Convolutions, ConvTransposes and dots computed from a data-dependent result (a detector's heads after its
/// NMS: pass_utils::data_dependent) run as oneDNN ops at the sizes they actually get, their
/// primitives built per size and kept (cache_for), instead of as the reference ops. The other
/// cpu passes leave these instructions alone (their static shapes are only the largest), so this
/// one runs last: the ops it makes have plain layouts, weights as given, no post-ops and their
/// own output buffers.
struct lower_actual_sizes
{
    std::string name() const { return "cpu::lower_actual_sizes"; }
    void apply(module& m) const;
};

} // namespace cpu
} // namespace migraphx

#endif
