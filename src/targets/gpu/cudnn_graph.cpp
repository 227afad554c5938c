// cuDNN backend graph API for convolutions with pointwise epilogues (cudnn_graph.hpp).
#include "targets/gpu/cudnn_graph.hpp"
#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <sstream>

namespace migraphx {
namespace gpu {
namespace dnn {

backend_error::backend_error(const std::string& what, cudnnStatus_t s)
    : std::runtime_error(what + ": " + cudnnGetErrorString(s)), status(s)
{
}

void check(cudnnStatus_t s, const char* what)
{
    if(s != CUDNN_STATUS_SUCCESS)
        throw backend_error(what, s);
}

descriptor::descriptor(cudnnBackendDescriptorType_t t)
{
    check(cudnnBackendCreateDescriptor(t, &d_), "cudnnBackendCreateDescriptor");
}

descriptor::~descriptor()
{
    if(d_ != nullptr)
        cudnnBackendDestroyDescriptor(d_);
}

descriptor& descriptor::operator=(descriptor&& o) noexcept
{
    if(this != &o)
    {
        if(d_ != nullptr)
            cudnnBackendDestroyDescriptor(d_);
        d_   = o.d_;
        o.d_ = nullptr;
    }
    return *this;
}

void descriptor::set(cudnnBackendAttributeName_t a, cudnnBackendAttributeType_t t, std::int64_t n, const void* v)
{
    check(cudnnBackendSetAttribute(d_, a, t, n, v), "cudnnBackendSetAttribute");
}

void descriptor::set_i64(cudnnBackendAttributeName_t a, const std::vector<std::int64_t>& v)
{
    set(a, CUDNN_TYPE_INT64, static_cast<std::int64_t>(v.size()), v.data());
}

void descriptor::set_desc(cudnnBackendAttributeName_t a, const descriptor& d)
{
    auto p = d.get();
    set(a, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &p);
}

void descriptor::set_descs(cudnnBackendAttributeName_t a, const std::vector<const descriptor*>& ds)
{
    std::vector<cudnnBackendDescriptor_t> p;
    for(const auto* d : ds)
        p.push_back(d->get());
    set(a, CUDNN_TYPE_BACKEND_DESCRIPTOR, static_cast<std::int64_t>(p.size()), p.data());
}

void descriptor::finalize() { check(cudnnBackendFinalize(d_), "cudnnBackendFinalize"); }

// ---- building ----------------------------------------------------------------------------------

namespace {

descriptor make_tensor(const tensor_spec& t)
{
    descriptor d(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    cudnnDataType_t type = t.type == shape::half_type    ? CUDNN_DATA_HALF
                           : t.type == shape::int8_type  ? CUDNN_DATA_INT8
                           : t.type == shape::int32_type ? CUDNN_DATA_INT32
                                                         : CUDNN_DATA_FLOAT;
    d.set(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type);
    d.set_i64(CUDNN_ATTR_TENSOR_DIMENSIONS, t.dims);
    d.set_i64(CUDNN_ATTR_TENSOR_STRIDES, t.strides);
    d.set_i64(CUDNN_ATTR_TENSOR_UNIQUE_ID, t.uid);
    d.set_i64(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, 16);
    bool v = t.is_virtual;
    d.set(CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &v);
    d.finalize();
    return d;
}

} // namespace

std::shared_ptr<op_graph> build_graph(cudnnHandle_t h, const conv_graph_spec& spec)
{
    auto g  = std::make_shared<op_graph>();
    g->spec = spec;
    std::map<std::int64_t, std::size_t> tensor; // uid -> index in parts
    auto add_tensor = [&](const tensor_spec& t) {
        g->parts.push_back(make_tensor(t));
        tensor[t.uid] = g->parts.size() - 1;
    };
    add_tensor(spec.x);
    add_tensor(spec.w);
    add_tensor(spec.y);
    if(spec.has_bias)
        add_tensor(spec.bias);
    if(spec.has_z)
        add_tensor(spec.z);
    if(spec.has_scale)
        add_tensor(spec.scale);
    if(spec.has_zscale)
        add_tensor(spec.zscale);
    for(const auto& v : spec.virtuals)
        add_tensor(v);
    auto part = [&](std::int64_t uid) -> const descriptor& { return g->parts.at(tensor.at(uid)); };

    descriptor conv(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
    auto comp = spec.x.type == shape::int8_type ? CUDNN_DATA_INT32 : CUDNN_DATA_FLOAT;
    auto mode = CUDNN_CROSS_CORRELATION;
    conv.set(CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &comp);
    conv.set(CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode);
    conv.set_i64(CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, static_cast<std::int64_t>(spec.stride.size()));
    conv.set_i64(CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, spec.pre_pad);
    conv.set_i64(CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, spec.post_pad);
    conv.set_i64(CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, spec.stride);
    conv.set_i64(CUDNN_ATTR_CONVOLUTION_DILATIONS, spec.dilation);
    conv.finalize();

    std::vector<descriptor> ops;
    {
        descriptor op(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
        float alpha = 1, beta = 0;
        op.set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, 1, &alpha);
        op.set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, 1, &beta);
        op.set_desc(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, conv);
        op.set_desc(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, part(uid_x));
        op.set_desc(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, part(uid_w));
        op.set_desc(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, part(spec.conv_out.uid));
        op.finalize();
        ops.push_back(std::move(op));
    }
    g->parts.push_back(std::move(conv));
    for(const auto& n : spec.nodes)
    {
        descriptor pw(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
        auto prec = CUDNN_DATA_FLOAT;
        auto mode = n.mode == pointwise::relu  ? CUDNN_POINTWISE_RELU_FWD
                    : n.mode == pointwise::mul ? CUDNN_POINTWISE_MUL
                                               : CUDNN_POINTWISE_ADD;
        pw.set(CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &mode);
        pw.set(CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &prec);
        pw.finalize();
        descriptor op(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
        op.set_desc(CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, pw);
        op.set_desc(CUDNN_ATTR_OPERATION_POINTWISE_XDESC, part(n.a));
        if(n.b >= 0)
            op.set_desc(CUDNN_ATTR_OPERATION_POINTWISE_BDESC, part(n.b));
        op.set_desc(CUDNN_ATTR_OPERATION_POINTWISE_YDESC, part(n.out));
        op.finalize();
        g->parts.push_back(std::move(pw));
        ops.push_back(std::move(op));
    }
    std::vector<const descriptor*> op_ptrs;
    for(const auto& o : ops)
        op_ptrs.push_back(&o);
    g->graph = descriptor(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    g->graph.set_descs(CUDNN_ATTR_OPERATIONGRAPH_OPS, op_ptrs);
    g->graph.set(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &h);
    g->graph.finalize();
    for(auto& o : ops)
        g->parts.push_back(std::move(o));
    return g;
}

namespace {

/// The engine of a finalized configuration: its choice and notes.
void describe_config(const descriptor& cfg, candidate& c)
{
    descriptor engine(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
    auto e        = engine.get();
    std::int64_t n = 0;
    check(cudnnBackendGetAttribute(cfg.get(), CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &e),
          "get CUDNN_ATTR_ENGINECFG_ENGINE");
    check(cudnnBackendGetAttribute(e, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &n, &c.choice.index),
          "get CUDNN_ATTR_ENGINE_GLOBAL_INDEX");
    // Notes are informative: an engine that cannot tell them is taken as having none.
    std::vector<cudnnBackendNumericalNote_t> num(CUDNN_NUMERICAL_NOTE_TYPE_COUNT);
    n = 0;
    // numerical_notes_text names the notes in cuDNN's order
    static_assert(CUDNN_NUMERICAL_NOTE_FFT == 3 and CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_13x13 == 8 and
                  CUDNN_NUMERICAL_NOTE_STRICT_NAN_PROP == 9);
    std::vector<int> seen;
    if(cudnnBackendGetAttribute(e, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE,
                                static_cast<std::int64_t>(num.size()), &n, num.data()) == CUDNN_STATUS_SUCCESS)
        for(std::int64_t i = 0; i < n and i < static_cast<std::int64_t>(num.size()); i++)
        {
            c.tensor_core       = c.tensor_core or num[i] == CUDNN_NUMERICAL_NOTE_TENSOR_CORE;
            c.reduced_precision = c.reduced_precision or num[i] == CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION;
            c.nondeterministic  = c.nondeterministic or num[i] == CUDNN_NUMERICAL_NOTE_NONDETERMINISTIC;
            seen.push_back(static_cast<int>(num[i]));
        }
    c.notes = numerical_notes_text(seen);
    std::vector<cudnnBackendBehaviorNote_t> beh(CUDNN_BEHAVIOR_NOTE_TYPE_COUNT);
    n = 0;
    if(cudnnBackendGetAttribute(e, CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE, CUDNN_TYPE_BEHAVIOR_NOTE,
                                static_cast<std::int64_t>(beh.size()), &n, beh.data()) == CUDNN_STATUS_SUCCESS)
        for(std::int64_t i = 0; i < n and i < static_cast<std::int64_t>(beh.size()); i++)
            c.runtime_compiled = c.runtime_compiled or beh[i] == CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION;
    // Knob choices.
    std::vector<descriptor> knobs;
    std::vector<cudnnBackendDescriptor_t> kp;
    for(int i = 0; i < CUDNN_KNOB_TYPE_COUNTS; i++)
    {
        knobs.emplace_back(CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR);
        kp.push_back(knobs.back().get());
    }
    n = 0;
    check(cudnnBackendGetAttribute(cfg.get(), CUDNN_ATTR_ENGINECFG_KNOB_CHOICES, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                   static_cast<std::int64_t>(kp.size()), &n, kp.data()),
          "get CUDNN_ATTR_ENGINECFG_KNOB_CHOICES");
    c.choice.knobs.clear();
    for(std::int64_t i = 0; i < n and i < static_cast<std::int64_t>(kp.size()); i++)
    {
        cudnnBackendKnobType_t type{};
        std::int64_t value = 0, got = 0;
        check(cudnnBackendGetAttribute(kp[i], CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, CUDNN_TYPE_KNOB_TYPE, 1, &got, &type),
              "get CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE");
        check(cudnnBackendGetAttribute(kp[i], CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, CUDNN_TYPE_INT64, 1, &got, &value),
              "get CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE");
        c.choice.knobs.emplace_back(static_cast<std::int64_t>(type), value);
    }
    std::sort(c.choice.knobs.begin(), c.choice.knobs.end());
}

std::vector<candidate> heuristic_list(cudnnHandle_t h, const op_graph& g, cudnnBackendHeurMode_t mode, int most)
{
    std::vector<candidate> r;
    descriptor heur(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
    heur.set_desc(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, g.graph);
    heur.set(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode);
    heur.finalize();
    std::int64_t count = 0;
    check(cudnnBackendGetAttribute(heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count,
                                   nullptr),
          "count CUDNN_ATTR_ENGINEHEUR_RESULTS");
    if(count <= 0)
        return r;
    std::vector<descriptor> cfgs;
    std::vector<cudnnBackendDescriptor_t> p;
    for(std::int64_t i = 0; i < count; i++)
    {
        cfgs.emplace_back(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
        p.push_back(cfgs.back().get());
    }
    std::int64_t got = 0;
    check(cudnnBackendGetAttribute(heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &got,
                                   p.data()),
          "get CUDNN_ATTR_ENGINEHEUR_RESULTS");
    (void)h;
    for(std::int64_t i = 0; i < got and i < count and static_cast<int>(r.size()) < most; i++)
    {
        candidate c;
        try
        {
            describe_config(cfgs[i], c);
        }
        catch(const backend_error&)
        {
            continue;
        }
        c.config = std::move(cfgs[i]);
        r.push_back(std::move(c));
    }
    return r;
}

} // namespace

std::vector<candidate> heuristic_candidates(cudnnHandle_t h, const op_graph& g, int max_a, int max_fallback)
{
    std::vector<candidate> r;
    try
    {
        r = heuristic_list(h, g, CUDNN_HEUR_MODE_A, max_a);
    }
    catch(const backend_error&)
    {
    }
    std::vector<candidate> fb;
    try
    {
        fb = heuristic_list(h, g, CUDNN_HEUR_MODE_FALLBACK, max_fallback + static_cast<int>(r.size()));
    }
    catch(const backend_error&)
    {
    }
    int added = 0;
    for(auto& c : fb)
    {
        if(added >= max_fallback)
            break;
        bool dup = std::any_of(r.begin(), r.end(), [&](const candidate& o) { return o.choice == c.choice; });
        if(dup)
            continue;
        c.from_fallback = true;
        r.push_back(std::move(c));
        added++;
    }
    return r;
}

namespace {

std::shared_ptr<graph_plan> finish_plan(cudnnHandle_t h, std::shared_ptr<graph_plan> p)
{
    p->plan = descriptor(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
    p->plan.set(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &h);
    p->plan.set_desc(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, p->config);
    p->plan.finalize();
    std::int64_t n = 0;
    check(cudnnBackendGetAttribute(p->plan.get(), CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &n,
                                   &p->workspace),
          "get CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE");
    if(p->workspace < 0)
        throw backend_error("negative workspace size", CUDNN_STATUS_INTERNAL_ERROR);
    return p;
}

} // namespace

std::shared_ptr<graph_plan> make_plan(cudnnHandle_t h, const std::shared_ptr<op_graph>& g, candidate c)
{
    auto p              = std::make_shared<graph_plan>();
    p->graph            = g;
    p->choice           = c.choice;
    p->runtime_compiled = c.runtime_compiled;
    p->config           = std::move(c.config);
    return finish_plan(h, p);
}

std::shared_ptr<graph_plan> make_plan(cudnnHandle_t h, const std::shared_ptr<op_graph>& g, const engine_choice& c)
{
    auto p    = std::make_shared<graph_plan>();
    p->graph  = g;
    p->choice = c;
    descriptor engine(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
    engine.set_desc(CUDNN_ATTR_ENGINE_OPERATION_GRAPH, g->graph);
    engine.set_i64(CUDNN_ATTR_ENGINE_GLOBAL_INDEX, c.index);
    engine.finalize();
    std::vector<descriptor> knobs;
    for(const auto& [type, value] : c.knobs)
    {
        descriptor k(CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR);
        auto t = static_cast<cudnnBackendKnobType_t>(type);
        k.set(CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, CUDNN_TYPE_KNOB_TYPE, 1, &t);
        k.set_i64(CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, value);
        k.finalize();
        knobs.push_back(std::move(k));
    }
    p->config = descriptor(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
    p->config.set_desc(CUDNN_ATTR_ENGINECFG_ENGINE, engine);
    if(not knobs.empty())
    {
        std::vector<const descriptor*> kp;
        for(const auto& k : knobs)
            kp.push_back(&k);
        p->config.set_descs(CUDNN_ATTR_ENGINECFG_KNOB_CHOICES, kp);
    }
    p->config.finalize();
    candidate info;
    try
    {
        describe_config(p->config, info);
        p->runtime_compiled = info.runtime_compiled;
    }
    catch(const backend_error&)
    {
    }
    return finish_plan(h, p);
}

cudnnStatus_t graph_plan::execute(cudnnHandle_t h, const std::vector<void*>& ptrs, void* workspace_ptr) const
{
    auto uids = graph->spec.uids();
    if(ptrs.size() != uids.size())
        return CUDNN_STATUS_BAD_PARAM;
    cudnnBackendDescriptor_t vp = nullptr;
    auto s                      = cudnnBackendCreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &vp);
    if(s != CUDNN_STATUS_SUCCESS)
        return s;
    auto n = static_cast<std::int64_t>(uids.size());
    s      = cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, n, uids.data());
    if(s == CUDNN_STATUS_SUCCESS)
        s = cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, n, ptrs.data());
    if(s == CUDNN_STATUS_SUCCESS)
        s = cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &workspace_ptr);
    if(s == CUDNN_STATUS_SUCCESS)
        s = cudnnBackendFinalize(vp);
    if(s == CUDNN_STATUS_SUCCESS)
        s = cudnnBackendExecute(h, plan.get(), vp);
    cudnnBackendDestroyDescriptor(vp);
    return s;
}

cudnnHandle_t build_handle(int device, std::size_t index)
{
    static std::mutex m;
    static std::map<std::pair<int, std::size_t>, cudnnHandle_t> handles;
    std::lock_guard<std::mutex> lock(m);
    auto it = handles.find({device, index});
    if(it != handles.end())
        return it->second;
    cudnnHandle_t h = nullptr;
    MIGX_CUDA_CHECK(cudnnCreate(&h));
    handles[{device, index}] = h;
    return h;
}

std::optional<double> time_on_stream(cudaStream_t s, const std::function<bool()>& run, int reps)
{
    if(not run())
        return std::nullopt;
    if(cudaStreamSynchronize(s) != cudaSuccess)
    {
        (void)cudaGetLastError();
        return std::nullopt;
    }
    cudaGraph_t graph    = nullptr;
    cudaGraphExec_t exec = nullptr;
    if(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal) != cudaSuccess)
    {
        (void)cudaGetLastError();
        return std::nullopt;
    }
    bool ok = true;
    for(int i = 0; i < reps and ok; i++)
        ok = run();
    auto ended = cudaStreamEndCapture(s, &graph);
    if(not ok or ended != cudaSuccess or graph == nullptr)
    {
        if(graph != nullptr)
            cudaGraphDestroy(graph);
        (void)cudaGetLastError();
        return std::nullopt;
    }
    std::optional<double> result;
    cudaEvent_t a = nullptr, b = nullptr;
    if(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess and cudaEventCreate(&a) == cudaSuccess and
       cudaEventCreate(&b) == cudaSuccess and cudaGraphLaunch(exec, s) == cudaSuccess)
    {
        double best = -1;
        for(int t = 0; t < 3; t++)
        {
            float ms = 0;
            if(cudaEventRecord(a, s) != cudaSuccess or cudaGraphLaunch(exec, s) != cudaSuccess or
               cudaEventRecord(b, s) != cudaSuccess or cudaEventSynchronize(b) != cudaSuccess or
               cudaEventElapsedTime(&ms, a, b) != cudaSuccess)
            {
                best = -1;
                break;
            }
            if(best < 0 or ms < best)
                best = ms;
        }
        if(best >= 0)
            result = best / reps;
    }
    if(cudaStreamSynchronize(s) != cudaSuccess)
        result = std::nullopt;
    if(a != nullptr)
        cudaEventDestroy(a);
    if(b != nullptr)
        cudaEventDestroy(b);
    if(exec != nullptr)
        cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    (void)cudaGetLastError();
    return result;
}

} // namespace dnn
} // namespace gpu
} // namespace migraphx
