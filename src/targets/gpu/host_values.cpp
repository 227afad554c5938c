#include "targets/gpu/host_values.hpp"

namespace migraphx {
namespace gpu {

namespace {

std::uintptr_t address(const argument& a) { return reinterpret_cast<std::uintptr_t>(a.data()); }

/// Bytes from a's pointer to one past its last element.
std::size_t extent(const shape& s) { return s.elements() == 0 ? 0 : s.element_space() * s.type_size(); }

/// The most bytes a note holds (small_integers: 64 elements of 8 bytes).
constexpr std::uintptr_t max_note_bytes = 64 * 8;

} // namespace

void host_values::note(const argument& device, const argument& host)
{
    if(device.data() == nullptr or not host.get_shape().standard() or not small_integers(host.get_shape()) or
       host.get_shape().type() != device.get_shape().type())
        return;
    std::lock_guard<std::mutex> lock(m);
    auto start = address(device);
    entries[start] = entry{start + extent(host.get_shape()), next_seq++, host};
}

std::optional<argument> host_values::find(const argument& device) const
{
    const auto& s = device.get_shape();
    if(device.data() == nullptr or s.dynamic() or s.type() == shape::tuple_type)
        return std::nullopt;
    auto start = address(device);
    auto end   = start + extent(s);
    std::lock_guard<std::mutex> lock(m);
    const entry* best = nullptr;
    std::uintptr_t best_start = 0;
    // the latest note covering it (an exact one, or a view into one: unsqueezed, sliced); a note
    // spans at most max_note_bytes, so only those starting that close below can
    auto first = entries.lower_bound(start < max_note_bytes ? 0 : start - max_note_bytes);
    for(auto it = first; it != entries.end() and it->first <= start; ++it)
        if(end <= it->second.end and (best == nullptr or it->second.seq > best->seq))
        {
            best       = &it->second;
            best_start = it->first;
        }
    if(best == nullptr or best->host.get_shape().type() != s.type())
        return std::nullopt;
    auto offset = start - best_start;
    auto data   = std::shared_ptr<char>(best->host.share_data(), best->host.data() + offset);
    return argument{s, data};
}

std::size_t host_values::size() const
{
    std::lock_guard<std::mutex> lock(m);
    return entries.size();
}

} // namespace gpu
} // namespace migraphx
