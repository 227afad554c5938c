// libFuzzer target: parse_onnx_buffer must either give a program or throw migraphx::exception;
// it must never crash, hang, or throw anything else.
#include <migraphx/errors.hpp>
#include <migraphx/onnx.hpp>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    migraphx::onnx_options options;
    options.skip_unknown_operators = (size % 2) == 1;
    try
    {
        auto p = migraphx::parse_onnx_buffer(data, size, options);
        (void)p;
    }
    catch(const migraphx::exception&)
    {
    }
    return 0;
}
