#ifndef MIGRAPHX_GPU_DEVICE_LITERALS_HPP
#define MIGRAPHX_GPU_DEVICE_LITERALS_HPP

// The device copies of literals (hip::hip_copy_literal's buffers), one per host buffer and device
// while any program holds it: literals equal in bytes are one host buffer already
// (ir/shared_literals.hpp), so a dynamic program's variants, or a model compiled twice, keep their
// weights once on the device too.

#include "targets/gpu/context.hpp"
#include <migraphx/literal.hpp>
#include <memory>

namespace migraphx {
namespace gpu {

/// l's bytes in device memory on g's device. A copy another live op made of the same host buffer
/// (l's data) on that device is shared, and g's stream waits for its upload; otherwise a new copy
/// is uploaded on g's stream (pageable source: staged before the call returns).
std::shared_ptr<char> device_literal(gpu_context& g, const literal& l);

} // namespace gpu
} // namespace migraphx

#endif
