// The Python module `migraphx`: the C++ API of migx as MIGraphX's Python module spells it.
#include "common.hpp"

namespace py = pybind11;

PYBIND11_MODULE(migraphx, m)
{
    m.doc() = "migx: parse, build, compile and run deep-learning models (the MIGraphX Python API)";
    // migraphx::exception -> migraphx.exception (a RuntimeError) with the same message.
    py::register_exception<migraphx::exception>(m, "exception", PyExc_RuntimeError);

    using namespace migraphx::python;
    init_shape(m);
    init_argument(m);
    init_operation(m);
    init_module(m);
    init_program(m);
    init_onnx(m);
    init_gpu(m);
    init_quantize(m);
    init_load_save(m);
#ifdef MIGRAPHX_VERSION_STRING
    m.attr("__version__") = MIGRAPHX_VERSION_STRING;
#endif
}
