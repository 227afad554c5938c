#ifndef MIGRAPHX_PYTHON_COMMON_HPP
#define MIGRAPHX_PYTHON_COMMON_HPP

// Shared between the binding files of the `migraphx` Python module. Each file binds one theme
// and exposes one init_<theme>(module) function, called in order from migraphx_py.cpp.

#include <migraphx/argument.hpp>
#include <migraphx/shape.hpp>
#include <migraphx/value.hpp>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <string>

namespace migraphx {
namespace python {

namespace py = pybind11;

void init_shape(py::module_& m);
void init_argument(py::module_& m);
void init_operation(py::module_& m);
void init_module(py::module_& m);
void init_program(py::module_& m);
void init_onnx(py::module_& m);
void init_gpu(py::module_& m);
void init_quantize(py::module_& m);
void init_load_save(py::module_& m);

/// A shape type from a name ("float_type", "float", "float32") or a shape.type_t.
shape::type_t to_shape_type(const py::handle& h);
/// The Python buffer-protocol format character of a shape type.
std::string buffer_format(shape::type_t t);
/// An argument over a numpy array (or any buffer): shares its memory, keeping the array alive,
/// when the strides are non-negative whole elements; copies it otherwise.
argument argument_from_buffer(const py::buffer& b);
/// An argument from an argument or anything numpy can turn into an array.
argument to_argument(const py::handle& h);
/// Python value (bool, int, float, str, list/tuple, dict, shape.type_t, numpy scalars/arrays)
/// to an attribute value.
value to_value(const py::handle& h);
py::object from_value(const value& v);

} // namespace python
} // namespace migraphx

#endif
