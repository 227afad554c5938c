// libFuzzer target: load_buffer must either give a program or throw migraphx::exception; it must
// never crash, hang, or throw anything else. Most mutations break the checksum, so the decoders
// behind it are also fed directly (read_mxr without the checksum check, then program_from_value),
// with the literal data copied into the value tree and left in the input as load leaves it.
#include <migraphx/errors.hpp>
#include <migraphx/load_save.hpp>
#include <cstddef>
#include <algorithm>
#include <cstdint>
#include <memory>
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
    // As load does it: literal data left in the input (an owned copy, as a mapped file), which
    // the literals share where it is aligned.
    try
    {
        std::shared_ptr<char> owned(new char[size + 1], std::default_delete<char[]>());
        std::copy(bytes, bytes + size, owned.get());
        migraphx::serialize::byte_refs refs;
        refs.owner = owned;
        migraphx::serialize::mxr_header h;
        auto v = migraphx::serialize::read_mxr(owned.get(), size, h, false, &refs);
        auto p = migraphx::serialize::program_from_value(v, 0, &refs);
        (void)p;
    }
    catch(const migraphx::exception&)
    {
    }
    return 0;
}
