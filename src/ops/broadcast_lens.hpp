#ifndef MIGRAPHX_OPS_BROADCAST_LENS_HPP
#define MIGRAPHX_OPS_BROADCAST_LENS_HPP

#include <migraphx/errors.hpp>
#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

namespace migraphx {

inline std::string lens_string(const std::vector<std::size_t>& lens)
{
    std::string r = "{";
    for(std::size_t i = 0; i < lens.size(); i++)
        r += (i ? ", " : "") + std::to_string(lens[i]);
    return r + "}";
}

/// The numpy-broadcast lens of a and b (right-aligned; a dim of 1 stretches); throws on mismatch.
inline std::vector<std::size_t> compute_broadcasted_lens(std::vector<std::size_t> a, std::vector<std::size_t> b)
{
    if(a.size() < b.size())
        std::swap(a, b);
    auto offset = a.size() - b.size();
    std::vector<std::size_t> r = a;
    for(std::size_t i = 0; i < b.size(); i++)
    {
        auto x = a[offset + i];
        auto y = b[i];
        if(x != y and x != 1 and y != 1)
            throw exception("broadcast: shapes " + lens_string(a) + " and " + lens_string(b) +
                            " cannot be broadcast together");
        r[offset + i] = x == 1 ? y : x;
    }
    return r;
}

} // namespace migraphx

#endif
