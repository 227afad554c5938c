#include "passes/simplify_reshapes.hpp"
#include <migraphx/make_op.hpp>
#include <algorithm>
#include <iterator>
#include <optional>
#include <utility>
#include <vector>
#include <set>
#include <string>

namespace migraphx {

namespace {

bool is_reshaper(instruction_ref ins)
{
    static const std::set<std::string> names = {"reshape", "squeeze", "unsqueeze", "flatten"};
    return names.count(ins->name()) != 0;
}

// Ops that only relabel the memory of their input: with an unchanged shape they do nothing.
bool is_noop_when_same_shape(instruction_ref ins)
{
    static const std::set<std::string> names = {
        "reshape", "squeeze", "unsqueeze", "flatten", "transpose", "multibroadcast", "contiguous",
        "slice"}; // a slice to the same lens takes every element
    return names.count(ins->name()) != 0;
}

std::vector<std::int64_t> permutation_of(instruction_ref ins)
{
    return ins->get_operator().to_value().at("permutation").to_vector<std::int64_t>();
}

bool is_identity(const std::vector<std::int64_t>& perm)
{
    for(std::size_t i = 0; i < perm.size(); i++)
        if(perm[i] != static_cast<std::int64_t>(i))
            return false;
    return true;
}

/// For a reshape that only splits dims of its input (lens `in` -> `out`): the out dims each input
/// dim becomes, in order (a dim of 1 may become none); nullopt when a dim is merged with another.
std::optional<std::vector<std::vector<std::size_t>>> split_groups(const std::vector<std::size_t>& in,
                                                                  const std::vector<std::size_t>& out)
{
    std::vector<std::vector<std::size_t>> groups(in.size());
    std::size_t j = 0;
    for(std::size_t a = 0; a < in.size(); a++)
    {
        std::size_t prod = 1;
        while(prod < in[a] and j < out.size())
        {
            groups[a].push_back(out[j]);
            prod *= out[j++];
        }
        if(prod != in[a])
            return std::nullopt;
    }
    for(; j < out.size(); j++) // trailing 1s
    {
        if(out[j] != 1 or in.empty())
            return std::nullopt;
        groups.back().push_back(1);
    }
    return groups;
}

/// A slice's [start, end) on every axis of its input (ops/slice.cpp's normalisation).
std::vector<std::pair<std::size_t, std::size_t>> slice_ranges(instruction_ref s)
{
    auto v      = s->get_operator().to_value();
    auto axes   = v.at("axes").to_vector<std::int64_t>();
    auto starts = v.at("starts").to_vector<std::int64_t>();
    auto ends   = v.at("ends").to_vector<std::int64_t>();
    const auto& lens = s->inputs().front()->get_shape().lens();
    std::vector<std::pair<std::size_t, std::size_t>> r;
    for(auto l : lens)
        r.emplace_back(0, l);
    auto n = static_cast<std::int64_t>(lens.size());
    for(std::size_t i = 0; i < axes.size(); i++)
    {
        auto axis  = axes[i] < 0 ? axes[i] + n : axes[i];
        auto len   = static_cast<std::int64_t>(lens[axis]);
        auto clamp = [&](std::int64_t x) { return std::min(x < 0 ? std::max<std::int64_t>(x + len, 0) : x, len); };
        auto st    = clamp(starts[i]);
        r[axis]    = {st, std::max(st, clamp(ends[i]))};
    }
    return r;
}

/// reshape(slice(y)) (a contiguous between them or not) where y is standard and the reshape
/// only splits dims, each sliced dim at a multiple of its inner factors: the slice moves after
/// a reshape of y, so both are views (the copy a reshape of a sliced tensor makes is gone).
/// [B, S, 3D] -> slice D..2D on axis 2 -> reshape [B, S, H, D/H] is reshape y to [B, S, 3H, D/H]
/// -> slice H..2H on axis 2.
bool slice_after_reshape(module& m, instruction_ref ins)
{
    if(ins->name() != "reshape")
        return false;
    auto s = ins->inputs().front();
    if(s->name() == "contiguous" and s->inputs().size() == 1)
        s = s->inputs().front();
    if(s->name() != "slice" or s->inputs().size() != 1)
        return false;
    auto y = s->inputs().front();
    if(not y->get_shape().standard() or y->get_shape().dynamic())
        return false;
    auto groups = split_groups(s->get_shape().lens(), ins->get_shape().lens());
    if(not groups)
        return false;
    auto ranges = slice_ranges(s);
    const auto& ylens = y->get_shape().lens();
    std::vector<std::int64_t> dims, axes, starts, ends;
    for(std::size_t a = 0; a < ylens.size(); a++)
    {
        const auto& g = (*groups)[a];
        auto [st, en] = ranges[a];
        if(st == 0 and en == ylens[a])
        {
            dims.insert(dims.end(), g.begin(), g.end());
            continue;
        }
        if(g.empty())
            return false;
        std::size_t inner = 1;
        for(std::size_t k = 1; k < g.size(); k++)
            inner *= g[k];
        if(inner == 0 or st % inner != 0 or ylens[a] % inner != 0)
            return false;
        axes.push_back(static_cast<std::int64_t>(dims.size()));
        starts.push_back(static_cast<std::int64_t>(st / inner));
        ends.push_back(static_cast<std::int64_t>(en / inner));
        dims.push_back(static_cast<std::int64_t>(ylens[a] / inner));
        dims.insert(dims.end(), g.begin() + 1, g.end());
    }
    if(axes.empty())
        return false; // nothing sliced: the reshape chain rule's case
    auto r = m.insert_instruction(ins, make_op("reshape", {{"dims", dims}}), y);
    m.replace_instruction(ins, make_op("slice", {{"axes", axes}, {"starts", starts}, {"ends", ends}}), {r});
    return true;
}

enum class result
{
    none,
    replaced, // users moved to another instruction; ins is now unused
    changed   // ins rewritten in place; it may simplify further
};

result simplify(module& m, instruction_ref ins)
{
    if(ins->name() == "identity" and ins->inputs().size() == 1)
    {
        m.replace_instruction(ins, ins->inputs().front());
        return result::replaced;
    }
    if(ins->inputs().size() != 1 or not ins->module_inputs().empty())
        return result::none;
    auto x = ins->inputs().front();

    if(is_noop_when_same_shape(ins) and x->get_shape() == ins->get_shape())
    {
        m.replace_instruction(ins, x);
        return result::replaced;
    }
    if(ins->name() == "contiguous" and x->get_shape().standard() and
       x->get_shape().lens() == ins->get_shape().lens())
    {
        m.replace_instruction(ins, x);
        return result::replaced;
    }
    if(ins->name() == "transpose" and x->name() == "transpose")
    {
        auto outer = permutation_of(ins);
        auto inner = permutation_of(x);
        std::vector<std::int64_t> perm(outer.size());
        for(std::size_t i = 0; i < outer.size(); i++)
            perm[i] = inner[outer[i]];
        auto src = x->inputs().front();
        if(is_identity(perm))
        {
            m.replace_instruction(ins, src);
            return result::replaced;
        }
        m.replace_instruction(ins, make_op("transpose", {{"permutation", perm}}), {src});
        return result::changed;
    }
    if(slice_after_reshape(m, ins))
        return result::changed;
    if(is_reshaper(ins) and is_reshaper(x))
    {
        // Every op of the chain keeps the row-major order of the elements, so one reshape to the
        // final lens is the same. A reshape's result is standard whatever its input; the other
        // ops are views and agree with a reshape only over a standard source.
        auto src = x;
        while(is_reshaper(src))
            src = src->inputs().front();
        if(ins->name() != "reshape" and not src->get_shape().standard())
            return result::none;
        if(src->get_shape() == ins->get_shape())
        {
            m.replace_instruction(ins, src);
            return result::replaced;
        }
        const auto& lens = ins->get_shape().lens();
        std::vector<std::int64_t> dims(lens.begin(), lens.end());
        m.replace_instruction(ins, make_op("reshape", {{"dims", dims}}), {src});
        return result::changed;
    }
    return result::none;
}

} // namespace

void simplify_reshapes::apply(module& m) const
{
    // Forward, so a chain is folded into its last op; an op changed in place is looked at
    // again, as its new input may combine with it once more.
    for(auto ins = m.begin(); ins != m.end(); ++ins)
    {
        if(ins->name() == "@return" or ins->name() == "@param" or ins->name() == "@literal")
            continue;
        // Each in-place change shortens the chain above ins, so this ends.
        while(simplify(m, ins) == result::changed)
        {
        }
    }
}

} // namespace migraphx
