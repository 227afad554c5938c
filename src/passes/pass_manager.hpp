#ifndef MIGRAPHX_PASSES_PASS_MANAGER_HPP
#define MIGRAPHX_PASSES_PASS_MANAGER_HPP

#include <migraphx/module.hpp>
#include <migraphx/pass.hpp>
#include <vector>

namespace migraphx {

struct program;

/// Runs passes over every module of a program, in order. After each pass the module is
/// validated in Debug builds (or with MIGRAPHX_VALIDATE_PASSES=1). Environment:
///   MIGRAPHX_TRACE_COMPILE=1   print the program after each pass
///   MIGRAPHX_TIME_PASSES=1     print how long each pass took
///   MIGRAPHX_DISABLE_PASSES=a,b skip the named passes
void run_passes(program& p, const std::vector<pass>& passes);
/// The same for a single module (used by pass unit tests).
void run_passes(module& m, const std::vector<pass>& passes);
/// The program run_passes(program&, ...) is working on in this thread, or nullptr (passes run on a
/// lone module). A pass that creates sub-modules (fuse_pointwise) gets the program from here.
program* current_program();

} // namespace migraphx

#endif
