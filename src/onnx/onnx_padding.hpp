#ifndef MIGRAPHX_ONNX_ONNX_PADDING_HPP
#define MIGRAPHX_ONNX_ONNX_PADDING_HPP

// Window attributes shared by convolution and pooling: strides/dilations/kernel and the explicit
// pads that auto_pad (SAME_UPPER, SAME_LOWER, VALID) stands for, given static input sizes.

#include "onnx/onnx_utils.hpp"

namespace migraphx {
namespace onnx {

/// A per-spatial-dim attribute (strides, dilations...), def when absent; must be positive unless def is 0.
inline std::vector<std::size_t>
size_attr(const node_info& info, const std::string& name, std::size_t kd, std::size_t def)
{
    auto v = info.get_ints(name, std::vector<std::int64_t>(kd, static_cast<std::int64_t>(def)));
    if(v.size() != kd)
        info.fail(name + " has " + std::to_string(v.size()) + " values for " + std::to_string(kd) +
                  " spatial dims");
    std::vector<std::size_t> r;
    for(auto x : v)
    {
        if(x < 0 or (x == 0 and def != 0))
            info.fail(name + " must be positive");
        r.push_back(static_cast<std::size_t>(x));
    }
    return r;
}

/// Begin pads then end pads (2 * kd values) for a window of size k over inputs in.
inline std::vector<std::size_t> pads_attr(const node_info& info,
                                          const std::vector<std::size_t>& in,
                                          const std::vector<std::size_t>& k,
                                          const std::vector<std::size_t>& strides,
                                          const std::vector<std::size_t>& dilations,
                                          bool)
{
    auto kd       = in.size();
    auto auto_pad = info.get_string("auto_pad", "NOTSET");
    std::vector<std::size_t> pads(2 * kd, 0);
    if(auto_pad == "NOTSET" or auto_pad.empty())
    {
        auto p = info.get_ints("pads", std::vector<std::int64_t>(2 * kd, 0));
        if(p.size() != 2 * kd)
            info.fail("pads has " + std::to_string(p.size()) + " values, expected " + std::to_string(2 * kd));
        for(std::size_t i = 0; i < 2 * kd; i++)
        {
            if(p[i] < 0)
                info.fail("negative pads are not supported");
            pads[i] = static_cast<std::size_t>(p[i]);
        }
        return pads;
    }
    if(auto_pad == "VALID")
        return pads;
    if(auto_pad != "SAME_UPPER" and auto_pad != "SAME_LOWER")
        info.fail("unknown auto_pad '" + auto_pad + "'");
    for(std::size_t i = 0; i < kd; i++)
    {
        auto out   = (in[i] + strides[i] - 1) / strides[i];
        auto span  = (k[i] - 1) * dilations[i] + 1;
        auto need  = (out - 1) * strides[i] + span;
        auto total = need > in[i] ? need - in[i] : 0;
        auto small = total / 2;
        pads[i]      = auto_pad == "SAME_UPPER" ? small : total - small;
        pads[i + kd] = total - pads[i];
    }
    return pads;
}

} // namespace onnx
} // namespace migraphx

#endif
