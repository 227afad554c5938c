#ifndef MIGRAPHX_IR_PROGRAM_IMPL_HPP
#define MIGRAPHX_IR_PROGRAM_IMPL_HPP

#include <migraphx/program.hpp>
#include <memory>
#include <string>
#include <vector>

namespace migraphx {

struct dynamic_source;
class variant_cache;
class replay_cache;
class last_use_cache;

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
    /// Set for a program with dynamic inputs (ir/dynamic_program.hpp); copies share the source.
    std::shared_ptr<const dynamic_source> dynamic;
    /// Its compiled static variants, per input dims; a copy starts with an empty cache.
    std::shared_ptr<variant_cache> variants;
    /// Recorded runs for replay (ir/replay.hpp), made on first eval; a copy starts without.
    std::shared_ptr<replay_cache> replays;
    /// Where each run drops each result (ir/last_use.hpp), per module; made when the program is
    /// compiled (or loaded compiled); a copy gets its own.
    std::shared_ptr<last_use_cache> lifetimes;
};

/// Deep-copies modules (remapping instructions and sub-module references) and state.
void copy_program_impl(const program::impl& from, program::impl& to);

} // namespace migraphx

#endif
