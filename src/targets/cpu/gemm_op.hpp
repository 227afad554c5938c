#ifndef MIGRAPHX_CPU_GEMM_OP_HPP
#define MIGRAPHX_CPU_GEMM_OP_HPP

// cpu::gemm: a float matmul on the cpu target's own kernel (gemm_kernel.hpp), with the bias, the
// residual sum and the activations applied to each tile of the result while it is in registers.
// Same inputs and attributes as dnnl::matmul, which cpu::lower_gemm turns into it.

#include <migraphx/argument.hpp>
#include <migraphx/context.hpp>
#include <migraphx/shape.hpp>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace migraphx {
namespace cpu {

/// Inputs: a {batch..., M, K} (any strides), b {batch..., K, N} (any strides; or, when
/// packed_weights, the 1-d result of pack() for the logical shape weight_lens), [bias {N}],
/// [summed input, standard, the result's shape]. Batch dims broadcast where a or b has stride 0
/// or length 1. dst = post_ops(a b + bias), post_ops as in dnnl::matmul ("sum", "relu" (alpha:
/// leaky), "clip", "logistic", "tanh", "gelu_erf"). The result is standard unless out_strides
/// gives its layout (a permutation of a standard layout with the columns contiguous: attention's
/// heads written straight into the {sequence, head, column} order that follows them).
struct gemm_op
{
    bool bias = false;
    bool sum  = false;
    std::vector<std::string> post_ops;
    std::vector<float> post_alpha;
    std::vector<float> post_beta;
    bool packed_weights = false;
    std::vector<std::size_t> weight_lens; // the logical b, when packed (broadcast batch dims: 1)
    std::vector<std::size_t> out_strides; // the result's strides; empty: standard

    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.bias, "bias");
        f(self.sum, "sum");
        f(self.post_ops, "post_ops");
        f(self.post_alpha, "post_alpha");
        f(self.post_beta, "post_beta");
        f(self.packed_weights, "packed_weights");
        f(self.weight_lens, "weight_lens");
        f(self.out_strides, "out_strides");
    }
    std::string name() const { return "cpu::gemm"; }
    shape compute_shape(const std::vector<shape>& inputs) const;
    argument compute(context& ctx, const shape& out, const std::vector<argument>& args) const;

    /// w (the logical b, any strides) in the kernel's layout: the panels of each batch of w,
    /// broadcast batch dims (stride 0) packed once. Returns the 1-d packed argument; `lens`
    /// receives the logical shape to keep in weight_lens.
    static argument pack(const argument& w, std::vector<std::size_t>& lens);

    /// Whether every post-op is one the kernel has.
    bool supported() const;

    /// Packed weights in 64-byte aligned memory, for literals whose memory is not (a panel row
    /// is one cache line; loads across two lines slow the kernel down by a quarter).
    struct aligned_weights
    {
        std::mutex lock;
        const void* source = nullptr; // the literal's memory the copy was made from
        std::shared_ptr<float> data;
    };
    std::shared_ptr<aligned_weights> aligned = std::make_shared<aligned_weights>();
};

/// Its input seen with other lens and strides, without a copy: how cpu::lower_gemm hands a
/// GEMM a strided view where the graph had a copy followed by reshapes and transposes.
struct strided_view
{
    std::vector<std::size_t> lens;
    std::vector<std::size_t> strides;

    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.lens, "lens");
        f(self.strides, "strides");
    }
    std::string name() const { return "cpu::strided_view"; }
    shape compute_shape(const std::vector<shape>& inputs) const;
    argument compute(const shape& out, const std::vector<argument>& args) const;
    std::ptrdiff_t output_alias(const std::vector<shape>&) const { return 0; }
};

} // namespace cpu
} // namespace migraphx

#endif
