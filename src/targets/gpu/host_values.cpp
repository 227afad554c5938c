#include "targets/gpu/host_values.hpp"

namespace migraphx {
namespace gpu {

namespace {

std::uintptr_t address(const argument& a) { return reinterpret_cast<std::uintptr_t>(a.data()); }

/// Bytes from a's pointer to one past its last element.
std::size_t extent(const shape& s) { return s.elements() == 0 ? 0 : s.element_space() * s.type_size(); }

} // namespace

void host_values::note(const argument& device, const argument& host)
{
    if(device.data() == nullptr or not host.get_shape().standard() or
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
    // the latest note covering it (an exact one, or a view into one: unsqueezed, sliced)
    for(const auto& [b, e] : entries)
        if(b <= start and end <= e.end and (best == nullptr or e.seq > best->seq))
        {
            best       = &e;
            best_start = b;
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
