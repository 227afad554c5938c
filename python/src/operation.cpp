// migraphx.op(name, **attrs) and the conversions between Python values and attribute values.
#include "common.hpp"
#include <migraphx/make_op.hpp>
#include <migraphx/operation.hpp>
#include <sstream>

namespace migraphx {
namespace python {

value to_value(const py::handle& h)
{
    if(h.is_none())
        return value();
    if(py::isinstance<py::bool_>(h))
        return value(h.cast<bool>());
    if(py::isinstance<shape::type_t>(h))
        return value(static_cast<std::int64_t>(h.cast<shape::type_t>()));
    if(py::isinstance<py::int_>(h))
    {
        try
        {
            return value(h.cast<std::int64_t>());
        }
        catch(const py::cast_error&) // above INT64_MAX
        {
            return value(h.cast<std::uint64_t>());
        }
    }
    if(py::isinstance<py::float_>(h))
        return value(h.cast<double>());
    if(py::isinstance<py::str>(h))
        return value(h.cast<std::string>());
    if(py::isinstance<py::dict>(h))
    {
        auto v = value::make_object();
        for(const auto& [k, x] : h.cast<py::dict>())
            v.insert(py::str(k).cast<std::string>(), to_value(x));
        return v;
    }
    if(py::isinstance<py::array>(h)) // numpy arrays and scalars' arrays: as nested lists
        return to_value(h.attr("tolist")());
    if(py::hasattr(h, "item") and py::hasattr(h, "dtype")) // numpy scalar
        return to_value(h.attr("item")());
    if(py::isinstance<py::list>(h) or py::isinstance<py::tuple>(h))
    {
        auto v = value::make_array();
        for(const auto& x : h)
            v.push_back(to_value(x));
        return v;
    }
    throw py::type_error("cannot use a " + std::string(py::str(py::type::of(h))) + " as an operator attribute");
}

py::object from_value(const value& v)
{
    switch(v.kind())
    {
    case value::null_kind: return py::none();
    case value::bool_kind: return py::bool_(v.get_bool());
    case value::int64_kind: return py::int_(v.get_int64());
    case value::uint64_kind: return py::int_(v.get_uint64());
    case value::float_kind: return py::float_(v.get_float());
    case value::string_kind: return py::str(v.get_string());
    case value::array_kind: {
        py::list r;
        for(const auto& x : v.get_array())
            r.append(from_value(x));
        return r;
    }
    case value::object_kind: {
        py::dict r;
        for(const auto& [k, x] : v.get_object())
            r[py::str(k)] = from_value(x);
        return r;
    }
    }
    return py::none();
}

void init_operation(py::module_& m)
{
    py::class_<operation>(m, "op", "An operator: op(name, **attributes), e.g. op('convolution', padding=[1, 1]).")
        .def(py::init([](const std::string& name, const py::kwargs& kwargs) {
                 if(kwargs.empty())
                     return make_op(name);
                 return make_op(name, to_value(kwargs));
             }),
             py::arg("name"))
        .def("name", &operation::name)
        .def("attributes", [](const operation& op) { return from_value(op.to_value()); },
             "The attributes as a dict (the value make_op takes).")
        .def("compute_shape", [](const operation& op, const std::vector<shape>& inputs) {
            return op.compute_shape(inputs);
        })
        .def("__eq__", [](const operation& a, const operation& b) { return a == b; }, py::is_operator())
        .def("__ne__", [](const operation& a, const operation& b) { return a != b; }, py::is_operator())
        .def("__str__", [](const operation& op) {
            std::ostringstream os;
            os << op;
            return os.str();
        });

    m.def("get_operators", &get_operators, "Names of every registered operator, sorted.");
}

} // namespace python
} // namespace migraphx
