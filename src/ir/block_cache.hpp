#ifndef MIGRAPHX_IR_BLOCK_CACHE_HPP
#define MIGRAPHX_IR_BLOCK_CACHE_HPP

// Zeroed host blocks for arguments that own their memory (argument(shape)), with large freed
// blocks kept for reuse. A result whose size is known only at run time (a detector's boxes,
// RoI features, masks) gets its own block every run; from the kernel each large block costs a
// page fault and a page clear per 4 KiB on first touch, every run (Mask R-CNN: ~140 MB a run,
// 5-8 % of its cpu time), where a reused block costs one memset. ONNX Runtime keeps an arena for
// the same reason.
//   - blocks below 1 MiB: calloc / free (malloc's own free lists reuse them already; 16-byte
//     aligned)
//   - blocks of 1 MiB and more: mmap / munmap (page-aligned; zero from the kernel, which clears
//     each page on its first touch, so a fresh block is never written twice)
//   - a large block, freed: kept; the oldest kept blocks are freed while the cache holds more than
//     MIGRAPHX_BLOCK_CACHE_MB in all (default block_cache_default_mb; 0: keep nothing), so what
//     a compile freed gives way to what the runs use
//   - a large request: the smallest kept block of at least that size and at most twice it,
//     zeroed again (memset of what the request asked for; not for allocate_uninitialized), else
//     a fresh mapping
// Thread-safe; the cache lives for the process. Its blocks go back to the system when evicted,
// when clear_block_cache empties it (program::finalize does, at its end) and at exit.

#include <cstddef>
#include <memory>

namespace migraphx {

/// A zeroed block of at least n bytes (a 1-byte block for n = 0); throws std::bad_alloc.
std::shared_ptr<char> allocate_zeroed(std::size_t n);

/// As allocate_zeroed, for a caller that writes every byte before any is read (a copy, a
/// gather): a reused large block is not zeroed first. Its bytes are unspecified.
std::shared_ptr<char> allocate_uninitialized(std::size_t n);

struct block_cache_stats
{
    std::size_t fresh_large = 0;  // large blocks newly mapped
    std::size_t reused      = 0;  // large blocks taken from the cache
    std::size_t kept_bytes  = 0;  // bytes now in the cache
    std::size_t kept_blocks = 0;
    std::size_t evicted     = 0;  // kept blocks freed to stay within the limit
};

/// What the cache has done in this process (tests, traces).
block_cache_stats block_cache_statistics();

/// Frees every kept block.
void clear_block_cache();

/// The smallest request the cache serves (1 MiB).
constexpr std::size_t block_cache_threshold = std::size_t{1} << 20;
/// How many MiB the cache keeps unless MIGRAPHX_BLOCK_CACHE_MB says otherwise.
constexpr std::size_t block_cache_default_mb = 256;

} // namespace migraphx

#endif
