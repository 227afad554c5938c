#ifndef MIGRAPHX_GPU_HOST_VALUES_HPP
#define MIGRAPHX_GPU_HOST_VALUES_HPP

// Small integer values the host computed in a run (run-time sizes: ONNX Shape of a data-dependent
// result and the arithmetic on it, a box count's min with a constant...) or holds as literals, by
// the device memory that holds them. A host op reading such a value takes the host's copy instead
// of copying the device buffer back, which waits for the stream: a detector's per-class topk
// waited a few times a class for a k the host had computed itself.
//
// Trust: a lookup answers for memory noted earlier; whether that note is still what the buffer
// holds is the caller's to know. The lowering allows it only for inputs whose producer notes its
// result on every path of every run (ref_fallback::host_inputs), so the latest note covering the
// memory is that producer's of this run; older notes at reused memory lose to it.

#include <migraphx/argument.hpp>
#include <cstdint>
#include <mutex>
#include <optional>
#include <map>

namespace migraphx {
namespace gpu {

/// What a host_values note may hold: a static integer tensor of at most 64 elements (sizes, not
/// data).
inline bool small_integers(const shape& s)
{
    return not s.dynamic() and s.type() != shape::tuple_type and s.type() != shape::bool_type and
           shape::is_integral(s.type()) and s.elements() <= 64;
}

struct host_values
{
    /// host (standard, same type and lens as device; small_integers) is what device holds now.
    /// Anything else is not noted.
    void note(const argument& device, const argument& host);
    /// The host copy of device (a view of a noted value: any shape of its type within the noted
    /// bytes, e.g. unsqueezed or sliced), from the latest note covering its memory; nothing where
    /// none covers it.
    std::optional<argument> find(const argument& device) const;
    std::size_t size() const;

    private:
    struct entry
    {
        std::uintptr_t end = 0;
        std::uint64_t seq  = 0;
        argument host;
    };
    mutable std::mutex m;
    std::uint64_t next_seq = 0;
    std::map<std::uintptr_t, entry> entries; // by start address
};

} // namespace gpu
} // namespace migraphx

#endif
