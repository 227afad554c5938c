#ifndef MIGRAPHX_GPU_CUDA_CHECK_HPP
#define MIGRAPHX_GPU_CUDA_CHECK_HPP

// Every CUDA, cuBLASLt, cuDNN and NVRTC call is checked; a failure throws migraphx::exception
// naming the call, the library's error string and the source location.

#include <migraphx/errors.hpp>
#include <cublasLt.h>
#include <cuda_runtime.h>
#include <cudnn.h>
#include <nvrtc.h>
#include <string>

namespace migraphx {
namespace gpu {

inline std::string error_text(cudaError_t e) { return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e); }
inline std::string error_text(cublasStatus_t e) { return "cublas status " + std::to_string(static_cast<int>(e)); }
inline std::string error_text(cudnnStatus_t e) { return cudnnGetErrorString(e); }
inline std::string error_text(nvrtcResult e) { return nvrtcGetErrorString(e); }
inline bool failed(cudaError_t e) { return e != cudaSuccess; }
inline bool failed(cublasStatus_t e) { return e != CUBLAS_STATUS_SUCCESS; }
inline bool failed(cudnnStatus_t e) { return e != CUDNN_STATUS_SUCCESS; }
inline bool failed(nvrtcResult e) { return e != NVRTC_SUCCESS; }

} // namespace gpu
} // namespace migraphx

#define MIGX_CUDA_CHECK(call)                                                            \
    do                                                                                   \
    {                                                                                    \
        auto migx_status_ = (call);                                                      \
        if(::migraphx::gpu::failed(migx_status_))                                        \
            MIGRAPHX_THROW(std::string("gpu: ") + #call + " failed: " +                  \
                           ::migraphx::gpu::error_text(migx_status_));                   \
    } while(false)

#endif
