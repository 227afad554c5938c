#ifndef MIGRAPHX_DRIVER_COMMANDS_HPP
#define MIGRAPHX_DRIVER_COMMANDS_HPP

#include "driver/load.hpp"
#include "driver/options.hpp"
#include <cstddef>
#include <string>

namespace migraphx {
namespace driver {

// One function per subcommand; each returns the process exit status.
int read_command(const model_options& mo, const output_options& out);
int params_command(const model_options& mo);
int compile_command(const model_options& mo, const target_options& to, const output_options& out);
int run_command(const model_options& mo, const target_options& to, const param_options& po);
int perf_command(const model_options& mo, const target_options& to, const param_options& po, std::size_t n,
                 bool enqueue_times = false);
int version_command(const std::string& mxr);
int onnx_command(bool list);
int op_command(bool list, const std::string& name);

} // namespace driver
} // namespace migraphx

#endif
