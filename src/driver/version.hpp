#ifndef MIGRAPHX_DRIVER_VERSION_HPP
#define MIGRAPHX_DRIVER_VERSION_HPP

#include "serialize/mxr_format.hpp"

namespace migraphx {
namespace driver {

// The version is CMake's project(VERSION), which src/CMakeLists.txt passes to the driver as
// MIGRAPHX_VERSION_STRING; the constant is only a fallback for a build outside CMake.
#ifdef MIGRAPHX_VERSION_STRING
constexpr const char* migraphx_version = MIGRAPHX_VERSION_STRING;
#else
constexpr const char* migraphx_version = "0.1.0";
#endif
/// Highest ONNX opset the parser implements.
constexpr int onnx_opset_version = 17;
/// Version of the .mxr format this build writes and reads (the serializer's own constant).
constexpr int mxr_version = serialize::mxr_version;

} // namespace driver
} // namespace migraphx

#endif
