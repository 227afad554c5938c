#include "targets/gpu/device_sized.hpp"
#include "targets/gpu/codegen.hpp"
#include "targets/gpu/context.hpp"
#include "targets/gpu/cuda_check.hpp"
#include "targets/gpu/device_rows.hpp"
#include "targets/gpu/gpu_ops.hpp"
#include "targets/gpu/kernel_compiler.hpp"
#include "targets/gpu/sized_kernels.hpp"
#include "ops/reshape_sizes.hpp"
#include "ops/run_time_sizes.hpp"
#include <algorithm>
#include <functional>
#include <map>
#include <mutex>

namespace migraphx {
namespace gpu {

namespace {

using lens_t = std::vector<std::size_t>;

bool is_index(const shape& s) { return s.type() == shape::int32_type or s.type() == shape::int64_type; }

bool movable(const shape& s)
{
    auto b = s.type_size();
    return not s.dynamic() and s.type() != shape::tuple_type and (b == 1 or b == 2 or b == 4 or b == 8) and
           s.lens().size() <= index_walk::max_rank;
}

/// Whether a run's result (actual, written standard) fits the declared output buffer.
bool fits(const shape& actual, const shape& declared)
{
    return actual.type() == declared.type() and declared.standard() and actual.elements() <= declared.elements();
}

/// The largest offset span of the declared shapes (whether the kernels need 64-bit offsets).
bool wide_for(const std::vector<shape>& shapes)
{
    std::uint64_t n = 0, span = 0;
    for(const auto& s : shapes)
    {
        n    = std::max<std::uint64_t>(n, s.elements());
        span = std::max<std::uint64_t>(span, s.element_space());
    }
    return wide_walk(n, span);
}

/// The kernel of s on ctx's device, loaded once a process while any form holds it: SSDlite has
/// hundreds of these ops (a class's gathers, Shapes, sizes), each once a module load.
std::shared_ptr<loaded_kernel> load(context& ctx, const sized_source& s)
{
    static std::mutex m;
    static std::map<std::pair<int, std::string>, std::weak_ptr<loaded_kernel>> loaded;
    auto& g = get_gpu_context(ctx);
    g.make_current();
    const auto& st = g.get();
    std::lock_guard<std::mutex> lock(m);
    auto& slot = loaded[{st.device, s.source}];
    if(auto k = slot.lock())
        return k;
    auto k = std::make_shared<loaded_kernel>(compile_cuda(s.source, s.name, st.sm_major, st.sm_minor), s.name);
    slot   = k;
    return k;
}

void launch(context& ctx, const loaded_kernel& k, std::uint64_t n, std::vector<void*> params)
{
    if(n == 0)
        return;
    auto& g              = get_gpu_context(ctx);
    const std::size_t bs = 256;
    auto blocks = std::min<std::uint64_t>((n + bs - 1) / bs, static_cast<std::uint64_t>(std::max(g.get().sm_count, 1)) * 32);
    k.launch(g.stream(), blocks, bs, params.data());
}

/// Moves elements of one size between any strides (sized_copy); packed standard data by memcpy.
struct mover
{
    std::shared_ptr<loaded_kernel> kernel;
    mover(context& ctx, std::size_t bytes, bool wide) : kernel(load(ctx, copy_source(bytes, wide))) {}

    /// The elements of lens, read at x's strides from x, written at y_strides into y.
    void run(context& ctx, const void* x, const lens_t& lens, const lens_t& x_strides, void* y, const lens_t& y_strides,
             std::size_t bytes) const
    {
        shape xs{shape::uint8_type, lens, x_strides};
        if(x_strides == y_strides and xs.standard())
        {
            if(x != y and xs.elements() > 0)
                MIGX_CUDA_CHECK(cudaMemcpyAsync(y, x, xs.elements() * bytes, cudaMemcpyDeviceToDevice,
                                                get_gpu_context(ctx).stream()));
            return;
        }
        auto w = make_walk(lens, x_strides, y_strides);
        auto n = w.elements();
        launch(ctx, *kernel, n, {&x, &y, &w, &n});
    }

    /// x (any strides) into y, standard.
    void packed(context& ctx, const argument& x, void* y) const
    {
        const auto& s = x.get_shape();
        run(ctx, x.data(), s.lens(), s.strides(), y, shape{s.type(), s.lens()}.strides(), s.type_size());
    }
};

argument result_in(const argument& buffer, const shape& s) { return {s, buffer.share_data()}; }

std::vector<shape> shapes_of(const std::vector<argument>& args, std::size_t n)
{
    std::vector<shape> r;
    for(std::size_t i = 0; i < n; i++)
        r.push_back(args[i].get_shape());
    return r;
}

/// The actual output shape from op.compute_shape, where it fits the buffer.
std::optional<shape> computed_shape(const operation& op, const std::vector<argument>& args)
{
    try
    {
        auto s = op.compute_shape(shapes_of(args, args.size() - 1));
        if(fits(s, args.back().get_shape()))
            return shape{s.type(), s.lens()};
    }
    catch(const exception&)
    {
    }
    return std::nullopt; // the host path says what is wrong
}

/// A form of (data, indices) -> out whose kernel is Source(element bytes, 64-bit indices, wide).
template <sized_source (*Source)(std::size_t, bool, bool)>
struct indexed_form : sized_device_op
{
    operation op;
    std::shared_ptr<loaded_kernel> kernel;
    indexed_form(context& ctx, operation o, const std::vector<shape>& in, const shape& out)
        : op(std::move(o)),
          kernel(load(ctx, Source(out.type_size(), in[1].type() == shape::int64_type, wide_for({in[0], in[1], out}))))
    {
    }
};

struct gather_form : indexed_form<gather_source>
{
    using indexed_form::indexed_form;
    std::optional<argument> run(context& ctx, const std::vector<argument>& args, const host_reader&) const override
    {
        auto out = computed_shape(op, args);
        if(not out)
            return std::nullopt;
        const auto& data = args[0].get_shape();
        const auto& ind  = args[1].get_shape();
        auto axis        = static_cast<std::size_t>(axis_from_front(op, data.lens().size()));
        auto nind        = ind.lens().size();
        long long axis_len = static_cast<long long>(data.lens()[axis]), axis_stride = static_cast<long long>(data.strides()[axis]);
        if(axis_len == 0 and out->elements() > 0)
            return std::nullopt;
        lens_t a(out->lens().size(), 0), b(out->lens().size(), 0);
        for(std::size_t d = 0; d < out->lens().size(); d++)
        {
            if(d < axis)
                a[d] = data.strides()[d];
            else if(d < axis + nind)
                b[d] = ind.strides()[d - axis];
            else
                a[d] = data.strides()[d - nind + 1];
        }
        auto w = make_walk(out->lens(), a, b);
        auto n = w.elements();
        auto *x = args[0].data(), *k = args[1].data(), *y = args.back().data();
        launch(ctx, *kernel, n, {&x, &k, &y, &axis_len, &axis_stride, &w, &n});
        return result_in(args.back(), *out);
    }
};

/// Concat: standard inputs (at most concat_parts::max_parts) in one launch; others an input at a
/// time (a copy or a strided move each).
struct concat_form : sized_device_op
{
    operation op;
    mover move;
    std::shared_ptr<loaded_kernel> parts_kernel;
    concat_form(context& ctx, operation o, const std::vector<shape>& in, const shape& out)
        : op(std::move(o)),
          move(ctx, out.type_size(), wide_for([&] { auto s = in; s.push_back(out); return s; }())),
          parts_kernel(load(ctx, concat_source(out.type_size())))
    {
    }

    std::optional<argument> run(context& ctx, const std::vector<argument>& args, const host_reader&) const override
    {
        auto out = computed_shape(op, args);
        if(not out)
            return std::nullopt;
        auto axis = static_cast<std::size_t>(axis_from_front(op, out->lens().size()));
        std::vector<const void*> src;
        for(std::size_t i = 0; i + 1 < args.size(); i++)
            src.push_back(args[i].data());
        if(auto d = concat_parts_for(shapes_of(args, args.size() - 1), src, *out, axis))
        {
            auto* y = args.back().data();
            auto n  = d->outer * d->row;
            launch(ctx, *parts_kernel, n, {&y, &*d});
            return result_in(args.back(), *out);
        }
        auto ys   = out->strides();
        auto* y   = args.back().data();
        std::size_t start = 0;
        for(std::size_t i = 0; i + 1 < args.size(); i++)
        {
            const auto& s = args[i].get_shape();
            move.run(ctx, args[i].data(), s.lens(), s.strides(), y + start * ys[axis] * s.type_size(), ys, s.type_size());
            start += s.lens()[axis];
        }
        return result_in(args.back(), *out);
    }
};

struct scatter_form : sized_device_op
{
    std::int64_t axis_attr = 0;
    mover move;
    std::shared_ptr<loaded_kernel> kernel;
    scatter_form(context& ctx, const operation& o, const std::vector<shape>& in, const shape& out, bool wide)
        : axis_attr(o.to_value().at("axis").get_int64()),
          move(ctx, out.type_size(), wide),
          kernel(load(ctx, scatter_source(out.type_size(), in[1].type() == shape::int64_type, wide)))
    {
    }
    std::optional<argument> run(context& ctx, const std::vector<argument>& args, const host_reader&) const override
    {
        const auto& data = args[0].get_shape();
        const auto& ind  = args[1].get_shape();
        const auto& upd  = args[2].get_shape();
        auto rank        = data.lens().size();
        auto a           = axis_attr < 0 ? axis_attr + static_cast<std::int64_t>(rank) : axis_attr;
        if(a < 0 or a >= static_cast<std::int64_t>(rank) or ind.lens().size() != rank or upd.lens() != ind.lens() or
           not fits(data, args.back().get_shape()))
            return std::nullopt;
        auto axis = static_cast<std::size_t>(a);
        for(std::size_t d = 0; d < rank and ind.elements() > 0; d++)
            if(d != axis and ind.lens()[d] > data.lens()[d])
                return std::nullopt; // the host throws naming the dimension
        shape out{data.type(), data.lens()};
        auto* y = args.back().data();
        move.packed(ctx, args[0], y);
        auto os = out.strides();
        long long axis_len = static_cast<long long>(data.lens()[axis]), axis_stride = static_cast<long long>(os[axis]);
        os[axis]           = 0;
        auto w             = make_walk(ind.lens(), os, ind.strides(), upd.strides());
        auto n             = w.elements();
        auto *k = args[1].data(), *u = args[2].data();
        launch(ctx, *kernel, n, {&k, &u, &y, &axis_len, &axis_stride, &w, &n});
        return result_in(args.back(), out);
    }
};

/// broadcast_with_dims and reshape_with_dims: the sizes read from the device (a few bytes, one
/// wait), the elements moved there.
struct with_dims_form : sized_device_op
{
    operation op;
    bool reshape; // else broadcast
    mover move;
    with_dims_form(context& ctx, operation o, const std::vector<shape>& in, const shape& out)
        : op(std::move(o)), reshape(op.name() == "reshape_with_dims"), move(ctx, out.type_size(), wide_for({in[0], out}))
    {
    }
    std::optional<argument> run(context& ctx, const std::vector<argument>& args, const host_reader& host) const override
    {
        const auto& x = args[0].get_shape();
        const auto& declared = args.back().get_shape();
        lens_t lens;
        try
        {
            auto sizes = read_sizes(host(1));
            if(reshape)
                lens = reshape_sizes(
                    sizes, x.lens(), op.to_value().at("allowzero").get_bool(),
                    [&](const std::string& why) { MIGRAPHX_THROW(op.name() + ": " + why); }, &declared.lens());
            else
            {
                lens_t dims;
                for(auto d : sizes)
                {
                    if(d < 0)
                        return std::nullopt;
                    dims.push_back(static_cast<std::size_t>(d));
                }
                lens = compute_broadcasted_lens(x.lens(), dims);
            }
            check_within_declared(op.name(), lens, declared.lens());
        }
        catch(const exception&)
        {
            return std::nullopt; // the host path throws with the same message
        }
        shape out{x.type(), lens};
        auto* y = args.back().data();
        if(reshape)
            move.packed(ctx, args[0], y); // row-major order is the result's
        else
        {
            lens_t strides(lens.size(), 0);
            auto offset = lens.size() - x.lens().size();
            for(std::size_t i = 0; i < x.lens().size(); i++)
                if(x.lens()[i] == lens[offset + i])
                    strides[offset + i] = x.strides()[i];
            move.run(ctx, args[0].data(), lens, strides, y, out.strides(), x.type_size());
        }
        return result_in(args.back(), out);
    }
};

struct roialign_form : sized_device_op
{
    roialign_dims attrs;
    std::shared_ptr<loaded_kernel> kernel;
    roialign_form(context& ctx, const operation& op, const std::vector<shape>& in)
        : kernel(load(ctx, roialign_source(in[0].type() == shape::half_type, in[2].type() == shape::int64_type)))
    {
        auto v               = op.to_value();
        attrs.out_h          = v.at("output_height").get_int64();
        attrs.out_w          = v.at("output_width").get_int64();
        attrs.sampling_ratio = v.at("sampling_ratio").get_int64();
        attrs.spatial_scale  = static_cast<float>(v.at("spatial_scale").get_float());
        attrs.half_pixel     = v.at("coordinate_transformation_mode").get_string() == "half_pixel" ? 1 : 0;
        attrs.is_max         = v.at("mode").get_string() == "max" ? 1 : 0;
    }
    std::optional<argument> run(context& ctx, const std::vector<argument>& args, const host_reader&) const override
    {
        const auto& x    = args[0].get_shape();
        const auto& rois = args[1].get_shape();
        const auto& bi   = args[2].get_shape();
        if(not x.standard() or rois.lens().size() != 2 or rois.lens()[1] != 4 or
           bi.lens() != lens_t{rois.lens()[0]} or (rois.lens()[0] > 1 and (not rois.standard() or not bi.standard())))
            return std::nullopt;
        auto d  = attrs;
        d.n     = static_cast<std::int64_t>(x.lens()[0]);
        d.c     = static_cast<std::int64_t>(x.lens()[1]);
        d.h     = static_cast<std::int64_t>(x.lens()[2]);
        d.w     = static_cast<std::int64_t>(x.lens()[3]);
        d.rois  = static_cast<std::int64_t>(rois.lens()[0]);
        shape out{x.type(), {rois.lens()[0], x.lens()[1], static_cast<std::size_t>(d.out_h), static_cast<std::size_t>(d.out_w)}};
        if(not fits(out, args.back().get_shape()) or d.h == 0 or d.w == 0)
            return std::nullopt;
        auto *xp = args[0].data(), *rp = args[1].data(), *bp = args[2].data(), *y = args.back().data();
        launch(ctx, *kernel, out.elements(), {&xp, &rp, &bp, &y, &d});
        return result_in(args.back(), out);
    }
};

/// gathernd (batch_dims 0): data at any strides, the indices' tuples at any strides, the
/// output standard at the run's size.
struct gathernd_form : indexed_form<gathernd_source>
{
    using indexed_form::indexed_form;
    std::optional<argument> run(context& ctx, const std::vector<argument>& args, const host_reader&) const override
    {
        auto out = computed_shape(op, args);
        if(not out)
            return std::nullopt;
        const auto& data = args[0].get_shape();
        const auto& ind  = args[1].get_shape();
        auto q           = ind.lens().back();
        auto tuples      = ind.lens().size() - 1; // the output's leading dims
        gathernd_tuple g;
        g.q    = static_cast<std::int64_t>(q);
        g.last = static_cast<std::int64_t>(ind.strides().back());
        for(std::size_t j = 0; j < q; j++)
        {
            g.len[j]    = static_cast<std::int64_t>(data.lens()[j]);
            g.stride[j] = static_cast<std::int64_t>(data.strides()[j]);
            if(g.len[j] == 0 and out->elements() > 0)
                return std::nullopt;
        }
        lens_t a(out->lens().size(), 0), b(out->lens().size(), 0);
        for(std::size_t d = 0; d < out->lens().size(); d++)
        {
            if(d < tuples)
                b[d] = ind.strides()[d];
            else
                a[d] = data.strides()[q + d - tuples];
        }
        auto w = make_walk(out->lens(), a, b);
        auto n = w.elements();
        auto *x = args[0].data(), *k = args[1].data(), *y = args.back().data();
        launch(ctx, *kernel, n, {&x, &k, &y, &g, &w, &n});
        return result_in(args.back(), *out);
    }
};

/// topk (float/half) at the run's size: the generated kernel with its sizes at launch. k is the
/// attribute's or input 1's, read on the host (from a note where the host computed it: no wait).
/// Its results are views of a buffer of its own, sized for the declared k (the op has no output
/// buffer: a tuple), rewritten each run.
struct topk_form : sized_device_op
{
    operation op;
    std::int64_t declared_k = 0;
    std::shared_ptr<loaded_kernel> kernel;
    std::shared_ptr<char> buffer;
    std::size_t buffer_bytes = 0;
    topk_form(context& ctx, operation o, const std::vector<shape>& in, const shape& out) : op(std::move(o))
    {
        auto v     = op.to_value();
        declared_k = v.at("k").get_int64();
        kernel     = load(ctx, topk_source(in[0].type() == shape::half_type, v.at("largest").get_bool()));
        buffer_bytes = topk_buffer_elements(out.sub_shapes().at(0)) * 8;
        buffer       = device_alloc(std::max<std::size_t>(buffer_bytes, 8));
    }
    std::optional<argument> run(context& ctx, const std::vector<argument>& args, const host_reader& host) const override
    {
        const auto& x = args[0].get_shape();
        auto axis     = axis_from_front(op, x.lens().size());
        if(not x.standard() or axis < 0 or x.type() == shape::tuple_type)
            return std::nullopt;
        auto lens = x.lens();
        auto n    = lens[static_cast<std::size_t>(axis)];
        std::int64_t k = declared_k;
        if(args.size() == 2)
        {
            auto kv = host(1).to_vector<std::int64_t>();
            if(kv.size() != 1)
                return std::nullopt;
            k = kv.front();
        }
        // what ref refuses (the host path throws), or more than the sort takes
        if(k < 0 or k > declared_k or static_cast<std::size_t>(k) > n or static_cast<std::size_t>(k) > topk_sized_max_k)
            return std::nullopt;
        lens[static_cast<std::size_t>(axis)] = static_cast<std::size_t>(k);
        shape values{x.type(), lens}, indices{shape::int64_type, lens};
        if(topk_buffer_elements(values) * 8 > buffer_bytes)
            return std::nullopt;
        if(values.elements() > 0)
        {
            topk_sizes d;
            d.n     = n;
            d.k     = static_cast<std::uint64_t>(k);
            d.rows  = x.elements() / n;
            d.inner = 1;
            for(std::size_t i = static_cast<std::size_t>(axis) + 1; i < lens.size(); i++)
                d.inner *= lens[i];
            d.p = 1;
            while(d.p < d.k)
                d.p *= 2;
            auto& g      = get_gpu_context(ctx);
            auto blocks  = std::min<std::uint64_t>(d.rows, static_cast<std::uint64_t>(std::max(g.get().sm_count, 1)) * 32);
            auto threads = n > 4096 ? 1024 : 256;
            const void* xp = args[0].data();
            void* yp       = buffer.get();
            std::vector<void*> params{&xp, &yp, &d};
            kernel->launch(g.stream(), blocks, threads, params.data());
        }
        auto at = [&](std::size_t offset) { return std::shared_ptr<char>(buffer, buffer.get() + offset); };
        return argument{std::vector<argument>{argument{values, at(indices.elements() * 8)}, argument{indices, at(0)}}};
    }
};

/// nonzero: the kernel counts and places the hits; the count comes back to the host (one wait: the
/// result's shape depends on it; the host path waited twice and moved the whole input).
/// gpu::early_nonzero splits a static-input nonzero in two so that this wait is shared.
struct nonzero_form : sized_device_op
{
    nonzero_kernel kernel;
    std::shared_ptr<count_slot> count = std::make_shared<count_slot>(); // its own, not the context's
    nonzero_form(context& ctx, const shape& in) : kernel(ctx, in) {}
    std::optional<argument> run(context& ctx, const std::vector<argument>& args, const host_reader&) const override
    {
        const auto& x = args[0].get_shape();
        if(not nonzero_kernel::takes(x, args.back().get_shape()))
            return std::nullopt;
        auto s = get_gpu_context(ctx).stream();
        kernel.launch(ctx, args[0], args.back().data(), count->device.get());
        MIGX_CUDA_CHECK(cudaMemcpyAsync(count->host, count->device.get(), sizeof(std::uint64_t), cudaMemcpyDeviceToHost, s));
        MIGX_CUDA_CHECK(cudaStreamSynchronize(s));
        return result_in(args.back(), shape{shape::int64_type, {nonzero_kernel::rank_of(x), static_cast<std::size_t>(*count->host)}});
    }
};

/// dimensions_of: the sizes (known on the host) written by a launch, no wait, and noted.
struct dimensions_form : sized_device_op
{
    operation op;
    int64_writer writer;
    dimensions_form(context& ctx, operation o) : op(std::move(o)), writer(ctx) {}
    std::optional<argument> run(context& ctx, const std::vector<argument>& args, const host_reader&) const override
    {
        const auto& out = args.back().get_shape();
        argument sizes;
        try
        {
            sizes = op.compute(out, {argument{args[0].get_shape(), static_cast<char*>(nullptr)}}); // reads the shape only
        }
        catch(const exception&)
        {
            return std::nullopt;
        }
        if(sizes.get_shape() != out or not writer.write(ctx, sizes.to_vector<std::int64_t>(), args.back().data()))
            return std::nullopt;
        get_gpu_context(ctx).known_values().note(args.back(), sizes);
        return args.back();
    }
};

bool all_movable(const std::vector<shape>& inputs, const shape& out)
{
    return movable(out) and std::all_of(inputs.begin(), inputs.end(), [&](const shape& s) {
               return movable(s) and s.type() == out.type();
           });
}

} // namespace

nonzero_kernel::nonzero_kernel(context& ctx, const shape& x)
    : kernel(load(ctx, nonzero_source(x.type_size(), x.type() == shape::float_type or x.type() == shape::half_type or
                                                         x.type() == shape::double_type)))
{
}

bool nonzero_kernel::takes(const shape& x, const shape& out)
{
    auto rank = rank_of(x);
    return rank <= index_walk::max_rank and x.elements() * rank <= out.elements() and out.standard() and
           out.type() == shape::int64_type;
}

void nonzero_kernel::launch(context& ctx, const argument& x, void* y, void* count) const
{
    const auto& s = x.get_shape();
    nonzero_input d;
    d.rank = static_cast<std::int32_t>(rank_of(s));
    for(std::size_t j = 0; j < static_cast<std::size_t>(d.rank); j++)
    {
        d.lens[j]    = s.ndim() == 0 ? 1 : s.lens()[j];
        d.strides[j] = s.ndim() == 0 ? 0 : static_cast<std::int64_t>(s.strides()[j]);
    }
    const void* xp = x.data();
    std::vector<void*> params{&xp, &y, &count, &d};
    kernel->launch(get_gpu_context(ctx).stream(), 1, s.elements() > 4096 ? 1024 : 256, params.data());
}

int64_writer::int64_writer(context& ctx) : kernel(load(ctx, values_source())) {}

bool int64_writer::write(context& ctx, const std::vector<std::int64_t>& v, void* y) const
{
    if(v.size() > int64_values::max_count)
        return false;
    int64_values d;
    std::copy(v.begin(), v.end(), d.v);
    std::uint64_t n = v.size();
    launch(ctx, *kernel, n, {&y, &d, &n}); // one block: n <= 8
    return true;
}

bool has_sized_device_op(const operation& op, const std::vector<shape>& in, const shape& out)
{
    const auto& n = op.name();
    if(n == "topk")
        return (in.size() == 1 or (in.size() == 2 and is_index(in[1]))) and not in[0].dynamic() and
               (in[0].type() == shape::float_type or in[0].type() == shape::half_type) and
               out.type() == shape::tuple_type and op.to_value().at("k").get_int64() <= static_cast<std::int64_t>(topk_sized_max_k);
    if(out.dynamic() or out.type() == shape::tuple_type or not movable(out))
        return false;
    if(n == "gather")
        return in.size() == 2 and movable(in[0]) and in[0].type() == out.type() and is_index(in[1]) and
               axis_from_front(op, in[0].lens().size()) >= 0;
    if(n == "concat")
        return not in.empty() and all_movable(in, out) and axis_from_front(op, out.lens().size()) >= 0;
    if(n == "scatter_none")
        return in.size() == 3 and movable(in[0]) and in[0].type() == out.type() and in[2].type() == out.type() and
               is_index(in[1]) and not in[1].dynamic() and not in[2].dynamic() and
               in[1].lens().size() <= index_walk::max_rank;
    if(n == "broadcast_with_dims" or n == "reshape_with_dims")
        return in.size() == 2 and movable(in[0]) and in[0].type() == out.type() and not in[1].dynamic() and
               is_integral_type(in[1].type());
    if(n == "nonzero")
        return in.size() == 1 and movable(in[0]) and in[0].type() != shape::tuple_type and
               out.type() == shape::int64_type;
    if(n == "gathernd")
        return in.size() == 2 and movable(in[0]) and in[0].type() == out.type() and is_index(in[1]) and
               not in[1].dynamic() and op.to_value().at("batch_dims").get_int64() == 0 and
               in[1].lens().size() >= 1 and in[1].lens().back() <= gathernd_tuple::max_q and
               out.lens().size() <= index_walk::max_rank;
    if(n == "dimensions_of")
        return in.size() == 1 and out.type() == shape::int64_type and out.standard() and
               out.elements() <= int64_values::max_count;
    if(n == "roialign")
        return in.size() == 3 and (out.type() == shape::float_type or out.type() == shape::half_type) and
               in[0].type() == out.type() and in[1].type() == out.type() and is_index(in[2]) and
               in[0].lens().size() == 4;
    return false;
}

std::shared_ptr<const sized_device_op>
make_sized_device_op(context& ctx, const operation& op, const std::vector<shape>& in, const shape& out)
{
    if(not has_sized_device_op(op, in, out))
        return nullptr;
    const auto& n = op.name();
    if(n == "gather")
        return std::make_shared<gather_form>(ctx, op, in, out);
    if(n == "concat")
        return std::make_shared<concat_form>(ctx, op, in, out);
    if(n == "scatter_none")
        return std::make_shared<scatter_form>(ctx, op, in, out, wide_for({in[0], in[1], in[2], out}));
    if(n == "roialign")
        return std::make_shared<roialign_form>(ctx, op, in);
    if(n == "dimensions_of")
        return std::make_shared<dimensions_form>(ctx, op);
    if(n == "gathernd")
        return std::make_shared<gathernd_form>(ctx, op, in, out);
    if(n == "nonzero")
        return std::make_shared<nonzero_form>(ctx, in[0]);
    if(n == "topk")
        return std::make_shared<topk_form>(ctx, op, in, out);
    return std::make_shared<with_dims_form>(ctx, op, in, out);
}

} // namespace gpu
} // namespace migraphx
