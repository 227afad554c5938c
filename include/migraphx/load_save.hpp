#ifndef MIGRAPHX_LOAD_SAVE_HPP
#define MIGRAPHX_LOAD_SAVE_HPP

#include <migraphx/program.hpp>
#include <cstddef>
#include <string>
#include <vector>

namespace migraphx {

/// How save writes a program, and which device load uses. Format of an .mxr file: docs/mxr.md.
struct file_options
{
    /// "msgpack" (the binary .mxr format) or "json" (the same content, readable by eye).
    /// load recognises either format from the file's first bytes.
    std::string format = "msgpack";
    /// The device a compiled gpu program is loaded onto.
    std::size_t device_id = 0;
};

/// Writes a program, compiled or not. A compiled program keeps everything it runs with (its
/// target, literals such as packed weights, the lowered instructions), so load does not compile.
void save(const program& p, const std::string& filename, const file_options& options = file_options{});
std::vector<char> save_buffer(const program& p, const file_options& options = file_options{});

/// Reads a program written by save. A compiled program comes back ready to eval on its target.
/// A file of another .mxr format version, a truncated or corrupted file, an unknown operator or
/// a target that is not available here throws migraphx::exception naming the problem.
program load(const std::string& filename, const file_options& options = file_options{});
program load_buffer(const std::vector<char>& buffer, const file_options& options = file_options{});
program load_buffer(const char* buffer, std::size_t size, const file_options& options = file_options{});

} // namespace migraphx

#endif
