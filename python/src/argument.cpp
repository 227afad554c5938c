// migraphx.argument: data with a shape. Built from numpy without a copy where the layout allows;
// read back through the buffer protocol (np.array(arg), np.asarray(arg)) or tolist().
#include "common.hpp"
#include <migraphx/generate.hpp>
#include <cstring>
#include <sstream>

namespace migraphx {
namespace python {

namespace {

shape::type_t type_of_buffer(const py::buffer_info& info)
{
    // numpy formats: an optional byte-order/alignment prefix, then one type character
    std::string f = info.format;
    if(not f.empty() and (f[0] == '<' or f[0] == '=' or f[0] == '@' or f[0] == '!' or f[0] == '>'))
    {
        if(f[0] == '>' or f[0] == '!')
            throw exception("argument: big-endian buffers are not supported (format '" + info.format + "')");
        f = f.substr(1);
    }
    if(f.size() != 1)
        throw exception("argument: unsupported buffer format '" + info.format + "'");
    auto size = static_cast<std::size_t>(info.itemsize);
    switch(f[0])
    {
    case '?': return shape::bool_type;
    case 'e': return shape::half_type;
    case 'f': return shape::float_type;
    case 'd': return shape::double_type;
    case 'b': return shape::int8_type;
    case 'B': return shape::uint8_type;
    case 'h':
    case 'i':
    case 'l':
    case 'q':
        switch(size)
        {
        case 1: return shape::int8_type;
        case 2: return shape::int16_type;
        case 4: return shape::int32_type;
        case 8: return shape::int64_type;
        default: break;
        }
        break;
    case 'H':
    case 'I':
    case 'L':
    case 'Q':
        switch(size)
        {
        case 1: return shape::uint8_type;
        case 2: return shape::uint16_type;
        case 4: return shape::uint32_type;
        case 8: return shape::uint64_type;
        default: break;
        }
        break;
    default: break;
    }
    throw exception("argument: unsupported buffer format '" + info.format + "' (item size " +
                    std::to_string(info.itemsize) + ")");
}

py::buffer_info buffer_of(const argument& a)
{
    const auto& s = a.get_shape();
    if(s.type() == shape::tuple_type)
        throw exception("argument: a tuple argument has no buffer; use get_sub_objects()");
    if(a.empty() and s.elements() != 0)
        throw exception("argument: an empty argument has no data");
    auto item = static_cast<py::ssize_t>(s.type_size());
    std::vector<py::ssize_t> lens(s.lens().begin(), s.lens().end());
    std::vector<py::ssize_t> strides;
    for(auto st : s.strides())
        strides.push_back(static_cast<py::ssize_t>(st) * item);
    return py::buffer_info(a.data(), item, buffer_format(s.type()), static_cast<py::ssize_t>(lens.size()), lens,
                           strides);
}

py::object element_to_python(const argument& a, std::size_t i)
{
    auto t = a.get_shape().type();
    if(t == shape::bool_type)
        return py::bool_(a.at<bool>(i));
    if(shape::is_floating(t))
        return py::float_(a.at<double>(i));
    if(shape::is_signed(t))
        return py::int_(a.at<std::int64_t>(i));
    return py::int_(a.at<std::uint64_t>(i));
}

} // namespace

argument argument_from_buffer(const py::buffer& b)
{
    auto info = b.request();
    auto t    = type_of_buffer(info);
    std::vector<std::size_t> lens(info.shape.begin(), info.shape.end());
    bool can_share = true;
    std::vector<std::size_t> strides;
    for(auto st : info.strides)
    {
        if(st < 0 or st % info.itemsize != 0)
            can_share = false;
        else
            strides.push_back(static_cast<std::size_t>(st / info.itemsize));
    }
    if(lens.empty()) // a 0-d array: one element
    {
        lens    = {1};
        strides = {1};
    }
    if(can_share)
    {
        // The argument holds a reference to the buffer's owner, dropped (under the GIL) with
        // the argument's last copy.
        auto* owner = new py::object(py::reinterpret_borrow<py::object>(b));
        std::shared_ptr<char> data(static_cast<char*>(info.ptr), [owner](char*) {
            if(Py_IsInitialized() == 0)
                return; // interpreter gone: nothing left to release
            py::gil_scoped_acquire gil;
            delete owner;
        });
        return {shape{t, lens, strides}, std::move(data)};
    }
    // Negative or misaligned strides: copy through numpy into a fresh row-major array.
    auto arr = py::array::ensure(b, py::array::c_style | py::array::forcecast);
    if(not arr)
        throw py::error_already_set();
    argument result{shape{t, lens}};
    std::memcpy(result.data(), arr.data(), result.get_shape().bytes());
    return result;
}

argument to_argument(const py::handle& h)
{
    if(py::isinstance<argument>(h))
        return h.cast<argument>();
    if(py::isinstance<py::buffer>(h))
        return argument_from_buffer(py::reinterpret_borrow<py::buffer>(h));
    // lists, scalars: let numpy pick the type
    auto arr = py::array::ensure(h);
    if(not arr)
        throw py::type_error("expected a migraphx.argument or something numpy can make an array of, not " +
                             std::string(py::str(py::type::of(h))));
    return argument_from_buffer(arr);
}

void init_argument(py::module_& m)
{
    py::class_<argument>(m, "argument", py::buffer_protocol(),
                         "Data with a shape. argument(numpy_array) shares the array's memory (keeping it alive) "
                         "when its strides allow; np.array(arg) copies the data out, np.asarray(arg) views it.")
        .def(py::init([](const py::buffer& b) { return argument_from_buffer(b); }), py::arg("buffer"))
        .def(py::init([](const shape& s) { return argument{s}; }), py::arg("s"), "Zero-filled memory of shape s.")
        .def_buffer(&buffer_of)
        .def("get_shape", &argument::get_shape)
        .def("empty", &argument::empty)
        .def("data_ptr", [](const argument& a) { return reinterpret_cast<std::uintptr_t>(a.data()); })
        .def("get_sub_objects", &argument::get_sub_objects)
        .def("tolist",
             [](const argument& a) {
                 py::list r;
                 auto n = a.get_shape().elements();
                 for(std::size_t i = 0; i < n; i++)
                     r.append(element_to_python(a, i));
                 return r;
             },
             "Elements in logical (row-major) order as a flat list of Python numbers.")
        .def("copy", &argument::copy)
        .def("__eq__", [](const argument& a, const argument& b) { return a == b; }, py::is_operator())
        .def("__ne__", [](const argument& a, const argument& b) { return a != b; }, py::is_operator())
        .def("__str__", [](const argument& a) {
            std::ostringstream os;
            os << a;
            return os.str();
        });
    py::implicitly_convertible<py::buffer, argument>();

    m.def("generate_argument", &generate_argument, py::arg("s"), py::arg("seed") = 0,
          "Deterministic pseudo-random data of shape s.");
}

} // namespace python
} // namespace migraphx
