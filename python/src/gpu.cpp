// Device buffers for programs compiled with offload_copy=False (spec chapter 6): allocate_gpu,
// to_gpu, from_gpu. Present only when libmigraphx has the gpu target.
#include "common.hpp"
#ifdef MIGRAPHX_HAVE_GPU
#include <migraphx/gpu/hip.hpp>
#endif

namespace migraphx {
namespace python {

void init_gpu(py::module_& m)
{
#ifdef MIGRAPHX_HAVE_GPU
    m.def("allocate_gpu", &gpu::allocate_gpu, py::arg("s"), py::arg("host") = false,
          "Uninitialised device memory of shape s (pinned host memory with host=True).");
    m.def("to_gpu", [](const argument& arg, bool host) {
              py::gil_scoped_release nogil;
              return gpu::to_gpu(arg, host);
          },
          py::arg("arg"), py::arg("host") = false, "A device copy of a host argument.");
    m.def("from_gpu", [](const argument& arg) {
              py::gil_scoped_release nogil;
              return gpu::from_gpu(arg);
          },
          py::arg("arg"), "A host copy of a device argument (waits for the copy).");
    m.def("gpu_sync", [] {
        py::gil_scoped_release nogil;
        gpu::gpu_sync();
    });
    m.def("get_device_count", &gpu::get_device_count, "CUDA devices visible to this process.");
    m.attr("gpu_built") = true;
#else
    m.attr("gpu_built") = false;
#endif
}

} // namespace python
} // namespace migraphx
