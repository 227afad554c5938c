// quantize_fp16 / quantize_int8 (spec 5.3, 5.4) and quantize_fp8 (MIGraphX's), bound when
// <migraphx/quantization.hpp> exists.
#include "common.hpp"
#include <migraphx/program.hpp>
#include <migraphx/target.hpp>
#if __has_include(<migraphx/quantization.hpp>)
#include <migraphx/quantization.hpp>
#define MIGRAPHX_PYTHON_HAVE_QUANTIZATION 1
#endif

namespace migraphx {
namespace python {

#ifdef MIGRAPHX_PYTHON_HAVE_QUANTIZATION
namespace {
/// Calibration data as given from Python: dicts of name -> numpy array or migraphx.argument.
std::vector<parameter_map> calibration_maps(const std::vector<py::dict>& calibration)
{
    std::vector<parameter_map> data;
    for(const auto& d : calibration)
    {
        parameter_map params;
        for(const auto& [k, v] : d)
            params[py::str(k).cast<std::string>()] = to_argument(v);
        data.push_back(std::move(params));
    }
    return data;
}
} // namespace
#endif

void init_quantize(py::module_& m)
{
#ifdef MIGRAPHX_PYTHON_HAVE_QUANTIZATION
    m.def("quantize_fp16",
          [](program& p, const std::vector<std::string>& ins_names) {
              py::gil_scoped_release nogil;
              quantize_fp16(p, ins_names);
          },
          py::arg("prog"), py::arg("ins_names") = std::vector<std::string>{"all"},
          "Converts the program (before compile) to run in half precision.");
    m.def("quantize_int8",
          [](program& p, const target& t, const std::vector<py::dict>& calibration,
             const std::vector<std::string>& ins_names) {
              auto data = calibration_maps(calibration);
              py::gil_scoped_release nogil;
              quantize_int8(p, t, data, ins_names);
          },
          py::arg("prog"), py::arg("t"), py::arg("calibration") = std::vector<py::dict>{},
          py::arg("ins_names") = std::vector<std::string>{"dot", "convolution"},
          "Quantizes dot/convolution to int8, calibrated on t with the given inputs.");
    m.def("quantize_fp8",
          [](program& p, const target& t, const std::vector<py::dict>& calibration,
             const std::vector<std::string>& ins_names) {
              auto data = calibration_maps(calibration);
              py::gil_scoped_release nogil;
              quantize_fp8(p, t, data, ins_names);
          },
          py::arg("prog"), py::arg("t"), py::arg("calibration") = std::vector<py::dict>{},
          py::arg("ins_names") = std::vector<std::string>{"dot", "convolution"},
          "Makes dot/convolution by constant weights read their operands in fp8 e4m3 (per-tensor scales), "
          "calibrated on t with the given inputs.");
#else
    // TODO(issue 8): bind quantize_fp16/quantize_int8 once <migraphx/quantization.hpp> exists; this
    // file picks it up by itself on the next build.
    (void)m;
#endif
}

} // namespace python
} // namespace migraphx
