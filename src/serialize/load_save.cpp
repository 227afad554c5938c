// The public save/load API: file and buffer handling, and one error type for everything the
// decoders below may meet (program_value.cpp, mxr_format.cpp, msgpack_value.cpp, json_value.cpp).
#include <migraphx/load_save.hpp>
#include <migraphx/errors.hpp>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <fstream>
#include <functional>
#include <memory>
#include <new>
#include "serialize/mxr_format.hpp"
#include "serialize/program_value.hpp"

namespace migraphx {

namespace {

// Messages may quote parts of a corrupted file; keep them readable.
std::string shorten(std::string msg)
{
    constexpr std::size_t most = 2000;
    if(msg.size() > most)
        msg = msg.substr(0, most) + "...";
    return msg;
}

template <class F>
auto with_context(const std::string& what, F f)
{
    try
    {
        return f();
    }
    catch(const exception& e)
    {
        MIGRAPHX_THROW(what + ": " + shorten(e.what()));
    }
    catch(const std::bad_alloc&)
    {
        MIGRAPHX_THROW(what + ": out of memory (the file is corrupted or too large)");
    }
    catch(const std::exception& e)
    {
        // e.g. oneDNN rejecting a corrupted compiled op in finalize
        MIGRAPHX_THROW(what + ": " + shorten(e.what()));
    }
}

std::string format_of(const file_options& options)
{
    if(options.format != "msgpack" and options.format != "json")
        MIGRAPHX_THROW("save: unknown format '" + options.format + "'; use \"msgpack\" or \"json\"");
    return options.format;
}

} // namespace

std::vector<char> save_buffer(const program& p, const file_options& options)
{
    auto format = format_of(options);
    return with_context("save", [&] {
        auto enc = format == "json" ? serialize::literal_encoding::base64 : serialize::literal_encoding::raw;
        return serialize::write_mxr(serialize::program_to_value(p, enc), p.target_name(), format);
    });
}

void save(const program& p, const std::string& filename, const file_options& options)
{
    auto bytes = save_buffer(p, options);
    std::ofstream f(filename, std::ios::binary);
    if(not f)
        MIGRAPHX_THROW("save: cannot open '" + filename + "' for writing");
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    f.close();
    if(not f)
        MIGRAPHX_THROW("save: writing '" + filename + "' failed");
}

namespace {
program load_bytes(const char* buffer, std::size_t size, const file_options& options, const std::string& what)
{
    return with_context(what, [&] {
        serialize::mxr_header header;
        auto v = serialize::read_mxr(buffer, size, header);
        return serialize::program_from_value(v, options.device_id);
    });
}
} // namespace

program load_buffer(const char* buffer, std::size_t size, const file_options& options)
{
    if(buffer == nullptr and size != 0)
        MIGRAPHX_THROW("load_buffer: null buffer");
    return load_bytes(buffer, size, options, "load_buffer");
}

program load_buffer(const std::vector<char>& buffer, const file_options& options)
{
    return load_buffer(buffer.data(), buffer.size(), options);
}

program load(const std::string& filename, const file_options& options)
{
    // Mapped, not read: the bytes are decoded in place (literals are copied out once).
    int fd = ::open(filename.c_str(), O_RDONLY | O_CLOEXEC);
    if(fd < 0)
        MIGRAPHX_THROW("load: cannot open '" + filename + "'");
    struct stat st{};
    if(::fstat(fd, &st) != 0 or not S_ISREG(st.st_mode))
    {
        ::close(fd);
        MIGRAPHX_THROW("load: '" + filename + "' is not a readable file");
    }
    auto size = static_cast<std::size_t>(st.st_size);
    if(size == 0)
    {
        ::close(fd);
        return load_bytes(nullptr, 0, options, "load(" + filename + ")");
    }
    void* data = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    ::close(fd);
    if(data == MAP_FAILED)
        MIGRAPHX_THROW("load: cannot map '" + filename + "'");
    std::unique_ptr<void, std::function<void(void*)>> unmap(data, [size](void* p) { ::munmap(p, size); });
    return load_bytes(static_cast<const char*>(data), size, options, "load(" + filename + ")");
}

} // namespace migraphx
