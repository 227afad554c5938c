#ifndef MIGRAPHX_CPU_DNNL_CONTEXT_HPP
#define MIGRAPHX_CPU_DNNL_CONTEXT_HPP

// The cpu target's execution state and the shape <-> oneDNN translation its ops share.

#include <migraphx/argument.hpp>
#include <migraphx/context.hpp>
#include <migraphx/errors.hpp>
#include <algorithm>
#include <migraphx/shape.hpp>
#include <dnnl.hpp>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace migraphx {
namespace cpu {

/// The calling thread's stream on an engine: a oneDNN stream is not to be used by two threads at
/// once, and a compiled program may be run from several (each gets its own stream, made on first
/// use and kept for the thread's life).
struct thread_stream
{
    std::shared_ptr<dnnl::engine> engine;
    dnnl::stream& operator*() const;
    dnnl::stream* operator->() const { return &**this; }
};

struct dnnl_context
{
    std::shared_ptr<dnnl::engine> engine;
    thread_stream stream;
    int threads = 1;
    dnnl_context();
    void finish() const { stream->wait(); }
};

/// The cpu context inside a migraphx::context, or a process-wide one where the caller has none
/// (an op run outside a compiled program, e.g. in a unit test).
dnnl_context& get_dnnl_context(context& ctx);

/// Threads the cpu target runs on: MIGRAPHX_CPU_THREADS, else OMP_NUM_THREADS, else all cores.
int cpu_thread_count();

bool dnnl_supports(shape::type_t t);
dnnl::memory::data_type to_dnnl_type(shape::type_t t);
dnnl::memory::dims to_dnnl_dims(const std::vector<std::size_t>& v);

/// A tensor's layout as the cpu ops see it. "plain": the shape's own lens and strides (any
/// strides). "blocked8" / "blocked16": oneDNN's nChw8c / nChw16c; the IR shape is the physical
/// {N, C/b, spatial..., b}, whose logical dims are {N, C, spatial...}. "nhwc": channels last; the
/// IR shape is the physical {N, spatial..., C}.
/// Runs op.finalize on args' shapes if it has not run (an op evaluated outside a compiled program,
/// e.g. in a unit test, is finalized lazily on its first run; the result is the same).
template <class Op>
void finalize_once(const Op& op, context& ctx, const shape& out, const std::vector<argument>& args)
{
    if(op.cache)
        return;
    std::vector<shape> shapes;
    for(const auto& a : args)
        shapes.push_back(a.get_shape());
    const_cast<Op&>(op).finalize(ctx, out, shapes); // NOLINT: lazy, same result
}

/// Primitives for input shapes other than those an op was finalized for. An op computed from a
/// data-dependent result (cpu::lower_actual_sizes) gets the actual sizes, which change from run
/// to run; the last few are kept (oneDNN's own primitive cache makes an older one cheap again).
/// Shared by the copies of an op, from any thread.
template <class T>
struct shape_keyed_cache
{
    static constexpr std::size_t capacity = 8;

    template <class Make>
    std::shared_ptr<T> get(const std::vector<shape>& key, Make make)
    {
        std::lock_guard<std::mutex> lock(m);
        auto it = std::find_if(items.begin(), items.end(), [&](const auto& kv) { return kv.first == key; });
        if(it != items.end())
            return it->second;
        auto made = make();
        items.emplace_front(key, made);
        if(items.size() > capacity)
            items.pop_back();
        return made;
    }

    private:
    std::mutex m;
    std::deque<std::pair<std::vector<shape>, std::shared_ptr<T>>> items;
};

/// The op's primitive for args: finalize's where args have the shapes it was built for (every run
/// of a static program), else one built for theirs (Op::make_cache) and kept in Op::sized.
template <class Op>
std::shared_ptr<typename Op::prim_cache>
cache_for(const Op& op, context& ctx, const shape& out, const std::vector<argument>& args)
{
    finalize_once(op, ctx, out, args);
    std::vector<shape> shapes;
    for(const auto& a : args)
        shapes.push_back(a.get_shape());
    if(shapes == op.cache->inputs)
        return op.cache;
    return op.sized->get(shapes, [&] { return op.make_cache(ctx, shapes); });
}

/// The channel block of a layout: 0 (plain, nhwc), 8 or 16; another name throws.
std::size_t layout_block(const std::string& layout);
/// The layout this machine's oneDNN convolutions run fastest in: "nhwc" where it runs AVX-512
/// kernels, else "blocked8"; MIGRAPHX_CPU_LAYOUT=nhwc|blocked8|blocked16 (or the older
/// MIGRAPHX_CPU_BLOCK=8|16) overrides it.
std::string preferred_layout();
/// Whether MIGRAPHX_CPU_LAYOUT or MIGRAPHX_CPU_BLOCK chose the layout.
bool layout_forced();
/// MIGRAPHX_CPU_WINOGRAD: "2x3" (unset: oneDNN's F(2x2,3x3) kernels only), "all" (also F(4x4,3x3);
/// "1" says the same) or "off" ("0" too); another value throws.
std::string winograd_mode();
std::vector<std::size_t> logical_lens(const shape& s, const std::string& layout);
shape blocked_shape(shape::type_t t, const std::vector<std::size_t>& logical, std::size_t block);
/// The IR shape of logical dims in a layout (plain: standard).
shape layout_shape(shape::type_t t, const std::vector<std::size_t>& logical, const std::string& layout);
dnnl::memory::desc to_dnnl_md(const shape& s, const std::string& layout);
/// Which weights format a oneDNN kernel reads (dims, type, blocking or Winograd layout), as 16
/// hex digits: recorded when weights are packed at compile time, compared when the op is
/// finalized, so that weights packed for one machine's kernel are never read by another's.
std::string md_signature(const dnnl::memory::desc& md);
/// Throws unless `packed` (an op's weights_format; empty in programs saved before it was
/// recorded) is the format the finalized primitive reads.
void check_packed_format(const std::string& op, const std::string& packed, const dnnl::memory::desc& wants);
/// The oneDNN format tag of a blocked layout (nCw8c, nChw8c, nCdhw8c, and the 16c ones).
dnnl::memory::format_tag blocked_tag(std::size_t rank, std::size_t block);

/// Throws unless every value is positive: strides, dilations and window lengths divide or
/// multiply sizes, and a saved program (.mxr) may carry any value.
inline void check_positive(const std::string& op, const std::string& what, const std::vector<std::size_t>& v)
{
    for(auto x : v)
        if(x == 0)
            MIGRAPHX_THROW(op + ": " + what + " must be positive");
}

/// A result buffer the kernel overwrites entirely: not zeroed first (argument(shape) is), 64-byte
/// aligned (a cache line: oneDNN's and our kernels' vectors); 1 MiB and more from the block cache
/// (src/ir/block_cache.hpp: page-aligned, reused between runs). Tried and dropped: a pool of
/// results' buffers by size, reusing the most recently freed - 5 % slower on MobileNetV2 than
/// glibc's own reuse (which also hands a freed buffer to a result of another size), no gain on
/// ResNet-50 (Zen 4, 2 cores).
argument uninitialized(const shape& s);

dnnl::memory make_memory(const dnnl::memory::desc& md, const dnnl_context& c, const void* data);

/// `attr` with the scratchpad passed at each execution (dnnl::scratchpad_mode::user). Debian's
/// oneDNN (OpenMP runtime, built without ONEDNN_ENABLE_CONCURRENT_EXEC) otherwise gives every
/// execution one library scratchpad, and a compiled program run from several threads at once
/// computed wrong results (cpu_plan_memory's concurrent test: about 1 run in 8).
dnnl::primitive_attr user_scratchpad(dnnl::primitive_attr attr = {});

/// Runs prim (made from pd, whose attributes came from user_scratchpad) on args and the calling
/// thread's scratchpad, and waits for it.
void run_primitive(const dnnl::primitive& prim,
                   const dnnl::primitive_desc_base& pd,
                   const dnnl_context& c,
                   std::unordered_map<int, dnnl::memory> args);

/// A primitive's src in the layout it wants (`want`), for a tensor x: x's own memory where that is
/// x's layout, else a reorder of x into a block that `keep` then owns.
dnnl::memory input_in(const dnnl::memory::desc& want, const argument& x, const dnnl_context& c, argument& keep);
/// A primitive's dst in the layout it wants, for a result buffer r: r's memory where that is r's
/// layout, else a block that `keep` owns; output_done then reorders it into r.
dnnl::memory output_in(const dnnl::memory::desc& want, const argument& r, const dnnl_context& c, argument& keep);
void output_done(const dnnl::memory& dst, const argument& r, const argument& keep, const dnnl_context& c);

/// Weights reordered into a primitive's format (kept with the primitive): constant weights once,
/// keyed by their address (the first run does it, the others wait), other weights every run.
struct reordered_weights
{
    std::mutex m;
    const void* from = nullptr;
    argument packed;
    /// reorder(): the weights at w in the primitive's format.
    template <class F>
    argument get(const void* w, bool constant, F reorder)
    {
        if(not constant)
            return reorder();
        std::lock_guard<std::mutex> lock(m);
        if(from != w)
        {
            packed = reorder();
            from   = w;
        }
        return packed;
    }
};

/// Copies `from` into `to` (another layout) with a oneDNN reorder, and waits for it.
void run_reorder(const dnnl::memory& from, const dnnl::memory& to, const dnnl_context& c);

/// memcpy on the cpu target's threads (a residual copied into the result before oneDNN's sum
/// post-op adds to it: 3.2 MB in each of ResNet-50's first three blocks).
void copy_threaded(void* dst, const void* src, std::size_t bytes);

/// Ops whose output cpu::plan_memory placed in the run's scratch buffer (their `planned` flag)
/// take that buffer as one more, last input: these give the op's own inputs without it, and the
/// argument to write the result into (the planned one, or a new buffer).
template <class T>
std::vector<T> own_inputs(const std::vector<T>& inputs, bool planned)
{
    if(not planned)
        return inputs;
    if(inputs.empty())
        MIGRAPHX_THROW("cpu: a planned op needs its output buffer as its last input");
    return {inputs.begin(), inputs.end() - 1};
}
/// The result shape r of a planned op, checked against its output buffer's.
shape planned_shape(const std::string& op, const shape& r, const std::vector<shape>& inputs, bool planned);
inline argument result_buffer(const shape& out, const std::vector<argument>& args, bool planned)
{
    return planned ? args.back() : uninitialized(out);
}

/// The destination of an op with a residual sum post-op (oneDNN adds the result to what the
/// destination holds): the summand itself where cpu::sum_in_place found nothing else needs it,
/// else a new buffer holding a copy of it.
argument sum_destination(const shape& out, const argument& summand, bool in_place);
/// The same for an op whose args end with the summand, or (planned) with the summand and the
/// planned buffer, which then receives the copy.
argument sum_destination(const shape& out, const std::vector<argument>& args, bool planned, bool in_place);

/// Post-operation list shared by convolution and matmul: eltwise ops by oneDNN algorithm name
/// ("relu", "clip", "logistic", "tanh", "elu", "gelu_erf", ...) with alpha/beta, or "sum".
dnnl::post_ops make_post_ops(const std::vector<std::string>& ops,
                             const std::vector<float>& alpha,
                             const std::vector<float>& beta);

} // namespace cpu
} // namespace migraphx

#endif
