#ifndef MIGRAPHX_CPU_CHANNEL_SHUFFLE_KERNEL_HPP
#define MIGRAPHX_CPU_CHANNEL_SHUFFLE_KERNEL_HPP

// ShuffleNet's channel shuffle in the channels-last layout, in one pass: the concatenation of
// the parts along the channels, the shuffle (channels viewed as [groups, C / groups], transposed)
// and the equal split after it. As exported (concat, reshape, transpose, a copy, reshape, slices)
// each unit went out of the convolutions' layout and back: 4 copies, 3 of them reorders, 29 % of
// ShuffleNetV2's run on a 2-core Zen 4.

#include <migraphx/argument.hpp>
#include <migraphx/shape.hpp>
#include <string>
#include <vector>

namespace migraphx {
namespace cpu {

/// Inputs: the parts, float {N, H, W, C_i} (channels-last physical dims, any strides), then the
/// output buffer where planned. With C the parts' channels together, channel c of their
/// concatenation goes to channel (c % (C / groups)) * groups + c / (C / groups) of the shuffled
/// tensor, whose channels are split into `splits` equal parts: the output is standard
/// {splits, N, H, W, C / splits}, so each part is a packed channels-last tensor.
struct channel_shuffle_kernel
{
    std::size_t groups = 1;
    std::size_t splits = 1;
    bool planned       = false; // the output buffer is the last input (cpu::plan_memory)
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.groups, "groups");
        f(self.splits, "splits");
        f(self.planned, "planned");
    }
    std::string name() const { return "cpu::channel_shuffle"; }
    std::ptrdiff_t output_alias(const std::vector<shape>& inputs) const
    {
        return planned ? static_cast<std::ptrdiff_t>(inputs.size()) - 1 : -1;
    }
    shape compute_shape(const std::vector<shape>& in) const;
    argument compute(const shape& out, const std::vector<argument>& args) const;
};

} // namespace cpu
} // namespace migraphx

#endif
