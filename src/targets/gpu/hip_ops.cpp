// Memory, copy and synchronisation ops of the gpu target.
#include "targets/gpu/context.hpp"
#include "targets/gpu/device_literals.hpp"
#include "targets/gpu/device_rows.hpp"
#include "targets/gpu/device_sized.hpp"
#include "targets/gpu/shared_scratch.hpp"
#include "targets/gpu/gpu_ops.hpp"
#include "ir/env.hpp"
#include <migraphx/gpu/hip.hpp>
#include <migraphx/instruction.hpp>
#include <migraphx/module.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/register_op.hpp>
#include "ir/actual_sizes.hpp"
#include "ir/scratch_group.hpp"
#include "ir/shared_literals.hpp"
#include "serialize/op_serializer.hpp"
#include <algorithm>
#include <unordered_map>

namespace migraphx {
namespace gpu {

void check_inputs(const std::string& name, const std::vector<shape>& inputs, std::size_t n)
{
    if(inputs.size() != n)
        MIGRAPHX_THROW(name + ": expects " + std::to_string(n) + " inputs, got " + std::to_string(inputs.size()));
}

argument copy_to_host(context& ctx, const argument& a)
{
    if(a.get_shape().type() == shape::tuple_type)
    {
        std::vector<argument> subs;
        for(const auto& x : a.get_sub_objects())
            subs.push_back(copy_to_host(ctx, x));
        return argument{subs};
    }
    auto& g = get_gpu_context(ctx);
    g.make_current();
    const auto& s = a.get_shape();
    std::shared_ptr<char> mem(new char[std::max<std::size_t>(s.bytes(), 1)], std::default_delete<char[]>());
    if(s.bytes() > 0)
    {
        MIGX_CUDA_CHECK(cudaMemcpyAsync(mem.get(), a.data(), s.bytes(), cudaMemcpyDefault, g.stream()));
        MIGX_CUDA_CHECK(cudaStreamSynchronize(g.stream()));
    }
    return {s, mem};
}

argument copy_to_device(context& ctx, const argument& a)
{
    if(a.get_shape().type() == shape::tuple_type)
    {
        std::vector<argument> subs;
        for(const auto& x : a.get_sub_objects())
            subs.push_back(copy_to_device(ctx, x));
        return argument{subs};
    }
    auto& g  = get_gpu_context(ctx);
    g.make_current();
    auto src = a.get_shape().standard() ? a : a.contiguous();
    const auto& s = src.get_shape();
    auto mem = device_alloc(s.bytes());
    if(s.bytes() > 0)
    {
        MIGX_CUDA_CHECK(cudaMemcpyAsync(mem.get(), src.data(), s.bytes(), cudaMemcpyHostToDevice, g.stream()));
        MIGX_CUDA_CHECK(cudaStreamSynchronize(g.stream())); // src may be freed on return
    }
    return {s, mem};
}

// ---- hip::hip_allocate_memory ---------------------------------------------------------------

void hip_allocate::print_attributes(std::ostream& os) const
{
    os << "shape=" << s;
    if(scratch)
        os << ",id=main:scratch";
}

void hip_allocate::finalize(context& ctx, const shape&, const std::vector<shape>&)
{
    if(not scratch)
        return;
    auto& g = get_gpu_context(ctx);
    g.make_current();
    // Programs that never run at the same time (ir/scratch_group.hpp) share one buffer.
    buffer = group_scratch(g, current_scratch_group(), s.bytes());
}

argument hip_allocate::compute(context& ctx, const shape& out, const std::vector<argument>&) const
{
    if(buffer)
        return {out, buffer};
    get_gpu_context(ctx).make_current();
    return {out, device_alloc(out.bytes())};
}
MIGRAPHX_REGISTER_OP(hip_allocate)

// ---- hip::hip_copy_literal ------------------------------------------------------------------

shape hip_copy_literal::compute_shape(const std::vector<shape>& inputs) const
{
    check_inputs(name(), inputs, 0);
    return value_.get_shape();
}

void hip_copy_literal::finalize(context& ctx, const shape&, const std::vector<shape>&)
{
    auto& g = get_gpu_context(ctx);
    g.make_current();
    // Equal weights of programs alive in the process are one host buffer and one device copy.
    // The upload goes on the context's stream: a plain cudaMemcpy from pageable memory goes
    // through the legacy default stream and may return before its DMA lands, and the program's
    // non-blocking stream does not wait for that stream (a literal returned as an output was
    // read back before it arrived: zeros). The copies are waited for once, at the end of finalize
    // (end_finalize), not one by one.
    value_ = share_literal(value_);
    buffer = device_literal(g, value_);
}

argument hip_copy_literal::compute(context& ctx, const shape& out, const std::vector<argument>&) const
{
    if(not buffer)
        MIGRAPHX_THROW(name() + "[id=" + id + "]: run before finalize");
    argument r{out, buffer};
    // a constant size (a shape's arithmetic reads it on the host: host_values.hpp)
    if(small_integers(out) and out.standard())
        get_gpu_context(ctx).known_values().note(r, value_.get_argument());
    return r;
}
MIGRAPHX_REGISTER_OP(hip_copy_literal)

// ---- hip::copy_to_gpu / hip::copy_from_gpu / hip::sync_stream / hip::copy / hip::to_host ----

shape hip_copy_to_gpu::compute_shape(const std::vector<shape>& inputs) const
{
    check_inputs(name(), inputs, 2);
    if(inputs[0].bytes() != inputs[1].bytes() or inputs[0].type() != inputs[1].type())
        MIGRAPHX_THROW(name() + ": source and destination differ in type or size");
    return inputs[1];
}

argument hip_copy_to_gpu::compute(context& ctx, const shape&, const std::vector<argument>& args) const
{
    auto& g     = get_gpu_context(ctx);
    auto nbytes = args[0].get_shape().bytes();
    if(nbytes > 0)
        MIGX_CUDA_CHECK(cudaMemcpyAsync(args[1].data(), args[0].data(), nbytes, cudaMemcpyDefault, g.stream()));
    return args[1];
}
MIGRAPHX_REGISTER_OP(hip_copy_to_gpu)

shape hip_copy_from_gpu::compute_shape(const std::vector<shape>& inputs) const
{
    check_inputs(name(), inputs, 1);
    return inputs[0];
}

argument hip_copy_from_gpu::compute(context& ctx, const shape&, const std::vector<argument>& args) const
{
    // The argument's own shape: an op whose output size depends on the data (nonzero, unique...)
    // gives fewer elements than the instruction's static shape.
    auto& g       = get_gpu_context(ctx);
    const auto& s = args[0].get_shape();
    std::shared_ptr<char> mem(new char[std::max<std::size_t>(s.bytes(), 1)], std::default_delete<char[]>());
    if(s.bytes() > 0)
        MIGX_CUDA_CHECK(cudaMemcpyAsync(mem.get(), args[0].data(), s.bytes(), cudaMemcpyDefault, g.stream()));
    return {s, mem};
}
MIGRAPHX_REGISTER_OP(hip_copy_from_gpu)

shape hip_sync_stream::compute_shape(const std::vector<shape>& inputs) const
{
    if(inputs.empty())
        MIGRAPHX_THROW(name() + ": expects at least one input");
    return inputs[0];
}

argument hip_sync_stream::compute(context& ctx, const shape&, const std::vector<argument>& args) const
{
    get_gpu_context(ctx).finish();
    return args[0];
}
MIGRAPHX_REGISTER_OP(hip_sync_stream)

shape hip_copy::compute_shape(const std::vector<shape>& inputs) const
{
    check_inputs(name(), inputs, 2);
    if(inputs[0] != inputs[1])
        MIGRAPHX_THROW(name() + ": source and destination shapes differ");
    return inputs[1];
}

argument hip_copy::compute(context& ctx, const shape&, const std::vector<argument>& args) const
{
    auto& g       = get_gpu_context(ctx);
    const auto& s = args[0].get_shape();
    auto nbytes   = s.bytes();
    if(nbytes > args[1].get_shape().bytes())
        MIGRAPHX_THROW(name() + ": the source is larger than the destination buffer");
    if(nbytes > 0 and args[0].data() != args[1].data())
        MIGX_CUDA_CHECK(cudaMemcpyAsync(args[1].data(), args[0].data(), nbytes, cudaMemcpyDefault, g.stream()));
    // A data-dependent result (fewer elements than the static shape) keeps its own shape.
    if(s.lens() != args[1].get_shape().lens())
        return {s, args[1].share_data()};
    return args[1];
}
MIGRAPHX_REGISTER_OP(hip_copy)

shape hip_to_host::compute_shape(const std::vector<shape>& inputs) const
{
    check_inputs(name(), inputs, 1);
    return inputs[0];
}

argument hip_to_host::compute(context& ctx, const shape&, const std::vector<argument>& args) const
{
    return copy_to_host(ctx, args[0]);
}
MIGRAPHX_REGISTER_OP(hip_to_host)

// ---- gpu::ref::<op> -------------------------------------------------------------------------

namespace {

/// Runs a module of host-computable ops on host arguments (each instruction at the size of what
/// it got, as eval does).
std::vector<argument> run_on_host(module_ref m, const std::unordered_map<std::string, argument>& params)
{
    std::unordered_map<const instruction*, argument> res;
    run_module_fn self = run_on_host;
    for(auto it = m->begin(); it != m->end(); ++it)
    {
        const auto& n = it->name();
        if(n == "@param")
            res[&*it] = params.at(it->get_operator().to_value().at("parameter").get_string());
        else if(n == "@literal")
            res[&*it] = it->get_literal().get_argument();
        else
        {
            std::vector<argument> args;
            for(auto x : it->inputs())
                args.push_back(res.at(&*x));
            if(n == "@return")
                return args;
            if(it->module_inputs().empty())
                res[&*it] = compute_sized(it, args); // at the size of what it got: see compute_sized
            else
                res[&*it] = it->get_operator().compute(it->get_shape(), args, it->module_inputs(), self);
        }
    }
    if(m->begin() == m->end())
        return {};
    return {res.at(&*std::prev(m->end()))};
}

} // namespace

shape ref_fallback::compute_shape(const std::vector<shape>& inputs) const
{
    std::vector<module_ref> mods;
    if(mod != nullptr)
        mods.push_back(mod);
    if(not has_output)
        return op.compute_shape(inputs, mods);
    if(inputs.empty())
        MIGRAPHX_THROW(name() + ": missing the output buffer");
    std::vector<shape> in(inputs.begin(), inputs.end() - 1);
    auto s = op.compute_shape(in, mods);
    if(s != inputs.back())
        MIGRAPHX_THROW(name() + ": output buffer does not match the op's shape");
    return s;
}

sized_op ref_fallback::actual_output(const shape& out, const std::vector<argument>& host) const
{
    // An input smaller than declared (the actual rows of a nonzero or nonmaxsuppression before
    // it): the op's shape for what it got, as eval computes it on every target. Computed at the
    // declared size, a gather after nonmaxsuppression read rows past the real ones (garbage
    // indices, crashes).
    if(out.type() == shape::tuple_type)
        return {std::nullopt, out};
    std::vector<shape> actual;
    for(const auto& a : host)
        actual.push_back(a.get_shape());
    std::vector<module_ref> mods;
    if(mod != nullptr)
        mods.push_back(mod);
    auto sized = actual_output_shape(op, out, in_shapes, actual, mods);
    if(sized.output.type() != out.type() or sized.output.elements() > out.elements())
        return {std::nullopt, out};
    return sized;
}

argument ref_fallback::compute_host(const shape& out, const std::vector<argument>& host) const
{
    auto sized       = actual_output(out, host);
    const auto& real = sized.replaced ? *sized.replaced : op;
    auto args        = host;
    view_sized_inputs(sized, args); // a broadcast input at the actual rows, as eval views it
    if(mod == nullptr)
        return real.compute(sized.output, args);
    return real.compute(sized.output, args, {mod}, run_on_host);
}

value ref_fallback::attributes() const
{
    auto a = op.attributes();
    if(a.is_object() and a.contains("dynamic_output") and a.at("dynamic_output").get_bool())
        return {{"dynamic_output", true}};
    return value::object{};
}

void ref_fallback::finalize(context& ctx, const shape& out, const std::vector<shape>& inputs)
{
    in_shapes.assign(inputs.begin(), inputs.end() - (has_output and not inputs.empty() ? 1 : 0));
    device.reset();
    sized.reset();
    writer.reset();
    if(host_only)
        return; // computed and noted only (compute)
    if(host_value)
        writer = std::make_shared<int64_writer>(ctx);
    if(not rows_on_device)
        return;
    if(mod == nullptr)
        sized = make_sized_device_op(ctx, op, in_shapes, out); // a tuple's (topk) too
    if(not has_output)
        return;
    auto d = device_rows_op(op, in_shapes, out, mod);
    if(not d)
        return;
    d->finalize(ctx, out, inputs);
    device = std::make_shared<operation>(std::move(*d));
    device_at_rows.clear();
    actual_rows_only = not env_enabled("MIGRAPHX_DISABLE_FEWER_ROWS");
    if(not actual_rows_only)
        return;
    auto rows = row_inputs(op, in_shapes, out);
    if(rows.size() != in_shapes.size())
        return;
    for(auto n : fewer_row_counts(op, out.lens().front()))
    {
        std::vector<shape> at_n;
        for(std::size_t i = 0; i < in_shapes.size(); i++)
            at_n.push_back(rows[i] ? with_rows(in_shapes[i], n) : in_shapes[i]);
        auto out_n = with_rows(out, n);
        auto dn    = device_rows_op(op, at_n, out_n, mod);
        if(not dn)
            continue;
        at_n.push_back(out_n);
        dn->finalize(ctx, out_n, at_n);
        device_at_rows.emplace_back(n, std::make_shared<operation>(std::move(*dn)));
    }
}

std::optional<argument>
ref_fallback::compute_rows(context& ctx, const std::vector<argument>& args) const
{
    if(device == nullptr or args.size() != in_shapes.size() + 1)
        return std::nullopt;
    std::vector<shape> actual, declared = in_shapes;
    for(std::size_t i = 0; i + 1 < args.size(); i++)
        actual.push_back(args[i].get_shape());
    declared.push_back(args.back().get_shape());
    const auto& full_out = declared.back(); // the output buffer, at the declared shape
    auto rows            = row_inputs(op, in_shapes, full_out);
    shape result;
    if(mod != nullptr)
    {
        // an elementwise module: as many rows as its row inputs (the reference op's shape for
        // them is not known without running the module)
        auto first = std::find(rows.begin(), rows.end(), true);
        if(first == rows.end())
            return std::nullopt;
        auto lens = full_out.lens();
        lens[0]   = actual[static_cast<std::size_t>(first - rows.begin())].lens()[0];
        result    = shape{full_out.type(), lens};
    }
    else
    {
        auto sized = actual_output_shape(op, full_out, in_shapes, actual);
        if(sized.replaced)
            return std::nullopt;
        result = sized.output;
    }
    if(not front_rows_match(declared, actual, result, rows))
        return std::nullopt;
    // The same buffers at their declared sizes, or at the fewest rows a device op was made for
    // that hold the actual ones: the rows past the actual ones hold whatever the buffers do
    // there; their results are never read.
    auto fewer = std::find_if(device_at_rows.begin(), device_at_rows.end(),
                              [&](const auto& d) { return d.first >= result.lens().front(); });
    const auto& run_op = fewer == device_at_rows.end() ? *device : *fewer->second;
    auto run_out       = fewer == device_at_rows.end() ? full_out : with_rows(full_out, fewer->first);
    std::vector<argument> full;
    for(std::size_t i = 0; i + 1 < args.size(); i++)
        full.emplace_back(rows[i] and fewer != device_at_rows.end() ? with_rows(declared[i], fewer->first) : declared[i],
                          args[i].share_data());
    full.emplace_back(run_out, args.back().share_data());
    // a generated elementwise kernel takes the actual rows at run time and computes only those
    const auto* rows_kernel = run_op.any_cast<code_object>();
    auto r = rows_kernel != nullptr and rows_kernel->row_elements > 0 and actual_rows_only
                 ? rows_kernel->compute_rows(ctx, full, result.lens().front())
                 : run_op.compute(ctx, run_out, full);
    ++*device_runs;
    if(fewer != device_at_rows.end())
        ++*fewer_rows_runs;
    if(result.lens() == run_out.lens())
        return r;
    return argument{shape{result.type(), result.lens(), full_out.strides()}, r.share_data()};
}

argument ref_fallback::host_input(context& ctx, const std::vector<argument>& args, std::size_t i) const
{
    // dimensions_of reads its input's shape only: no copy (a mask head's 40 MB, to read 4 sizes)
    if(op.name() == "dimensions_of")
        return {args[i].get_shape(), static_cast<char*>(nullptr)};
    if(std::find(known_inputs.begin(), known_inputs.end(), i) != known_inputs.end())
    {
        if(auto known = get_gpu_context(ctx).known_values().find(args[i]))
        {
            ++*noted_reads;
            return *known;
        }
    }
    return copy_to_host(ctx, args[i]); // waits for the stream; keeps its own shape
}

argument ref_fallback::compute(context& ctx, const shape& out, const std::vector<argument>& args) const
{
    auto& g = get_gpu_context(ctx);
    g.make_current();
    auto read = [&](std::size_t i) { return host_input(ctx, args, i); };
    if(host_only and has_output)
    {
        // a size nothing reads on the device: computed from notes (Shape: from its input's
        // shape) and noted; the output buffer is left unwritten
        std::vector<argument> host;
        for(std::size_t i = 0; i + 1 < args.size(); i++)
            host.push_back(read(i));
        auto r = compute_host(out, host);
        if(r.get_shape().type() == shape::int64_type and r.get_shape().bytes() <= out.bytes())
        {
            argument result = r.get_shape() == out ? args.back() : argument{r.get_shape(), args.back().share_data()};
            g.known_values().note(result, r);
            return result;
        }
    }
    // a size computed on the host from sizes it knows takes no device form but Shape's (which
    // notes its sizes too): no wait either way
    if(not host_value or rows_on_device)
    {
        if(auto r = compute_rows(ctx, args))
            return *r;
        if(sized)
        {
            if(auto r = sized->run(ctx, args, read))
            {
                ++*device_runs;
                return *r;
            }
        }
    }
    std::size_t n = has_output ? args.size() - 1 : args.size();
    std::vector<argument> host;
    for(std::size_t i = 0; i < n; i++)
        host.push_back(read(i));
    auto r = compute_host(out, host);
    if(r.get_shape().type() == shape::tuple_type or not has_output)
        return copy_to_device(ctx, r); // tuples get fresh device memory
    if(r.get_shape() != out)
    {
        if(r.get_shape().lens() == out.lens() and not out.standard())
            MIGRAPHX_THROW(name() + ": the reference result has another layout than the instruction");
        if(not r.get_shape().standard())
            r = r.contiguous();
    }
    // An op whose output size depends on the data (attribute dynamic_output: nonzero, compress,
    // nonmaxsuppression...) returns fewer elements than the static shape, which is its largest:
    // the result goes to the front of the output buffer, with its own shape.
    const auto& rs = r.get_shape();
    if(rs.type() != out.type() or rs.bytes() > out.bytes() or (rs != out and not out.standard()))
        return copy_to_device(ctx, r);
    argument result = rs == out ? args.back() : argument{rs, args.back().share_data()};
    if(host_value and writer and rs.type() == shape::int64_type and
       writer->write(ctx, r.to_vector<std::int64_t>(), args.back().data()))
    {
        g.known_values().note(result, r);
        return result;
    }
    if(rs.bytes() > 0)
    {
        MIGX_CUDA_CHECK(cudaMemcpyAsync(args.back().data(), r.data(), rs.bytes(), cudaMemcpyHostToDevice, g.stream()));
        MIGX_CUDA_CHECK(cudaStreamSynchronize(g.stream())); // r is freed on return
    }
    if(host_value)
        g.known_values().note(result, r);
    return result;
}

// ---- how a saved program (.mxr) stores the ops whose state is more than their attributes ----

namespace {

template <class T>
T& op_as(operation& op)
{
    auto* x = op.any_cast<T>();
    if(x == nullptr)
        MIGRAPHX_THROW("gpu: expected the operator " + T{}.name() + ", got " + op.name());
    return *x;
}

template <class T>
const T& op_as(const operation& op)
{
    const auto* x = op.any_cast<T>();
    if(x == nullptr)
        MIGRAPHX_THROW("gpu: expected the operator " + T{}.name() + ", got " + op.name());
    return *x;
}

// hip::hip_copy_literal: its literal, stored as @literal's bytes are (once, aligned, mapped on
// load). The op keeps the literal rather than reading an @literal input so that the program
// prints as the spec shows it (no inputs).
// gpu::ref::<op>: the op it runs on the host, its module (by name) and whether it has an output
// buffer.
const bool serializers_registered = [] {
    serialize::op_serializer lit;
    lit.literal_required = true;
    lit.get_literal      = [](const operation& op) -> std::optional<literal> {
        return op_as<hip_copy_literal>(op).value_;
    };
    lit.set_literal = [](operation& op, const literal& l) { op_as<hip_copy_literal>(op).value_ = l; };
    serialize::register_op_serializer(hip_copy_literal{}.name(), lit);

    serialize::op_serializer ref;
    ref.save = [](const operation& op) {
        const auto& f = op_as<ref_fallback>(op);
        return value::object{{"op", f.op.name()},
                             {"attrs", f.op.to_value()},
                             {"module", f.mod == nullptr ? std::string{} : f.mod->name()},
                             {"has_output", f.has_output},
                             {"rows_on_device", f.rows_on_device},
                             {"known_inputs", f.known_inputs},
                             {"host_value", f.host_value},
                             {"host_only", f.host_only}};
    };
    ref.load = [](const std::string& name, const value& attrs, const serialize::module_lookup& module) {
        if(not attrs.is_object() or not attrs.contains("op") or not attrs.at("op").is_string() or
           not attrs.contains("attrs") or not attrs.contains("module") or not attrs.at("module").is_string() or
           not attrs.contains("has_output") or not attrs.at("has_output").is_bool())
            MIGRAPHX_THROW(name + ": needs the attributes op, attrs, module and has_output");
        ref_fallback f;
        f.op = make_op(attrs.at("op").get_string(), attrs.at("attrs"));
        if(f.name() != name)
            MIGRAPHX_THROW(name + ": runs " + f.op.name() + ", which is another operator");
        const auto& m = attrs.at("module").get_string();
        if(not m.empty())
            f.mod = module(m);
        f.has_output = attrs.at("has_output").get_bool();
        // absent in files saved before it: host only
        f.rows_on_device = attrs.contains("rows_on_device") and attrs.at("rows_on_device").is_bool() and
                           attrs.at("rows_on_device").get_bool();
        f.host_value = attrs.contains("host_value") and attrs.at("host_value").is_bool() and
                       attrs.at("host_value").get_bool();
        f.host_only = f.host_value and attrs.contains("host_only") and attrs.at("host_only").is_bool() and
                      attrs.at("host_only").get_bool();
        if(attrs.contains("known_inputs"))
        {
            const auto& k = attrs.at("known_inputs");
            if(not k.is_array())
                MIGRAPHX_THROW(name + ": known_inputs must be an array of input indices");
            f.known_inputs = k.to_vector<std::size_t>();
        }
        return operation{f};
    };
    serialize::register_op_serializer("gpu::ref::", ref, true);
    return true;
}();

} // namespace

} // namespace gpu
} // namespace migraphx
