#include "targets/cpu/channel_shuffle_kernel.hpp"
#include "targets/cpu/dnnl_context.hpp"
#include "targets/cpu/omp_region.hpp"
#include <migraphx/errors.hpp>
#include <migraphx/register_op.hpp>
#include <array>
#include <sstream>

namespace migraphx {
namespace cpu {

shape channel_shuffle_kernel::compute_shape(const std::vector<shape>& all) const
{
    auto in = own_inputs(all, planned);
    if(in.empty() or groups == 0 or splits == 0)
        MIGRAPHX_THROW("cpu::channel_shuffle: needs at least one part, and groups and splits of at least 1");
    std::size_t channels = 0;
    for(const auto& s : in)
    {
        if(s.dynamic() or s.type() != shape::float_type or s.lens().size() != 4 or
           s.lens()[0] != in[0].lens()[0] or s.lens()[1] != in[0].lens()[1] or s.lens()[2] != in[0].lens()[2])
        {
            std::ostringstream ss;
            ss << "cpu::channel_shuffle: the parts must be float {N, H, W, C} of one N, H and W, got " << s;
            MIGRAPHX_THROW(ss.str());
        }
        channels += s.lens()[3];
    }
    if(channels % groups != 0 or channels % splits != 0)
        MIGRAPHX_THROW("cpu::channel_shuffle: " + std::to_string(channels) + " channels do not divide into " +
                       std::to_string(groups) + " groups and " + std::to_string(splits) + " splits");
    const auto& l = in[0].lens();
    return planned_shape(name(), {shape::float_type, {splits, l[0], l[1], l[2], channels / splits}}, all, planned);
}

namespace {

/// The part and channel within it of each group's first channel where every group's channels
/// lie within one part at unit stride (ShuffleNet: two parts, a group each); empty otherwise.
std::vector<std::pair<std::size_t, std::size_t>> group_sources(const std::vector<argument>& parts, std::size_t per_group)
{
    std::vector<std::pair<std::size_t, std::size_t>> r;
    for(std::size_t p = 0; p < parts.size(); p++)
    {
        const auto& s = parts[p].get_shape();
        auto c        = s.lens()[3];
        if(c % per_group != 0 or (s.strides()[3] != 1 and c > 1))
            return {};
        for(std::size_t k = 0; k < c; k += per_group)
            r.emplace_back(p, k);
    }
    return r;
}

} // namespace

argument channel_shuffle_kernel::compute(const shape& out, const std::vector<argument>& args) const
{
    auto parts      = own_inputs(args, planned);
    const auto& l   = out.lens();
    auto per_split  = l[4];
    auto channels   = per_split * splits;
    auto per_group  = channels / groups;
    auto split_size = l[1] * l[2] * l[3] * per_split; // elements of one split
    argument result = result_buffer(out, args, planned);
    auto* y         = reinterpret_cast<float*>(result.data());
    auto pixels     = static_cast<std::int64_t>(l[1] * l[2] * l[3]);
    bool parallel   = split_size * splits > (1u << 15);
    auto pixel_of   = [&](const argument& part, std::size_t px) {
        const auto& st = part.get_shape().strides();
        auto w = px % l[3], h = (px / l[3]) % l[2], n = px / (l[3] * l[2]);
        return reinterpret_cast<const float*>(part.data()) + n * st[0] + h * st[1] + w * st[2];
    };
    auto sources = group_sources(parts, per_group);
    constexpr std::size_t max_groups = 8;
    if(not sources.empty() and per_split % groups == 0 and groups <= max_groups)
    {
        // Each output channel i * groups + j is channel i of group j: per split, a run of i over
        // the groups' contiguous channels, the writes contiguous (vectorised for 2 groups).
        omp_for(parallel, pixels, [&](std::int64_t p) {
            auto px = static_cast<std::size_t>(p);
            std::array<const float*, max_groups> from{};
            for(std::size_t j = 0; j < groups; j++)
                from[j] = pixel_of(parts[sources[j].first], px) + sources[j].second;
            for(std::size_t sp = 0; sp < splits; sp++)
            {
                float* to    = y + sp * split_size + px * per_split;
                auto i0      = sp * per_split / groups;
                auto n       = per_split / groups;
                if(groups == 2)
                {
                    const float* a = from[0] + i0;
                    const float* b = from[1] + i0;
                    for(std::size_t i = 0; i < n; i++)
                    {
                        to[2 * i]     = a[i];
                        to[2 * i + 1] = b[i];
                    }
                }
                else
                    for(std::size_t i = 0; i < n; i++)
                        for(std::size_t j = 0; j < groups; j++)
                            to[i * groups + j] = from[j][i0 + i];
            }
        });
        return result;
    }
    // Any other parts: each channel of the concatenation to its place, by a table.
    std::vector<std::size_t> to(channels);
    for(std::size_t c = 0; c < channels; c++)
    {
        auto shuffled = (c % per_group) * groups + c / per_group;
        to[c]         = (shuffled / per_split) * split_size + shuffled % per_split;
    }
    omp_for(parallel, pixels, [&](std::int64_t p) {
        auto px                = static_cast<std::size_t>(p);
        float* at              = y + px * per_split;
        const std::size_t* dst = to.data();
        for(const auto& part : parts)
        {
            const auto* x = pixel_of(part, px);
            auto st       = part.get_shape().strides()[3];
            auto c        = part.get_shape().lens()[3];
            for(std::size_t k = 0; k < c; k++)
                at[dst[k]] = x[k * st];
            dst += c;
        }
    });
    return result;
}

MIGRAPHX_REGISTER_OP(channel_shuffle_kernel)

} // namespace cpu
} // namespace migraphx
