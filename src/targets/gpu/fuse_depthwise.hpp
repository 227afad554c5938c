#ifndef MIGRAPHX_GPU_FUSE_DEPTHWISE_HPP
#define MIGRAPHX_GPU_FUSE_DEPTHWISE_HPP

#include <migraphx/module.hpp>
#include <string>

namespace migraphx {
namespace gpu {

/// A half 2-d depthwise convolution (group = channels, one filter a channel, constant weights)
/// with the per-channel bias and clamp/relu (fused pointwise ops) of the tensor it reads and of
/// its result becomes one `depthwise_activated` op (ops/depthwise_activated.cpp), which lowering
/// runs as one generated kernel (codegen_depthwise.hpp): MobileNet's "bias + relu6, depthwise,
/// bias + relu6" read and write their tensors once instead of three times. The input activation
/// is folded only when the convolution is its one user. Runs after fuse_pointwise.
/// MIGRAPHX_DISABLE_DEPTHWISE_FUSION=1 (or MIGRAPHX_DISABLE_PASSES=gpu::fuse_depthwise) turns it off.
struct fuse_depthwise
{
    std::string name() const { return "gpu::fuse_depthwise"; }
    void apply(module& m) const;
};

} // namespace gpu
} // namespace migraphx

#endif
