#ifndef MIGRAPHX_DRIVER_OPTIONS_HPP
#define MIGRAPHX_DRIVER_OPTIONS_HPP

#include <migraphx/program.hpp>
#include <migraphx/target.hpp>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace CLI {
class App;
}

namespace migraphx {
namespace driver {

/// A user mistake (bad flag value, missing file...): main prints it as one line and exits non-zero.
struct error : std::runtime_error
{
    using std::runtime_error::runtime_error;
};

/// Which model to read and how: a bare FILE, --onnx FILE or --migraphx FILE, plus the ONNX
/// parsing options.
struct model_options
{
    std::string file;
    std::string onnx;
    std::string mxr;
    std::vector<std::string> input_dims;     // raw tokens: @name d1 d2 ... @other ...
    std::vector<std::string> dyn_input_dims; // raw tokens: @name 1:8 3 224 224 ...
    std::size_t batch = 0;               // 0: not given
    std::vector<std::string> output_names;
};

/// Where and how to compile.
struct target_options
{
    bool gpu          = false;
    bool cpu          = false;
    bool ref          = false;
    bool offload_copy = false;
    bool no_cuda_graph = false;
    bool no_fast_math  = false;
    bool exhaustive_tune = false; ///< compile_options::exhaustive_tune
    bool tf32            = false; ///< compile_options::tf32
    bool fp16         = false;
    bool int8         = false;
    bool fp8          = false;  ///< quantize_fp8 (after quantize_fp16 with --fp16)
    bool int8_residuals = false;  ///< quantize_int8_options::int8_residuals
    double int8_min_cosine = -1;  ///< quantize_int8_options::min_cosine where >= 0
    bool quiet        = false;
};

/// How to fill the inputs of a run (generated pseudo-random values unless named here).
struct param_options
{
    std::vector<std::string> fill0;
    std::vector<std::string> fill1;
    /// --input NAME=FILE: the input's values from an ONNX TensorProto file.
    std::vector<std::string> input_files;
    /// The dims to run a dynamic input at (from --input-dim); others run at their largest.
    std::unordered_map<std::string, std::vector<std::size_t>> run_dims;
};

void add_model_options(CLI::App& app, model_options& o);
void add_target_options(CLI::App& app, target_options& o);
void add_param_options(CLI::App& app, param_options& o);

/// Checks what add_*_options could not (one model, --input-dim syntax...). Values that a
/// many-valued flag swallowed from a trailing model file are given back to the file.
void finish_options(model_options& m, param_options* p = nullptr);

/// Throws error unless path names a readable file.
void check_readable(const std::string& path);
/// "--input-dim @x 1 3 @y 2" -> {x: {1, 3}, y: {2}}; throws error on bad syntax.
std::unordered_map<std::string, std::vector<std::size_t>> parse_input_dims(const std::vector<std::string>& tokens);

/// "--dyn-input-dim @x 1:8 3 @y 2:4:2,4" -> {x: {{1, 8}, {3, 3}}, y: {{2, 4, {2, 4}}}}.
std::unordered_map<std::string, std::vector<shape::dynamic_dimension>>
parse_dyn_input_dims(const std::vector<std::string>& tokens);
/// The --input-dim dims that set the shape to run a dynamic input at.
std::unordered_map<std::string, std::vector<std::size_t>> run_dims_of(const model_options& o, const program& p);

/// The target chosen by --gpu/--cpu/--ref (default gpu, else cpu, else ref, saying so on stderr).
target choose_target(const target_options& o);
/// The target a program was compiled for (by name).
target target_of(const program& p);
/// Batch size for the report: --batch, else the first dimension of the first input, else 1.
std::size_t batch_size(const model_options& o, const program& p);

/// Inputs on the host: zeros/ones where asked, else pseudo-random values seeded by the name.
parameter_map make_host_params(const program& p, const param_options& o);
/// Host inputs moved to the target unless offload_copy (the program then copies them itself),
/// plus the output buffers an offload_copy=false program takes as parameters.
parameter_map place_params(const program& p, parameter_map host, const target& t, bool offload_copy);
/// place_params(make_host_params(...)).
parameter_map make_params(const program& p, const param_options& o, const target& t, bool offload_copy);

/// "a, b, c"
std::string join(const std::vector<std::string>& xs);
/// Input names in parameter order.
std::vector<std::string> input_names(const program& p);

} // namespace driver
} // namespace migraphx

#endif
