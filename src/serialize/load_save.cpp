// The public save/load API: file and buffer handling, and one error type for everything the
// decoders below may meet (program_value.cpp, mxr_format.cpp, msgpack_value.cpp, json_value.cpp).
#include <migraphx/load_save.hpp>
#include <migraphx/errors.hpp>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <functional>
#include <memory>
#include <new>
#include "ir/env.hpp"
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

namespace {

void write_file(const std::string& path, const std::vector<char>& bytes, const std::string& name)
{
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    if(not f)
        MIGRAPHX_THROW("save: cannot open '" + name + "' for writing");
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    f.close();
    if(not f)
    {
        std::remove(path.c_str());
        MIGRAPHX_THROW("save: writing '" + name + "' failed");
    }
}

} // namespace

void save(const program& p, const std::string& filename, const file_options& options)
{
    auto bytes = save_buffer(p, options);
    // The new file replaces the old one (a rename) instead of rewriting it: a program loaded
    // from the old file shares its mapped bytes (see load), which a rewrite in place would
    // change or cut short under it. A link is followed, so it stays a link.
    std::string target = filename;
    if(char* real = ::realpath(filename.c_str(), nullptr))
    {
        target = real;
        std::free(real);
    }
    struct stat old{};
    bool exists = ::stat(target.c_str(), &old) == 0;
    if(exists and (not S_ISREG(old.st_mode) or ::access(target.c_str(), W_OK) != 0))
    {
        // a device or a pipe is written as it is; a read-only file stays an error
        write_file(target, bytes, filename);
        return;
    }
    static std::atomic<unsigned> counter{0};
    auto tmp = target + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
    {
        std::ofstream probe(tmp, std::ios::binary);
        if(not probe) // e.g. a folder we may not create files in: rewrite the file in place
        {
            write_file(target, bytes, filename);
            return;
        }
    }
    write_file(tmp, bytes, filename);
    if(exists)
        ::chmod(tmp.c_str(), old.st_mode & 07777);
    if(std::rename(tmp.c_str(), target.c_str()) != 0)
    {
        std::remove(tmp.c_str());
        MIGRAPHX_THROW("save: cannot replace '" + filename + "'");
    }
}

namespace {
// owner, if not null, keeps buffer alive: literals then share the file's bytes instead of
// copying them (see program_from_value).
program load_bytes(const char* buffer,
                   std::size_t size,
                   const file_options& options,
                   const std::string& what,
                   std::shared_ptr<char> owner = nullptr)
{
    return with_context(what, [&] {
        serialize::mxr_header header;
        serialize::byte_refs refs;
        refs.owner = std::move(owner);
        program p;
        // The program is rebuilt while the checksum is computed on another thread; read_mxr
        // reports a mismatch instead of whatever the rebuilding said.
        using clock = std::chrono::steady_clock;
        auto t0     = clock::now();
        double rebuild = 0;
        serialize::read_mxr(buffer, size, header, true, &refs, [&](const value& v) {
            auto r0 = clock::now();
            p       = serialize::program_from_value(v, options.device_id, &refs);
            rebuild = std::chrono::duration<double, std::milli>(clock::now() - r0).count();
        });
        if(env_enabled("MIGRAPHX_TIME_LOAD"))
        {
            auto total = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
            std::cerr << what << ": " << size << " bytes in " << total << " ms: rebuild (finalize included) "
                      << rebuild << " ms, decode and checksum " << total - rebuild << " ms\n";
        }
        return p;
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
    // Mapped, not read: nothing is copied. The literals share the mapping (kept while any of
    // them lives), so the weights are read from the page cache as they are needed, with no
    // allocation, zero-fill or copy. The mapping is private and writable like heap memory (a
    // write copies the page and never reaches the file). Like a shared library's, the file must
    // not be truncated or rewritten in place while the program lives; save() replaces files
    // instead of rewriting them.
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
    void* data = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    ::close(fd);
    if(data == MAP_FAILED)
        MIGRAPHX_THROW("load: cannot map '" + filename + "'");
    std::shared_ptr<char> mapping(static_cast<char*>(data), [size](char* p) { ::munmap(p, size); });
    const char* bytes = mapping.get();
    return load_bytes(bytes, size, options, "load(" + filename + ")", std::move(mapping));
}

} // namespace migraphx
