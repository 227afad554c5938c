#ifndef MIGRAPHX_GPU_LAYOUT_NHWC_HPP
#define MIGRAPHX_GPU_LAYOUT_NHWC_HPP

// Channels-last (NHWC) for half convolutions: cuDNN's tensor-core kernels read and write NHWC,
// and an NCHW convolution pays a transpose on each side. This pass marks the choice, before
// lowering, by giving each half 2-d convolution with constant weights its weights in KRSC memory
// order (lens still K, C, R, S; strides permuted). Lowering then runs such a convolution with
// NHWC input and output, and lets the pointwise kernels around it keep NHWC (lowering.hpp).
// A convolution with few input channels (C <= 4, not a multiple of 8: ResNet's stem, 3) gets
// its input padded with zero channels to 8 (a `pad` op, which lowering writes NHWC in one kernel)
// and its weights padded with zeros once here: the same sums, on cuDNN's tensor-core kernels.
// A convolution computed from a data-dependent result keeps NCHW (its device form, device_rows.hpp,
// takes standard operands).

#include <migraphx/literal.hpp>
#include <migraphx/module.hpp>
#include <migraphx/shape.hpp>
#include <string>

namespace migraphx {
namespace gpu {

/// s's lens with NHWC strides (4-d): {N, C, H, W} laid out as N, H, W, C.
shape nhwc_shape(const shape& s);
/// Whether s is a 4-d packed tensor laid out as NHWC. A tensor with C == 1 or H == W == 1 (a 1x1
/// or depthwise convolution's weights) is laid out as both NHWC and standard.
bool is_nhwc(const shape& s);

/// The same values laid out NHWC (a 4-d literal; weights: KRSC).
literal to_nhwc(const literal& l);

struct layout_nhwc
{
    std::string name() const { return "gpu::layout_nhwc"; }
    void apply(module& m) const;
};

} // namespace gpu
} // namespace migraphx

#endif
