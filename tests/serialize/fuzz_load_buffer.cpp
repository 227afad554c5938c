// libFuzzer target: load_buffer must either give a program or throw migraphx::exception; it must
// never crash, hang, or throw anything else. Most mutations break the checksum, so the decoders
// behind it are also fed directly (read_mxr without the checksum check, then program_from_value).
#include <migraphx/errors.hpp>
#include <migraphx/load_save.hpp>
#include <cstddef>
#include <cstdint>
#include "serialize/mxr_format.hpp"
#include "serialize/program_value.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const auto* bytes = reinterpret_cast<const char*>(data);
    try
    {
        auto p = migraphx::load_buffer(bytes, size);
        (void)p;
    }
    catch(const migraphx::exception&)
    {
    }
    try
    {
        migraphx::serialize::mxr_header h;
        auto v = migraphx::serialize::read_mxr(bytes, size, h, false);
        auto p = migraphx::serialize::program_from_value(v, 0);
        (void)p;
    }
    catch(const migraphx::exception&)
    {
    }
    return 0;
}
