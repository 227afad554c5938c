#ifndef MIGRAPHX_GPU_CONV_REFERENCE_HPP
#define MIGRAPHX_GPU_CONV_REFERENCE_HPP

// The exact result of a convolution problem at sampled outputs, for the search's accuracy check
// (half_accuracy.hpp): no cuDNN, no device.

#include "targets/gpu/cudnn_graph_spec.hpp"
#include "targets/gpu/half_accuracy.hpp"
#include <cstddef>

namespace migraphx {
namespace gpu {
namespace dnn {

/// The exact result of spec's problem (conv, + bias, + z, relu; half or float tensors; int8
/// graphs are not described: empty result) at up to `samples` elements of y whose offsets are
/// below `limit`, for inputs filled with x, w, bias and z (ignored where spec has none).
exact_samples make_conv_reference(const conv_graph_spec& spec,
                                   const fill_pattern& x,
                                   const fill_pattern& w,
                                   const fill_pattern& bias,
                                   const fill_pattern& z,
                                   std::size_t limit,
                                   std::size_t samples = 512);

} // namespace dnn
} // namespace gpu
} // namespace migraphx

#endif
