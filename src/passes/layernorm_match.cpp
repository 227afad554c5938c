#include "passes/layernorm_match.hpp"
#include "passes/pass_utils.hpp"
#include <migraphx/instruction.hpp>
#include <migraphx/literal.hpp>

namespace migraphx {

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

std::optional<float> scalar_of(instruction_ref c) { return pass_utils::scalar_value(c); }

} // namespace

std::optional<layernorm_match> match_layernorm(instruction_ref mean)
{
    const instruction_ref none{};
    if(not over_last_axis(mean))
        return std::nullopt;
    auto x = mean->inputs().front();
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
    if(ve == none)
        return std::nullopt;
    // rsqrt(var) alone: an epsilon of 0, or one that half cannot hold (BERT's 1e-12 becomes 0
    // in quantize_fp16 and the add is simplified away).
    std::optional<float> eps = 0.0f;
    auto inv                 = ve;
    if(ve->name() == "add")
    {
        eps = scalar_of(ve->inputs()[0] == var ? ve->inputs()[1] : ve->inputs()[0]);
        inv = sole_user(ve);
    }
    if(not eps or inv == none or inv->name() != "rsqrt")
        return std::nullopt;
    auto ib = broadcast_of(inv);
    if(ib == none or sole_user(ib) != y or not(y->inputs()[0] == d and y->inputs()[1] == ib))
        return std::nullopt;
    return layernorm_match{x, y, *eps};
}

namespace {

/// Whether v holds one value per position of y's last axis: y's lens and type, every other dim
/// broadcast.
bool along_last_axis(instruction_ref v, instruction_ref y)
{
    const auto& s = v->get_shape();
    const auto& t = y->get_shape();
    if(s.dynamic() or s.lens() != t.lens() or s.type() != t.type() or s.lens().empty())
        return false;
    for(std::size_t d = 0; d + 1 < s.lens().size(); d++)
        if(s.strides()[d] != 0 and s.lens()[d] != 1)
            return false;
    return true;
}

/// The operand of the binary op `op` other than `x`, where it lies along y's last axis.
std::optional<instruction_ref> other_operand(instruction_ref op, instruction_ref x, instruction_ref y)
{
    if(op->inputs().size() != 2 or (op->inputs()[0] == x) == (op->inputs()[1] == x))
        return std::nullopt;
    auto v = op->inputs()[0] == x ? op->inputs()[1] : op->inputs()[0];
    if(not along_last_axis(v, y))
        return std::nullopt;
    return v;
}

} // namespace

std::optional<layernorm_affine> match_layernorm_affine(instruction_ref y)
{
    auto mul = sole_user(y);
    if(mul == instruction_ref{} or mul->name() != "mul")
        return std::nullopt;
    auto scale = other_operand(mul, y, y);
    if(not scale)
        return std::nullopt;
    layernorm_affine a{*scale, std::nullopt, mul};
    auto add = sole_user(mul);
    if(add != instruction_ref{} and add->name() == "add")
    {
        if(auto shift = other_operand(add, mul, y))
        {
            a.shift = *shift;
            a.out   = add;
        }
    }
    return a;
}


} // namespace migraphx
