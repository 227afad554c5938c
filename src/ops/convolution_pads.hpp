#ifndef MIGRAPHX_OPS_CONVOLUTION_PADS_HPP
#define MIGRAPHX_OPS_CONVOLUTION_PADS_HPP
// The begin and end paddings of a convolution: the explicit ones (one per spatial dim, used at
// both ends, or begin..., end...) or, for same_lower/same_upper (ONNX auto_pad), the ones that
// make each output dim ceil(input / stride). The reference op and the cpu and gpu lowerings all
// read paddings through this, so they agree on where the odd pixel goes.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace migraphx {

/// Begin paddings then end paddings for x's and w's lens ({N, C, spatial...}, {K, C/g, kernel...}).
/// padding_mode: 0 explicit (`padding`), 1 same_lower (the extra pixel at the begin), 2 same_upper
/// (at the end). The attribute sizes must already be checked (stride and dilation one per spatial
/// dim; padding one or two per spatial dim), as the op's compute_shape does.
inline std::vector<std::size_t> convolution_pads(const std::vector<std::size_t>& padding,
                                                 std::int64_t padding_mode,
                                                 const std::vector<std::size_t>& stride,
                                                 const std::vector<std::size_t>& dilation,
                                                 const std::vector<std::size_t>& x,
                                                 const std::vector<std::size_t>& w)
{
    std::size_t kd = x.size() - 2;
    std::vector<std::size_t> r(2 * kd);
    for(std::size_t i = 0; i < kd; i++)
    {
        if(padding_mode == 1 or padding_mode == 2)
        {
            std::size_t dk    = dilation[i] * (w[i + 2] - 1) + 1;
            std::size_t out   = (x[i + 2] + stride[i] - 1) / stride[i];
            std::size_t need  = (out - 1) * stride[i] + dk;
            std::size_t total = need > x[i + 2] ? need - x[i + 2] : 0;
            std::size_t small = total / 2;
            r[i]              = padding_mode == 2 ? small : total - small;
            r[i + kd]         = total - r[i];
        }
        else
        {
            r[i]      = padding[i];
            r[i + kd] = padding.size() == 2 * kd ? padding[i + kd] : padding[i];
        }
    }
    return r;
}

} // namespace migraphx

#endif
