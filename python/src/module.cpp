// migraphx.module and migraphx.instruction_ref: building programs by hand
// (add_parameter / add_literal / add_instruction / add_return), as the C++ API does.
#include "common.hpp"
#include <migraphx/instruction.hpp>
#include <migraphx/literal.hpp>
#include <migraphx/module.hpp>
#include <sstream>

namespace migraphx {
namespace python {

void init_module(py::module_& m)
{
    py::class_<instruction_ref>(m, "instruction_ref", "A handle to an instruction of a module.")
        .def("shape", [](const instruction_ref& ins) { return ins->get_shape(); })
        .def("name", [](const instruction_ref& ins) { return ins->name(); })
        .def("op", [](const instruction_ref& ins) { return ins->get_operator(); })
        .def("inputs", [](const instruction_ref& ins) { return ins->inputs(); })
        .def("__eq__", [](const instruction_ref& a, const instruction_ref& b) { return a == b; }, py::is_operator())
        .def("__ne__", [](const instruction_ref& a, const instruction_ref& b) { return a != b; }, py::is_operator())
        .def("__hash__", [](const instruction_ref& ins) { return instruction_ref_hash{}(ins); });

    // Modules belong to their program: Python never deletes one, and a module object keeps its
    // program alive (return_value_policy::reference_internal where one is handed out).
    py::class_<module, std::unique_ptr<module, py::nodelete>>(m, "module", "A graph of instructions in a program.")
        .def("name", &module::name)
        .def("add_parameter",
             [](module& mod, const std::string& name, const shape& s) { return mod.add_parameter(name, s); },
             py::arg("name"), py::arg("shape"), py::keep_alive<0, 1>())
        .def("add_literal",
             [](module& mod, const py::object& data) {
                 // a literal owns a copy, so the array may change afterwards without effect
                 return mod.add_literal(literal{to_argument(data).copy()});
             },
             py::arg("data"), py::keep_alive<0, 1>(), "A constant from a numpy array (or argument); the data is copied.")
        .def("add_instruction",
             [](module& mod, const operation& op, const std::vector<instruction_ref>& args,
                const std::vector<module*>& mod_args) { return mod.add_instruction(op, args, mod_args); },
             py::arg("op"), py::arg("args") = std::vector<instruction_ref>{},
             py::arg("mod_args") = std::vector<module*>{}, py::keep_alive<0, 1>())
        .def("add_return", &module::add_return, py::arg("args"), py::keep_alive<0, 1>())
        .def("get_parameter_names", &module::get_parameter_names)
        .def("get_parameter_shapes", &module::get_parameter_shapes)
        .def("get_output_shapes", &module::get_output_shapes)
        .def("size", &module::size)
        .def("__len__", &module::size)
        .def("validate", &module::validate)
        .def("print", [](const module& mod) { py::print(py::str([&] {
                 std::ostringstream os;
                 os << mod;
                 return os.str();
             }()), py::arg("end") = ""); })
        .def("__str__", [](const module& mod) {
            std::ostringstream os;
            os << mod;
            return os.str();
        });
}

} // namespace python
} // namespace migraphx
