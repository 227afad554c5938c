#include "ir/strided_copy.hpp"
#include "ir/parallel_for.hpp"
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace migraphx {

namespace {

// The view with size-1 dims dropped and neighbours merged where the outer one steps over
// exactly the inner one's extent (strides[i] == lens[i+1] * strides[i+1]; broadcast dims, all 0,
// merge too). Never empty: a scalar becomes {1} with stride 0.
struct merged_dims
{
    std::vector<std::size_t> lens;
    std::vector<std::size_t> strides;
};

merged_dims merge_dims(const shape& s)
{
    merged_dims m;
    for(std::size_t i = 0; i < s.ndim(); i++)
    {
        auto len = s.lens()[i], stride = s.strides()[i];
        if(len == 1)
            continue;
        if(not m.lens.empty() and m.strides.back() == len * stride)
        {
            m.lens.back() *= len;
            m.strides.back() = stride;
            continue;
        }
        m.lens.push_back(len);
        m.strides.push_back(stride);
    }
    if(m.lens.empty())
    {
        m.lens    = {1};
        m.strides = {0};
    }
    return m;
}

template <class T>
void copy_row(const char* src, char* dst, std::size_t n, std::size_t stride)
{
    const auto* s = reinterpret_cast<const T*>(src);
    auto* d       = reinterpret_cast<T*>(dst);
    if(stride == 0)
        std::fill(d, d + n, *s);
    else
        for(std::size_t i = 0; i < n; i++)
            d[i] = s[i * stride];
}

// One row of n elements of ts bytes, the source stepping by `stride` elements.
void copy_row(const char* src, char* dst, std::size_t n, std::size_t stride, std::size_t ts)
{
    if(stride == 1)
    {
        std::memcpy(dst, src, n * ts);
        return;
    }
    switch(ts)
    {
    case 1: copy_row<std::uint8_t>(src, dst, n, stride); return;
    case 2: copy_row<std::uint16_t>(src, dst, n, stride); return;
    case 4: copy_row<std::uint32_t>(src, dst, n, stride); return;
    case 8: copy_row<std::uint64_t>(src, dst, n, stride); return;
    default:
        for(std::size_t i = 0; i < n; i++)
            std::memcpy(dst + i * ts, src + i * stride * ts, ts);
    }
}

} // namespace

void copy_strided(const shape& s, const char* src, char* dst)
{
    auto n = s.elements();
    if(n == 0)
        return;
    auto ts    = s.type_size();
    auto m     = merge_dims(s);
    auto outer = m.lens.size() - 1;
    auto row   = m.lens.back();
    auto rows  = n / row;
    // Rows [first, last): the first row's multi-index is computed once, then stepped like an
    // odometer, so each row costs a few additions, not a division per dim.
    auto copy_rows = [&](std::size_t first, std::size_t last) {
        std::vector<std::size_t> idx(outer);
        std::size_t offset = 0;
        for(std::size_t r = first, i = outer; i-- > 0;)
        {
            idx[i] = r % m.lens[i];
            r /= m.lens[i];
            offset += idx[i] * m.strides[i];
        }
        for(std::size_t r = first; r < last; r++)
        {
            copy_row(src + offset * ts, dst + r * row * ts, row, m.strides.back(), ts);
            for(std::size_t i = outer; i-- > 0;)
            {
                offset += m.strides[i];
                if(++idx[i] < m.lens[i])
                    break;
                offset -= idx[i] * m.strides[i];
                idx[i] = 0;
            }
        }
    };
    // Below ~1 MB a thread's start costs more than the copy.
    constexpr std::size_t bytes_per_thread = std::size_t{1} << 20;
    auto row_bytes = row * ts;
    if(row_bytes <= 2 * bytes_per_thread)
    {
        parallel_for(rows, std::max<std::size_t>(1, bytes_per_thread / row_bytes), copy_rows);
        return;
    }
    // Long rows (a packed tensor is one row) are cut into pieces of about 1 MB; each piece finds
    // its row's offset by division, which is nothing next to a megabyte's copy.
    auto pieces = row_bytes / bytes_per_thread;
    auto piece  = (row + pieces - 1) / pieces;
    parallel_for(rows * pieces, 1, [&](std::size_t first, std::size_t last) {
        for(std::size_t k = first; k < last; k++)
        {
            auto r = k / pieces, begin = (k % pieces) * piece;
            auto len = std::min(row, begin + piece) - std::min(row, begin);
            std::size_t offset = 0;
            for(std::size_t q = r, i = outer; i-- > 0;)
            {
                offset += (q % m.lens[i]) * m.strides[i];
                q /= m.lens[i];
            }
            offset += begin * m.strides.back();
            copy_row(src + offset * ts, dst + (r * row + begin) * ts, len, m.strides.back(), ts);
        }
    });
}

} // namespace migraphx
