#ifndef MIGRAPHX_GPU_SIZED_KERNELS_HPP
#define MIGRAPHX_GPU_SIZED_KERNELS_HPP

// CUDA C++ source for kernels that take their sizes as parameters at launch (the generated
// kernels of codegen.hpp compile them in): what a data-dependent result's consumers run on the
// device at the sizes a run gives them (device_sized.hpp). One source per element size (and
// index type), so a few NVRTC compiles serve every shape.

#include <migraphx/shape.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace migraphx {
namespace gpu {

/// The elements a sized kernel walks: `lens` row-major (at most 8 dims), and for each of up to
/// three tensors the offset sum(digit[d] * stride[d]). Passed to the kernel by value; the kernel
/// source declares the same layout (walk_t).
struct index_walk
{
    static constexpr std::size_t max_rank = 8;
    std::int32_t rank = 0;
    std::uint64_t lens[max_rank]  = {};
    std::int64_t a[max_rank]      = {};
    std::int64_t b[max_rank]      = {};
    std::int64_t c[max_rank]      = {};
    std::uint64_t elements() const;
};
static_assert(sizeof(index_walk) == 8 + 4 * 8 * index_walk::max_rank, "walk_t's layout in the kernels");

/// A walk over lens with the tensors' strides (each as many as lens, or empty: 0s); throws past
/// max_rank dims.
index_walk make_walk(const std::vector<std::size_t>& lens,
                     const std::vector<std::size_t>& a,
                     const std::vector<std::size_t>& b = {},
                     const std::vector<std::size_t>& c = {});

/// Whether a walk over n elements, whose offsets stay below `span`, needs 64-bit indices.
bool wide_walk(std::uint64_t n, std::uint64_t span);

struct sized_source
{
    std::string name;
    std::string source;
};

/// Concat's standard parts for one launch (sized_concat): the output is `outer` rows of `row`
/// elements; part i fills elements [start[i], start[i] + width[i]) of each row from its own rows
/// of width[i] elements at src[i]. Starts ascend (an empty part shares the next one's start).
/// Passed by value: ~2.9 KB of the 4 KB a launch's parameters may take.
struct concat_parts
{
    static constexpr std::size_t max_parts = 120;
    std::uint64_t count = 0, outer = 0, row = 0;
    const void* src[max_parts]     = {};
    std::uint64_t start[max_parts] = {};
    std::uint64_t width[max_parts] = {};
};
static_assert(sizeof(concat_parts) == 24 + 24 * concat_parts::max_parts, "parts_t's layout in the kernel");

/// The parts of a concat along `axis` of inputs `in` (their data at `src`) into `out`; nothing
/// where an input with elements is not standard or there are more than max_parts.
std::optional<concat_parts>
concat_parts_for(const std::vector<shape>& in, const std::vector<const void*>& src, const shape& out, std::size_t axis);

/// sized_concat(T* y, parts_t d): y (outer x row, standard) from the parts, an element a thread
/// (each finds its part by a binary search over the starts): one launch for all of a concat's
/// inputs, where a copy each took one call each (SSDlite's four concats of 90 classes' results).
sized_source concat_source(std::size_t bytes);

/// Every kernel's parameters end with the walk and its element count (walk_t w, n).
/// sized_copy(const T* x, T* y, w, n): y[off_b] = x[off_a] for each element of the walk
/// (elements of `bytes` bytes, moved as raw bits).
sized_source copy_source(std::size_t bytes, bool wide);

/// sized_gather(const T* x, const I* ind, T* y, axis_len, axis_stride, w, n): the walk
/// over the output (y standard, off_a into x without the axis, off_b into ind); the index wraps
/// once when negative and is clamped into [0, axis_len).
sized_source gather_source(std::size_t bytes, bool index64, bool wide);

/// sized_scatter(const I* ind, const T* upd, T* y, axis_len, axis_stride, w, n): the walk
/// over the indices (off_a into y without the axis, off_b into ind, off_c into upd); a negative
/// index wraps once, one still out of range writes nothing. Duplicate indices: one of the writes
/// wins (ONNX leaves the order open; ref's is the last).
sized_source scatter_source(std::size_t bytes, bool index64, bool wide);

/// Up to 8 int64 values a launch writes (a run-time shape's sizes), passed by value.
struct int64_values
{
    static constexpr std::size_t max_count = 8;
    std::int64_t v[max_count] = {};
};

/// sized_values(long long* y, values_t d, n): y[i] = d.v[i] for i < n (n <= 8; one block): sizes
/// known on the host written to the device without a copy from host memory (and its wait).
sized_source values_source();

/// GatherND's tuple (batch_dims 0): q indices a tuple, each into a dim of data of length len[j]
/// at stride[j]; `last` the stride between a tuple's indices. Passed by value.
struct gathernd_tuple
{
    static constexpr std::size_t max_q = 8;
    std::int64_t q = 0, last = 0;
    std::int64_t len[max_q]    = {};
    std::int64_t stride[max_q] = {};
};

/// sized_gathernd(const T* x, const I* ind, T* y, gnd_t g, w, n): the walk over the output (y
/// standard, off_a into x for the slice dims, off_b the tuple's first index); each index wraps
/// once when negative and is clamped into [0, len) (ref throws).
sized_source gathernd_source(std::size_t bytes, bool index64, bool wide);

/// NonZero's input: its rank (at least 1), lens and strides, passed by value.
struct nonzero_input
{
    std::int32_t rank = 0;
    std::uint64_t lens[index_walk::max_rank]   = {};
    std::int64_t strides[index_walk::max_rank] = {};
};

/// sized_nonzero(const T* x, long long* y, unsigned long long* count, nz_t d): one block; counts
/// the nonzero elements (m), then writes their indices in row-major order as op::nonzero does,
/// y {rank, m} standard, and m to *count. Elements of `bytes` bytes; `is_float`: -0 is zero and
/// NaN nonzero, as ref compares them.
sized_source nonzero_source(std::size_t bytes, bool is_float);

/// topk's run-time sizes (the generated topk kernel's, codegen.hpp), passed by value.
struct topk_sizes
{
    std::uint64_t n = 0, k = 0, inner = 0, rows = 0, p = 0; // p: the sort's power of two >= k
};

/// sized_topk_<float|half>_<largest|smallest>(const T* x, unsigned long long* y, topk_t d): the
/// generated topk kernel at run-time sizes (x standard; k <= 4096, its shared sort); y holds the
/// int64 indices {rows of k}, then the values. A block a row, at most 1024 threads.
sized_source topk_source(bool half, bool largest);
constexpr std::size_t topk_sized_max_k = 4096;

/// RoIAlign's sizes and attributes (op::roialign), passed by value.
struct roialign_dims
{
    std::int64_t n = 0, c = 0, h = 0, w = 0, rois = 0, out_h = 0, out_w = 0, sampling_ratio = 0;
    float spatial_scale = 1;
    std::int32_t half_pixel = 0, is_max = 0;
};
static_assert(sizeof(roialign_dims) == 8 * 8 + 12 + 4, "roi_t's layout in the kernel");

/// sized_roialign(const T* x, const T* rois, const I* batch, T* y, roi_t d): X standard
/// {N, C, H, W}, rois {R, 4}, batch {R}, y standard {R, C, out_h, out_w}; float or half values,
/// computed in float (ref: double), each sample as op::roialign takes it. A batch index out of
/// range gives zeros (ref throws).
sized_source roialign_source(bool half, bool index64);

} // namespace gpu
} // namespace migraphx

#endif
