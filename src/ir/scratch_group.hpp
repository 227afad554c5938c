#ifndef MIGRAPHX_IR_SCRATCH_GROUP_HPP
#define MIGRAPHX_IR_SCRATCH_GROUP_HPP

// Programs that never run at the same time may share one scratch buffer (the memory their
// intermediate results are planned into), sized for the largest. A caller that runs a set of
// programs strictly one after the other (migraphx-server: an instance runs its batch-size programs
// on its one thread, each run synchronous) names the set while it compiles or loads them:
//   { scratch_group_scope group("resnet50/1/instance 0"); p = load_buffer(bytes); ... }
// A target that supports it (gpu) then gives each program of the group the group's buffer where it
// is large enough: make the largest first. Internal: not part of the public API, because the
// promise cannot be checked.

#include <string>

namespace migraphx {

/// Names the scratch group of the programs finalized on this thread while it lives.
struct scratch_group_scope
{
    explicit scratch_group_scope(std::string name);
    ~scratch_group_scope();
    scratch_group_scope(const scratch_group_scope&)            = delete;
    scratch_group_scope& operator=(const scratch_group_scope&) = delete;

    private:
    std::string previous;
};

/// The innermost scratch_group_scope's name on this thread; "" outside any.
const std::string& current_scratch_group();

} // namespace migraphx

#endif
