#include "targets/cpu/dnnl_context.hpp"
#include "targets/cpu/omp_region.hpp"
#include "ir/block_cache.hpp"
#include "ir/parallel_for.hpp"
#include "ir/env.hpp"
#include <migraphx/errors.hpp>
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <map>
#include <cstdint>
#include <iomanip>
#include <sstream>
#include <unordered_map>
#include <omp.h>
#include <thread>

namespace migraphx {
namespace cpu {

int cpu_thread_count() { return static_cast<int>(host_thread_count()); }

dnnl::stream& thread_stream::operator*() const
{
    // keyed by engine; the entry keeps its engine alive, so a key is never reused for another
    thread_local std::unordered_map<const dnnl::engine*, std::pair<std::shared_ptr<dnnl::engine>, dnnl::stream>>
        streams;
    auto it = streams.find(engine.get());
    if(it == streams.end())
        it = streams.emplace(engine.get(), std::make_pair(engine, dnnl::stream(*engine))).first;
    return it->second.second;
}

namespace {

/// The process's one CPU engine: every context (a compiled program's, its copies', a loaded
/// one's) uses it, as a primitive runs only on memory of the engine it was made for (a copy of a
/// compiled program with an engine of its own failed with "could not execute a primitive").
std::shared_ptr<dnnl::engine> process_engine()
{
    static auto e = std::make_shared<dnnl::engine>(dnnl::engine::kind::cpu, 0);
    return e;
}

} // namespace

dnnl_context::dnnl_context()
    : engine(process_engine()),
      stream{engine},
      threads(cpu_thread_count())
{
    // oneDNN (Debian's build) and our kernels both thread through OpenMP.
    omp_set_num_threads(threads);
}

dnnl_context& get_dnnl_context(context& ctx)
{
    if(auto* c = ctx.get_if<dnnl_context>())
        return *c;
    static dnnl_context fallback;
    return fallback;
}

bool dnnl_supports(shape::type_t t)
{
    return t == shape::float_type or t == shape::half_type or t == shape::int8_type or
           t == shape::uint8_type or t == shape::int32_type;
}

dnnl::memory::data_type to_dnnl_type(shape::type_t t)
{
    using dt = dnnl::memory::data_type;
    switch(t)
    {
    case shape::float_type: return dt::f32;
    case shape::half_type: return dt::f16;
    case shape::int8_type: return dt::s8;
    case shape::uint8_type: return dt::u8;
    case shape::int32_type: return dt::s32;
    default: MIGRAPHX_THROW("cpu: oneDNN has no data type for " + shape::type_name(t));
    }
}

dnnl::memory::dims to_dnnl_dims(const std::vector<std::size_t>& v)
{
    return dnnl::memory::dims(v.begin(), v.end());
}

std::size_t layout_block(const std::string& layout)
{
    if(layout == "plain" or layout == "nhwc")
        return 0;
    if(layout == "blocked8")
        return 8;
    if(layout == "blocked16")
        return 16;
    MIGRAPHX_THROW("cpu: unknown layout '" + layout + "' (plain, nhwc, blocked8 or blocked16)");
}

std::string preferred_layout()
{
    auto forced = env_string("MIGRAPHX_CPU_LAYOUT");
    if(forced == "nhwc" or forced == "blocked8" or forced == "blocked16")
        return forced;
    if(not forced.empty())
        MIGRAPHX_THROW("MIGRAPHX_CPU_LAYOUT must be nhwc, blocked8 or blocked16, got '" + forced + "'");
    auto block = env_string("MIGRAPHX_CPU_BLOCK"); // the older name of the same choice
    if(block == "8" or block == "16")
        return "blocked" + block;
    if(not block.empty())
        MIGRAPHX_THROW("MIGRAPHX_CPU_BLOCK must be 8 or 16, got '" + block + "'");
    // oneDNN's AVX-512 brgemm convolutions read channels-last tensors of any channel count and
    // beat its nChw16c kernels on 3x3 layers; without AVX-512 it has AVX2 kernels for nChw8c
    return dnnl::get_effective_cpu_isa() >= dnnl::cpu_isa::avx512_core ? "nhwc" : "blocked8";
}

bool layout_forced()
{
    return not env_string("MIGRAPHX_CPU_LAYOUT").empty() or not env_string("MIGRAPHX_CPU_BLOCK").empty();
}

std::string winograd_mode()
{
    auto v = env_string("MIGRAPHX_CPU_WINOGRAD");
    if(v.empty() or v == "2x3")
        return "2x3";
    if(v == "all" or v == "1")
        return "all";
    if(v == "off" or v == "0")
        return "off";
    MIGRAPHX_THROW("MIGRAPHX_CPU_WINOGRAD must be 2x3, all or off, got '" + v + "'");
}

std::vector<std::size_t> logical_lens(const shape& s, const std::string& layout)
{
    auto l = s.lens();
    if(layout == "nhwc")
    {
        if(l.size() < 3 or l.size() > 5)
            MIGRAPHX_THROW("cpu: " + std::to_string(l.size()) + "-d shape is not an nhwc layout");
        std::rotate(l.begin() + 1, l.end() - 1, l.end()); // {N, spatial..., C} -> {N, C, spatial...}
        return l;
    }
    auto b = layout_block(layout);
    if(b == 0)
        return l;
    if(l.size() < 4 or l.back() != b)
        MIGRAPHX_THROW("cpu: " + std::to_string(l.size()) + "-d shape is not a " + layout + " layout");
    l[1] *= b;
    l.pop_back();
    return l;
}

shape blocked_shape(shape::type_t t, const std::vector<std::size_t>& logical, std::size_t block)
{
    if(logical.size() < 3 or block == 0 or logical[1] % block != 0)
        MIGRAPHX_THROW("cpu: blocked" + std::to_string(block) + " layout needs channels divisible by " +
                       std::to_string(block));
    auto l = logical;
    l[1] /= block;
    l.push_back(block);
    return {t, l};
}

shape layout_shape(shape::type_t t, const std::vector<std::size_t>& logical, const std::string& layout)
{
    if(layout == "nhwc")
    {
        if(logical.size() < 3 or logical.size() > 5)
            MIGRAPHX_THROW("cpu: no nhwc layout for rank " + std::to_string(logical.size()));
        auto l = logical;
        std::rotate(l.begin() + 1, l.begin() + 2, l.end()); // {N, C, spatial...} -> {N, spatial..., C}
        return {t, l};
    }
    auto b = layout_block(layout);
    return b == 0 ? shape{t, logical} : blocked_shape(t, logical, b);
}

dnnl::memory::format_tag blocked_tag(std::size_t rank, std::size_t block)
{
    using tag = dnnl::memory::format_tag;
    if(block == 8 and rank >= 3 and rank <= 5)
        return rank == 3 ? tag::nCw8c : rank == 4 ? tag::nChw8c : tag::nCdhw8c;
    if(block == 16 and rank >= 3 and rank <= 5)
        return rank == 3 ? tag::nCw16c : rank == 4 ? tag::nChw16c : tag::nCdhw16c;
    MIGRAPHX_THROW("cpu: no blocked" + std::to_string(block) + " layout for rank " + std::to_string(rank));
}

std::string md_signature(const dnnl::memory::desc& md)
{
    const auto& d = md.data;
    std::ostringstream ss;
    auto list = [&](const char* tag, const auto* v, int n) {
        ss << tag;
        for(int i = 0; i < n; i++)
            ss << (i ? "," : "") << v[i];
        ss << ";";
    };
    ss << "kind" << static_cast<int>(d.format_kind) << ";type" << static_cast<int>(d.data_type) << ";";
    list("dims", d.dims, d.ndims);
    list("padded", d.padded_dims, d.ndims);
    if(d.format_kind == dnnl_blocked)
    {
        const auto& b = d.format_desc.blocking;
        list("strides", b.strides, d.ndims);
        list("blocks", b.inner_blks, b.inner_nblks);
        list("idxs", b.inner_idxs, b.inner_nblks);
    }
    else if(d.format_kind == dnnl_format_kind_wino)
    {
        const auto& w = d.format_desc.wino_desc;
        int v[] = {static_cast<int>(w.wino_format), w.r, w.alpha, w.ic, w.oc, w.ic_block, w.oc_block, w.ic2_block,
                   w.oc2_block};
        list("wino", v, 9);
        ss << "size" << w.size << ";";
    }
    ss << "extra" << d.extra.flags << "," << d.extra.compensation_mask << ";";
    // 64-bit FNV-1a of the text: short in printed programs, the same on every machine
    std::uint64_t h = 14695981039346656037ull;
    for(unsigned char c : ss.str())
        h = (h ^ c) * 1099511628211ull;
    std::ostringstream hex;
    hex << std::hex << std::setw(16) << std::setfill('0') << h;
    return hex.str();
}

void check_packed_format(const std::string& op, const std::string& packed, const dnnl::memory::desc& wants)
{
    if(not packed.empty() and md_signature(wants) != packed)
        MIGRAPHX_THROW(op + ": the weights were packed for another oneDNN kernel than this machine runs (compiled on "
                           "a machine with another instruction set?): compile the program here");
}

dnnl::memory::desc to_dnnl_md(const shape& s, const std::string& layout)
{
    auto t = to_dnnl_type(s.type());
    if(layout == "nhwc")
    {
        using tag = dnnl::memory::format_tag;
        auto l    = logical_lens(s, layout);
        return {to_dnnl_dims(l), t, l.size() == 3 ? tag::nwc : l.size() == 4 ? tag::nhwc : tag::ndhwc};
    }
    if(auto b = layout_block(layout); b > 0)
    {
        auto l = logical_lens(s, layout);
        return {to_dnnl_dims(l), t, blocked_tag(l.size(), b)};
    }
    std::vector<std::size_t> lens = s.lens(), strides = s.strides();
    if(lens.empty())
        lens = strides = {1};
    return {to_dnnl_dims(lens), t, to_dnnl_dims(strides)};
}

dnnl::memory make_memory(const dnnl::memory::desc& md, const dnnl_context& c, const void* data)
{
    // oneDNN takes a mutable handle; inputs are only read.
    return {md, *c.engine, const_cast<void*>(data)}; // NOLINT
}

dnnl::primitive_attr user_scratchpad(dnnl::primitive_attr attr)
{
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    return attr;
}

namespace {

/// The calling thread's scratchpad of at least `bytes` (grown as needed; a thread runs one
/// primitive at a time).
void* thread_scratchpad(std::size_t bytes)
{
    thread_local std::shared_ptr<char> buffer;
    thread_local std::size_t capacity = 0;
    if(bytes > capacity)
    {
        buffer   = uninitialized(shape{shape::int8_type, {bytes}}).share_data();
        capacity = bytes;
    }
    return buffer.get();
}

} // namespace

void run_primitive(const dnnl::primitive& prim,
                   const dnnl::primitive_desc_base& pd,
                   const dnnl_context& c,
                   std::unordered_map<int, dnnl::memory> args)
{
    auto sd = pd.scratchpad_desc();
    if(sd.get_size() > 0)
        args[DNNL_ARG_SCRATCHPAD] = make_memory(sd, c, thread_scratchpad(sd.get_size()));
    prim.execute(*c.stream, args);
    c.stream->wait();
}

void run_reorder(const dnnl::memory& from, const dnnl::memory& to, const dnnl_context& c)
{
    dnnl::reorder::primitive_desc pd{from, to, user_scratchpad()};
    run_primitive(dnnl::reorder{pd}, pd, c, {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}});
}

void copy_threaded(void* dst, const void* src, std::size_t bytes)
{
    constexpr std::size_t grain = std::size_t{256} << 10; // below this one thread copies faster
    auto parts = static_cast<std::int64_t>(std::min<std::size_t>(
        std::max<std::size_t>(bytes / grain, 1), static_cast<std::size_t>(cpu_thread_count())));
    auto* d       = static_cast<char*>(dst);
    const auto* s = static_cast<const char*>(src);
    omp_region(parts > 1, static_cast<int>(parts), [&] {
#pragma omp for schedule(static)
    for(std::int64_t i = 0; i < parts; i++)
    {
        // 64-byte aligned cut points, so no two threads write one cache line
        auto at = [&](std::int64_t k) {
            return k == parts ? bytes : bytes * static_cast<std::size_t>(k) / static_cast<std::size_t>(parts) / 64 * 64;
        };
        std::memcpy(d + at(i), s + at(i), at(i + 1) - at(i));
    }
    });
}

argument uninitialized(const shape& s)
{
    // Large blocks (page-aligned) from the block cache: reused between runs by results sized by
    // data, which plan_memory leaves out.
    if(s.bytes() >= block_cache_threshold)
        return {s, allocate_uninitialized(s.bytes())};
    constexpr std::align_val_t line{64};
    auto* p = static_cast<char*>(::operator new(std::max<std::size_t>(s.bytes(), 1), line));
    return {s, std::shared_ptr<char>(p, [](char* q) { ::operator delete(q, line); })};
}

namespace {
argument block_for(const dnnl::memory::desc& md)
{
    return uninitialized(shape{shape::int8_type, {std::max<std::size_t>(md.get_size(), 1)}});
}
} // namespace

dnnl::memory input_in(const dnnl::memory::desc& want, const argument& x, const dnnl_context& c, argument& keep)
{
    auto given = to_dnnl_md(x.get_shape(), "plain");
    if(given == want)
        return make_memory(want, c, x.data());
    keep     = block_for(want);
    auto mem = make_memory(want, c, keep.data());
    run_reorder(make_memory(given, c, x.data()), mem, c);
    return mem;
}

dnnl::memory output_in(const dnnl::memory::desc& want, const argument& r, const dnnl_context& c, argument& keep)
{
    if(to_dnnl_md(r.get_shape(), "plain") == want)
        return make_memory(want, c, r.data());
    keep = block_for(want);
    return make_memory(want, c, keep.data());
}

void output_done(const dnnl::memory& dst, const argument& r, const argument& keep, const dnnl_context& c)
{
    if(not keep.empty())
        run_reorder(dst, make_memory(to_dnnl_md(r.get_shape(), "plain"), c, r.data()), c);
}

argument sum_destination(const shape& out, const argument& summand, bool in_place)
{
    if(in_place)
        return summand;
    argument result = uninitialized(out);
    copy_threaded(result.data(), summand.data(), out.bytes());
    return result;
}

argument sum_destination(const shape& out, const std::vector<argument>& args, bool planned, bool in_place)
{
    if(not planned)
        return sum_destination(out, args.back(), in_place);
    const auto& summand = args.at(args.size() - 2);
    copy_threaded(args.back().data(), summand.data(), out.bytes());
    return args.back();
}

shape planned_shape(const std::string& op, const shape& r, const std::vector<shape>& inputs, bool planned)
{
    if(planned and not(inputs.back() == r))
    {
        std::ostringstream ss;
        ss << op << ": the planned output buffer is " << inputs.back() << ", the result " << r;
        MIGRAPHX_THROW(ss.str());
    }
    return r;
}

dnnl::post_ops make_post_ops(const std::vector<std::string>& ops,
                             const std::vector<float>& alpha,
                             const std::vector<float>& beta)
{
    static const std::map<std::string, dnnl::algorithm> algos = {
        {"relu", dnnl::algorithm::eltwise_relu},
        {"clip", dnnl::algorithm::eltwise_clip},
        {"logistic", dnnl::algorithm::eltwise_logistic},
        {"tanh", dnnl::algorithm::eltwise_tanh},
        {"elu", dnnl::algorithm::eltwise_elu},
        {"gelu_erf", dnnl::algorithm::eltwise_gelu_erf},
        {"abs", dnnl::algorithm::eltwise_abs},
        {"exp", dnnl::algorithm::eltwise_exp},
        {"sqrt", dnnl::algorithm::eltwise_sqrt},
        {"swish", dnnl::algorithm::eltwise_swish},
        {"hardswish", dnnl::algorithm::eltwise_hardswish},
        {"linear", dnnl::algorithm::eltwise_linear},
    };
    dnnl::post_ops po;
    for(std::size_t i = 0; i < ops.size(); i++)
    {
        if(ops[i] == "sum")
        {
            po.append_sum(1.0f);
            continue;
        }
        auto it = algos.find(ops[i]);
        if(it == algos.end())
            MIGRAPHX_THROW("cpu: unknown post-op '" + ops[i] + "'");
        po.append_eltwise(1.0f, it->second, i < alpha.size() ? alpha[i] : 0.0f, i < beta.size() ? beta[i] : 0.0f);
    }
    return po;
}

} // namespace cpu
} // namespace migraphx
