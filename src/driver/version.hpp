#ifndef MIGRAPHX_DRIVER_VERSION_HPP
#define MIGRAPHX_DRIVER_VERSION_HPP

namespace migraphx {
namespace driver {

// The library's version lives in CMake's project(VERSION); the driver target does not get it
// as a compile definition yet, so this falls back to a constant kept in step by hand.
#ifdef MIGRAPHX_VERSION_STRING
constexpr const char* migraphx_version = MIGRAPHX_VERSION_STRING;
#else
constexpr const char* migraphx_version = "0.1.0";
#endif
/// Highest ONNX opset the parser implements.
constexpr int onnx_opset_version = 17;
/// Version of the .mxr format this build writes and reads.
constexpr int mxr_version = 1;

} // namespace driver
} // namespace migraphx

#endif
