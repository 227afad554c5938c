#ifndef MIGRAPHX_ONNX_HPP
#define MIGRAPHX_ONNX_HPP

#include <migraphx/argument.hpp>
#include <migraphx/program.hpp>
#include <migraphx/shape.hpp>
#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

namespace migraphx {

/// Options for parse_onnx.
struct onnx_options
{
    /// Fixed (or, for a dynamic model, maximum) dims of named inputs: {"input", {8, 3, 224, 224}}.
    std::unordered_map<std::string, std::vector<std::size_t>> map_input_dims = {};
    /// {min, max, optimals} ranges of named inputs' dims.
    std::unordered_map<std::string, std::vector<shape::dynamic_dimension>> map_dyn_input_dims = {};
    /// Value for a symbolic or unknown dim not given above.
    std::size_t default_dim_value = 0;
    /// Range for a symbolic dim not given above (used when default_dim_value is 0).
    shape::dynamic_dimension default_dyn_dim_value = {1, 1, {}};
    /// Turn unknown operators into an opaque op instead of failing.
    bool skip_unknown_operators = false;
    /// On a parse error, print the program parsed so far to stderr.
    bool print_program_on_error = false;
    /// Upper bound on Loop iterations when the trip count is not constant.
    std::int64_t max_loop_iterations = 10;
    /// Named inputs to fix to a value: they become constants of the program instead of parameters.
    /// Static shapes need values that decide a shape (Reshape's shape, Slice's starts, TopK's k...)
    /// at compile time; a model that takes them as graph inputs parses once they are given here.
    std::unordered_map<std::string, argument> map_input_constants = {};
};

/// Reads an ONNX model file into a program.
program parse_onnx(const std::string& path, const onnx_options& options = onnx_options{});
/// Reads an ONNX model from memory.
program parse_onnx_buffer(const std::string& buffer, const onnx_options& options = onnx_options{});
program parse_onnx_buffer(const void* data, std::size_t size, const onnx_options& options = onnx_options{});
/// Reads one ONNX TensorProto file (as the ONNX test-data layout's input_0.pb) into an argument
/// of its type and dims (migx extension).
argument read_onnx_tensor(const std::string& path);
/// Names of the ONNX operators the parser supports, sorted.
std::vector<std::string> get_onnx_operators();

} // namespace migraphx

#endif
