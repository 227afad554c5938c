// migraphx.shape: type, lens and strides of a tensor.
#include "common.hpp"
#include <pybind11/stl.h>
#include <set>
#include <sstream>

namespace migraphx {
namespace python {

shape::type_t to_shape_type(const py::handle& h)
{
    if(py::isinstance<shape::type_t>(h))
        return h.cast<shape::type_t>();
    if(py::isinstance<py::str>(h))
    {
        auto name = h.cast<std::string>();
        static const std::pair<const char*, shape::type_t> aliases[] = {
            {"bool", shape::bool_type},     {"half", shape::half_type},     {"float16", shape::half_type},
            {"float", shape::float_type},   {"float32", shape::float_type}, {"double", shape::double_type},
            {"float64", shape::double_type}, {"uint8", shape::uint8_type},  {"int8", shape::int8_type},
            {"uint16", shape::uint16_type}, {"int16", shape::int16_type},   {"int32", shape::int32_type},
            {"int64", shape::int64_type},   {"uint32", shape::uint32_type}, {"uint64", shape::uint64_type},
            {"fp8e4m3fn", shape::fp8e4m3fn_type}, {"float8_e4m3fn", shape::fp8e4m3fn_type}};
        for(const auto& [alias, t] : aliases)
            if(name == alias)
                return t;
        return shape::parse_type(name); // "float_type" etc.; throws naming the bad name
    }
    if(py::hasattr(h, "dtype") or py::isinstance<py::dtype>(h) or py::isinstance<py::type>(h))
    {
        auto dt = py::dtype::from_args(py::reinterpret_borrow<py::object>(
            py::hasattr(h, "dtype") and not py::isinstance<py::type>(h) ? h.attr("dtype") : h));
        return to_shape_type(py::str(dt.attr("name")));
    }
    throw py::type_error("shape type must be a name such as 'float_type', a migraphx.shape.type_t or a "
                         "numpy dtype, not " +
                         std::string(py::str(py::type::of(h))));
}

std::string buffer_format(shape::type_t t)
{
    switch(t)
    {
    case shape::bool_type: return "?";
    case shape::half_type: return "e";
    case shape::float_type: return py::format_descriptor<float>::format();
    case shape::double_type: return py::format_descriptor<double>::format();
    case shape::uint8_type: return py::format_descriptor<std::uint8_t>::format();
    case shape::int8_type: return py::format_descriptor<std::int8_t>::format();
    case shape::uint16_type: return py::format_descriptor<std::uint16_t>::format();
    case shape::int16_type: return py::format_descriptor<std::int16_t>::format();
    case shape::int32_type: return py::format_descriptor<std::int32_t>::format();
    case shape::int64_type: return py::format_descriptor<std::int64_t>::format();
    case shape::uint32_type: return py::format_descriptor<std::uint32_t>::format();
    case shape::uint64_type: return py::format_descriptor<std::uint64_t>::format();
    // numpy has no fp8 type: the buffer shows the bits as uint8 (ml_dtypes' float8_e4m3fn reads
    // them as values: arr.view(ml_dtypes.float8_e4m3fn)); tolist() gives the values.
    case shape::fp8e4m3fn_type: return py::format_descriptor<std::uint8_t>::format();
    case shape::tuple_type: break;
    }
    throw exception("a tuple argument has no buffer; use get_sub_objects()");
}

namespace {

std::string to_string(const shape& s)
{
    std::ostringstream os;
    os << s;
    return os.str();
}

} // namespace

void init_shape(py::module_& m)
{
    py::class_<shape> cls(m, "shape", "The type, lengths and strides (in elements) of a tensor.");

    py::enum_<shape::type_t> types(cls, "type_t");
    for(int i = shape::bool_type; i <= shape::tuple_type; i++)
    {
        auto t = static_cast<shape::type_t>(i);
        types.value(shape::type_name(t).c_str(), t);
    }
    types.export_values(); // migraphx.shape.float_type as in MIGraphX

    // shape.dynamic_dimension(min, max, optimals=set()): one dim of a dynamic input's range.
    py::class_<shape::dynamic_dimension>(cls, "dynamic_dimension")
        .def(py::init([](std::size_t min, std::size_t max, std::set<std::size_t> optimals) {
                 return shape::dynamic_dimension{min, max, std::move(optimals)};
             }),
             py::arg("min"), py::arg("max"), py::arg("optimals") = std::set<std::size_t>{})
        .def_readwrite("min", &shape::dynamic_dimension::min)
        .def_readwrite("max", &shape::dynamic_dimension::max)
        .def_readwrite("optimals", &shape::dynamic_dimension::optimals)
        .def("is_fixed", &shape::dynamic_dimension::is_fixed)
        .def("__eq__", [](const shape::dynamic_dimension& a, const shape::dynamic_dimension& b) { return a == b; },
             py::is_operator())
        .def("__repr__", [](const shape::dynamic_dimension& d) {
            std::ostringstream ss;
            ss << "migraphx.shape.dynamic_dimension" << d;
            return ss.str();
        });

    cls.def(py::init<>())
        .def(py::init([](const py::object& type, std::vector<std::size_t> lens, std::vector<std::size_t> strides) {
                 auto t = to_shape_type(type);
                 if(strides.empty())
                     return shape{t, std::move(lens)};
                 return shape{t, std::move(lens), std::move(strides)};
             }),
             py::arg("type") = "float_type",
             py::arg("lens") = std::vector<std::size_t>{},
             py::arg("strides") = std::vector<std::size_t>{},
             "shape(type='float_type', lens=[...], strides=[...]); strides default to row-major.")
        .def("type", &shape::type)
        .def("type_string", &shape::type_string)
        .def("lens", &shape::lens)
        .def("strides", &shape::strides)
        .def("ndim", &shape::ndim)
        .def("elements", &shape::elements)
        .def("bytes", &shape::bytes)
        .def("type_size", py::overload_cast<>(&shape::type_size, py::const_))
        .def("element_space", &shape::element_space)
        .def("standard", &shape::standard)
        .def("packed", &shape::packed)
        .def("transposed", &shape::transposed)
        .def("broadcasted", &shape::broadcasted)
        .def("scalar", &shape::scalar)
        .def("dynamic", &shape::dynamic)
        .def("dyn_dims", &shape::dyn_dims, "The {min, max, optimals} of each dim of a dynamic shape.")
        .def("sub_shapes", &shape::sub_shapes)
        .def("as_standard", &shape::as_standard)
        .def("index", py::overload_cast<std::size_t>(&shape::index, py::const_),
             "Offset in elements of the i-th element in row-major order.")
        .def("__eq__", [](const shape& a, const shape& b) { return a == b; }, py::is_operator())
        .def("__ne__", [](const shape& a, const shape& b) { return a != b; }, py::is_operator())
        .def("__hash__", [](const shape& s) { return py::hash(py::str(to_string(s))); })
        .def("__str__", &to_string)
        .def("__repr__", [](const shape& s) { return "migraphx.shape(" + to_string(s) + ")"; });
}

} // namespace python
} // namespace migraphx
