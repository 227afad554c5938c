#include "targets/gpu/lowering.hpp"
#include "targets/gpu/codegen.hpp"
#include "targets/gpu/early_nonzero.hpp"
#include "targets/gpu/fuse_depthwise.hpp"
#include "targets/gpu/fp8_output.hpp"
#include "targets/gpu/fuse_fp8.hpp"
#include "targets/gpu/fuse_int8.hpp"
#include "targets/gpu/fuse_layernorm.hpp"
#include "targets/gpu/gpu_ops.hpp"
#include "targets/gpu/layout_nhwc.hpp"
#include "targets/gpu/merge_parallel_dots.hpp"
#include "ir/env.hpp"
#include "ir/program_impl.hpp"
#include "passes/dead_code_elimination.hpp"
#include "passes/fuse_pointwise.hpp"
#include "passes/pass_manager.hpp"
#include "targets/gpu/device_rows.hpp"
#include "targets/gpu/device_sized.hpp"
#include "targets/gpu/sized_kernels.hpp"
#include "targets/gpu/host_values.hpp"
#include "passes/pass_utils.hpp"
#include "passes/rewrite_rnn.hpp"
#include "targets/gpu/rnn.hpp"
#include "passes/simplify_pipeline.hpp"
#include "quantize/int8_support.hpp"
#include <migraphx/instruction.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <optional>
#include <set>
#include <unordered_map>

namespace migraphx {
namespace gpu {
bool device_view(const instruction& ins)
{
    static const std::set<std::string> views = {"broadcast", "multibroadcast", "flatten", "reshape", "slice",
                                                "squeeze",   "unsqueeze",      "step",    "transpose", "get_tuple_elem",
                                                "load"};
    if(views.count(ins.name()) == 0)
        return false;
    std::vector<shape> in;
    for(auto x : ins.inputs())
        in.push_back(x->get_shape());
    return ins.get_operator().output_alias(in) == 0;
}

namespace {
code_object code_object_of(const kernel_source& k)
{
    code_object c;
    c.symbol_name = k.name;
    c.global      = k.elements;
    c.local       = k.local;
    c.source      = k.source;
    c.row_elements = k.row_elements;
    c.shared        = k.shared_bytes;
    c.blocks_per_sm = k.blocks_per_sm;
    return c;
}
} // namespace

operation make_kernel(const kernel_source& k) { return code_object_of(k); }

operation make_kernel(const kernel_source& k, const kernel_source& fallback)
{
    auto c     = code_object_of(k);
    c.fallback = {kernel_variant{
        fallback.name, fallback.elements, fallback.local, fallback.shared_bytes, fallback.blocks_per_sm, fallback.source}};
    return c;
}

namespace {

/// A pointwise module's instructions other than its parameters, in order.
std::vector<instruction_ref> body_of(const module& sub)
{
    std::vector<instruction_ref> body;
    for(auto it = sub.begin(); it != sub.end(); ++it)
        if(it->name() != "@param")
            body.push_back(it);
    return body;
}

bool runs_on_host(const module& m)
{
    for(auto it = m.begin(); it != m.end(); ++it)
    {
        if(not it->module_inputs().empty() and it->name() != "pointwise")
            return true;
        if(it->get_shape().dynamic())
            return true;
    }
    return false;
}

struct lowerer
{
    module& m;
    /// Data-dependent results and everything computed from them: generated kernels and library
    /// calls are built for static shapes, so these run as on ref (host fallback; views stay).
    std::unordered_set<const instruction*> data_dependent{};
    /// NHWC copies made for convolutions, by the instruction copied.
    std::unordered_map<const instruction*, instruction_ref> nhwc_copies{};
    /// compile_options::fast_math: erf GELU after a half product may become cuBLASLt's tanh GELU.
    bool fast_math = true;
    /// The recurrent ops cuDNN takes (cudnn_rnn_for), found while their constants are still
    /// literals (sequence lengths, weights loaded once).
    std::unordered_map<const instruction*, rnn> rnns{};
    /// Stacks (rnn_stack): each first layer's layers, in order; every layer's first layer and
    /// place in it; the gpu::rnn of each stack lowered so far, by its first layer.
    std::unordered_map<const instruction*, std::vector<instruction_ref>> rnn_stacks{};
    std::unordered_map<const instruction*, std::pair<instruction_ref, std::size_t>> rnn_layer{};
    std::unordered_map<const instruction*, instruction_ref> rnn_results{};

    instruction_ref alloc(instruction_ref pos, const shape& s)
    {
        return m.insert_instruction(pos, make_op("hip::hip_allocate_memory", {{"shape", shape_to_value(s)}}), {});
    }

    instruction_ref copy_kernel(instruction_ref pos, instruction_ref x)
    {
        return copy_kernel(pos, x, shape{x->get_shape().type(), x->get_shape().lens()});
    }

    /// x copied into a buffer of shape s (same lens; s may be NHWC).
    instruction_ref copy_kernel(instruction_ref pos, instruction_ref x, const shape& s)
    {
        auto k  = generate_copy(x->get_shape(), s);
        auto a  = alloc(pos, s);
        return m.insert_instruction(pos, make_kernel(k), {x, a});
    }

    void replace(instruction_ref ins, const operation& op, std::vector<instruction_ref> args)
    {
        replace(ins, op, std::move(args), ins->get_shape());
    }

    /// ins becomes op writing a buffer of shape out (ins's lens; another layout, e.g. NHWC).
    void replace(instruction_ref ins, const operation& op, std::vector<instruction_ref> args, const shape& out)
    {
        args.push_back(alloc(ins, out));
        m.replace_instruction(ins, op, args, {});
    }

    /// Whether every user of ins reads an NHWC tensor as well as a standard one: pointwise
    /// kernels (any strides), NHWC convolutions (layout_nhwc.hpp) reading it as their input, and
    /// the generated pooling and pad kernels (any input strides).
    static bool users_read_nhwc(instruction_ref ins)
    {
        if(ins->outputs().empty())
            return false;
        return std::all_of(ins->outputs().begin(), ins->outputs().end(), [&](instruction_ref u) {
            return u->name() == "pointwise" or nhwc_convolution_of(u, ins) or generated_strided_reader(u);
        });
    }

    /// pooling / pad that becomes a generated kernel (which reads its input at any strides).
    static bool generated_strided_reader(instruction_ref u)
    {
        return (((u->name() == "pooling" or u->name() == "pad") and u->inputs().size() == 1) or
                u->name() == "depthwise_activated") and
               generate_for(u).has_value();
    }

    static bool nhwc_convolution_of(instruction_ref u, instruction_ref x)
    {
        if(u->name() == "int8_convolution") // reads x and its residual NHWC
            return u->inputs()[1] != x and
                   (u->inputs()[0] == x or
                    (u->get_operator().to_value().at("residual").to<bool>() and u->inputs().back() == x));
        return u->name() == "convolution" and u->inputs().size() == 2 and u->inputs()[0] == x and
               u->inputs()[1] != x and u->get_shape().type() == shape::half_type and
               is_nhwc(u->inputs()[1]->get_shape());
    }

    /// The layout of a half, int8 or float 4-d pointwise result: NHWC where its users take NHWC
    /// and it reads NHWC (the layout flows on) or feeds only NHWC convolutions (the transpose is
    /// free here). Only half and int8 convolutions run NHWC, so a float program stays standard.
    static shape pointwise_output(instruction_ref ins)
    {
        const auto& out = ins->get_shape();
        auto t          = out.type();
        if((t != shape::half_type and t != shape::int8_type and t != shape::float_type) or out.lens().size() != 4 or
           not users_read_nhwc(ins))
            return out;
        bool reads_nhwc = std::any_of(ins->inputs().begin(), ins->inputs().end(), [&](instruction_ref x) {
            return is_nhwc(x->get_shape()) and x->get_shape().lens() == out.lens();
        });
        bool feeds_convolutions = std::all_of(ins->outputs().begin(), ins->outputs().end(), [&](instruction_ref u) {
            return nhwc_convolution_of(u, ins);
        });
        return reads_nhwc or feeds_convolutions ? nhwc_shape(out) : out;
    }

    /// The layout of a half 4-d pooling or pad result: NHWC where its users take NHWC and it
    /// reads NHWC (pooling after an NHWC convolution) or feeds only NHWC convolutions (the
    /// channel padding layout_nhwc puts before a convolution of few channels).
    static shape generated_output(instruction_ref ins)
    {
        const auto& out = ins->get_shape();
        if(out.type() != shape::half_type or out.lens().size() != 4 or
           (ins->inputs().size() != 1 and ins->name() != "depthwise_activated") or not users_read_nhwc(ins))
            return out;
        const auto& in  = ins->inputs().front()->get_shape();
        bool reads_nhwc = is_nhwc(in) and not in.standard();
        bool feeds_convolutions = std::all_of(ins->outputs().begin(), ins->outputs().end(), [&](instruction_ref u) {
            return nhwc_convolution_of(u, ins);
        });
        return reads_nhwc or feeds_convolutions ? nhwc_shape(out) : out;
    }

    /// Whether the host notes the value x holds on every run (host_values.hpp): x (through
    /// views) is a small integer literal or a host-computed size (ref_fallback::host_value).
    static bool known_on_host(instruction_ref x)
    {
        while(device_view(*x) and not x->inputs().empty())
            x = x->inputs().front();
        if(const auto* lit = x->get_operator().any_cast<hip_copy_literal>())
            return small_integers(lit->value_.get_shape()) and lit->value_.get_shape().standard();
        const auto* f = x->get_operator().any_cast<ref_fallback>();
        return f != nullptr and f->host_value;
    }

    void fallback(instruction_ref ins)
    {
        ref_fallback f;
        f.op = ins->get_operator();
        f.rows_on_device = rows_fit_the_device(ins) or sized_fits_the_device(ins);
        for(std::size_t i = 0; i < ins->inputs().size(); i++)
            if(known_on_host(ins->inputs()[i]))
                f.known_inputs.push_back(i);
        // a run-time size computed from sizes the host knows (a Shape, constants, such sizes):
        // on the host, no wait
        const auto& out = ins->get_shape();
        f.host_value    = ins->module_inputs().size() <= 1 and out.type() == shape::int64_type and
                       out.standard() and not out.dynamic() and out.elements() <= int64_values::max_count and
                       (ins->name() == "dimensions_of" or f.known_inputs.size() == ins->inputs().size());
        // the device forms of a gather or concat of sizes would not note them (Shape's does)
        if(f.host_value and ins->name() != "dimensions_of")
            f.rows_on_device = false;
        if(not ins->module_inputs().empty())
            f.mod = ins->module_inputs().front();
        if(ins->get_shape().type() == shape::tuple_type)
        {
            f.has_output = false;
            m.replace_instruction(ins, operation{f}, ins->inputs(), {});
        }
        else
            replace(ins, operation{f}, ins->inputs());
    }

    /// Whether ins's data-dependent inputs all hold its result's rows and a device op computes it
    /// (device_rows.hpp): a box head's products, a mask head's convolutions, the elementwise work
    /// between them.
    bool rows_fit_the_device(instruction_ref ins) const
    {
        const auto& in = ins->inputs();
        if(in.empty() or ins->get_shape().type() == shape::tuple_type or ins->module_inputs().size() > 1)
            return false;
        std::vector<shape> shapes;
        for(auto x : in)
            shapes.push_back(x->get_shape());
        auto rows = row_inputs(ins->get_operator(), shapes, ins->get_shape());
        if(rows.size() != in.size())
            return false;
        bool any = false;
        for(std::size_t i = 0; i < in.size(); i++)
        {
            bool dd = data_dependent.count(&*in[i]) > 0;
            // a data-dependent value broadcast along the rows (NMS's per-class offset, the boxes'
            // max times the class): the same at every row; at run time its shape must be the
            // declared one (front_rows_match), else the host computes the op
            const auto& s   = shapes[i];
            bool along_rows = s.lens().size() == ins->get_shape().lens().size() and not s.lens().empty() and
                              s.strides()[0] == 0;
            if(dd and not rows[i] and not along_rows)
                return false;
            any = any or (dd and rows[i]);
        }
        const module* mod = ins->module_inputs().empty() ? nullptr : ins->module_inputs().front();
        return any and device_rows_op(ins->get_operator(), shapes, ins->get_shape(), mod).has_value();
    }

    /// Whether a device form that runs at the run's sizes computes ins (device_sized.hpp): a
    /// detector's RoIAlign, per-level scatter, Expand/Reshape to run-time sizes.
    static bool sized_fits_the_device(instruction_ref ins)
    {
        if(not ins->module_inputs().empty())
            return false;
        std::vector<shape> shapes;
        for(auto x : ins->inputs())
            shapes.push_back(x->get_shape());
        return has_sized_device_op(ins->get_operator(), shapes, ins->get_shape());
    }

    bool lower_pointwise(instruction_ref ins)
    {
        if(ins->module_inputs().size() != 1)
            return false;
        std::vector<shape> in;
        for(auto x : ins->inputs())
            in.push_back(x->get_shape());
        auto out = pointwise_output(ins);
        auto k   = generate_pointwise(*ins->module_inputs().front(), in, out);
        if(not k)
            return false;
        replace(ins, make_kernel(*k), ins->inputs(), out);
        return true;
    }

    /// A product's operands as gpu::gemm reads them and its alpha: a dot's float or half
    /// operands (copied where cuBLASLt cannot read them as they lie); an fp8_dot's e4m3 ones in
    /// the "TN" form the fp8 kernels take (a row-major, b column-major: tn_b_layout), its alpha.
    /// Copies go in front of pos. Nothing for other types.
    struct gemm_operands
    {
        instruction_ref a, b;
        float alpha = 1;
    };
    std::optional<gemm_operands> operands_of(instruction_ref product, instruction_ref pos)
    {
        auto a = product->inputs()[0], b = product->inputs()[1];
        if(a->get_shape().type() != b->get_shape().type() or a->get_shape().lens().back() == 0)
            return std::nullopt;
        if(product->name() == "fp8_dot")
        {
            if(not gemm::fp8_a_ready(a->get_shape()))
                a = copy_kernel(pos, a);
            if(not gemm::fp8_b_ready(b->get_shape()))
                b = tn_b_layout(pos, b);
            return gemm_operands{a, b, product->get_operator().to_value().at("alpha").to<float>()};
        }
        if(not float_or_half(a->get_shape()))
            return std::nullopt;
        if(not gemm::supported_operand(a->get_shape()))
            a = copy_kernel(pos, a);
        if(not gemm::supported_operand(b->get_shape()))
            b = copy_kernel(pos, b);
        return gemm_operands{a, b, 1.0f};
    }

    bool lower_dot(instruction_ref ins)
    {
        if(ins->get_shape().elements() == 0)
            return false;
        auto ops = operands_of(ins, ins);
        if(not ops)
            return false;
        gemm g;
        g.alpha = ops->alpha;
        replace(ins, operation{g}, {ops->a, ops->b});
        return true;
    }

    /// quant_dot, int8 x int8 -> int32 (gpu::fuse_int8 keeps those gpu_int8_gemm_runs takes):
    /// cuBLASLt's int8 product, a row-major and b column-major (tn_b_layout).
    bool lower_quant_dot(instruction_ref ins)
    {
        auto a = ins->inputs()[0], b = ins->inputs()[1];
        if(not gpu_int8_gemm_runs(a->get_shape(), b->get_shape()) or ins->get_shape().elements() == 0)
            return false;
        if(not gemm::int8_a_ready(a->get_shape()))
            a = copy_kernel(ins, a);
        if(not gemm::int8_b_ready(b->get_shape()))
            b = tn_b_layout(ins, b);
        replace(ins, operation{gemm{}}, {a, b});
        return true;
    }

    /// b {..., K, N} stored column-major (as its transpose, {..., N, K} row-major), the "TN" form
    /// cuBLASLt's int8 and fp8 kernels read. Constant weights (a one-byte literal, maybe
    /// broadcast over batches) are transposed once, here; anything else is copied by a kernel
    /// each run.
    instruction_ref tn_b_layout(instruction_ref pos, instruction_ref b)
    {
        auto lens = b->get_shape().lens();
        auto swap_last = [](std::vector<std::size_t> l) {
            std::swap(l[l.size() - 2], l[l.size() - 1]);
            return l;
        };
        auto perm_of = [](std::size_t n) {
            std::vector<std::int64_t> p(n);
            std::iota(p.begin(), p.end(), 0);
            std::swap(p[n - 2], p[n - 1]);
            return p;
        };
        auto root     = b->name() == "multibroadcast" ? b->inputs().front() : b;
        const auto& rs = root->get_shape();
        const auto* lc = root->get_operator().any_cast<hip_copy_literal>();
        if(lc != nullptr and rs.standard() and rs.lens().size() >= 2 and rs.type_size() == 1)
        {
            const auto& rl = rs.lens();
            auto K = rl[rl.size() - 2], N = rl[rl.size() - 1];
            const auto* src = lc->value_.get_argument().data();
            argument t{shape{rs.type(), swap_last(rl)}};
            for(std::size_t base = 0; base < rs.elements(); base += K * N)
                for(std::size_t k = 0; k < K; k++)
                    for(std::size_t n = 0; n < N; n++)
                        t.data()[base + n * K + k] = src[base + k * N + n];
            hip_copy_literal c;
            c.id     = lc->id + ":transposed";
            c.value_ = literal{t};
            auto lit = m.insert_instruction(std::next(root), operation{c}, {});
            auto v   = view(pos, "transpose", {{"permutation", perm_of(rl.size())}}, lit);
            return root == b ? v : view(pos, "multibroadcast", {{"out_lens", lens}}, v);
        }
        auto t = copy_kernel(pos, view(pos, "transpose", {{"permutation", perm_of(lens.size())}}, b));
        return view(pos, "transpose", {{"permutation", perm_of(lens.size())}}, t);
    }

    /// A bias candidate of a batched product: the output's lens and type, broadcast over the
    /// rows only (gemm_per_batch_bias decides once the operands are known); a packed tensor is
    /// a residual.
    static bool row_vector_per_batch(const shape& c, const shape& out)
    {
        const auto& l = out.lens();
        auto n        = l.size();
        return n >= 3 and c.lens() == l and c.type() == out.type() and (l[n - 2] == 1 or c.strides()[n - 2] == 0) and
               not c.standard();
    }

    /// What a product's one user adds to it: a pointwise sum of the product, a bias (an input
    /// is_bias accepts) and/or a residual (a packed tensor of the product's lens), then maybe
    /// relu, each parameter used once, all of the product's type. For an fp8 product, the sum
    /// may be cast to e4m3 at the end (fp8_output.hpp; no residual then): d_scale is set.
    struct product_epilogue
    {
        std::optional<instruction_ref> bias, z;
        bool relu = false;
        std::optional<float> d_scale;
    };

    /// The value a product's pointwise user computes before any cast to e4m3 (an fp8 product
    /// then writes e4m3 itself, with d_scale), with the instructions computing it, last.
    struct epilogue_body
    {
        std::vector<instruction_ref> body;
        std::optional<float> d_scale;
    };
    std::optional<epilogue_body> body_before_cast(instruction_ref product, instruction_ref pw)
    {
        const module& sub = *pw->module_inputs().front();
        auto ret          = std::prev(sub.end());
        if(ret->name() != "@return" or ret->inputs().size() != 1)
            return std::nullopt;
        epilogue_body r;
        if(pw->get_shape().type() == product->get_shape().type())
            r.body = instructions_computing(sub, ret->inputs().front());
        else
        {
            auto cast = fp8_output_of(sub);
            if(product->name() != "fp8_dot" or not cast or env_enabled("MIGRAPHX_DISABLE_FP8_OUTPUT"))
                return std::nullopt;
            r.body    = instructions_computing(sub, cast->y);
            r.d_scale = cast->d_scale;
        }
        if(r.body.empty()) // the product itself, unchanged (or only cast)
            return std::nullopt;
        return r;
    }
    template <class IsBias>
    std::optional<product_epilogue> epilogue_of(instruction_ref product, IsBias is_bias)
    {
        if(product->outputs().size() != 1)
            return std::nullopt;
        auto pw = product->outputs().front();
        if(pw->name() != "pointwise" or pw->module_inputs().size() != 1 or pw->inputs().size() < 2 or
           pw->inputs().size() > 3 or data_dependent.count(&*pw) > 0 or pw->get_shape().lens() != product->get_shape().lens())
            return std::nullopt;
        auto before = body_before_cast(product, pw);
        if(not before)
            return std::nullopt;
        const auto& body = before->body;
        auto adds        = pw->inputs().size() - 1;
        product_epilogue r;
        r.d_scale = before->d_scale;
        r.relu    = body.size() == adds + 1 and body[adds]->name() == "relu";
        if(body.size() != adds + (r.relu ? 1 : 0))
            return std::nullopt;
        // A chain of adds over the parameters, each parameter used once.
        std::vector<instruction_ref> terms;
        for(std::size_t i = 0; i < adds; i++)
        {
            auto add = body[i];
            if(add->name() != "add")
                return std::nullopt;
            for(auto x : add->inputs())
            {
                if(i > 0 and x == body[i - 1])
                    continue;
                if(x->name() != "@param")
                    return std::nullopt;
                terms.push_back(x);
            }
        }
        if(r.relu and body[adds]->inputs().front() != body[adds - 1])
            return std::nullopt;
        for(auto x : body)
            if(x->get_shape().type() != product->get_shape().type())
                return std::nullopt;
        std::set<const instruction*> distinct;
        for(auto x : terms)
            distinct.insert(&*x);
        if(terms.size() != pw->inputs().size() or distinct.size() != terms.size())
            return std::nullopt;
        bool have_product = false;
        for(auto p : terms)
        {
            auto x = pointwise_input(pw, p);
            if(not x)
                return std::nullopt;
            if(*x == product and not have_product)
                have_product = true;
            else if(not r.bias and is_bias((*x)->get_shape()))
                r.bias = *x;
            else if(not r.z and (*x)->get_shape().lens() == product->get_shape().lens() and
                    (*x)->get_shape().type() == product->get_shape().type())
                r.z = *x;
            else
                return std::nullopt;
        }
        if(not have_product or (r.relu and not r.bias) or (r.d_scale and r.z))
            return std::nullopt;
        return r;
    }

    /// The bias of GELU(dot [+ bias]) when the dot's one user computes exactly that, GELU in
    /// its erf form, x * 0.5 * (1 + erf(x / sqrt 2)) (the products in any order, x / sqrt 2 or
    /// x * (1 / sqrt 2)), maybe cast to e4m3 after (an fp8 product's d_scale): nullopt when it
    /// does not; no bias inside when there is none.
    std::optional<product_epilogue> gelu_of(instruction_ref dot)
    {
        if(dot->outputs().size() != 1)
            return std::nullopt;
        auto pw = dot->outputs().front();
        if(pw->name() != "pointwise" or pw->module_inputs().size() != 1 or pw->inputs().size() > 2 or
           data_dependent.count(&*pw) > 0 or pw->get_shape().lens() != dot->get_shape().lens())
            return std::nullopt;
        auto before = body_before_cast(dot, pw);
        if(not before)
            return std::nullopt;
        product_epilogue r;
        r.d_scale = before->d_scale;
        auto param = [&](instruction_ref x) -> std::optional<instruction_ref> {
            if(x->name() != "@param")
                return std::nullopt;
            return pointwise_input(pw, x);
        };
        auto near = [](std::optional<float> v, double want, double tol) { return v and std::abs(*v - want) <= tol; };
        auto constant = [](instruction_ref x) { return pass_utils::scalar_value(x); };
        // The products' factors, through nested muls.
        std::vector<instruction_ref> factors;
        std::vector<instruction_ref> todo{before->body.back()};
        while(not todo.empty())
        {
            auto x = todo.back();
            todo.pop_back();
            if(x->name() == "mul" and x->inputs().size() == 2)
                todo.insert(todo.end(), x->inputs().begin(), x->inputs().end());
            else
                factors.push_back(x);
        }
        // x: the dot or dot + bias; t: 1 + erf(x / sqrt 2); and constants multiplying to 0.5.
        std::optional<instruction_ref> x, t, bias;
        double scale = 1;
        for(auto f : factors)
        {
            if(auto c = constant(f))
                scale *= *c;
            else if(f->name() == "add" and f->inputs().size() == 2 and
                    (near(constant(f->inputs()[0]), 1, 0) or near(constant(f->inputs()[1]), 1, 0)) and not t)
                t = f;
            else if(not x)
                x = f;
            else
                return std::nullopt;
        }
        if(not x or not t or std::abs(scale - 0.5) > 1e-6)
            return std::nullopt;
        auto e = near(constant((*t)->inputs()[0]), 1, 0) ? (*t)->inputs()[1] : (*t)->inputs()[0];
        if(e->name() != "erf")
            return std::nullopt;
        auto z = e->inputs().front();
        bool scaled = z->inputs().size() == 2 and z->inputs()[0] == *x and
                      ((z->name() == "div" and near(constant(z->inputs()[1]), std::sqrt(2.0), 2e-3)) or
                       (z->name() == "mul" and near(constant(z->inputs()[1]), std::sqrt(0.5), 1e-3)));
        if(not scaled)
            return std::nullopt;
        // x itself: the dot's parameter, or the dot's plus a per-column bias's.
        if(auto d = param(*x))
        {
            if(*d != dot or pw->inputs().size() != 1)
                return std::nullopt;
            return r; // no bias
        }
        if((*x)->name() != "add" or pw->inputs().size() != 2)
            return std::nullopt;
        auto a = param((*x)->inputs()[0]), b = param((*x)->inputs()[1]);
        if(not a or not b)
            return std::nullopt;
        if(*b == dot)
            std::swap(a, b);
        if(*a != dot or not gemm::supported_bias((*b)->get_shape(), dot->get_shape()))
            return std::nullopt;
        r.bias = *b;
        return r;
    }

    /// A half dot whose one user is GELU (erf form) of it, or of it plus a per-column bias: with
    /// fast_math, one cuBLASLt call with the GELU (or GELU + bias) epilogue. cuBLASLt's GELU is
    /// the tanh approximation, within 4.7e-4 of erf GELU everywhere (at x = -2.7, where GELU is
    /// -0.0094); the kernel it replaces was 13 % of BERT-base's time at batch 64.
    /// MIGRAPHX_DISABLE_FAST_GELU=1 (or fast_math off) keeps erf GELU.
    bool lower_dot_gelu(instruction_ref dot)
    {
        if(not fast_math or env_enabled("MIGRAPHX_DISABLE_FAST_GELU") or dot->get_shape().type() != shape::half_type)
            return false;
        auto e = gelu_of(dot);
        if(not e)
            return false;
        auto pw = dot->outputs().front();
        if(not gemm::one_product(dot->inputs()[0]->get_shape(), dot->inputs()[1]->get_shape()))
            return false;
        auto ops = operands_of(dot, pw);
        if(not ops)
            return false;
        gemm g;
        g.alpha = ops->alpha;
        std::vector<instruction_ref> args{ops->a, ops->b};
        g.epilogue = e->bias ? "gelu_bias" : "gelu";
        if(e->bias)
            args.push_back(*e->bias);
        g.d_scale = e->d_scale.value_or(1.0f);
        replace(pw, operation{g}, args); // the dot is left without users (dead code)
        return true;
    }

    /// dot whose only user is a pointwise sum of it, a per-column bias and/or a residual (a
    /// packed tensor of its shape), then maybe relu: one cuBLASLt call (bias or relu_bias
    /// epilogue, the residual as C with beta = 1) replaces both. True when done. The bias of a
    /// strided batch of products (not one product) may be one per batch (gemm_per_batch_bias).
    bool lower_dot_bias(instruction_ref dot)
    {
        const auto& out = dot->get_shape();
        auto e          = epilogue_of(dot, [&](const shape& b) {
            return gemm::supported_bias(b, out) or row_vector_per_batch(b, out);
        });
        if(not e or (e->z and (*e->z)->get_shape() != shape{out.type(), out.lens()}))
            return false;
        auto pw   = dot->outputs().front();
        auto bias = e->bias;
        auto z    = e->z;
        auto ops  = operands_of(dot, pw);
        if(not ops)
            return false;
        auto a = ops->a, b = ops->b;
        // One product: a bias broadcast over everything but its columns. A strided batch
        // (merge_parallel_dots' stacked products): a bias per batch, and no residual.
        bool one = gemm::one_product(a->get_shape(), b->get_shape());
        if(one and bias and not gemm::supported_bias((*bias)->get_shape(), dot->get_shape()))
            return false;
        if(not one and (z or not bias or e->d_scale or
                        not gemm_per_batch_bias(a->get_shape(), b->get_shape(), (*bias)->get_shape(), dot->get_shape())))
            return false; // the copies, if any, are dead code
        gemm g;
        g.alpha = ops->alpha;
        std::vector<instruction_ref> args{a, b};
        if(bias)
        {
            g.epilogue = e->relu ? "relu_bias" : "bias";
            args.push_back(*bias);
        }
        if(z)
        {
            g.residual = true;
            args.push_back(*z);
        }
        g.d_scale = e->d_scale.value_or(1.0f);
        replace(pw, operation{g}, args); // the dot is left without users (dead code)
        return true;
    }

    /// pointwise relu(add(conv, bias)) or relu(add(add(conv, bias), z)) (either operand order)
    /// over an already lowered gpu::convolution used only here -> one gpu::conv_bias_relu in
    /// the convolution's layout. True when done.
    bool lower_conv_bias_relu(instruction_ref pw)
    {
        if(pw->module_inputs().size() != 1 or data_dependent.count(&*pw) > 0 or env_enabled("MIGRAPHX_DISABLE_CONV_FUSION"))
            return false;
        const module& sub = *pw->module_inputs().front();
        auto body         = body_of(sub);
        bool residual = pw->inputs().size() == 3;
        if(body.size() != (residual ? 4u : 3u) or (pw->inputs().size() != 2 and not residual))
            return false;
        auto add0 = body[0], relu = body[body.size() - 2], ret = body.back();
        if(add0->name() != "add" or relu->name() != "relu" or ret->name() != "@return" or
           ret->inputs() != std::vector<instruction_ref>{relu})
            return false;
        auto input_of = [&](instruction_ref p) { return pointwise_input(pw, p); };
        instruction_ref last_add = add0;
        std::optional<instruction_ref> z;
        if(residual)
        {
            auto add1 = body[1];
            if(add1->name() != "add" or relu->inputs().front() != add1)
                return false;
            auto other = add1->inputs()[0] == add0 ? add1->inputs()[1] : add1->inputs()[0];
            if(add1->inputs()[0] != add0 and add1->inputs()[1] != add0)
                return false;
            z = input_of(other);
            if(not z)
                return false;
            last_add = add1;
        }
        if(relu->inputs().front() != last_add)
            return false;
        auto a = input_of(add0->inputs()[0]), b = input_of(add0->inputs()[1]);
        if(not a or not b)
            return false;
        auto conv = (*a)->name() == "gpu::convolution" ? *a : *b;
        auto bias = conv == *a ? *b : *a;
        const auto* op = conv->get_operator().any_cast<convolution>();
        if(op == nullptr or conv->outputs().size() != 1 or bias == conv or (z and *z == conv))
            return false;
        auto out = conv->get_shape();
        for(const auto& x : sub)
            if(x.name() != "@return" and x.get_shape().type() != out.type())
                return false;
        if(pw->get_shape().lens() != out.lens() or pw->get_shape().type() != out.type() or
           not conv_bias_relu::supported_bias(bias->get_shape(), out))
            return false;
        // An NHWC result only where the users read NHWC (else the plain kernel writes standard).
        if(not out.standard() and not users_read_nhwc(pw))
            return false;
        if(z and ((*z)->get_shape().lens() != out.lens() or (*z)->get_shape().strides() != out.strides()))
            return false;
        conv_bias_relu f;
        static_cast<convolution&>(f) = *op;
        f.residual = residual;
        std::vector<instruction_ref> args{conv->inputs()[0], conv->inputs()[1], bias};
        if(z)
            args.push_back(*z);
        replace(pw, operation{f}, args, out); // the convolution is left without users (dead code)
        return true;
    }

    /// relu(conv_a + bias_a + conv_b + bias_b), as a ResNet block with a downsample branch ends:
    /// conv_b + bias_b becomes a gpu::conv_bias_relu without relu, whose result is the residual
    /// of conv_a's gpu::conv_bias_relu: two cuDNN calls and no pointwise kernel.
    bool lower_two_convolution_sum(instruction_ref pw)
    {
        if(pw->module_inputs().size() != 1 or pw->inputs().size() != 4 or data_dependent.count(&*pw) > 0 or
           env_enabled("MIGRAPHX_DISABLE_CONV_FUSION"))
            return false;
        const module& sub = *pw->module_inputs().front();
        auto body         = body_of(sub);
        if(body.size() != 5)
            return false;
        auto sum = body[2], relu = body[3], ret = body[4];
        if(sum->name() != "add" or relu->name() != "relu" or ret->name() != "@return" or
           ret->inputs() != std::vector<instruction_ref>{relu} or relu->inputs().front() != sum)
            return false;
        struct branch
        {
            instruction_ref conv, bias;
            const convolution* op;
        };
        // add(conv, bias) of the module's parameters: the convolution the sum may absorb.
        auto branch_of = [&](instruction_ref add) -> std::optional<branch> {
            if(add->name() != "add" or (add != body[0] and add != body[1]))
                return std::nullopt;
            auto a = pointwise_input(pw, add->inputs()[0]), b = pointwise_input(pw, add->inputs()[1]);
            if(not a or not b)
                return std::nullopt;
            auto conv = (*a)->name() == "gpu::convolution" ? *a : *b;
            auto bias = conv == *a ? *b : *a;
            const auto* op = conv->get_operator().any_cast<convolution>();
            if(op == nullptr or conv->outputs().size() != 1 or bias == conv or
               not conv_bias_relu::supported_bias(bias->get_shape(), conv->get_shape()))
                return std::nullopt;
            return branch{conv, bias, op};
        };
        auto a = branch_of(sum->inputs()[0]), b = branch_of(sum->inputs()[1]);
        if(not a or not b or a->conv == b->conv)
            return false;
        // Both results in one layout (NHWC for half), the sum's lens and type.
        auto out = a->conv->get_shape();
        if(b->conv->get_shape() != out or pw->get_shape().lens() != out.lens() or
           pw->get_shape().type() != out.type())
            return false;
        for(const auto& x : sub)
            if(x.name() != "@return" and x.get_shape().type() != out.type())
                return false;
        if(not out.standard() and not users_read_nhwc(pw))
            return false;
        conv_bias_relu fb;
        static_cast<convolution&>(fb) = *b->op;
        fb.relu                       = false;
        auto t = m.insert_instruction(
            pw, operation{fb}, {b->conv->inputs()[0], b->conv->inputs()[1], b->bias, alloc(pw, out)});
        conv_bias_relu fa;
        static_cast<convolution&>(fa) = *a->op;
        fa.residual                   = true;
        replace(pw, operation{fa}, {a->conv->inputs()[0], a->conv->inputs()[1], a->bias, t}, out);
        return true; // both plain convolutions are left without users (dead code)
    }

    /// The instruction a pointwise module's parameter p stands for (pw's input), if p is one.
    static std::optional<instruction_ref> pointwise_input(instruction_ref pw, instruction_ref p)
    {
        if(p->name() != "@param")
            return std::nullopt;
        auto n = p->get_operator().to_value().at("parameter").get_string();
        auto k = static_cast<std::size_t>(std::stoul(n.substr(1)));
        return k < pw->inputs().size() ? std::optional<instruction_ref>{pw->inputs()[k]} : std::nullopt;
    }

    bool lower_convolution(instruction_ref ins)
    {
        auto x = ins->inputs()[0], w = ins->inputs()[1];
        const auto& xs = x->get_shape();
        const auto& ws = w->get_shape();
        const auto& xl = xs.lens();
        auto c         = cudnn_convolution_for(ins->get_operator().to_value(), xs, ws);
        if(not c or ins->get_shape().elements() == 0)
            return false;
        auto op = *c;
        bool zero_stride = false;
        for(std::size_t i = 0; i < xl.size(); i++)
            zero_stride = zero_stride or (xs.strides()[i] == 0 and xl[i] > 1);
        if(is_nhwc(ws) and xl.size() == 4 and xs.type() == shape::half_type)
            return lower_nhwc_convolution(ins, op, x, w);
        if(zero_stride or (is_nhwc(xs) and not xs.standard()))
            x = copy_kernel(ins, x);
        if(not ws.standard())
            w = copy_kernel(ins, w);
        replace(ins, operation{op}, {x, w});
        return true;
    }

    instruction_ref view(instruction_ref pos, const std::string& name, const value& v, instruction_ref x)
    {
        return m.insert_instruction(pos, make_op(name, v), {x});
    }

    /// An NHWC tensor {N, C, H, W} seen as the standard matrix {N * H * W, C} (no copy).
    instruction_ref pixel_rows(instruction_ref pos, instruction_ref x)
    {
        const auto& l = x->get_shape().lens();
        auto t        = view(pos, "transpose", {{"permutation", {0, 2, 3, 1}}}, x);
        return view(pos, "reshape", {{"dims", {l[0] * l[2] * l[3], l[1]}}}, t);
    }

    /// A 1x1 convolution (stride 1, no padding, one group) of NHWC half tensors is the product
    /// of its pixels {N*H*W, C} by its weights {C, K}, giving the NHWC output as {N*H*W, K}:
    /// cuBLASLt runs it, with the per-channel bias, the residual (an NHWC tensor) and the relu
    /// that follow as epilogues (lower_dot_bias's). cuDNN's best 1x1 engines took 2-4x the
    /// memory time on MobileNetV2's projections, and their bias and residual adds were kernels of
    /// their own. MIGRAPHX_DISABLE_CONV_GEMM=1 keeps cuDNN.
    bool lower_pointwise_convolution(instruction_ref ins, const convolution& op, instruction_ref x, instruction_ref w)
    {
        const auto& xs = x->get_shape();
        const auto& ws = w->get_shape();
        const auto& wl = ws.lens();
        if(env_enabled("MIGRAPHX_DISABLE_CONV_GEMM") or op.group != 1 or wl.size() != 4 or wl[2] != 1 or
           wl[3] != 1 or not ws.standard() or not is_nhwc(xs) or xs.type() != shape::half_type or
           std::any_of(op.stride.begin(), op.stride.end(), [](auto v) { return v != 1; }) or
           std::any_of(op.padding.begin(), op.padding.end(), [](auto v) { return v != 0; }))
            return false;
        const auto& ol = ins->get_shape().lens();
        std::size_t rows = ol[0] * ol[2] * ol[3], K = ol[1];
        // A bias: a {K} constant broadcast over N, H, W; a residual: an NHWC tensor of the output.
        auto channel_bias = [&](const shape& b) {
            return b.lens() == ol and b.type() == xs.type() and b.strides()[0] == 0 and b.strides()[2] == 0 and
                   b.strides()[3] == 0 and (K == 1 or b.strides()[1] == 1);
        };
        auto e = epilogue_of(ins, channel_bias);
        // Followed by bias and relu, cuDNN's fused convolution (lower_conv_bias_relu) was as fast
        // or faster (ResNet-50 at batch 32: 1.19 ms cuDNN, 1.22 ms cuBLASLt), so it keeps those.
        if(e and e->relu)
            return false;
        // Other pointwise users (ResNet's two convolutions summed, then relu) have cuDNN paths.
        if(not e and std::any_of(ins->outputs().begin(), ins->outputs().end(), [](instruction_ref u) {
               return u->name() == "pointwise";
           }))
            return false;
        if(e and e->z and not is_nhwc((*e->z)->get_shape()))
            e = std::nullopt;
        std::optional<instruction_ref> bias_root;
        if(e and e->bias)
        {
            auto r = *e->bias;
            while(r->name() == "broadcast" or r->name() == "multibroadcast")
                r = r->inputs().front();
            if(r->get_shape().elements() == K and r->get_shape().standard())
                bias_root = r;
            else
                e = std::nullopt;
        }
        auto last = e ? ins->outputs().front() : ins; // the instruction the product replaces
        auto a    = pixel_rows(last, x);
        auto b    = view(last, "transpose", {{"permutation", {1, 0}}},
                      view(last, "reshape", {{"dims", {wl[0], wl[1]}}}, w));
        gemm g;
        std::vector<instruction_ref> args{a, b};
        if(e and e->bias)
        {
            g.epilogue = e->relu ? "relu_bias" : "bias";
            auto row   = view(last, "reshape", {{"dims", {std::size_t{1}, K}}}, *bias_root);
            args.push_back(view(last, "multibroadcast", {{"out_lens", {rows, K}}}, row));
        }
        if(e and e->z)
        {
            g.residual = true;
            args.push_back(pixel_rows(last, *e->z));
        }
        args.push_back(alloc(last, shape{xs.type(), {rows, K}}));
        auto prod = m.insert_instruction(last, operation{g}, args);
        auto nhwc = view(last, "reshape", {{"dims", {ol[0], ol[2], ol[3], K}}}, prod);
        if(users_read_nhwc(last))
        {
            m.replace_instruction(last, make_op("transpose", {{"permutation", {0, 3, 1, 2}}}), {nhwc}, {});
            return true;
        }
        auto v = view(last, "transpose", {{"permutation", {0, 3, 1, 2}}}, nhwc);
        replace(last, make_kernel(generate_copy(v->get_shape(), last->get_shape())), {v});
        return true;
    }

    /// One NHWC copy of x, made after x, for all the convolutions that read it (a block's first
    /// convolution and its downsample).
    instruction_ref nhwc_copy_of(instruction_ref x)
    {
        auto it = nhwc_copies.find(&*x);
        if(it == nhwc_copies.end())
            it = nhwc_copies.emplace(&*x, copy_kernel(std::next(x), x, nhwc_shape(x->get_shape()))).first;
        return it->second;
    }

    /// A convolution whose weights layout_nhwc laid out KRSC: NHWC input (copied into NHWC if
    /// it is not), NHWC output; users that need another layout read a standard copy.
    bool lower_nhwc_convolution(instruction_ref ins, const convolution& op, instruction_ref x, instruction_ref w)
    {
        auto out = nhwc_shape(ins->get_shape());
        if(not is_nhwc(x->get_shape()))
            x = nhwc_copy_of(x);
        if(lower_pointwise_convolution(ins, op, x, w))
            return true;
        if(users_read_nhwc(ins))
        {
            replace(ins, operation{op}, {x, w}, out);
            return true;
        }
        auto conv = m.insert_instruction(ins, operation{op}, {x, w, alloc(ins, out)});
        replace(ins, make_kernel(generate_copy(out, ins->get_shape())), {conv});
        return true;
    }

    /// ops/int8_convolution.cpp's op (gpu::fuse_int8 made it; its weights are KRSC already):
    /// NHWC input and residual (copied into NHWC where they are not), NHWC output; users that
    /// need another layout read a standard copy.
    bool lower_int8_convolution(instruction_ref ins)
    {
        auto v = ins->get_operator().to_value();
        int8_convolution op;
        op.padding  = v.at("padding").to_vector<std::size_t>();
        op.stride   = v.at("stride").to_vector<std::size_t>();
        op.dilation = v.at("dilation").to_vector<std::size_t>();
        op.scales   = v.at("scales").to_vector<float>();
        op.bias     = v.at("bias").to<bool>();
        op.residual = v.at("residual").to<bool>();
        op.relu     = v.at("relu").to<bool>();
        op.z_scale  = v.at("z_scale").to<float>();
        auto args   = ins->inputs();
        auto out    = nhwc_shape(ins->get_shape());
        // exactly NHWC strides (the graph declares them), not just a layout that reads as NHWC
        auto nhwc = [&](instruction_ref x) {
            return x->get_shape().strides() == nhwc_shape(x->get_shape()).strides() ? x : nhwc_copy_of(x);
        };
        args[0] = nhwc(args[0]);
        args[1] = nhwc(args[1]);
        if(op.residual)
            args.back() = nhwc(args.back());
        if(users_read_nhwc(ins))
        {
            replace(ins, operation{op}, args, out);
            return true;
        }
        args.push_back(alloc(ins, out));
        auto conv = m.insert_instruction(ins, operation{op}, args);
        replace(ins, make_kernel(generate_copy(out, ins->get_shape())), {conv});
        return true;
    }

    bool lower_convolution_backwards(instruction_ref ins)
    {
        auto x = ins->inputs()[0], w = ins->inputs()[1];
        const auto& xs = x->get_shape();
        const auto& ws = w->get_shape();
        auto c         = cudnn_convolution_backwards_for(ins->get_operator().to_value(), xs, ws);
        if(not c or ins->get_shape().elements() == 0)
            return false;
        auto op = *c;
        bool zero_stride = false;
        for(std::size_t i = 0; i < xs.lens().size(); i++)
            zero_stride = zero_stride or (xs.strides()[i] == 0 and xs.lens()[i] > 1);
        if(zero_stride)
            x = copy_kernel(ins, x);
        if(not ws.standard())
            w = copy_kernel(ins, w);
        replace(ins, operation{op}, {x, w});
        return true;
    }

    /// ins's tuple elements (its get_tuple_elem users) as views of r, gpu::rnn's buffer: Y (where
    /// ins is the last layer of r), and Y_h, Y_c of ins's layer. A bidirectional Y (cuDNN's {seq,
    /// batch, 2, hidden}) is ONNX's {seq, 2, batch, hidden} as a transposed view, a reverse one
    /// the second direction's slice of it, where every user reads strided input (a transpose,
    /// usually back to {seq, batch, 2 * hidden}, or a pointwise kernel), else copied.
    void rnn_views(instruction_ref ins, instruction_ref r, const rnn& op, std::size_t layer)
    {
        const auto& xs = r->inputs().front()->get_shape();
        auto T = xs.lens()[0], N = xs.lens()[1], H = op.hidden_size;
        auto D     = op.cudnn_dirs();
        auto parts = rnn_layout(T, N, D, H, op.cell == "lstm", op.layers);
        auto users = ins->outputs();
        for(auto u : users)
        {
            auto part = [&](std::size_t start, const std::vector<std::size_t>& lens) {
                auto n = std::accumulate(lens.begin(), lens.end(), std::size_t{1}, std::multiplies<>{});
                auto s = m.insert_instruction(
                    u,
                    make_op("slice",
                            {{"axes", {0}},
                             {"starts", {static_cast<std::int64_t>(start)}},
                             {"ends", {static_cast<std::int64_t>(start + n)}}}),
                    r);
                return m.insert_instruction(
                    u, make_op("reshape", {{"dims", std::vector<std::int64_t>(lens.begin(), lens.end())}}), s);
            };
            // reverse: the backward direction (1) of a {.., 2, ..} view along axis
            auto backward = [&](instruction_ref v, std::int64_t axis) {
                return op.reverse ? m.insert_instruction(
                                        u, make_op("slice", {{"axes", {axis}}, {"starts", {1}}, {"ends", {2}}}), v)
                                  : v;
            };
            auto k = u->get_operator().to_value().at("index").to<std::size_t>();
            if(k == 0 and layer + 1 < op.layers)
                continue; // the next layer's input, inside the stack
            instruction_ref v;
            if(k == 0 and D == 1)
                v = part(parts.y, {T, 1, N, H});
            else if(k == 0)
            {
                v = m.insert_instruction(u, make_op("transpose", {{"permutation", {0, 2, 1, 3}}}),
                                         backward(part(parts.y, {T, N, 2, H}), 2));
                bool strided_readers = std::all_of(u->outputs().begin(), u->outputs().end(), [](instruction_ref w) {
                    return w->name() == "transpose" or w->name() == "pointwise";
                });
                if(not strided_readers)
                    v = copy_kernel(u, v);
            }
            else
                v = backward(part((k == 1 ? parts.h : parts.c) + layer * D * N * H, {D, N, H}), 0);
            m.replace_instruction(u, v);
        }
    }

    /// lstm / gru / rnn that cuDNN computes -> gpu::rnn writing one buffer (rnn.hpp), at the
    /// first layer of a stack for all its layers; the tuple elements become views of their parts.
    /// The replaced instructions (and the views between a stack's layers) are left for
    /// dead_code_elimination.
    bool lower_rnn(instruction_ref ins)
    {
        auto found = rnns.find(&*ins);
        if(found == rnns.end())
            return false;
        const auto& op = found->second;
        auto layer     = rnn_layer.find(&*ins);
        if(layer != rnn_layer.end() and layer->second.second > 0)
        {
            // a later layer of a stack, run by the gpu::rnn made at its first layer
            const auto& first = *layer->second.first;
            rnn_views(ins, rnn_results.at(&first), rnns.at(&first), layer->second.second);
            return true;
        }
        std::vector<instruction_ref> in;
        if(layer == rnn_layer.end())
        {
            in = ins->inputs();
            if(in.size() > 7)
                in.resize(7); // P: cudnn_rnn_for took it absent
        }
        else
        {
            // X, then W, R and B of each layer
            in = {ins->inputs().front()};
            for(auto l : rnn_stacks.at(&*ins))
                in.insert(in.end(), l->inputs().begin() + 1, l->inputs().begin() + 4);
        }
        for(std::size_t i = 0; i < in.size(); i++)
            if((op.layers > 1 or i != 4) and in[i]->get_shape().elements() > 0 and not in[i]->get_shape().standard())
                in[i] = copy_kernel(ins, in[i]);
        const auto& xs = in[0]->get_shape();
        auto parts = rnn_layout(xs.lens()[0], xs.lens()[1], op.cudnn_dirs(), op.hidden_size, op.cell == "lstm",
                                op.layers);
        in.push_back(alloc(ins, shape{xs.type(), {parts.total}}));
        auto r = m.insert_instruction(ins, operation{op}, in);
        rnn_results[&*ins] = r;
        rnn_views(ins, r, op, 0);
        return true;
    }

    /// argmax / argmin of float or half -> the generated kernel, a strided input copied packed.
    bool lower_argminmax(instruction_ref ins)
    {
        auto x  = ins->inputs().front();
        auto xs = x->get_shape();
        if(xs.dynamic())
            return false;
        auto v  = ins->get_operator().to_value();
        auto axis   = static_cast<std::size_t>(axis_from_front(ins->get_operator(), xs.lens().size()));
        auto kernel = generate_argminmax(ins->name() == "argmax", v.at("select_last_index").get_bool(), axis,
                                         shape{xs.type(), xs.lens()});
        if(not kernel)
            return false;
        if(not xs.standard())
            x = copy_kernel(ins, x);
        replace(ins, make_kernel(*kernel), {x});
        return true;
    }

    /// A half layernorm one of whose readers is quantize_fp8's cast of it to e4m3
    /// (e4m3_cast_scale): one kernel writes the norm and the e4m3 copy into one buffer, the norm
    /// first, both views of it (load, as topk's results); the cast's kernel goes (another read
    /// and write of the tensor). The cast stays a kernel with MIGRAPHX_DISABLE_FP8_OUTPUT=1.
    bool lower_layernorm_e4m3(instruction_ref ins)
    {
        const auto& out = ins->get_shape();
        if(out.type() != shape::half_type or out.dynamic() or not out.standard() or
           env_enabled("MIGRAPHX_DISABLE_FP8_OUTPUT"))
            return false;
        auto cast = std::find_if(ins->outputs().begin(), ins->outputs().end(), [&](instruction_ref u) {
            return u->get_shape().lens() == out.lens() and u->get_shape().standard() and e4m3_cast_scale(u);
        });
        if(cast == ins->outputs().end())
            return false;
        auto copy   = *cast; // the users' list changes below
        auto kernel = generate_layernorm_with_e4m3(ins, *e4m3_cast_scale(copy));
        if(not kernel)
            return false;
        auto n      = out.elements();
        auto buffer = alloc(ins, shape{shape::half_type, {n + (n + 1) / 2}}); // 2n bytes, then n
        auto args   = ins->inputs();
        args.push_back(buffer);
        auto r = m.insert_instruction(ins, make_kernel(*kernel), args);
        m.replace_instruction(copy, make_op("load", {{"shape", shape_to_value(copy->get_shape())}, {"offset", 2 * n}}),
                              {r}, {});
        m.replace_instruction(ins, make_op("load", {{"shape", shape_to_value(out)}, {"offset", 0}}), {r}, {});
        return true;
    }

    /// topk on static shapes (k <= topk_max_k, float or half) -> the generated kernel writing one
    /// buffer, its two results views of it (load): indices first, the values after them. The
    /// tuple and its get_tuple_elem users are left for dead_code_elimination.
    bool lower_topk(instruction_ref ins)
    {
        if(ins->inputs().size() != 1 or ins->outputs().empty())
            return false;
        for(auto u : ins->outputs())
            if(u->name() != "get_tuple_elem")
                return false;
        auto x  = ins->inputs().front();
        auto v  = ins->get_operator().to_value();
        auto xs = x->get_shape();
        if(xs.dynamic())
            return false;
        auto values = ins->get_shape().sub_shapes().at(0);
        auto axis   = static_cast<std::size_t>(axis_from_front(ins->get_operator(), xs.lens().size()));
        auto k      = static_cast<std::size_t>(v.at("k").get_int64());
        auto packed = shape{xs.type(), xs.lens()};
        auto kernel = generate_topk(packed, axis, k, v.at("largest").get_bool());
        if(not kernel)
            return false;
        if(not xs.standard())
            x = copy_kernel(ins, x);
        auto buffer = alloc(ins, shape{shape::int64_type, {topk_buffer_elements(values)}});
        auto r      = m.insert_instruction(ins, make_kernel(*kernel), {x, buffer});
        auto users  = ins->outputs();
        for(auto u : users)
        {
            auto index = u->get_operator().to_value().at("index").to<std::size_t>();
            auto part  = index == 0 ? values : ins->get_shape().sub_shapes().at(1);
            auto offset = index == 0 ? values.elements() * 8 : 0;
            m.replace_instruction(u, make_op("load", {{"shape", shape_to_value(part)}, {"offset", offset}}), {r});
        }
        return true;
    }

    void lower(instruction_ref ins)
    {
        const auto& n = ins->name();
        if(n.front() == '@' or n.rfind("hip::", 0) == 0 or n.rfind("gpu::", 0) == 0 or device_view(*ins))
            return;
        if(data_dependent.count(&*ins) > 0)
        {
            fallback(ins);
            return;
        }
        if(n == "pointwise" and (lower_conv_bias_relu(ins) or lower_two_convolution_sum(ins) or lower_pointwise(ins)))
            return;
        if(n == "contiguous" and not ins->get_shape().dynamic() and ins->get_shape().type() != shape::tuple_type)
        {
            auto k = generate_copy(ins->inputs().front()->get_shape(), ins->get_shape());
            replace(ins, make_kernel(k), ins->inputs());
            return;
        }
        if((n == "dot" or n == "fp8_dot") and (lower_dot_gelu(ins) or lower_dot_bias(ins) or lower_dot(ins)))
            return;
        if(n == "pooling" or n == "pad" or n == "depthwise_activated")
        {
            auto out = generated_output(ins);
            if(out != ins->get_shape())
            {
                if(auto k = generate_for(ins, out))
                {
                    replace(ins, make_kernel(*k), ins->inputs(), out);
                    return;
                }
            }
        }
        if(n == "layernorm" and lower_layernorm_e4m3(ins))
            return;
        if(auto k = generate_for(ins))
        {
            replace(ins, make_kernel(*k), ins->inputs());
            return;
        }
        if(n == "convolution" and lower_convolution(ins))
            return;
        if(n == "int8_convolution" and lower_int8_convolution(ins))
            return;
        if(n == "quant_dot" and lower_quant_dot(ins))
            return;
        if(n == "convolution_backwards" and lower_convolution_backwards(ins))
            return;
        if((n == "lstm" or n == "gru" or n == "rnn") and lower_rnn(ins))
            return;
        if(n == "topk" and lower_topk(ins))
            return;
        if((n == "argmax" or n == "argmin") and lower_argminmax(ins))
            return;
        fallback(ins);
    }
};

/// The stacks of recurrent layers lowered as one gpu::rnn each (rnn_stack), in l's maps.
void find_rnn_stacks(lowerer& l, const std::vector<instruction_ref>& order)
{
    if(l.rnns.size() < 2)
        return;
    std::unordered_map<const instruction*, std::size_t> place;
    for(std::size_t i = 0; i < order.size(); i++)
        place[&*order[i]] = i;
    auto taken = [&](instruction_ref x) -> const rnn* {
        auto f = l.rnns.find(&*x);
        return f == l.rnns.end() or l.rnn_layer.count(&*x) > 0 ? nullptr : &f->second;
    };
    auto before = [&](instruction_ref a, instruction_ref b) { return place.at(&*a) < place.at(&*b); };
    for(auto ins : order)
    {
        const auto* op = taken(ins);
        if(op == nullptr)
            continue;
        auto stack = rnn_stack(ins, *op, taken, before);
        if(stack.size() < 2)
            continue;
        l.rnns.at(&*ins).layers = stack.size();
        for(std::size_t k = 0; k < stack.size(); k++)
            l.rnn_layer.emplace(&*stack[k], std::make_pair(ins, k));
        l.rnn_stacks.emplace(&*ins, std::move(stack));
    }
}

std::vector<std::string> output_names(const module& m)
{
    auto* p = current_program();
    auto n  = m.get_output_shapes().size();
    if(p != nullptr and p->get_main_module() == &m)
    {
        auto names = p->get_output_names();
        if(names.size() == n)
            return names;
    }
    std::vector<std::string> r;
    for(std::size_t i = 0; i < n; i++)
        r.push_back("main:#output_" + std::to_string(i));
    return r;
}

/// Whether fallback c takes its input i from the host's note (host_values.hpp), never from the
/// device: Shape reads the shape only; a host op, and the sizes of Expand/Reshape and topk's k in
/// their device forms, read a known input (known_inputs) through host_input.
bool reads_note(const ref_fallback& c, std::size_t i)
{
    const auto& n = c.op.name();
    if(n == "dimensions_of")
        return true;
    if(std::find(c.known_inputs.begin(), c.known_inputs.end(), i) == c.known_inputs.end())
        return false;
    return not c.rows_on_device or
           (i == 1 and (n == "broadcast_with_dims" or n == "reshape_with_dims" or n == "topk"));
}

/// Whether anything reads x's device memory (through views of it).
bool read_on_device(instruction_ref x)
{
    for(auto u : x->outputs())
    {
        if(device_view(*u))
        {
            if(read_on_device(u))
                return true;
            continue;
        }
        const auto* c = u->get_operator().any_cast<ref_fallback>();
        for(std::size_t i = 0; i < u->inputs().size(); i++)
            if(u->inputs()[i] == x and (c == nullptr or not reads_note(*c, i)))
                return true;
    }
    return false;
}

/// host_only_values (lowering.hpp): a detector's per-class Shape -> Gather -> Concat -> ReduceMin
/// feeding topk's k is computed and noted, never written.
void mark_host_only_values(module& m)
{
    for(auto it = m.begin(); it != m.end(); ++it)
    {
        const auto* f = it->get_operator().any_cast<ref_fallback>();
        if(f == nullptr or not f->host_value or not f->has_output or f->host_only or read_on_device(it))
            continue;
        auto g      = *f;
        g.host_only = true;
        m.replace_instruction(it, operation{g}, it->inputs());
    }
}

/// offload_copy=false: outputs go into parameters named as the outputs.
void write_outputs_to_params(module& m, bool host_values)
{
    auto ret = m.get_return();
    if(ret == m.end())
        return;
    auto names = output_names(m);
    auto outs  = ret->inputs();
    std::vector<instruction_ref> results;
    for(std::size_t i = 0; i < outs.size(); i++)
    {
        auto r = outs[i];
        if(m.get_parameter(names[i]) != m.end())
            MIGRAPHX_THROW("gpu: output '" + names[i] + "' has the name of an input; rename one of them");
        auto p    = m.insert_parameter(m.begin(), names[i], r->get_shape());
        auto root = get_alias_root(r);
        if(not host_values and root->name() == "hip::hip_allocate_memory" and root->get_shape() == r->get_shape())
        {
            m.replace_instruction(root, p);
            results.push_back(r);
            continue;
        }
        if(host_values)
            results.push_back(m.insert_instruction(ret, operation{hip_copy_to_gpu{}}, {r, p}));
        else
            results.push_back(m.insert_instruction(ret, operation{hip_copy{}}, {r, p}));
    }
    m.replace_return(results);
    if(auto* prog = current_program(); prog != nullptr and prog->get_main_module() == &m)
        prog->get_impl().output_param_names = names;
}

} // namespace

std::vector<pass> passes_before_device(bool offload_copy, bool fast_math, int sm)
{
    // first: quantize_fp8's and quantize_int8's patterns as they made them
    std::vector<pass> passes{fuse_fp8{sm}, fuse_int8{}};
    // What cuDNN's recurrent kernels take stays one op (lowered to gpu::rnn); the rest unrolled,
    // then simplified and fused.
    passes.push_back(rewrite_rnn{[](instruction_ref ins) { return cudnn_rnn_for(ins).has_value(); }});
    auto simplify = simplify_passes();
    passes.insert(passes.end(), simplify.begin(), simplify.end());
    passes.insert(passes.end(),
                  {fuse_layernorm{}, merge_parallel_dots{}, dead_code_elimination{}, fuse_pointwise{},
                   fuse_depthwise{}, layout_nhwc{}, dead_code_elimination{}, lowering{offload_copy, fast_math, sm}, dead_code_elimination{},
                   host_only_values{}, early_nonzero{}});
    return passes;
}

void lowering::apply(module& m) const
{
    // Only main runs on the device: pointwise bodies are compiled whole by the instruction that
    // owns them, and control-flow bodies run on the host (see runs_on_host).
    if(m.name() != "main")
        return;
    // A module without @return gives its last instruction (module.hpp): returned explicitly, so
    // that offload_copy copies it to the host and offload_copy=false writes it to the caller's
    // buffer. Without it a program built without add_return handed the caller device memory.
    if(m.begin() != m.end() and m.get_return() == m.end())
        m.add_return({std::prev(m.end())});
    if(runs_on_host(m))
    {
        if(offload_copy)
            return;
        for(auto it = m.begin(); it != m.end(); ++it)
        {
            if(it->name() != "@param")
                continue;
            auto h = m.insert_instruction(std::next(it), operation{hip_to_host{}}, {it});
            m.replace_instruction(it, h);
        }
        write_outputs_to_params(m, true);
        return;
    }

    lowerer l{m};
    l.fast_math = fast_math;
    l.data_dependent = pass_utils::data_dependent(m);
    lower_attention(m, [&](instruction_ref x) { return l.data_dependent.count(&*x) > 0; }, sm);
    std::vector<instruction_ref> todo;
    std::size_t lit = 0;
    for(auto it = m.begin(); it != m.end(); ++it)
    {
        todo.push_back(it);
        if(auto r = cudnn_rnn_for(it))
            l.rnns.emplace(&*it, *r);
    }
    find_rnn_stacks(l, todo);
    for(auto ins : todo)
    {
        if(ins->name() == "@literal")
        {
            hip_copy_literal c;
            c.id     = "main:@literal:" + std::to_string(lit++);
            c.value_ = ins->get_literal();
            auto d   = m.insert_instruction(std::next(ins), operation{c}, {});
            m.replace_instruction(ins, d);
        }
        else if(ins->name() == "@param" and offload_copy)
        {
            auto a = l.alloc(std::next(ins), ins->get_shape());
            auto c = m.insert_instruction(std::next(a), operation{hip_copy_to_gpu{}}, {ins, a});
            m.replace_instruction(ins, c);
        }
    }
    for(auto ins : todo)
        if(m.has_instruction(ins) and ins->name().front() != '@')
            l.lower(ins);

    if(offload_copy)
    {
        auto ret = m.get_return();
        if(ret == m.end())
            return;
        std::vector<instruction_ref> copies;
        std::size_t k = 0;
        for(auto r : ret->inputs())
        {
            // A constant output needs no trip through the device: the host literal is the result.
            if(const auto* lc = r->get_operator().any_cast<hip_copy_literal>())
            {
                copies.push_back(m.add_literal(lc->value_));
                continue;
            }
            hip_copy_from_gpu c;
            c.s  = r->get_shape();
            c.id = "hip::copy_from_gpu" + std::to_string(k++);
            copies.push_back(m.insert_instruction(ret, operation{c}, {r}));
        }
        if(not copies.empty())
        {
            auto sync = m.insert_instruction(ret, operation{hip_sync_stream{}}, copies);
            copies[0] = sync;
        }
        m.replace_return(copies);
    }
    else
        write_outputs_to_params(m, false);
}

void host_only_values::apply(module& m) const
{
    if(m.name() == "main")
        mark_host_only_values(m);
}

} // namespace gpu
} // namespace migraphx
