#ifndef MIGRAPHX_IR_TARGET_AVAILABILITY_HPP
#define MIGRAPHX_IR_TARGET_AVAILABILITY_HPP

// Targets built into the library that this machine cannot run (the gpu target without a CUDA
// device): get_target, the driver and .mxr loading name the reason instead of calling the target
// unknown or missing from the build. Kept in the registry beside the registered targets.

#include <string>

namespace migraphx {

/// Records why `name` cannot run here; ignored where a target of that name is registered (and
/// forgotten when one is registered later).
void register_unavailable_target(const std::string& name, const std::string& reason);

/// Why a target built in cannot run here; "" where it is registered or was never built.
std::string unavailable_target_reason(const std::string& name);

} // namespace migraphx

#endif
