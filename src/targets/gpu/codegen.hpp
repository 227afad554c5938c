#ifndef MIGRAPHX_GPU_CODEGEN_HPP
#define MIGRAPHX_GPU_CODEGEN_HPP

// CUDA C++ source for the gpu target's generated kernels. Every kernel takes its inputs'
// pointers (or, past max_pointer_params inputs, one device table of them), then the output's,
// and walks the output's elements in a grid-stride loop; input strides (broadcast, transposed,
// sliced views) are baked into the source as constants.

#include <migraphx/module.hpp>
#include <migraphx/shape.hpp>
#include <optional>
#include <string>
#include <vector>

namespace migraphx {
namespace gpu {

/// A static float or half shape: what the float kernels, cuBLASLt and cuDNN take.
inline bool float_or_half(const shape& s)
{
    return not s.dynamic() and (s.type() == shape::float_type or s.type() == shape::half_type);
}

struct kernel_source
{
    std::string name;   // the kernel's symbol, e.g. add_relu_kernel
    std::string source;
    std::size_t elements = 0; // threads the work is split over (the output's elements, or fewer: a
                              // kernel that loops over them with a grid stride is right for any grid)
    std::size_t local    = 256; // threads a block
    /// A kernel made with rows_at_run_time: `elements` for each row of the output computed (a
    /// launch for r rows splits the work over r * row_elements threads); 0 for any other kernel.
    std::size_t row_elements = 0;
    /// Dynamic shared memory a block, in bytes (0: the kernel's static arrays only).
    std::size_t shared_bytes = 0;
    /// A persistent kernel's grid: at most this many blocks an SM (0: code_object's default cap).
    std::size_t blocks_per_sm = 0;
};

/// The fused elementwise kernel for a `pointwise` sub-module (params x0, x1, ... in input order).
/// Float and half values are computed in float. A half chain runs in float throughout
/// ("float-through", as TensorRT's and ORT's fused kernels): its values are rounded to half when
/// stored, at an explicit convert to half, and before an op that is discontinuous in them
/// (comparisons, floor/ceil/round/sign, mod/fmod, converts to integers or bool, isnan/isinf, ...),
/// which thus sees ref's value; a half division by a constant multiplies by its float reciprocal.
/// So half results are closer to the exact chain than ref's (which rounds after every op), not
/// bit-identical to them. Bool and integer values keep their own C type: comparisons (equal,
/// greater, less), not, logical and/or/xor, where and isnan/isinf on any type, convert between any two types as ref's
/// safe_cast (float to integer truncates, NaN or out of range gives 0; to bool is x != 0), and
/// integer add/sub/mul/neg (wrapping), div/mod/fmod (x / 0 is 0), max/min/abs/relu. Nothing when
/// an op, type (double) or constant is outside what the generator knows (the op then runs on the
/// host), e.g. float math on integers, which ref computes in double.
/// Float and half kernels whose inputs are packed like the output, or broadcast so that runs of V
/// consecutive output elements read V consecutive elements or one value (a per-channel bias of
/// NHWC, a per-column bias, a scalar), take V elements a thread (V = 8 halves, 4 floats: 16-byte
/// loads and stores; `elements` is then the output's elements / V) when all the pointers read or
/// written as vectors are 16-byte aligned at run time, and the scalar loop otherwise; both give
/// the same bits.
/// rows_at_run_time (a standard output): the kernel takes one more parameter after y,
/// `unsigned long long migx_rows`, and computes only the output's first migx_rows rows (its first
/// dim), reading the inputs at their given strides: a detector's head at the run's actual rows.
std::optional<kernel_source> generate_pointwise(const module& sub,
                                                const std::vector<shape>& inputs,
                                                const shape& out,
                                                bool rows_at_run_time = false);

/// Copies `in` (any strides, any element type) into the standard layout `out` of equal lens.
kernel_source generate_copy(const shape& in, const shape& out);

/// Reduction of the axes of `in` that are 1 in `out` (out keeps them as 1): kind is
/// sum, mean, max, min or prod. Float or half, accumulated in float.
std::optional<kernel_source> generate_reduce(const std::string& kind, const shape& in, const shape& out);

/// softmax / logsoftmax of `in` along `axis` (normalised) into the standard `out`.
std::optional<kernel_source> generate_softmax(bool log, std::size_t axis, const shape& in, const shape& out);

/// The layernorm kernel's half register path's __launch_bounds__ minimum of 256-thread blocks an
/// SM: MIGRAPHX_GPU_LAYERNORM_BLOCKS (0: no bound), default 6; other values throw naming it.
long layernorm_min_blocks();

/// layernorm (ops/layernorm.cpp: (x - mean) / sqrt(var + epsilon) over the last axis) of `in`
/// (any strides) into the standard `out`; one group of threads a row, in float. `affine`: none, the
/// scale, or the scale and the shift (in's lens and type, varying along the last axis only), the
/// kernel's inputs 1 and 2, applied in float before the one rounding.
std::optional<kernel_source>
generate_layernorm(float epsilon, const shape& in, const shape& out, const std::vector<shape>& affine = {});
/// The same of the sum of `summed` (x0 + x1 + ..., up to 4, each of x0's lens and type, any
/// strides; added in float and rounded to their type, as op::layernorm's addends); `out` may be
/// float where the inputs are half (op::layernorm's float_out). `e4m3_scale` (a half `out` only):
/// the kernel also writes an fp8e4m3fn copy of the result, each value as stored (half) times the
/// scale, into the same buffer right after it (out.elements() halves in): quantize_fp8's cast for
/// the products that read the norm, without a kernel of its own.
std::optional<kernel_source> generate_layernorm(float epsilon,
                                                const std::vector<shape>& summed,
                                                const shape& out,
                                                const std::vector<shape>& affine,
                                                std::optional<float> e4m3_scale = std::nullopt);

/// pooling of {N, C, spatial...}: mode average (padding never counts), max or lpnorm. The input
/// at any strides, the output packed in any layout (standard or NHWC), walked in memory order.
struct pooling_window
{
    std::string mode;
    std::vector<std::size_t> len, stride, pad_begin;
    std::int64_t lp_order = 2;
};
std::optional<kernel_source> generate_pooling(const pooling_window& w, const shape& in, const shape& out);

/// concat of `inputs` (any strides, one element type) along `axis` into the standard `out`.
kernel_source generate_concat(std::size_t axis, const std::vector<shape>& inputs, const shape& out);

/// gather of `data` along `axis` by `indices` (int32 or int64; negative wrap, out of range clamps).
std::optional<kernel_source> generate_gather(std::size_t axis, const shape& data, const shape& indices, const shape& out);

/// argmax (is_max) or argmin of the standard float or half `in` along `axis` into int64 indices
/// (the axis kept as 1), exactly as op::argmax's scan: ties, select_last_index and NaNs alike.
std::optional<kernel_source> generate_argminmax(bool is_max, bool select_last, std::size_t axis, const shape& in);

/// topk (op::topk) of the standard float or half `in` along `axis`, k of its n values (1 <= k <=
/// topk_max_k: the kept ones are sorted in shared memory). The kernel writes one buffer of
/// topk_buffer_elements(values) 64-bit words: the int64 indices (the result's lens), then the
/// values (in's type) right after them. Same order as op::topk: best first, equal values by lower
/// index, NaN above every number, -0 equal to +0.
constexpr std::size_t topk_max_k = 4096;
std::optional<kernel_source> generate_topk(const shape& in, std::size_t axis, std::size_t k, bool largest);
std::size_t topk_buffer_elements(const shape& values);
/// The topk kernel's parts, shared with its sized form (sized_kernels.hpp): migx_rank for values of
/// C type t ("float" or "migx_half"), and the loop over the rows, which reads idx_t n, k, inner,
/// rows, unsigned P (the sort's power of two >= k), shared keys[P], x0, indices and values.
std::string topk_rank(const std::string& t, bool largest);
std::string topk_rows(const std::string& t);

/// pad (mode 0 constant `value_bits`, the pad value's element bits; 1 reflect; 2 edge). The output
/// packed in any layout (standard or NHWC).
kernel_source generate_pad(const std::vector<std::int64_t>& pads, std::int64_t mode, std::uint64_t value_bits,
                           const shape& in, const shape& out);

/// One pointwise step of an attention score `v` (float): v = v op operand, or operand op v
/// (operand_first); the operand is the mask's element or the constant `value`.
struct attention_step
{
    std::string op; // add, sub, mul or div
    bool mask          = false;
    float value        = 0;
    bool operand_first = false;
};

/// softmax(steps(scale * Q K^T)) V along the last axis, per batch index (all dims but the last
/// two): q [batch..., M, D], kt [batch..., D, N], v [batch..., N, DV], mask [batch..., M, N]
/// (half or float), all at any strides; out has the product's lens and the strides it is
/// written at. Half only; D and DV multiples of 16 up to 128. out may be fp8e4m3fn: each value,
/// rounded to half as the unfused program stores it, times out_scale, rounded to e4m3
/// (quantize_fp8's cast for the next product, fused: fp8_output.hpp).
struct attention_spec
{
    shape q, kt, v;
    std::optional<shape> mask;
    shape out;
    float scale = 1;
    std::vector<attention_step> steps;
    bool nan_to_zero = false; // a row whose softmax is NaN (every score -inf, or a NaN) gives 0s
    float out_scale  = 1;     // an fp8e4m3fn out's scale (1 / the cast's divisor)
    /// The device's compute capability (major * 10 + minor) where the lowering knows it; 90
    /// lets generate_attention pick the Hopper kernel (generate_attention_wgmma).
    int sm = 0;
};
std::optional<kernel_source> generate_attention(const attention_spec& a);
/// The Hopper (sm_90a) kernel: warpgroup MMA (wgmma) on operands in shared memory, a 64-row
/// block's whole key range (up to 128 keys) at once, so no online rescaling. Nothing where the
/// spec is outside it (more than 128 keys, Q/K/V over 48 KiB of shared memory, a device other
/// than sm_90) or MIGRAPHX_GPU_ATTENTION_WGMMA=0; generate_attention then makes the mma.sync
/// kernel.
std::optional<kernel_source> generate_attention_wgmma(const attention_spec& a);

/// A kernel with more inputs than this takes their pointers from a table in device memory (its
/// first parameter), not as one parameter each: CUDA limits a kernel's parameters to 32 KB (4 KB
/// on older drivers), which a fused chain of thousands of views (a dilated max pool the ONNX
/// parser unrolls into strided slices) passes. gpu::code_object fills the table.
constexpr std::size_t max_pointer_params = 511;
inline bool inputs_in_table(std::size_t inputs) { return inputs > max_pointer_params; }

namespace detail {
/// `extern "C" __global__ void name(...)\n{\n` for inputs x0.. of in_types and output y of
/// out_type; with a pointer table (inputs_in_table) the inputs are read from it first.
/// more_params: parameters after y (", unsigned long long migx_rows").
std::string signature(const std::string& name,
                      const std::vector<std::string>& in_types,
                      const std::string& out_type,
                      const std::string& more_params = "");
/// The helpers every generated kernel starts with (half conversions, NaN-aware max/min).
std::string prelude();
/// fp8e4m3fn's helpers (migx_fp8, f82f, f2f8 and r8, as <migraphx/fp8.hpp> converts), after prelude().
std::string fp8_helpers();
/// f exactly, as a CUDA expression (its bits).
std::string float_literal(float f);
/// An unsigned integer type of `bytes` bytes (for kernels that only move elements).
std::string raw_type(std::size_t bytes);
/// "unsigned int", or "unsigned long long" where an offset can pass 2^31.
std::string index_type(const std::vector<shape>& shapes);
/// Code that splits `var` into digits `prefix`0.. of lens (row-major; the first digit is unbounded).
std::string digits(const std::string& var, const std::vector<std::size_t>& lens, const std::string& prefix);
/// Like digits, for `var` walking the packed shape s in its memory order (var is then s's offset):
/// prefix0.. are s's logical digits (an NHWC tensor's n, c, h, w). Nothing when s is not packed.
std::optional<std::string> memory_digits(const std::string& var, const shape& s, const std::string& prefix);
} // namespace detail

} // namespace gpu
} // namespace migraphx

#endif
