#ifndef MIGRAPHX_GPU_TUNING_CACHE_HPP
#define MIGRAPHX_GPU_TUNING_CACHE_HPP

// The persistent tuning cache: what finalize measured for a problem (the cuDNN legacy algorithm,
// the backend engine configuration of a convolution), kept on disk so that another process
// compiling the same problem makes the same choice (the same bits) without measuring.
//   folder: <kernel cache folder>/tuning (kernel_compiler.hpp's gpu_cache_dir());
//           MIGRAPHX_GPU_CACHE_DIR=off (both caches) or MIGRAPHX_GPU_TUNING_CACHE=off disables it
//   file:   one per key, named by the key's 64-bit FNV-1a hash (<16 hex digits>.txt), holding the
//           whole key, the value and a checksum of both; written under a temporary name, then
//           renamed (a concurrent reader sees all or nothing)
// A read is a miss unless the file parses, its checksum holds and its key is the one asked for:
// a hash collision or a damaged file costs a measurement, never a wrong choice. Failures to
// write (an unwritable folder) are silent: the cache only saves time.
// No CUDA here (testable on any host); the keys and values are convolution.cpp's and
// gemm_search.cpp's (a cuBLASLt algorithm as 128 hex digits) and rnn.cpp's (a cuDNN RNN algorithm by name).

#include <cstddef>
#include <optional>
#include <string>
#include <utility>

namespace migraphx {
namespace gpu {

/// The folder of the tuning cache, "" when disabled (MIGRAPHX_GPU_CACHE_DIR=off or
/// MIGRAPHX_GPU_TUNING_CACHE=off).
std::string tuning_cache_dir();

/// The file's text for key and value (any bytes in either).
std::string tuning_file_text(const std::string& key, const std::string& value);

/// The key and value of a file's text; nullopt unless it is exactly what tuning_file_text
/// writes (format line, lengths, checksum, end line).
std::optional<std::pair<std::string, std::string>> parse_tuning_file(const std::string& text);

/// Process-wide counts of what the caches did (tests and traces).
struct tuning_cache_stats
{
    std::size_t hits = 0, misses = 0, writes = 0;
};
tuning_cache_stats tuning_stats();

class tuning_cache
{
    public:
    /// A cache in folder dir ("" = disabled: every read misses, nothing is written).
    explicit tuning_cache(std::string dir) : dir_(std::move(dir)) {}
    /// The cache the environment asks for (tuning_cache_dir()).
    static tuning_cache from_env() { return tuning_cache(tuning_cache_dir()); }
    bool enabled() const { return not dir_.empty(); }
    const std::string& dir() const { return dir_; }
    /// The file that holds key's entry.
    std::string file_of(const std::string& key) const;
    /// The value stored for key; nullopt when disabled, absent, damaged or another key's.
    std::optional<std::string> read(const std::string& key) const;
    /// Stores value for key (replacing what was there); false, never an exception, when it
    /// cannot (disabled, unwritable folder).
    bool write(const std::string& key, const std::string& value) const;

    private:
    std::string dir_;
};

/// Forgets the choices convolution.cpp, gemm_search.cpp and rnn.cpp made in this process (their
/// in-process caches and the built backend plans), so that the next compile reads the tuning
/// cache again, as a new process would. For tests.
void forget_tuning_choices();

} // namespace gpu
} // namespace migraphx

#endif
