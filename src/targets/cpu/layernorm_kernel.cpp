#include "targets/cpu/layernorm_kernel.hpp"
#include "targets/cpu/dnnl_context.hpp"
#include <migraphx/errors.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/register_op.hpp>
#include <cmath>
#include <optional>

namespace migraphx {
namespace cpu {
namespace {

__attribute__((target_clones("avx2", "default"))) void
normalize_row(const float* x, float* y, std::int64_t n, float eps)
{
    float sum = 0;
    for(std::int64_t i = 0; i < n; i++)
        sum += x[i];
    float mean = sum / static_cast<float>(n);
    float sq   = 0;
    for(std::int64_t i = 0; i < n; i++)
    {
        float d = x[i] - mean;
        sq += d * d;
    }
    float inv = 1.0f / std::sqrt(sq / static_cast<float>(n) + eps);
    for(std::int64_t i = 0; i < n; i++)
        y[i] = (x[i] - mean) * inv;
}

} // namespace

shape layernorm_kernel::compute_shape(const std::vector<shape>& in) const
{
    if(in.size() != 1 or in[0].type() != shape::float_type or not in[0].standard() or in[0].lens().empty() or
       in[0].lens().back() == 0)
        MIGRAPHX_THROW("cpu::layernorm: expects one standard float tensor with a non-empty last axis");
    return in[0];
}

argument layernorm_kernel::compute(const shape& out, const std::vector<argument>& args) const
{
    argument result = uninitialized(out);
    const auto* x   = reinterpret_cast<const float*>(args[0].data());
    auto* y         = reinterpret_cast<float*>(result.data());
    auto cols       = static_cast<std::int64_t>(out.lens().back());
    auto rows       = static_cast<std::int64_t>(out.elements()) / cols;
#pragma omp parallel for schedule(static) if(rows * cols > 16384)
    for(std::int64_t r = 0; r < rows; r++)
        normalize_row(x + r * cols, y + r * cols, cols, epsilon);
    return result;
}

MIGRAPHX_REGISTER_OP(layernorm_kernel)

namespace {

instruction_ref sole_user(instruction_ref x)
{
    return x->outputs().size() == 1 ? x->outputs().front() : instruction_ref{};
}

bool over_last_axis(instruction_ref r)
{
    if(r->name() != "reduce_mean")
        return false;
    auto axes = r->get_operator().to_value().at("axes").to_vector<std::int64_t>();
    auto rank = static_cast<std::int64_t>(r->get_shape().lens().size());
    return axes.size() == 1 and (axes[0] == rank - 1 or axes[0] == -1);
}

/// The multibroadcast of x that is x's only user, or end.
instruction_ref broadcast_of(instruction_ref x)
{
    auto b = sole_user(x);
    return b != instruction_ref{} and b->name() == "multibroadcast" ? b : instruction_ref{};
}

std::optional<float> scalar_of(instruction_ref c)
{
    while(c->name() == "multibroadcast" or c->name() == "broadcast")
        c = c->inputs().front();
    if(c->name() != "@literal" or c->get_shape().elements() != 1)
        return std::nullopt;
    return c->get_literal().to_vector<float>().front();
}

/// The instruction computing the normalized x, and epsilon, if mean is the start of the pattern.
std::optional<std::pair<instruction_ref, float>> match(instruction_ref mean)
{
    const instruction_ref none{};
    if(not over_last_axis(mean))
        return std::nullopt;
    auto x = mean->inputs().front();
    if(x->get_shape().type() != shape::float_type)
        return std::nullopt;
    auto mb = broadcast_of(mean);
    if(mb == none)
        return std::nullopt;
    auto d = sole_user(mb);
    if(d == none or d->name() != "sub" or d->inputs()[0] != x or d->outputs().size() != 2)
        return std::nullopt;
    instruction_ref sq = none, y = none;
    for(auto u : d->outputs())
    {
        if(u->name() == "mul" and u->inputs()[0] == d and u->inputs()[1] == d)
            sq = u;
        else if(u->name() == "mul")
            y = u;
    }
    if(sq == none or y == none)
        return std::nullopt;
    auto var = sole_user(sq);
    if(var == none or not over_last_axis(var))
        return std::nullopt;
    auto ve = sole_user(var);
    if(ve == none or ve->name() != "add")
        return std::nullopt;
    auto eps = scalar_of(ve->inputs()[0] == var ? ve->inputs()[1] : ve->inputs()[0]);
    auto inv = sole_user(ve);
    if(not eps or inv == none or inv->name() != "rsqrt")
        return std::nullopt;
    auto ib = broadcast_of(inv);
    if(ib == none or sole_user(ib) != y or not(y->inputs()[0] == d and y->inputs()[1] == ib))
        return std::nullopt;
    return std::make_pair(y, *eps);
}

} // namespace

void fuse_layernorm::apply(module& m) const
{
    for(auto ins = m.begin(); ins != m.end(); ++ins)
    {
        auto found = match(ins);
        if(not found)
            continue;
        auto x = ins->inputs().front();
        if(not x->get_shape().standard())
            x = m.insert_instruction(found->first, make_op("contiguous"), {x});
        m.replace_instruction(found->first, operation{layernorm_kernel{found->second}}, {x});
    }
}

} // namespace cpu
} // namespace migraphx
