// ScatterElements and ScatterND as MIGraphX names them:
//   scatter_none/scatter_add/scatter_mul[axis=0](data, indices, updates)
//   scatternd_none/scatternd_add/scatternd_mul(data, indices, updates)
// The output is a copy of data with updates written (none), added (add) or multiplied (mul) in
// at the indexed positions, applied in the row-major order of updates (so for "none" with
// duplicate indices the last write wins). Negative indices count from the end; an index out of
// range throws migraphx::exception when the op runs. Integer add/mul wrap.
#include <migraphx/register_op.hpp>
#include "ops/check_shapes.hpp"
#include "ops/pointwise.hpp"
#include "ir/parallel_for.hpp"

namespace migraphx {
namespace op {
namespace {

enum class reduction
{
    none,
    add,
    mul
};

template <reduction R, class T>
T combine(T old, T upd)
{
    using C = elementwise::compute_t<T>;
    if constexpr(R == reduction::none)
        return upd;
    else if constexpr(std::is_integral<T>{})
        return R == reduction::add ? elementwise::wrap_add(old, upd) : elementwise::wrap_mul(old, upd);
    else
        return R == reduction::add ? T(C(old) + C(upd)) : T(C(old) * C(upd));
}

std::size_t checked_index(std::int64_t k, std::size_t len, const std::string& op, std::size_t dim)
{
    auto n = static_cast<std::int64_t>(len);
    if(k < -n or k >= n)
        MIGRAPHX_THROW(op + ": index " + std::to_string(k) + " is out of range for dimension " +
                       std::to_string(dim) + " of length " + std::to_string(len));
    return static_cast<std::size_t>(k < 0 ? k + n : k);
}

template <class Derived, reduction R>
struct scatter_elements_op
{
    std::int64_t axis = 0;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.axis, "axis");
    }
    std::string op_name() const { return static_cast<const Derived&>(*this).name(); }

    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes cs{inputs, op_name()};
        cs.has(3).not_tuple().static_only().type_in(1, {shape::int32_type, shape::int64_type});
        const auto& data = inputs[0];
        if(data.ndim() == 0)
            cs.fail("data must have rank at least 1");
        normalize_axis(axis, data.ndim(), op_name());
        if(inputs[1].ndim() != data.ndim())
            cs.fail("indices must have the same rank as data");
        if(inputs[2].lens() != inputs[1].lens())
            cs.fail("updates must have the same dimensions as indices");
        if(inputs[2].type() != data.type())
            cs.fail("updates must have the type of data");
        return {data.type(), data.lens()};
    }

    argument compute(const shape& out, const std::vector<argument>& args) const
    {
        auto a          = static_cast<std::size_t>(normalize_axis(axis, out.ndim(), op_name()));
        auto result     = args[0].contiguous();
        const auto& is  = args[1].get_shape();
        const auto& us  = args[2].get_shape();
        const auto n    = is.ndim();
        // Every index position off the axis must be inside data (an empty indices has none).
        for(std::size_t d = 0; d < n and is.elements() > 0; d++)
            if(d != a and is.lens()[d] > out.lens()[d])
                MIGRAPHX_THROW(op_name() + ": indices dimension " + std::to_string(d) + " exceeds data's");
        if(is.elements() == 0)
            return result;
        const auto ostr = shape::standard_strides(out.lens());
        // Positions that differ off the axis write different outputs, so the walk is split over
        // the first dim off the axis with more than one position: each thread keeps the row-major
        // order (the order writes apply in) within its slab.
        std::size_t split = n;
        for(std::size_t d = 0; d < n and split == n; d++)
            if(d != a and is.lens()[d] > 1)
                split = d;
        out.visit_type([&](auto as) {
            using T        = typename decltype(as)::type;
            auto* o        = reinterpret_cast<T*>(result.data());
            const auto* up = reinterpret_cast<const T*>(args[2].data());
            is.visit_type([&](auto ias) {
                using I       = typename decltype(ias)::type;
                const auto* k = reinterpret_cast<const I*>(args[1].data());
                if constexpr(std::is_integral<I>{})
                {
                    auto walk = [&](std::size_t first, std::size_t last) {
                        std::vector<std::size_t> lo(n, 0), hi = is.lens();
                        if(split < n)
                        {
                            lo[split] = first;
                            hi[split] = last;
                        }
                        scatter_box<R>(o, up, k, lo, hi, a, ostr, is.strides(), us.strides(), out.lens()[a]);
                    };
                    if(split == n)
                        walk(0, 1);
                    else
                    {
                        auto per_slab = is.elements() / is.lens()[split];
                        parallel_for(is.lens()[split], std::max<std::size_t>(1, (1u << 16) / per_slab), walk);
                    }
                }
            });
        });
        return result;
    }

    // Applies the updates at index positions in the box [lo, hi) in row-major order, keeping the
    // offsets into the result (off the axis), the indices and the updates as it goes.
    template <reduction Red, class T, class I>
    void scatter_box(T* o,
                     const T* up,
                     const I* k,
                     const std::vector<std::size_t>& lo,
                     const std::vector<std::size_t>& hi,
                     std::size_t a,
                     const std::vector<std::size_t>& ostr,
                     const std::vector<std::size_t>& istr,
                     const std::vector<std::size_t>& ustr,
                     std::size_t axis_len) const
    {
        const auto n = lo.size();
        std::size_t count = 1, obase = 0, ibase = 0, ubase = 0;
        for(std::size_t d = 0; d < n; d++)
        {
            count *= hi[d] - lo[d];
            if(d != a)
                obase += lo[d] * ostr[d];
            ibase += lo[d] * istr[d];
            ubase += lo[d] * ustr[d];
        }
        auto idx = lo;
        for(std::size_t i = 0; i < count; i++)
        {
            auto pos = obase + checked_index(static_cast<std::int64_t>(k[ibase]), axis_len, op_name(), a) * ostr[a];
            o[pos]   = combine<Red>(o[pos], up[ubase]);
            for(std::size_t d = n; d-- > 0;)
            {
                if(d != a)
                    obase += ostr[d];
                ibase += istr[d];
                ubase += ustr[d];
                if(++idx[d] < hi[d])
                    break;
                auto span = hi[d] - lo[d];
                if(d != a)
                    obase -= ostr[d] * span;
                ibase -= istr[d] * span;
                ubase -= ustr[d] * span;
                idx[d] = lo[d];
            }
        }
    }
};

template <class Derived, reduction R>
struct scatternd_op
{
    std::string op_name() const { return static_cast<const Derived&>(*this).name(); }

    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes cs{inputs, op_name()};
        cs.has(3).not_tuple().static_only().type_in(1, {shape::int32_type, shape::int64_type});
        const auto& dl = inputs[0].lens();
        const auto& il = inputs[1].lens();
        if(dl.empty() or il.empty())
            cs.fail("data and indices must have rank at least 1");
        std::size_t k = il.back();
        if(k > dl.size())
            cs.fail("indices' last dimension must not exceed data's rank");
        std::vector<std::size_t> ul(il.begin(), il.end() - 1);
        ul.insert(ul.end(), dl.begin() + k, dl.end());
        if(inputs[2].lens() != ul)
            cs.fail("updates must have dimensions indices.shape[:-1] + data.shape[k:]");
        if(inputs[2].type() != inputs[0].type())
            cs.fail("updates must have the type of data");
        return {inputs[0].type(), dl};
    }

    argument compute(const shape& out, const std::vector<argument>& args) const
    {
        auto result    = args[0].contiguous();
        auto indices   = args[1].to_vector<std::int64_t>();
        const auto& dl = out.lens();
        std::size_t k  = args[1].get_shape().lens().back();
        std::size_t slice = 1;
        for(std::size_t d = k; d < dl.size(); d++)
            slice *= dl[d];
        std::size_t n = k == 0 ? args[2].get_shape().elements() / std::max<std::size_t>(slice, 1)
                               : indices.size() / k;
        auto strides = out.strides();
        out.visit_type([&](auto as) {
            using T = typename decltype(as)::type;
            auto* o = reinterpret_cast<T*>(result.data());
            auto upd = make_view(args[2].get_shape(), reinterpret_cast<const T*>(args[2].data()));
            {
                for(std::size_t i = 0; i < n; i++)
                {
                    std::size_t base = 0;
                    for(std::size_t d = 0; d < k; d++)
                        base += checked_index(indices[i * k + d], dl[d], op_name(), d) * strides[d];
                    for(std::size_t j = 0; j < slice; j++)
                        o[base + j] = combine<R>(o[base + j], upd[i * slice + j]);
                }
            }
        });
        return result;
    }
};

} // namespace

struct scatter_none : scatter_elements_op<scatter_none, reduction::none>
{
    std::string name() const { return "scatter_none"; }
};
struct scatter_add : scatter_elements_op<scatter_add, reduction::add>
{
    std::string name() const { return "scatter_add"; }
};
struct scatter_mul : scatter_elements_op<scatter_mul, reduction::mul>
{
    std::string name() const { return "scatter_mul"; }
};
struct scatternd_none : scatternd_op<scatternd_none, reduction::none>
{
    std::string name() const { return "scatternd_none"; }
};
struct scatternd_add : scatternd_op<scatternd_add, reduction::add>
{
    std::string name() const { return "scatternd_add"; }
};
struct scatternd_mul : scatternd_op<scatternd_mul, reduction::mul>
{
    std::string name() const { return "scatternd_mul"; }
};
MIGRAPHX_REGISTER_OP(scatter_none)
MIGRAPHX_REGISTER_OP(scatter_add)
MIGRAPHX_REGISTER_OP(scatter_mul)
MIGRAPHX_REGISTER_OP(scatternd_none)
MIGRAPHX_REGISTER_OP(scatternd_add)
MIGRAPHX_REGISTER_OP(scatternd_mul)

} // namespace op
} // namespace migraphx
