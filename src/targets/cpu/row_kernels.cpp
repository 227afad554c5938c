#include "targets/cpu/row_kernels.hpp"
#include "targets/cpu/omp_region.hpp"
#include <functional>
#include <numeric>
#include "passes/pass_utils.hpp"
#include "targets/cpu/fast_math.hpp"
#include "targets/cpu/dnnl_context.hpp"
#include <migraphx/errors.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/register_op.hpp>
#include <algorithm>
#include <cmath>
#include <limits>

namespace migraphx {
namespace cpu {
namespace {

void check_rows(const std::vector<shape>& in, const std::string& op)
{
    if(in.size() != 1 or in[0].type() != shape::float_type or not in[0].standard() or in[0].lens().empty())
        MIGRAPHX_THROW(op + ": expects one standard float tensor");
}

template <class F>
void for_rows(const shape& s, F f)
{
    auto cols = static_cast<std::int64_t>(s.lens().back());
    auto rows = static_cast<std::int64_t>(s.elements()) / std::max<std::int64_t>(cols, 1);
    omp_for(rows * cols > 16384, rows, [&](std::int64_t r) { f(r, cols); });
}

__attribute__((target_clones("avx2", "default"))) void
softmax_row(const float* x, float* y, std::int64_t cols, bool log)
{
    float mx = -std::numeric_limits<float>::infinity();
    for(std::int64_t i = 0; i < cols; i++)
        mx = std::max(mx, x[i]);
    for(std::int64_t i = 0; i < cols; i++) // vectorises; the sum below would stop that
        y[i] = fast_exp(x[i] - mx);
    float sum = 0;
    for(std::int64_t i = 0; i < cols; i++)
        sum += y[i];
    if(log)
    {
        float ls = std::log(sum);
        for(std::int64_t i = 0; i < cols; i++)
            y[i] = x[i] - mx - ls;
        return;
    }
    float inv = 1.0f / sum;
    for(std::int64_t i = 0; i < cols; i++)
        y[i] *= inv;
}

} // namespace

shape row_softmax::compute_shape(const std::vector<shape>& all) const
{
    auto in = own_inputs(all, planned);
    check_rows(in, name());
    return planned_shape(name(), in[0], all, planned);
}

argument row_softmax::compute(const shape& out, const std::vector<argument>& args) const
{
    argument result = result_buffer(out, args, planned);
    const auto* x = reinterpret_cast<const float*>(args[0].data());
    auto* y       = reinterpret_cast<float*>(result.data());
    for_rows(out, [&](std::int64_t r, std::int64_t cols) { softmax_row(x + r * cols, y + r * cols, cols, log); });
    return result;
}

MIGRAPHX_REGISTER_OP(row_softmax)

shape row_reduce::compute_shape(const std::vector<shape>& all) const
{
    auto in = own_inputs(all, planned);
    check_rows(in, name());
    if(mode != "sum" and mode != "mean" and mode != "max" and mode != "min")
        MIGRAPHX_THROW("cpu::reduce: unknown mode '" + mode + "'");
    auto l   = in[0].lens();
    l.back() = 1;
    return planned_shape(name(), {shape::float_type, l}, all, planned);
}

argument row_reduce::compute(const shape& out, const std::vector<argument>& args) const
{
    argument result = result_buffer(out, args, planned);
    const auto* x = reinterpret_cast<const float*>(args[0].data());
    auto* y       = reinterpret_cast<float*>(result.data());
    for_rows(args[0].get_shape(), [&](std::int64_t r, std::int64_t cols) {
        const float* xr = x + r * cols;
        if(mode == "max" or mode == "min")
        {
            float v = xr[0];
            for(std::int64_t i = 1; i < cols; i++)
                v = mode == "max" ? std::max(v, xr[i]) : std::min(v, xr[i]);
            y[r] = v;
            return;
        }
        double s = 0;
        for(std::int64_t i = 0; i < cols; i++)
            s += xr[i];
        y[r] = static_cast<float>(mode == "mean" ? s / static_cast<double>(cols) : s);
    });
    return result;
}

MIGRAPHX_REGISTER_OP(row_reduce)

namespace {

/// How many trailing axes the op's `key` names, all of them and nothing else ({2, 3} of a rank-4
/// input: 2, a global average as ShuffleNet's reduce_mean), or 0.
std::size_t trailing_axes(instruction_ref ins, const std::string& key)
{
    auto v    = ins->get_operator().to_value();
    auto rank = static_cast<std::int64_t>(ins->inputs().front()->get_shape().lens().size());
    std::vector<std::int64_t> axes;
    if(v.at(key).is_array())
        axes = v.at(key).to_vector<std::int64_t>();
    else
        axes = {v.at(key).get_int64()};
    for(auto& a : axes)
        a = a < 0 ? a + rank : a;
    std::sort(axes.begin(), axes.end());
    for(std::size_t i = 0; i < axes.size(); i++)
        if(axes[i] != rank - static_cast<std::int64_t>(axes.size() - i))
            return 0;
    return axes.size();
}

} // namespace

void lower_row_ops::apply(module& m) const
{
    auto dd = pass_utils::data_dependent(m); // run by the reference ops, at their actual sizes
    for(auto ins = m.begin(); ins != m.end(); ++ins)
    {
        if(dd.count(&*ins) > 0)
            continue;
        if(ins->inputs().size() != 1)
            continue;
        auto x = ins->inputs().front();
        if(x->get_shape().type() != shape::float_type or x->get_shape().dynamic() or x->get_shape().lens().empty() or
           x->get_shape().elements() == 0)
            continue; // empty rows: the reference ops define the result
        auto n = ins->name();
        bool softmax = n == "softmax" or n == "logsoftmax";
        bool reduce  = n == "reduce_sum" or n == "reduce_mean" or n == "reduce_max" or n == "reduce_min";
        if(not softmax and not reduce)
            continue;
        auto k = trailing_axes(ins, softmax ? "axis" : "axes");
        if(k == 0 or (softmax and k != 1))
            continue;
        // The kernels read rows in place: make the input standard first if it is a view.
        if(not x->get_shape().standard())
            x = m.insert_instruction(ins, make_op("contiguous"), {x});
        if(softmax)
        {
            m.replace_instruction(ins, operation{row_softmax{n == "logsoftmax"}}, {x});
            continue;
        }
        // Several trailing axes are one row: reduced as {outer..., row}, the result reshaped back.
        const auto& l = x->get_shape().lens();
        if(k > 1)
        {
            std::vector<std::size_t> rows(l.begin(), l.end() - static_cast<std::ptrdiff_t>(k));
            rows.push_back(std::accumulate(l.end() - static_cast<std::ptrdiff_t>(k), l.end(), std::size_t{1},
                                           std::multiplies<>{}));
            x = m.insert_instruction(ins, make_op("reshape", {{"dims", rows}}), {x});
            auto r = m.insert_instruction(ins, operation{row_reduce{n.substr(7)}}, {x});
            m.replace_instruction(ins, make_op("reshape", {{"dims", ins->get_shape().lens()}}), {r});
        }
        else
            m.replace_instruction(ins, operation{row_reduce{n.substr(7)}}, {x});
    }
}

} // namespace cpu
} // namespace migraphx
