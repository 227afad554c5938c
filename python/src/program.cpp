// migraphx.program, migraphx.target and get_target: compile and run, with the GIL released.
#include "common.hpp"
#include <migraphx/program.hpp>
#include <migraphx/target.hpp>
#include <sstream>

namespace migraphx {
namespace python {

namespace {

/// name -> shape in a given order (Python dicts keep insertion order, so
/// list(p.get_inputs())[0] is the first parameter).
py::dict ordered(const std::unordered_map<std::string, shape>& shapes, const std::vector<std::string>& order)
{
    py::dict r;
    for(const auto& n : order)
    {
        auto it = shapes.find(n);
        if(it != shapes.end())
            r[py::str(n)] = it->second;
    }
    for(const auto& [n, s] : shapes) // anything the order did not name
        if(not r.contains(n))
            r[py::str(n)] = s;
    return r;
}

parameter_map to_parameter_map(const py::dict& params)
{
    parameter_map r;
    for(const auto& [k, v] : params)
        r[py::str(k).cast<std::string>()] = to_argument(v);
    return r;
}

std::string to_string(const program& p)
{
    std::ostringstream os;
    os << p;
    return os.str();
}

} // namespace

void init_program(py::module_& m)
{
    py::class_<target>(m, "target", "Where a program runs; get one with get_target(name).")
        .def("name", &target::name)
        .def("__str__", &target::name);
    m.def("get_target", &get_target, py::arg("name"), "The registered target 'ref', 'cpu' or 'gpu' (where built).");
    m.def("get_targets", &get_targets, "Names of the registered targets.");

    py::class_<program>(m, "program", "A model: a main module and its sub-modules, compiled for a target.")
        .def(py::init<>())
        .def("clone", [](const program& p) { return program{p}; }, "A deep copy.")
        .def("__copy__", [](const program& p) { return program{p}; })
        .def("__deepcopy__", [](const program& p, const py::dict&) { return program{p}; })
        .def("get_parameter_names", &program::get_parameter_names)
        .def("get_parameter_shapes",
             [](const program& p) { return ordered(p.get_parameter_shapes(), p.get_parameter_names()); })
        .def("get_inputs", [](const program& p) { return ordered(p.get_inputs(), p.get_parameter_names()); },
             "Model inputs: {name: shape}, in parameter order.")
        .def("get_outputs", [](const program& p) { return ordered(p.get_outputs(), p.get_output_names()); },
             "Model outputs: {name: shape}, in output order.")
        .def("get_output_names", &program::get_output_names)
        .def("get_output_shapes", &program::get_output_shapes)
        .def("get_main_module", py::overload_cast<>(&program::get_main_module), py::return_value_policy::reference_internal)
        .def("create_module", &program::create_module, py::arg("name"), py::return_value_policy::reference_internal)
        .def("get_module", &program::get_module, py::arg("name"), py::return_value_policy::reference_internal)
        .def("compile",
             [](program& p, const target& t, bool offload_copy, bool fast_math, bool exhaustive_tune,
                std::size_t device_id, bool cuda_graph, bool tf32) {
                 compile_options options;
                 options.offload_copy    = offload_copy;
                 options.fast_math       = fast_math;
                 options.exhaustive_tune = exhaustive_tune;
                 options.device_id       = device_id;
                 options.cuda_graph      = cuda_graph;
                 options.tf32            = tf32;
                 py::gil_scoped_release nogil;
                 p.compile(t, options);
             },
             py::arg("t"), py::arg("offload_copy") = true, py::arg("fast_math") = true,
             py::arg("exhaustive_tune") = false, py::arg("device_id") = 0, py::arg("cuda_graph") = true,
             py::arg("tf32") = false,
             "Compile for target t. offload_copy=True (the default) takes and returns host data on the gpu; "
             "cuda_graph=False launches kernel by kernel instead of replaying a CUDA graph; exhaustive_tune=True "
             "times every cuDNN engine and cuBLASLt algorithm offered (gpu; a slower compile); tf32=True lets "
             "float convolutions and products use TF32 tensor cores (gpu).")
        .def("is_compiled", &program::is_compiled)
        .def("target_name", &program::target_name)
        .def("run",
             [](const program& p, const py::dict& params) {
                 auto args = to_parameter_map(params);
                 std::vector<argument> results;
                 {
                     py::gil_scoped_release nogil;
                     results = p.eval(args);
                     // the inputs' references to numpy arrays are dropped with the GIL held
                 }
                 return results;
             },
             py::arg("params"), "Runs the program on {name: argument or numpy array}; returns the outputs.")
        .def("run",
             [](const program& p, const py::dict& params, const std::vector<std::string>& output_names) {
                 auto args = to_parameter_map(params);
                 std::vector<argument> results;
                 {
                     py::gil_scoped_release nogil;
                     results = p.eval(args, output_names);
                 }
                 return results;
             },
             py::arg("params"), py::arg("output_names"))
        .def("get_memory_usage", &program::get_memory_usage)
        .def("print", [](const program& p) { py::print(to_string(p), py::arg("end") = ""); })
        .def("__eq__", [](const program& a, const program& b) { return a == b; }, py::is_operator())
        .def("__ne__", [](const program& a, const program& b) { return a != b; }, py::is_operator())
        .def("__str__", &to_string);
}

} // namespace python
} // namespace migraphx
