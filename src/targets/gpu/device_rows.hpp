#ifndef MIGRAPHX_GPU_DEVICE_ROWS_HPP
#define MIGRAPHX_GPU_DEVICE_ROWS_HPP

// The device ops that take over a host fallback (gpu::ref::<op>) computed from a data-dependent
// result whose rows are its first input's rows: a detector's box head (products of each
// proposal's pooled features) and mask head (convolutions of each detection's). Such an op runs
// on the device at its declared (largest) size over the same buffers: the front rows, the
// actual ones, are what the reference op would give for them; the rows past them are computed
// from whatever the buffers hold there and never read. Before, they ran on the host in double,
// one output at a time: Mask R-CNN (320 x 320) 1.16 s a run on an H100, 89 % of it in these.

#include "targets/gpu/gpu_ops.hpp"
#include <migraphx/module.hpp>
#include <migraphx/operation.hpp>
#include <migraphx/shape.hpp>
#include <migraphx/value.hpp>
#include <optional>
#include <vector>

namespace migraphx {
namespace gpu {

/// cuDNN's convolution for a reference `convolution` with attributes v of input x and weights w
/// (float or half, 1-3 spatial dims, symmetric padding); nullopt where it takes none.
std::optional<convolution> cudnn_convolution_for(const value& v, const shape& x, const shape& w);

/// The same for `convolution_backwards` (ConvTranspose).
std::optional<convolution_backwards> cudnn_convolution_backwards_for(const value& v, const shape& x, const shape& w);

/// op's `axis` attribute counted from the front for an input of `rank` dims (negative counts from
/// the back); -1 where there is no such axis.
std::int64_t axis_from_front(const operation& op, std::size_t rank);

/// Which inputs of reference op `op` (declared shapes `inputs`, result `out`) hold the result's
/// rows, so that computing fewer of them gives that many rows of the result: dot's a,
/// convolution's and ConvTranspose's x, an elementwise op's (`pointwise`) inputs of the result's
/// lens that are not broadcast along the rows, a gather's indices (along the first axis). Empty
/// for any other op.
std::vector<bool> row_inputs(const operation& op, const std::vector<shape>& inputs, const shape& out);

/// The device op computing reference op `op` (with its sub-module `mod` for `pointwise`) for
/// these declared input shapes and result `out`: cuBLASLt's product, cuDNN's convolution or
/// ConvTranspose (standard operands), a generated elementwise or gather kernel (the gather's
/// clamps indices out of range: the rows past the actual ones hold any value); nullopt for any other op
/// or operands it does not take. Not finalized.
std::optional<operation>
device_rows_op(const operation& op, const std::vector<shape>& inputs, const shape& out, const module* mod = nullptr);

/// Row counts below `declared` at which a device op for reference op `op` is also made, so that a
/// run with fewer actual rows computes the next count up instead of all declared rows: for the
/// ops whose time grows with their rows (dot, convolution, ConvTranspose: a mask head's 100
/// declared rows hold ~33 real ones), two counts an octave (3/4, 1/2, 3/8, ...) down to an eighth
/// of declared and at least 8 rows, ascending; empty for any other op (an elementwise kernel's
/// extra rows cost next to nothing).
std::vector<std::size_t> fewer_row_counts(const operation& op, std::size_t declared);

/// s with `rows` in its first dim, its strides kept (the front rows of s's buffer).
shape with_rows(const shape& s, std::size_t rows);

/// Where a device_rows_op computed at declared shapes `declared` (inputs, then the output)
/// gives the reference op's result for inputs `actual`: the row inputs (`rows`) may hold fewer
/// rows (their first dim; all as many) at the declared strides, the others have their declared
/// shapes, and `result` (the reference op's shape for `actual`) has the declared output's lens
/// and strides but for as many rows. False where any of that fails (the host computes it then).
bool front_rows_match(const std::vector<shape>& declared,
                      const std::vector<shape>& actual,
                      const shape& result,
                      const std::vector<bool>& rows);

} // namespace gpu
} // namespace migraphx

#endif
