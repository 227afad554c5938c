// gpu::gemm: dot through cuBLASLt. cuBLASLt is column-major, so the row-major product
// C = A B is computed as C^T = B^T A^T: each operand is described as the column-major matrix its
// memory already is, with a transpose where its strides say it is stored transposed; batches of
// one stride (or broadcast, stride 0) go in one strided-batched call, or in one product when
// the weights are shared (one_product). A following bias add (and relu, or GELU under fast_math)
// can run as cuBLASLt's epilogue and a residual add as its C (beta = 1); lowering picks dot +
// pointwise add[+add][+relu], dot + GELU, and 1x1 convolutions seen as products.
// A strided batch takes a bias epilogue too when its bias is a row vector per batch
// (gemm_per_batch_bias: merge_parallel_dots' stacked products), read one batch stride apart.
// int8 x int8 -> int32 (quantize_int8's quant_dot) runs on cuBLASLt's integer tensor-core
// kernels, which read only the "TN" form: cuBLASLt's A (our B) transposed, its B (our A) not,
// every leading dimension a multiple of 4 (lowering lays the operands out so); no epilogue.
// fp8 e4m3 x e4m3 -> half or float (quantize_fp8's products, ops fp8_dot) runs on Hopper's fp8
// kernels: the same "TN" form, leading dimensions multiples of 16, alpha the operands' scales,
// the epilogues and residual as for half.
#include "targets/gpu/context.hpp"
#include "targets/gpu/gemm_search.hpp"
#include "targets/gpu/gpu_ops.hpp"
#include "targets/gpu/lowering.hpp"
#include "ir/env.hpp"
#include <migraphx/register_op.hpp>
#include <cstring>
#include <iostream>
#include <sstream>
#include <optional>

namespace migraphx {
namespace gpu {

namespace {

struct operand
{
    cublasOperation_t op = CUBLAS_OP_N;
    std::int64_t rows = 0, cols = 0, ld = 0; // the stored column-major matrix
    std::int64_t batch_stride = 0;
};

/// The logical row-major r x c matrix with strides (sr, sc), seen as the column-major c x r
/// matrix cuBLASLt multiplies (its transpose).
std::optional<operand> as_transposed(std::size_t r, std::size_t c, std::size_t sr, std::size_t sc)
{
    operand o;
    auto R = static_cast<std::int64_t>(r), C = static_cast<std::int64_t>(c);
    if(sc == 1 or c == 1)
    {
        o.op   = CUBLAS_OP_N;
        o.rows = C;
        o.cols = R;
        o.ld   = r == 1 ? std::max<std::int64_t>(C, 1) : static_cast<std::int64_t>(sr);
        if(o.ld >= std::max<std::int64_t>(C, 1))
            return o;
    }
    if(sr == 1 or r == 1)
    {
        o.op   = CUBLAS_OP_T;
        o.rows = R;
        o.cols = C;
        o.ld   = c == 1 ? std::max<std::int64_t>(R, 1) : static_cast<std::int64_t>(sc);
        if(o.ld >= std::max<std::int64_t>(R, 1))
            return o;
    }
    return std::nullopt;
}

/// One stride for all batch dims (0 when broadcast), if they chain.
std::optional<std::int64_t> batch_stride(const shape& s)
{
    const auto& l  = s.lens();
    const auto& st = s.strides();
    std::vector<std::size_t> dims;
    for(std::size_t d = 0; d + 2 < l.size(); d++)
        if(l[d] != 1)
            dims.push_back(d);
    if(dims.empty())
        return 0;
    bool all_zero = std::all_of(dims.begin(), dims.end(), [&](auto d) { return st[d] == 0; });
    if(all_zero)
        return 0;
    for(std::size_t i = 0; i + 1 < dims.size(); i++)
        if(st[dims[i]] != st[dims[i + 1]] * l[dims[i + 1]])
            return std::nullopt;
    if(st[dims.back()] == 0)
        return std::nullopt;
    return static_cast<std::int64_t>(st[dims.back()]);
}

std::optional<operand> describe(const shape& s)
{
    const auto& l  = s.lens();
    const auto& st = s.strides();
    auto n         = l.size();
    auto o         = as_transposed(l[n - 2], l[n - 1], st[n - 2], st[n - 1]);
    auto b         = batch_stride(s);
    if(not o or not b)
        return std::nullopt;
    o->batch_stride = *b;
    return o;
}

cudaDataType_t cuda_type(shape::type_t t)
{
    if(t == shape::float_type)
        return CUDA_R_32F;
    if(t == shape::half_type)
        return CUDA_R_16F;
    if(t == shape::int8_type)
        return CUDA_R_8I;
    if(t == shape::int32_type)
        return CUDA_R_32I;
    if(t == shape::fp8e4m3fn_type)
        return CUDA_R_8F_E4M3;
    MIGRAPHX_THROW("gpu::gemm: unsupported element type");
}

/// cuBLASLt's int8 and fp8 kernels: an operand of type t as they read it (transposed or not),
/// its leading dimension and batch stride multiples of `multiple` elements (16 bytes for fp8,
/// 4 for int8).
bool tn_operand(const shape& s, shape::type_t t, cublasOperation_t want, std::int64_t multiple)
{
    auto o = describe(s);
    return s.type() == t and o and o->op == want and o->ld % multiple == 0 and o->batch_stride % multiple == 0;
}

} // namespace

struct gemm::plan
{
    cublasLtMatmulDesc_t desc       = nullptr;
    cublasLtMatrixLayout_t la       = nullptr, lb = nullptr, lc = nullptr;
    cublasLtMatrixLayout_t ld       = nullptr;   // D's, where it differs from C's (an fp8 output)
    std::shared_ptr<char> d_scale;                // an fp8 output's scale, one float on the device
    cublasLtMatmulAlgo_t algo{};       // for 16-byte aligned pointers
    cublasLtMatmulAlgo_t algo_small{}; // for any element-aligned pointers
    std::size_t ws = 0, ws_small = 0;
    /// This op's own workspace (own_workspace), where its algorithms need a small one; else the
    /// context's shared one is used.
    std::shared_ptr<char> own_ws;
    ~plan()
    {
        if(la)
            cublasLtMatrixLayoutDestroy(la);
        if(lb)
            cublasLtMatrixLayoutDestroy(lb);
        if(lc)
            cublasLtMatrixLayoutDestroy(lc);
        if(ld)
            cublasLtMatrixLayoutDestroy(ld);
        if(desc)
            cublasLtMatmulDescDestroy(desc);
    }
};

bool gemm::supported_operand(const shape& s)
{
    return s.lens().size() >= 2 and (s.type() == shape::float_type or s.type() == shape::half_type) and
           describe(s).has_value();
}

bool gemm::int8_a_ready(const shape& a) { return tn_operand(a, shape::int8_type, CUBLAS_OP_N, 4); }
bool gemm::int8_b_ready(const shape& b) { return tn_operand(b, shape::int8_type, CUBLAS_OP_T, 4); }
bool gemm::fp8_a_ready(const shape& a) { return tn_operand(a, shape::fp8e4m3fn_type, CUBLAS_OP_N, 16); }
bool gemm::fp8_b_ready(const shape& b) { return tn_operand(b, shape::fp8e4m3fn_type, CUBLAS_OP_T, 16); }

/// An fp8 output's bias is half (cuBLASLt's bias type for an e4m3 D with half C); otherwise the output's type.
static shape::type_t bias_type(shape::type_t out)
{
    return out == shape::fp8e4m3fn_type ? shape::half_type : out;
}

bool gemm::supported_bias(const shape& b, const shape& out)
{
    const auto& l = out.lens();
    if(b.lens() != l or b.type() != bias_type(out.type()) or l.size() < 2 or out.elements() == 0)
        return false;
    for(std::size_t d = 0; d + 1 < l.size(); d++)
        if(b.strides()[d] != 0 and l[d] != 1)
            return false; // broadcast over the rows and batches
    return b.strides().back() == 1 or l.back() == 1;
}

namespace {
/// Our A's batches folded into its rows (see one_product): true when b is broadcast over the
/// batches and a's rows of every batch follow on from each other (row-major rows).
bool folds(const operand& a, const operand& b, std::int64_t rows)
{
    return b.batch_stride == 0 and a.op == CUBLAS_OP_N and a.batch_stride == a.ld * rows;
}
} // namespace

bool gemm::one_product(const shape& a, const shape& b)
{
    auto n = a.lens().size();
    if(n < 2 or b.lens().size() != n)
        return false;
    std::size_t batches = 1;
    for(std::size_t d = 0; d + 2 < n; d++)
        batches *= a.lens()[d];
    if(batches == 1)
        return true;
    auto oa = describe(b), ob = describe(a); // cuBLASLt's operands: ours swapped
    return oa and ob and folds(*ob, *oa, static_cast<std::int64_t>(a.lens()[n - 2]));
}

bool gemm_per_batch_bias(const shape& a, const shape& b, const shape& bias, const shape& out)
{
    const auto& l  = out.lens();
    const auto& st = bias.strides();
    auto n         = l.size();
    if(n < 3 or bias.lens() != l or bias.type() != out.type() or out.elements() == 0 or
       gemm::one_product(a, b) or not describe(a) or not describe(b))
        return false;
    if((l[n - 2] != 1 and st[n - 2] != 0) or (l[n - 1] != 1 and st[n - 1] != 1))
        return false; // a row vector: broadcast over the rows, packed along them
    auto s = batch_stride(bias);
    // cuBLASLt reads the batches' vectors at bias + i * stride: keep each 16-byte aligned.
    return s and *s > 0 and (static_cast<std::size_t>(*s) * out.type_size()) % 16 == 0;
}

namespace {
cublasLtEpilogue_t epilogue_of(const std::string& e)
{
    if(e.empty())
        return CUBLASLT_EPILOGUE_DEFAULT;
    if(e == "bias")
        return CUBLASLT_EPILOGUE_BIAS;
    if(e == "relu_bias")
        return CUBLASLT_EPILOGUE_RELU_BIAS;
    if(e == "gelu")
        return CUBLASLT_EPILOGUE_GELU;
    if(e == "gelu_bias")
        return CUBLASLT_EPILOGUE_GELU_BIAS;
    MIGRAPHX_THROW("gpu::gemm: unknown epilogue '" + e + "'");
}
} // namespace

void gemm::print_attributes(std::ostream& os) const
{
    os << "alpha=" << alpha << ",beta=" << beta;
    if(not epilogue.empty())
        os << ",epilogue=" << epilogue;
    if(residual)
        os << ",residual=1";
    if(d_scale != 1)
        os << ",d_scale=" << d_scale;
}

shape gemm::compute_shape(const std::vector<shape>& inputs) const
{
    bool bias        = has_bias();
    std::size_t want = 3 + (bias ? 1 : 0) + (residual ? 1 : 0);
    epilogue_of(epilogue);
    if(inputs.size() != want)
        MIGRAPHX_THROW(name() + ": expects a, b" + (bias ? ", the bias" : "") +
                       (residual ? ", the residual" : "") + " and the output buffer");
    bool one = one_product(inputs[0], inputs[1]);
    if(bias and one and not supported_bias(inputs[2], inputs.back()))
        MIGRAPHX_THROW(name() + ": the bias must be a row vector broadcast over the rows of one product");
    if(not epilogue.empty() and not one and (not bias or not gemm_per_batch_bias(inputs[0], inputs[1], inputs[2], inputs.back())))
        MIGRAPHX_THROW(name() + ": the bias of a strided batch of products must be a row vector per batch, the "
                                "batches one stride apart");
    if(residual and not one)
        MIGRAPHX_THROW(name() + ": a residual needs one product (batches that fold into the rows)");
    if(residual and (inputs[want - 2].lens() != inputs.back().lens() or not inputs[want - 2].standard() or
                     inputs[want - 2].type() != inputs.back().type()))
        MIGRAPHX_THROW(name() + ": the residual must be a packed tensor of the output's lens and type");
    const auto& a = inputs[0].lens();
    const auto& b = inputs[1].lens();
    if(a.size() < 2 or a.size() != b.size() or a[a.size() - 1] != b[b.size() - 2])
        MIGRAPHX_THROW(name() + ": operands do not multiply");
    bool int8 = inputs[0].type() == shape::int8_type or inputs[1].type() == shape::int8_type;
    if(int8)
    {
        if(not int8_a_ready(inputs[0]) or not int8_b_ready(inputs[1]))
            MIGRAPHX_THROW(name() + ": an int8 product needs a row-major a and a column-major b, leading "
                                    "dimensions and batch strides multiples of 4 (lowering copies them so)");
        if(inputs.back().type() != shape::int32_type or b.back() % 4 != 0 or not epilogue.empty() or residual or
           alpha != 1 or beta != 0)
            MIGRAPHX_THROW(name() + ": an int8 product writes int32 (N a multiple of 4), alpha 1, beta 0, no epilogue");
    }
    else if(inputs[0].type() == shape::fp8e4m3fn_type or inputs[1].type() == shape::fp8e4m3fn_type)
    {
        if(not fp8_a_ready(inputs[0]) or not fp8_b_ready(inputs[1]))
            MIGRAPHX_THROW(name() + ": an fp8 product needs a row-major a and a column-major b, both fp8e4m3fn, "
                                    "leading dimensions and batch strides multiples of 16 (lowering copies them so)");
        auto t = inputs.back().type();
        if((t != shape::half_type and t != shape::float_type and t != shape::fp8e4m3fn_type) or b.back() % 16 != 0)
            MIGRAPHX_THROW(name() + ": an fp8 product writes half, float or fp8e4m3fn, N a multiple of 16");
        if(t == shape::fp8e4m3fn_type and (residual or beta != 0 or not(d_scale > 0)))
            MIGRAPHX_THROW(name() + ": an fp8e4m3fn output takes no residual, beta 0 and a positive d_scale");
    }
    else if(inputs[0].type() != inputs[1].type() or inputs.back().type() != inputs[0].type())
        MIGRAPHX_THROW(name() + ": a, b and the output must have one type (or int8, int8 -> int32; fp8 -> half, "
                                "float, fp8)");
    if(d_scale != 1 and inputs.back().type() != shape::fp8e4m3fn_type)
        MIGRAPHX_THROW(name() + ": d_scale scales an fp8e4m3fn output only");
    auto out   = a;
    out.back() = b.back();
    if(inputs.back().lens() != out or not inputs.back().standard())
        MIGRAPHX_THROW(name() + ": the output buffer has the wrong shape");
    return inputs.back();
}

void gemm::finalize(context& ctx, const shape& out, const std::vector<shape>& inputs)
{
    auto& g = get_gpu_context(ctx);
    g.make_current();
    auto p          = std::make_shared<plan>();
    const auto& al  = inputs[0].lens();
    auto n          = al.size();
    auto M          = static_cast<std::int64_t>(al[n - 2]);
    auto N          = static_cast<std::int64_t>(inputs[1].lens()[n - 1]);
    auto batches    = static_cast<std::int64_t>(out.elements() / std::max<std::size_t>(M * N, 1));
    auto oa         = describe(inputs[1]); // cuBLASLt's A: our B
    auto ob         = describe(inputs[0]); // cuBLASLt's B: our A
    if(not oa or not ob)
        MIGRAPHX_THROW(name() + ": operand layout not supported (lowering should have copied it)");
    // A linear layer over [batch, seq, features] with shared weights: one product of
    // batch * seq rows, not a strided batch of small ones (and epilogues need one product).
    if(batches > 1 and folds(*ob, *oa, M))
    {
        ob->cols *= batches;
        M *= batches;
        batches         = 1;
        ob->batch_stride = 0;
    }
    auto t      = cuda_type(out.type());
    auto t_in   = cuda_type(inputs[0].type());
    bool int8   = inputs[0].type() == shape::int8_type;
    bool fp8    = inputs[0].type() == shape::fp8e4m3fn_type;
    auto in_size = inputs[0].type_size();
    cublasComputeType_t ct =
        int8 ? CUBLAS_COMPUTE_32I
             : (out.type() == shape::float_type and g.float_tf32()) ? CUBLAS_COMPUTE_32F_FAST_TF32
                                                                                      : CUBLAS_COMPUTE_32F;
    MIGX_CUDA_CHECK(cublasLtMatmulDescCreate(&p->desc, ct, int8 ? CUDA_R_32I : CUDA_R_32F));
    MIGX_CUDA_CHECK(cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_TRANSA, &oa->op, sizeof(oa->op)));
    MIGX_CUDA_CHECK(cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_TRANSB, &ob->op, sizeof(ob->op)));
    if(not epilogue.empty())
    {
        // cuBLASLt's D is our output transposed (N x M, column-major): its rows are our columns,
        // so the epilogue's per-row bias is our per-column bias.
        auto e = epilogue_of(epilogue);
        MIGX_CUDA_CHECK(cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &e, sizeof(e)));
    }
    // Hopper's fp8 fast accumulation (the tensor cores' partial sums not periodically promoted
    // to float), as PyTorch's float8 inference runs its forward products: BERT-base b64 fp16+fp8
    // on an H100 (session 50) 2.300 ms against 2.504, cosine to eager fp32 0.997870 against
    // 0.997867 (e4m3's operands cost 2000x more than the accumulation). Off with
    // MIGRAPHX_GPU_FP8_FAST_ACCUM=0 (read where the op is finalized: at compile and at load).
    bool fast_accum = fp8 and not env_disabled("MIGRAPHX_GPU_FP8_FAST_ACCUM");
    if(fast_accum)
    {
        std::int8_t on = 1;
        MIGX_CUDA_CHECK(cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &on, sizeof(on)));
    }
    // An e4m3 output: C (unread, beta 0) and the bias are half, D is scaled by d_scale on the
    // device before its rounding to e4m3.
    bool fp8_out = out.type() == shape::fp8e4m3fn_type;
    auto t_c     = cuda_type(bias_type(out.type()));
    if(fp8_out)
    {
        p->d_scale = device_alloc(sizeof(float));
        MIGX_CUDA_CHECK(cudaMemcpy(p->d_scale.get(), &d_scale, sizeof(float), cudaMemcpyHostToDevice));
        const void* ds = p->d_scale.get();
        MIGX_CUDA_CHECK(cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, &ds, sizeof(ds)));
    }
    if(has_bias())
    {
        cudaDataType_t bt = t_c;
        MIGX_CUDA_CHECK(cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bt, sizeof(bt)));
        if(batches > 1)
        {
            // A strided batch (gemm_per_batch_bias): batch i adds the vector at bias + i * stride.
            auto bs = batch_stride(inputs[2]);
            if(not bs)
                MIGRAPHX_THROW(name() + ": the bias's batches are not one stride apart");
            std::int64_t stride = *bs;
            MIGX_CUDA_CHECK(cublasLtMatmulDescSetAttribute(
                p->desc, CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, &stride, sizeof(stride)));
        }
    }
    auto layout = [&](cublasLtMatrixLayout_t& l, cudaDataType_t type, std::int64_t rows, std::int64_t cols,
                      std::int64_t ld, std::int64_t stride) {
        MIGX_CUDA_CHECK(cublasLtMatrixLayoutCreate(&l, type, rows, cols, ld));
        std::int32_t count = static_cast<std::int32_t>(batches);
        MIGX_CUDA_CHECK(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count)));
        MIGX_CUDA_CHECK(
            cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof(stride)));
    };
    layout(p->la, t_in, oa->rows, oa->cols, oa->ld, oa->batch_stride);
    layout(p->lb, t_in, ob->rows, ob->cols, ob->ld, ob->batch_stride);
    layout(p->lc, t_c, N, M, std::max<std::int64_t>(N, 1), M * N);
    if(fp8_out)
        layout(p->ld, t, N, M, std::max<std::int64_t>(N, 1), M * N);

    // The bytes each operand spans (the search's scratch buffers).
    auto span = [&](const operand& o, std::int64_t count) {
        auto last = (count - 1) * o.batch_stride + o.ld * (o.cols - 1) + o.rows;
        return static_cast<std::size_t>(std::max<std::int64_t>(last, 1)) * in_size;
    };
    gemm_call call;
    call.lt      = g.get().lt;
    call.desc    = p->desc;
    call.a       = p->la;
    call.b       = p->lb;
    call.c       = p->lc;
    call.d       = p->ld;
    call.a_bytes = span(*oa, batches);
    call.b_bytes = span(*ob, batches);
    call.c_bytes = static_cast<std::size_t>(batches * M * N) * shape{bias_type(out.type())}.type_size();
    call.d_bytes = static_cast<std::size_t>(batches * M * N) * out.type_size();
    call.alpha     = alpha;
    call.beta      = residual ? 1.0f : beta;
    call.int_scale = int8;
    std::int64_t bias_stride = 0;
    if(has_bias())
    {
        bias_stride     = batches > 1 ? batch_stride(inputs[2]).value_or(0) : 0;
        call.bias_bytes = static_cast<std::size_t>((batches - 1) * bias_stride + N) * shape{bias_type(out.type())}.type_size();
    }
    if(out.type() == shape::half_type and inputs[0].type() == shape::half_type)
    {
        // What the search's accuracy check computes on the host (gemm_reference.hpp); the
        // reference reads half operands, so fp8 products are not checked (cuBLASLt's choice).
        auto as_operand = [](const operand& o) {
            return dnn::gemm_operand{o.op == CUBLAS_OP_T, o.rows, o.cols, o.ld, o.batch_stride};
        };
        dnn::gemm_problem pr;
        pr.a           = as_operand(*oa);
        pr.b           = as_operand(*ob);
        pr.m           = N;
        pr.n           = M;
        pr.k           = static_cast<std::int64_t>(al[n - 1]);
        pr.batches     = batches;
        pr.alpha       = call.alpha;
        pr.beta        = call.beta;
        pr.bias        = has_bias();
        pr.bias_stride = bias_stride;
        if(epilogue == "relu_bias")
            pr.act = dnn::gemm_problem::activation::relu;
        else if(epilogue == "gelu" or epilogue == "gelu_bias")
            pr.act = dnn::gemm_problem::activation::gelu;
        if(pr.consistent())
            call.problem = pr;
    }
    constexpr std::size_t max_ws = 64u << 20;
    auto first = [&](std::uint32_t align, cublasLtMatmulAlgo_t& a, std::size_t& ws) {
        auto c = gemm_heuristics(call, align, 1, max_ws);
        if(c.empty())
            MIGRAPHX_THROW(name() + ": cuBLASLt has no algorithm for this product");
        a  = c.front().algo;
        ws = c.front().workspaceSize;
    };
    // The aligned algorithm (the one a compiled program runs) by measurement: this process's
    // choice for the problem, else the tuning cache's, else the fastest of the heuristic's first 8.
    auto searched = [&](cublasLtMatmulAlgo_t& a, std::size_t& ws) {
        if(not gemm_search_enabled())
            return first(16, a, ws);
        std::ostringstream key;
        key << "cublasLt algorithm " << device_identity(g.get().device) << " cublasLt " << cublasLtGetVersion()
            << ": " << inputs[0].type_string() << " compute " << static_cast<int>(ct) << ", A op " << oa->op << " "
            << oa->rows << "x" << oa->cols << " ld " << oa->ld << " bs " << oa->batch_stride << ", B op " << ob->op
            << " " << ob->rows << "x" << ob->cols << " ld " << ob->ld << " bs " << ob->batch_stride << ", batches "
            << batches << ", epilogue '" << epilogue << "' bias " << has_bias() << " stride " << bias_stride
            << ", beta " << (call.beta != 0.0f) << (fp8_out ? ", e4m3 out" : "") << (fast_accum ? ", fast accum" : "");
        auto c = searched_algorithm(call, key.str(), g.stream(), max_ws, g.exhaustive_tune);
        a      = c.algo;
        ws     = c.workspace;
    };
    // The algorithms a loaded program was saved with, where cuBLASLt still accepts them for
    // this problem (same library and architecture, as a rule): no heuristic query, the same
    // choice as when it was compiled.
    static_assert(sizeof(cublasLtMatmulAlgo_t) == 8 * sizeof(std::uint64_t), "cublasLtMatmulAlgo_t is 64 bytes");
    auto reuse = [&](std::size_t slot, cublasLtMatmulAlgo_t& a, std::size_t& ws) {
        if(algo.size() != 16)
            return false;
        std::memcpy(&a, algo.data() + 8 * slot, sizeof(a));
        auto w = accepted_workspace(call, a, max_ws);
        if(w)
            ws = *w;
        return w.has_value();
    };
    if(not(reuse(0, p->algo, p->ws) and reuse(1, p->algo_small, p->ws_small)))
    {
        searched(p->algo, p->ws);
        // int8 kernels read 4-byte words at the least, fp8 kernels 16-byte ones (compute refuses
        // pointers that are not)
        first(static_cast<std::uint32_t>(int8 ? 4 : fp8 ? 16 : out.type_size()), p->algo_small, p->ws_small);
    }
    algo.resize(16);
    std::memcpy(algo.data(), &p->algo, sizeof(p->algo));
    std::memcpy(algo.data() + 8, &p->algo_small, sizeof(p->algo_small));
    // A small workspace of its own: cuBLASLt zeroes a counter in it before each call of some
    // kernels, and a replay can then do that at its start rather than between two kernels
    // (graph_memsets.hpp; MIGRAPHX_GPU_GEMM_OWN_WORKSPACE=0: the shared one).
    constexpr std::size_t own_limit = 4u << 20;
    auto need                       = std::max(p->ws, p->ws_small);
    if(need > 0 and need <= own_limit and env_string("MIGRAPHX_GPU_GEMM_OWN_WORKSPACE") != "0")
        p->own_ws = own_workspace(need);
    else
        g.reserve_workspace(need);
    if(env_enabled("MIGRAPHX_TRACE_GRAPH"))
        std::cerr << name() << ": workspace " << need << " bytes" << (p->own_ws ? " (its own)" : "") << "\n";
    cache = p;
}

argument gemm::compute(context& ctx, const shape& out, const std::vector<argument>& args) const
{
    if(not cache)
        MIGRAPHX_THROW(name() + ": run before finalize");
    auto& g        = get_gpu_context(ctx);
    const auto& y  = args.back();
    if(out.elements() == 0)
        return y;
    auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
    bool big     = aligned(args[0].data()) and aligned(args[1].data()) and aligned(y.data());
    if(has_bias())
    {
        // The bias pointer changes from run to run (a parameter, a scratch offset); the
        // descriptor is only read by the call below, on this thread.
        const void* bias = args[2].data();
        MIGX_CUDA_CHECK(
            cublasLtMatmulDescSetAttribute(cache->desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias)));
        big = big and aligned(bias);
    }
    // An e4m3 output's C is half and unread (beta 0): none is passed, as it has no buffer.
    const void* c = cache->ld != nullptr ? nullptr : y.data();
    if(residual)
    {
        c   = args[args.size() - 2].data();
        big = big and aligned(c);
    }
    const auto& algo = big ? cache->algo : cache->algo_small;
    bool int8        = args[0].get_shape().type() == shape::int8_type;
    if(args[0].get_shape().type() == shape::fp8e4m3fn_type and not big)
        MIGRAPHX_THROW(name() + ": an fp8 product's operands, bias, residual and output must be 16-byte aligned");
    if(int8 and not big)
    {
        auto word = [](const void* q) { return reinterpret_cast<std::uintptr_t>(q) % 4 == 0; };
        if(not(word(args[0].data()) and word(args[1].data()) and word(y.data())))
            MIGRAPHX_THROW(name() + ": an int8 product's operands and output must be 4-byte aligned");
    }
    float a = alpha, b = residual ? 1.0f : beta;
    MIGX_CUDA_CHECK(cublasLtMatmul(g.get().lt,
                                   cache->desc,
                                   int8 ? static_cast<const void*>(&gemm_call::int_alpha) : &a,
                                   args[1].data(),
                                   cache->la,
                                   args[0].data(),
                                   cache->lb,
                                   int8 ? static_cast<const void*>(&gemm_call::int_beta) : &b,
                                   c,
                                   cache->lc,
                                   y.data(),
                                   cache->ld != nullptr ? cache->ld : cache->lc,
                                   &algo,
                                   cache->own_ws ? cache->own_ws.get() : g.workspace(),
                                   cache->own_ws ? std::max(cache->ws, cache->ws_small) : g.workspace_size(),
                                   g.stream()));
    return y;
}
MIGRAPHX_REGISTER_OP(gemm)

} // namespace gpu
} // namespace migraphx
