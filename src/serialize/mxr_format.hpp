#ifndef MIGRAPHX_SERIALIZE_MXR_FORMAT_HPP
#define MIGRAPHX_SERIALIZE_MXR_FORMAT_HPP

// The .mxr container (docs/mxr.md). msgpack: the 8-byte magic "MIGX-MXR", a header object
// {mxr_version, migx_version, target}, the program object, then an 8-byte checksum of all that
// precedes it. json: one object {magic: "MIGX-MXR", mxr_version, migx_version, target, program}.
// The header keeps these fields in every format version, so any build can say what a file is.

#include <migraphx/value.hpp>
#include "serialize/msgpack_value.hpp"
#include <cstddef>
#include <cstdint>
#include <functional>
#include <future>
#include <string>
#include <vector>

namespace migraphx {
namespace serialize {

/// The .mxr format version this build writes and reads. Raise it whenever the content changes
/// in a way an older or newer build would misread.
constexpr int mxr_version = 2; // 2: per-chunk XXH3 checksum (mxr_checksum)
constexpr const char* mxr_magic = "MIGX-MXR";
constexpr std::size_t mxr_magic_size = 8;

struct mxr_header
{
    std::string format; // "msgpack" or "json"
    std::int64_t mxr_version = 0;
    std::string migx_version;
    std::string target; // "" for an uncompiled program
};

/// This build's migx version (CMake's project version).
std::string migx_version();

std::vector<char> write_mxr(const value& program, const std::string& target, const std::string& format);
/// Reads the header only (no checksum check, any format version).
mxr_header read_mxr_header(const char* data, std::size_t size);
/// The program object, after checking the magic, format version and (msgpack) checksum.
/// verify_checksum=false is for the fuzzer, to reach the decoder behind the checksum. refs: see
/// msgpack_to_value (literal data left in data, msgpack only). then, if given, is called with
/// the program object while the checksum is still being computed (on another thread, for a large
/// file); a checksum mismatch is reported instead of anything then or the decoding throws.
value read_mxr(const char* data,
               std::size_t size,
               mxr_header& header,
               bool verify_checksum                          = true,
               byte_refs* refs                               = nullptr,
               const std::function<void(const value&)>& then = {});

/// Checks the checksum of a msgpack .mxr of size bytes (its last 8), on another thread from
/// async_min bytes on. size 0: nothing to check, ok() is true.
class checksum_check
{
    public:
    static constexpr std::size_t async_min = std::size_t{1} << 20;
    checksum_check(const char* data, std::size_t size);
    checksum_check(const checksum_check&)            = delete;
    checksum_check& operator=(const checksum_check&) = delete;
    ~checksum_check();
    /// Waits for the result.
    bool ok();

    private:
    bool m_ok = true;
    std::future<bool> m_job;
};

/// The bytes' checksums are taken per chunk of this size (on several threads) and then folded.
constexpr std::size_t mxr_checksum_chunk = std::size_t{1} << 20;

/// 64-bit checksum of the bytes: XXH3-64 of each 1 MiB chunk (on several threads), the chunks'
/// values folded in order by a multiply-rotate step (docs/mxr.md, "Format").
std::uint64_t mxr_checksum(const char* data, std::size_t size);

} // namespace serialize
} // namespace migraphx

#endif
