#include "targets/cpu/gemm_op.hpp"
#include "targets/cpu/omp_region.hpp"
#include "targets/cpu/dnnl_context.hpp"
#include "targets/cpu/gemm_kernel.hpp"
#include <migraphx/errors.hpp>
#include <migraphx/register_op.hpp>
#include <algorithm>
#include <atomic>
#include <optional>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <new>
#include <omp.h>

namespace migraphx {
namespace cpu {

namespace {

constexpr std::size_t alignment = 64;

std::shared_ptr<float> aligned_floats(std::size_t n)
{
    auto* p = static_cast<float*>(::operator new(std::max<std::size_t>(n, 1) * sizeof(float), std::align_val_t{alignment}));
    return {p, [](float* q) { ::operator delete(q, std::align_val_t{alignment}); }};
}

bool is_aligned(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % alignment == 0; }

std::size_t product(const std::vector<std::size_t>& v, std::size_t n)
{
    std::size_t r = 1;
    for(std::size_t i = 0; i < n; i++)
        r *= v[i];
    return r;
}

/// The batch dims of b as they are packed: 1 where b broadcasts (length 1 or stride 0).
std::vector<std::size_t> packed_batch_lens(const shape& b)
{
    auto lens = b.lens();
    for(std::size_t i = 0; i + 2 < lens.size(); i++)
        if(b.strides()[i] == 0)
            lens[i] = 1;
    return lens;
}

/// Scratch memory of the calling thread, reused from run to run (aligned, grows as needed).
float* scratch(int which, std::size_t n)
{
    thread_local std::shared_ptr<float> buf[2];
    thread_local std::size_t size[2] = {0, 0};
    if(size[which] < n)
    {
        buf[which]  = aligned_floats(n);
        size[which] = n;
    }
    return buf[which].get();
}

/// Units of work shared by threads: each thread owns a contiguous range and takes units from its
/// front; one that runs out takes units from the back of another's range, so that a thread the
/// OS holds up (a busy machine) does not hold the others up.
class work_queue
{
    public:
    work_queue(std::size_t units, std::size_t threads) : ranges(new range[threads]), count(threads)
    {
        for(std::size_t t = 0; t < threads; t++)
            ranges[t].front_back.store(pack(units * t / threads, units * (t + 1) / threads));
    }
    /// The next unit for thread t, or nothing when all are taken.
    std::optional<std::size_t> next(std::size_t t)
    {
        if(auto u = take(ranges[t].front_back, true))
            return u;
        for(std::size_t v = 1; v < count; v++)
            if(auto u = take(ranges[(t + v) % count].front_back, false))
                return u;
        return std::nullopt;
    }

    private:
    struct alignas(64) range
    {
        std::atomic<std::uint64_t> front_back{0};
    };
    static std::uint64_t pack(std::uint64_t front, std::uint64_t back) { return front << 32 | back; }
    static std::optional<std::size_t> take(std::atomic<std::uint64_t>& r, bool from_front)
    {
        std::uint64_t cur = r.load(std::memory_order_relaxed);
        while(true)
        {
            std::uint64_t front = cur >> 32, back = cur & 0xffffffffu;
            if(front >= back)
                return std::nullopt;
            std::uint64_t want = from_front ? pack(front + 1, back) : pack(front, back - 1);
            if(r.compare_exchange_weak(cur, want, std::memory_order_acq_rel, std::memory_order_relaxed))
                return from_front ? front : back - 1;
        }
    }
    std::unique_ptr<range[]> ranges;
    std::size_t count;
};

} // namespace

bool gemm_op::supported() const
{
    for(std::size_t i = 0; i < post_ops.size(); i++)
    {
        float a = i < post_alpha.size() ? post_alpha[i] : 0.0f;
        float b = i < post_beta.size() ? post_beta[i] : 0.0f;
        if(not gemm_step_of(post_ops[i], a, b))
            return false;
    }
    return true;
}

shape gemm_op::compute_shape(const std::vector<shape>& inputs) const
{
    std::size_t need = 2 + (bias ? 1 : 0) + (sum ? 1 : 0);
    if(inputs.size() != need)
        MIGRAPHX_THROW("cpu::gemm: expected " + std::to_string(need) + " inputs, got " + std::to_string(inputs.size()));
    for(const auto& s : inputs)
        if(s.type() != shape::float_type or s.dynamic())
            MIGRAPHX_THROW("cpu::gemm: inputs must be float tensors");
    const auto& a = inputs[0].lens();
    auto b        = packed_weights ? weight_lens : inputs[1].lens();
    if(a.size() < 2 or a.size() != b.size() or a.back() != b[b.size() - 2])
        MIGRAPHX_THROW("cpu::gemm: inner dimensions do not match");
    auto out   = a;
    out.back() = b.back();
    for(std::size_t i = 0; i + 2 < a.size(); i++)
    {
        if(a[i] != b[i] and a[i] != 1 and b[i] != 1)
            MIGRAPHX_THROW("cpu::gemm: batch dimensions do not match");
        out[i] = std::max(a[i], b[i]);
    }
    if(packed_weights and
       inputs[1].elements() != product(b, b.size() - 2) * gemm_packed_size(b[b.size() - 2], b.back()))
        MIGRAPHX_THROW("cpu::gemm: the packed weights do not have the size their shape needs");
    shape r{shape::float_type, out};
    if(bias and (inputs[2].elements() != out.back() or not inputs[2].standard()))
        MIGRAPHX_THROW("cpu::gemm: the bias must have one value per column, contiguous");
    if(sum and not(inputs.back().lens() == out and inputs.back().standard()))
        MIGRAPHX_THROW("cpu::gemm: the summed input must be standard with the result's shape");
    if(not supported())
        MIGRAPHX_THROW("cpu::gemm: unsupported post-op");
    if(out_strides.empty())
        return r;
    // a permuted standard layout: every element has its own place, columns contiguous
    if(out_strides.size() != out.size() or out_strides.back() != 1)
        MIGRAPHX_THROW("cpu::gemm: out_strides must permute a standard layout with contiguous columns");
    shape p{shape::float_type, out, out_strides};
    std::vector<std::size_t> order(out.size());
    for(std::size_t i = 0; i < order.size(); i++)
        order[i] = i;
    std::sort(order.begin(), order.end(), [&](auto x, auto y) { return out_strides[x] > out_strides[y]; });
    std::size_t expect = 1;
    for(std::size_t i = order.size(); i-- > 0;)
    {
        if(out[order[i]] != 1 and out_strides[order[i]] != expect)
            MIGRAPHX_THROW("cpu::gemm: out_strides must permute a standard layout with contiguous columns");
        expect *= out[order[i]];
    }
    return p;
}

argument gemm_op::pack(const argument& w, std::vector<std::size_t>& lens)
{
    const auto& s = w.get_shape();
    auto r        = s.lens().size();
    if(r < 2 or s.type() != shape::float_type)
        MIGRAPHX_THROW("cpu::gemm: can only pack float matrices");
    lens          = packed_batch_lens(s);
    std::size_t k = lens[r - 2], n = lens[r - 1];
    std::size_t batches = product(lens, r - 2);
    std::size_t each    = gemm_packed_size(k, n);
    argument packed{shape{shape::float_type, {batches * each}}};
    const auto* src = reinterpret_cast<const float*>(w.data());
    auto* dst       = reinterpret_cast<float*>(packed.data());
    for(std::size_t t = 0; t < batches; t++)
    {
        std::size_t off = 0, rem = t;
        for(std::size_t i = r - 2; i-- > 0;)
        {
            off += (rem % lens[i]) * s.strides()[i];
            rem /= lens[i];
        }
        gemm_pack_b(src + off,
                    static_cast<std::ptrdiff_t>(s.strides()[r - 2]),
                    static_cast<std::ptrdiff_t>(s.strides()[r - 1]),
                    k,
                    n,
                    dst + t * each,
                    0,
                    (n + gemm_panel - 1) / gemm_panel);
    }
    return packed;
}

argument gemm_op::compute(context& ctx, const shape& out, const std::vector<argument>& args) const
{
    const int threads  = get_dnnl_context(ctx).threads;
    const auto isa     = gemm_best_isa();
    const auto& as     = args[0].get_shape();
    const auto r       = out.lens().size();
    const std::size_t m = out.lens()[r - 2], n = out.lens()[r - 1], k = as.lens()[r - 1];
    const std::size_t np      = (n + gemm_panel - 1) / gemm_panel;
    const std::size_t batches = product(out.lens(), r - 2);
    const std::size_t each    = gemm_packed_size(k, n);

    std::vector<gemm_step> steps;
    for(std::size_t i = 0; i < post_ops.size(); i++)
        steps.push_back(*gemm_step_of(
            post_ops[i], i < post_alpha.size() ? post_alpha[i] : 0.0f, i < post_beta.size() ? post_beta[i] : 0.0f));

    // result: 64-byte aligned rows where n allows; its batches and rows where out_strides says
    std::vector<std::ptrdiff_t> coff(batches);
    const auto ldc  = static_cast<std::ptrdiff_t>(out.strides()[r - 2]);
    argument result = uninitialized(out);
    auto* c = reinterpret_cast<float*>(result.data());
    if(out.elements() == 0)
        return result;

    // b: the packed weights (64-byte aligned), or packed here from the input
    const shape& bs = args[1].get_shape();
    std::vector<std::size_t> blens = packed_weights ? weight_lens : packed_batch_lens(bs);
    std::vector<std::size_t> bstrides(r, 0); // per batch dim, in packed batches
    for(std::size_t i = r - 2, st = 1; i-- > 0;)
    {
        bstrides[i] = st;
        st *= blens[i];
    }
    const std::size_t bbatches = product(blens, r - 2);
    const float* bp            = nullptr;
    std::shared_ptr<float> keep; // holds an aligned copy alive while it is used
    if(packed_weights)
    {
        bp = reinterpret_cast<const float*>(args[1].data());
        if(not is_aligned(bp) and aligned != nullptr)
        {
            std::lock_guard<std::mutex> guard(aligned->lock);
            if(aligned->source != bp)
            {
                aligned->data = aligned_floats(bbatches * each);
                std::memcpy(aligned->data.get(), bp, bbatches * each * sizeof(float));
                aligned->source = bp;
            }
            keep = aligned->data;
            bp   = keep.get();
        }
    }
    const bool pack_b = not packed_weights;
    float* bbuf       = pack_b ? scratch(0, bbatches * each) : nullptr;
    if(pack_b)
        bp = bbuf;

    // a: read in place when its rows are contiguous, else copied
    const bool copy_a = k > 1 and as.strides()[r - 1] != 1;
    float* abuf       = copy_a ? scratch(1, batches * m * k) : nullptr;
    std::vector<std::ptrdiff_t> aoff(batches), boff(batches);
    for(std::size_t t = 0; t < batches; t++)
    {
        std::size_t rem = t;
        std::ptrdiff_t ao = 0, bo = 0, co = 0;
        for(std::size_t i = r - 2; i-- > 0;)
        {
            std::size_t idx = rem % out.lens()[i];
            rem /= out.lens()[i];
            co += static_cast<std::ptrdiff_t>(idx * out.strides()[i]);
            if(as.lens()[i] != 1)
                ao += static_cast<std::ptrdiff_t>(idx * as.strides()[i]);
            if(blens[i] != 1)
                bo += static_cast<std::ptrdiff_t>(idx * bstrides[i]);
        }
        aoff[t] = ao;
        boff[t] = bo;
        coff[t] = co;
    }
    const auto* a0  = reinterpret_cast<const float*>(args[0].data());
    const auto* b0  = reinterpret_cast<const float*>(args[1].data());
    const auto lda  = copy_a ? static_cast<std::ptrdiff_t>(k) : static_cast<std::ptrdiff_t>(as.strides()[r - 2]);
    const float* bias_data = bias ? reinterpret_cast<const float*>(args[2].data()) : nullptr;
    const float* sum_data  = sum ? reinterpret_cast<const float*>(args.back().data()) : nullptr;

    // Work items: (batch, row chunk, column panel), in that order; each thread starts on a
    // contiguous range of them. Rows are split only where the panels alone are too few to share.
    std::size_t mchunks = 1;
    while(batches * np * mchunks < 4 * static_cast<std::size_t>(threads) and
          m > 2 * mchunks * gemm_tile_rows)
        mchunks *= 2;
    std::size_t mstep = (m + mchunks - 1) / mchunks;
    mstep             = (mstep + gemm_tile_rows - 1) / gemm_tile_rows * gemm_tile_rows;
    mchunks           = (m + mstep - 1) / mstep;
    const std::size_t items = batches * mchunks * np;
    int nt                  = static_cast<int>(std::min<std::size_t>(threads, items));
    if(m * n * std::max<std::size_t>(k, 1) < 32768) // not worth waking threads
        nt = 1;
    // units of `grain` items, about four per thread
    const std::size_t grain = std::max<std::size_t>(1, items / (4 * static_cast<std::size_t>(nt)));
    work_queue queue((items + grain - 1) / grain, static_cast<std::size_t>(nt));

    omp_region(nt > 1, nt, [&] {
        if(pack_b)
        {
            const std::size_t br = bs.strides()[r - 2], bc = bs.strides()[r - 1];
#pragma omp for schedule(static)
            for(std::size_t it = 0; it < bbatches * np; it++)
            {
                std::size_t t = it / np, p = it % np, off = 0, rem = t;
                for(std::size_t i = r - 2; i-- > 0;)
                {
                    off += (rem % blens[i]) * (blens[i] == 1 ? 0 : bs.strides()[i]);
                    rem /= blens[i];
                }
                gemm_pack_b(b0 + off, br, bc, k, n, bbuf + t * each, p, p + 1);
            }
        }
        if(copy_a)
        {
            const std::size_t ar = as.strides()[r - 2], ac = as.strides()[r - 1];
#pragma omp for schedule(static)
            for(std::size_t row = 0; row < batches * m; row++)
            {
                const float* src = a0 + aoff[row / m] + (row % m) * ar;
                float* dst       = abuf + row * k;
                for(std::size_t j = 0; j < k; j++)
                    dst[j] = src[j * ac];
            }
        }
        std::size_t tid = omp_get_thread_num();
        while(auto unit = queue.next(tid))
        {
            std::size_t last = std::min(items, (*unit + 1) * grain);
            for(std::size_t it = *unit * grain; it < last;)
            {
                std::size_t t = it / (mchunks * np), rest = it % (mchunks * np);
                std::size_t mc = rest / np, p = rest % np;
                std::size_t pend = std::min(np, p + (last - it));
                gemm_args g;
                g.m      = m;
                g.n      = n;
                g.k      = k;
                g.a      = copy_a ? abuf + t * m * k : a0 + aoff[t];
                g.lda    = lda;
                g.b      = bp + boff[t] * each;
                g.c      = c + coff[t];
                g.ldc    = ldc;
                g.bias   = bias_data;
                g.sum    = sum_data == nullptr ? nullptr : sum_data + t * m * n;
                g.ldsum  = static_cast<std::ptrdiff_t>(n);
                g.steps  = steps.data();
                g.nsteps = steps.size();
                // the weights of the panel after the unit too: usually this thread's next unit
                gemm_block(g, mc * mstep, std::min(m, (mc + 1) * mstep), p, pend, isa, 0, true);
                it += pend - p;
            }
        }
    });
    return result;
}

MIGRAPHX_REGISTER_OP(gemm_op)

shape strided_view::compute_shape(const std::vector<shape>& inputs) const
{
    if(inputs.size() != 1 or inputs[0].dynamic() or lens.size() != strides.size() or lens.empty())
        MIGRAPHX_THROW("cpu::strided_view: one static input and as many strides as lens");
    shape s{inputs[0].type(), lens, strides};
    if(s.element_space() > inputs[0].element_space())
        MIGRAPHX_THROW("cpu::strided_view: the view reaches past its input's memory");
    return s;
}

argument strided_view::compute(const shape& out, const std::vector<argument>& args) const
{
    return args[0].reshape(out);
}

MIGRAPHX_REGISTER_OP(strided_view)

} // namespace cpu
} // namespace migraphx
