#ifndef MIGRAPHX_IR_EVAL_HPP
#define MIGRAPHX_IR_EVAL_HPP

#include <migraphx/program.hpp>
#include <vector>

namespace migraphx {

/// Checks params against the program's inputs and runs the main module.
/// Honours MIGRAPHX_TRACE_EVAL (1: instructions and times, 2: + output summary, 3: + whole outputs).
std::vector<argument> eval_program(const program& p, const parameter_map& params);

} // namespace migraphx

#endif
