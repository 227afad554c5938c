// parse_onnx / parse_onnx_buffer with the options of migraphx::onnx_options as keywords.
#include "common.hpp"
#include <migraphx/onnx.hpp>

namespace migraphx {
namespace python {

namespace {

using dyn_dims_map = std::unordered_map<std::string, std::vector<shape::dynamic_dimension>>;

onnx_options make_options(std::unordered_map<std::string, std::vector<std::size_t>> map_input_dims,
                          dyn_dims_map map_dyn_input_dims,
                          std::size_t default_dim_value,
                          bool skip_unknown_operators,
                          bool print_program_on_error,
                          std::int64_t max_loop_iterations)
{
    onnx_options options;
    options.map_input_dims         = std::move(map_input_dims);
    options.map_dyn_input_dims     = std::move(map_dyn_input_dims);
    options.default_dim_value      = default_dim_value;
    options.skip_unknown_operators = skip_unknown_operators;
    options.print_program_on_error = print_program_on_error;
    options.max_loop_iterations    = max_loop_iterations;
    return options;
}

} // namespace

void init_onnx(py::module_& m)
{
    using dims_map = std::unordered_map<std::string, std::vector<std::size_t>>;
    m.def("parse_onnx",
          [](const std::string& path, std::size_t default_dim_value, const dims_map& map_input_dims,
             bool skip_unknown_operators, bool print_program_on_error, std::int64_t max_loop_iterations,
             const dyn_dims_map& map_dyn_input_dims) {
              auto options = make_options(map_input_dims, map_dyn_input_dims, default_dim_value, skip_unknown_operators,
                                          print_program_on_error, max_loop_iterations);
              py::gil_scoped_release nogil;
              return parse_onnx(path, options);
          },
          py::arg("filename"), py::arg("default_dim_value") = 0, py::arg("map_input_dims") = dims_map{},
          py::arg("skip_unknown_operators") = false, py::arg("print_program_on_error") = false,
          py::arg("max_loop_iterations") = 10, py::arg("map_dyn_input_dims") = dyn_dims_map{},
          "Reads an ONNX model file. map_input_dims={'input': [8, 3, 224, 224]} fixes named inputs' dims (for "
          "a symbolic dim, its maximum: the program then runs any size up to it); map_dyn_input_dims="
          "{'input': [shape.dynamic_dimension(1, 8), ...]} gives ranges.");
    m.def("parse_onnx_buffer",
          [](const py::bytes& buffer, std::size_t default_dim_value, const dims_map& map_input_dims,
             bool skip_unknown_operators, bool print_program_on_error, std::int64_t max_loop_iterations,
             const dyn_dims_map& map_dyn_input_dims) {
              auto options = make_options(map_input_dims, map_dyn_input_dims, default_dim_value, skip_unknown_operators,
                                          print_program_on_error, max_loop_iterations);
              std::string data = buffer;
              py::gil_scoped_release nogil;
              return parse_onnx_buffer(data, options);
          },
          py::arg("buffer"), py::arg("default_dim_value") = 0, py::arg("map_input_dims") = dims_map{},
          py::arg("skip_unknown_operators") = false, py::arg("print_program_on_error") = false,
          py::arg("max_loop_iterations") = 10, py::arg("map_dyn_input_dims") = dyn_dims_map{},
          "Reads an ONNX model from bytes.");
    m.def("get_onnx_operators", &get_onnx_operators, "ONNX operators the parser supports, sorted.");
}

} // namespace python
} // namespace migraphx
