#ifndef MIGRAPHX_IR_PROGRAM_IMPL_HPP
#define MIGRAPHX_IR_PROGRAM_IMPL_HPP

#include <migraphx/program.hpp>
#include <memory>
#include <string>
#include <vector>

namespace migraphx {

struct program::impl
{
    std::vector<std::unique_ptr<module>> modules;
    std::vector<std::string> output_names;
    /// Parameters added by compile to receive outputs (offload_copy=false on a device target).
    std::vector<std::string> output_param_names;
    /// Output shapes as the user sees them, fixed at compile time.
    std::vector<shape> original_output_shapes;
    target target_ref;
    context ctx;
    compile_options options;
    bool compiled = false;
};

/// Deep-copies modules (remapping instructions and sub-module references) and state.
void copy_program_impl(const program::impl& from, program::impl& to);

} // namespace migraphx

#endif
