#ifndef MIGRAPHX_CPU_DNNL_OPS_HPP
#define MIGRAPHX_CPU_DNNL_OPS_HPP

// The cpu target's oneDNN-backed operations. Each builds its oneDNN primitive once (finalize, at
// the end of compile) and reuses it every run. Layouts: see dnnl_context.hpp.

#include "targets/cpu/dnnl_context.hpp"
#include <migraphx/argument.hpp>
#include <migraphx/context.hpp>
#include <migraphx/shape.hpp>
#include <memory>
#include <string>
#include <vector>

namespace migraphx {
namespace cpu {

/// Inputs: x, w, [bias {K}], [summed input, the result's shape]. dst = post_ops(conv(x, w) + bias).
struct dnnl_convolution
{
    std::vector<std::size_t> padding; // begin..., end...
    std::vector<std::size_t> stride;
    std::vector<std::size_t> dilation;
    std::int64_t group = 1;
    bool bias          = false;
    bool sum           = false;
    bool sum_in_place  = false; // the result is written into the summand's buffer (cpu::sum_in_place)
    bool planned       = false; // the output buffer is the last input (cpu::plan_memory)
    std::vector<std::string> post_ops;
    std::vector<float> post_alpha;
    std::vector<float> post_beta;
    std::string src_layout = "plain";
    std::string dst_layout = "plain";
    bool packed_weights    = false;
    std::vector<std::size_t> weight_lens; // the logical weights, when packed
    std::string algo = "direct";          // or "winograd" (chosen by cpu::blocked_layout)
    std::string weights_format;           // md_signature of the packed weights (cpu::pack_weights)
    /// src and dst in the layout oneDNN picks, reordered from and to the plain tensors at each
    /// run (ops sized by data with a kernel larger than 1x1, which no layout pass reaches: given
    /// plain NCHW, oneDNN runs im2col and a GEMM; Mask R-CNN's 3x3 256-channel layers at 33 RoIs
    /// 47-50 ms each that way, 36-38 ms on its direct kernel in NHWC. A 1x1 layer is a plain GEMM
    /// already: 9-13 ms against 13-17 with reorders)
    bool any_layout       = false;
    bool constant_weights = false; // unpacked weights that are a constant: reordered once per size

    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.padding, "padding");
        f(self.stride, "stride");
        f(self.dilation, "dilation");
        f(self.group, "group");
        f(self.bias, "bias");
        f(self.sum, "sum");
        f(self.sum_in_place, "sum_in_place");
        f(self.planned, "planned");
        f(self.post_ops, "post_ops");
        f(self.post_alpha, "post_alpha");
        f(self.post_beta, "post_beta");
        f(self.src_layout, "src_layout");
        f(self.dst_layout, "dst_layout");
        f(self.packed_weights, "packed_weights");
        f(self.weight_lens, "weight_lens");
        f(self.algo, "algo");
        f(self.weights_format, "weights_format");
        f(self.any_layout, "any_layout");
        f(self.constant_weights, "constant_weights");
    }
    std::string name() const { return "dnnl::convolution"; }
    std::ptrdiff_t output_alias(const std::vector<shape>& inputs) const
    {
        return sum_in_place or planned ? static_cast<std::ptrdiff_t>(inputs.size()) - 1 : -1;
    }
    shape compute_shape(const std::vector<shape>& inputs) const;
    void finalize(context& ctx, const shape& out, const std::vector<shape>& inputs);
    argument compute(context& ctx, const shape& out, const std::vector<argument>& args) const;

    /// w reordered into the format the primitive for these inputs wants (a 1-d buffer).
    argument pack(context& ctx, const std::vector<shape>& inputs, const argument& w) const;
    /// md_signature of that format.
    std::string packed_format(context& ctx, const std::vector<shape>& inputs) const;
    /// oneDNN's implementation name for these inputs ("ref:any" means no fast kernel).
    std::string impl(context& ctx, const std::vector<shape>& inputs) const;

    struct prim_cache
    {
        std::vector<shape> inputs; // what it was built for
        dnnl::convolution_forward::primitive_desc pd;
        dnnl::convolution_forward prim;
        bool weights_reorder = false;
        reordered_weights weights;
    };
    std::shared_ptr<prim_cache> cache;
    /// The primitive for other input shapes (actual sizes: see cache_for).
    std::shared_ptr<prim_cache> make_cache(context& ctx, const std::vector<shape>& inputs) const;
    std::shared_ptr<shape_keyed_cache<prim_cache>> sized = std::make_shared<shape_keyed_cache<prim_cache>>();

    private:
    std::vector<std::size_t> weight_dims(const std::vector<shape>& inputs) const;
    dnnl::memory::desc plain_weights_md(const shape& w) const;
    dnnl::convolution_forward::primitive_desc make_pd(const dnnl_context& c, const std::vector<shape>& inputs) const;
};

/// ONNX ConvTranspose (op convolution_backwards, padding_mode 0) as oneDNN's deconvolution.
/// Inputs: x {N, C, spatial...}, w {C, K/group, kernel...} as the op takes them (any strides;
/// reordered into the primitive's format: once where constant_weights, else each run). Plain
/// layouts by default (oneDNN's GEMM-based kernel on them beat its blocked one with reorders for
/// Mask R-CNN's 2x2 stride-2 layer at 33 RoIs: 30-40 ms against 37-43); src_layout / dst_layout
/// where cpu::blocked_layout finds x already in the layout (a decoder between convolutions), no
/// post-ops.
struct dnnl_deconvolution
{
    std::vector<std::size_t> padding; // begin..., end...
    std::vector<std::size_t> stride;
    std::vector<std::size_t> dilation;
    std::int64_t group = 1;
    bool constant_weights = false; // w is a constant: reordered once, not every run
    std::string src_layout = "plain"; // x's layout: plain, nhwc, blocked8, blocked16
    std::string dst_layout = "plain";

    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.padding, "padding");
        f(self.stride, "stride");
        f(self.dilation, "dilation");
        f(self.group, "group");
        f(self.constant_weights, "constant_weights");
        f(self.src_layout, "src_layout");
        f(self.dst_layout, "dst_layout");
    }
    std::string name() const { return "dnnl::deconvolution"; }
    /// oneDNN's name for the kernel it runs for these inputs ("ref..." for its reference loops).
    std::string impl(context& ctx, const std::vector<shape>& inputs) const;
    shape compute_shape(const std::vector<shape>& inputs) const;
    void finalize(context& ctx, const shape& out, const std::vector<shape>& inputs);
    argument compute(context& ctx, const shape& out, const std::vector<argument>& args) const;

    struct prim_cache
    {
        std::vector<shape> inputs; // what it was built for
        dnnl::deconvolution_forward::primitive_desc pd;
        dnnl::deconvolution_forward prim;
        reordered_weights weights;
    };
    std::shared_ptr<prim_cache> cache;
    /// The primitive for input shapes (finalize's, or actual sizes: see cache_for).
    std::shared_ptr<prim_cache> make_cache(context& ctx, const std::vector<shape>& inputs) const;
    dnnl::deconvolution_forward::primitive_desc make_pd(const dnnl_context& c, const std::vector<shape>& inputs) const;
    std::shared_ptr<shape_keyed_cache<prim_cache>> sized = std::make_shared<shape_keyed_cache<prim_cache>>();

    /// w as oneDNN's {[group,] K/group, C/group, kernel...} view of the op's {C, K/group, kernel...}.
    dnnl::memory::desc weights_md(const shape& w) const;
};

/// Inputs: a {batch..., M, K}, b {batch..., K, N}, [bias {N}], [summed input]. Batch dims of
/// stride 0 (broadcast) are passed to oneDNN as 1.
struct dnnl_matmul
{
    bool bias         = false;
    bool sum          = false;
    bool sum_in_place = false; // the result is written into the summand's buffer (cpu::sum_in_place)
    bool planned      = false; // the output buffer is the last input (cpu::plan_memory)
    std::vector<std::string> post_ops;
    std::vector<float> post_alpha;
    std::vector<float> post_beta;
    bool packed_weights = false;
    std::vector<std::size_t> weight_lens;
    std::string weights_format; // md_signature of the packed weights (cpu::pack_weights)

    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.bias, "bias");
        f(self.sum, "sum");
        f(self.sum_in_place, "sum_in_place");
        f(self.planned, "planned");
        f(self.post_ops, "post_ops");
        f(self.post_alpha, "post_alpha");
        f(self.post_beta, "post_beta");
        f(self.packed_weights, "packed_weights");
        f(self.weight_lens, "weight_lens");
        f(self.weights_format, "weights_format");
    }
    std::string name() const { return "dnnl::matmul"; }
    std::ptrdiff_t output_alias(const std::vector<shape>& inputs) const
    {
        return sum_in_place or planned ? static_cast<std::ptrdiff_t>(inputs.size()) - 1 : -1;
    }
    shape compute_shape(const std::vector<shape>& inputs) const;
    void finalize(context& ctx, const shape& out, const std::vector<shape>& inputs);
    argument compute(context& ctx, const shape& out, const std::vector<argument>& args) const;
    argument pack(context& ctx, const std::vector<shape>& inputs, const argument& w) const;
    std::string packed_format(context& ctx, const std::vector<shape>& inputs) const;

    struct prim_cache
    {
        std::vector<shape> inputs; // what it was built for
        dnnl::matmul::primitive_desc pd;
        dnnl::matmul prim;
    };
    std::shared_ptr<prim_cache> cache;
    /// The primitive for other input shapes (actual sizes: see cache_for).
    std::shared_ptr<prim_cache> make_cache(context& ctx, const std::vector<shape>& inputs) const;
    std::shared_ptr<shape_keyed_cache<prim_cache>> sized = std::make_shared<shape_keyed_cache<prim_cache>>();

    private:
    shape weight_shape(const std::vector<shape>& inputs) const;
    dnnl::matmul::primitive_desc make_pd(const dnnl_context& c, const std::vector<shape>& inputs, bool any_weights) const;
};

/// Max or average (padding excluded) pooling; global pools have lengths = the spatial dims.
struct dnnl_pooling
{
    std::string mode = "max";
    std::vector<std::size_t> padding; // begin..., end...
    std::vector<std::size_t> stride;
    std::vector<std::size_t> lengths;
    bool ceil_mode     = false;
    std::string layout = "plain";
    bool planned       = false; // the output buffer is the last input (cpu::plan_memory)
    // Average over the whole window, padding included (a zero pad folded in: ONNX
    // count_include_pad=1); files without the field had the pad as its own op.
    bool include_padding = false;

    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.mode, "mode");
        f(self.padding, "padding");
        f(self.stride, "stride");
        f(self.lengths, "lengths");
        f(self.ceil_mode, "ceil_mode");
        f(self.layout, "layout");
        f(self.planned, "planned");
        f(self.include_padding, "include_padding");
    }
    std::string name() const { return "dnnl::pooling"; }
    /// oneDNN's implementation for these inputs ("jit:...", "simple_nchw:...", "ref:...").
    std::string impl(context& ctx, const std::vector<shape>& inputs) const;
    std::ptrdiff_t output_alias(const std::vector<shape>& inputs) const
    {
        return planned ? static_cast<std::ptrdiff_t>(inputs.size()) - 1 : -1;
    }
    shape compute_shape(const std::vector<shape>& inputs) const;
    void finalize(context& ctx, const shape& out, const std::vector<shape>& inputs);
    argument compute(context& ctx, const shape& out, const std::vector<argument>& args) const;

    struct prim_cache
    {
        dnnl::pooling_forward::primitive_desc pd;
        dnnl::pooling_forward prim;
    };
    std::shared_ptr<prim_cache> cache;

    private:
    std::vector<std::size_t> out_lens(const std::vector<std::size_t>& in) const;
    dnnl::pooling_forward::primitive_desc make_pd(const dnnl_context& c, const std::vector<shape>& inputs) const;
};

/// Copies between layouts: plain (any strides) -> standard, plain -> blocked8, blocked8 -> plain.
/// The primitive is built once (finalize), not per run.
struct dnnl_reorder
{
    std::string from = "plain";
    std::string to   = "plain";
    bool planned     = false; // the output buffer is the last input (cpu::plan_memory)

    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.from, "from");
        f(self.to, "to");
        f(self.planned, "planned");
    }
    std::string name() const { return "dnnl::reorder"; }
    std::ptrdiff_t output_alias(const std::vector<shape>& inputs) const
    {
        return planned ? static_cast<std::ptrdiff_t>(inputs.size()) - 1 : -1;
    }
    shape compute_shape(const std::vector<shape>& inputs) const;
    void finalize(context& ctx, const shape& out, const std::vector<shape>& inputs);
    argument compute(context& ctx, const shape& out, const std::vector<argument>& args) const;

    struct prim_cache
    {
        dnnl::memory::desc src, dst;
        dnnl::reorder::primitive_desc pd;
        dnnl::reorder prim;
    };
    std::shared_ptr<prim_cache> cache;
};

} // namespace cpu
} // namespace migraphx

#endif
