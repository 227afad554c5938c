#ifndef MIGRAPHX_DRIVER_LOAD_HPP
#define MIGRAPHX_DRIVER_LOAD_HPP

#include "driver/options.hpp"
#include "serialize/mxr_format.hpp"
#include <string>
#include <vector>

namespace migraphx {
namespace driver {

/// Where read and compile write the program: text to stdout or --output FILE, or with
/// --binary a .mxr file.
struct output_options
{
    std::string output;
    bool binary = false;
};

/// Reads the model (printing "Reading: FILE"), applies --input-dim/--batch/--output-names.
program load_model(const model_options& o);
/// Quantizes as asked and compiles, showing progress on stderr unless --quiet. A program that is
/// already compiled (.mxr) is returned as is.
program compile_model(program p, const target& t, const target_options& o, const param_options& calibration);
bool have_onnx_parser();
/// The ONNX operators the parser supports (none in a build without the parser).
std::vector<std::string> onnx_operators();
program load_mxr(const std::string& path);
/// The versions and target a .mxr file records (its header only: any format version).
serialize::mxr_header read_mxr_header(const std::string& path);
/// Writes a .mxr file, or with a .json name the same content as JSON.
void save_mxr(const program& p, const std::string& path);
/// Makes the main module return the named outputs (model outputs or instruction names).
void apply_output_names(program& p, const std::vector<std::string>& names);
/// Throws error for --binary without --output, or where this build cannot write .mxr files.
void check_output_options(const output_options& o);
void write_program(const program& p, const output_options& o);

} // namespace driver
} // namespace migraphx

#endif
