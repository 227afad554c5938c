#ifndef MIGRAPHX_GPU_SHARED_SCRATCH_HPP
#define MIGRAPHX_GPU_SHARED_SCRATCH_HPP

// The scratch buffer of a gpu program finalized in a scratch group (ir/scratch_group.hpp): the
// group's buffer on that device where it holds at least `bytes`, else a new one, which becomes the
// group's buffer for the programs made after it. MIGRAPHX_DISABLE_SCRATCH_GROUPS=1: a buffer a
// program, as outside a group.

#include "targets/gpu/context.hpp"
#include <memory>
#include <string>

namespace migraphx {
namespace gpu {

/// `bytes` of device memory on g's device for a program of `group` ("": a buffer of its own).
std::shared_ptr<char> group_scratch(gpu_context& g, const std::string& group, std::size_t bytes);

} // namespace gpu
} // namespace migraphx

#endif
