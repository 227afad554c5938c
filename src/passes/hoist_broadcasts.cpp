#include "passes/hoist_broadcasts.hpp"
#include "passes/pass_utils.hpp"
#include <migraphx/make_op.hpp>
#include <algorithm>
#include <iterator>
#include <vector>

namespace migraphx {

namespace {

/// The dims of length > 1 along which every input of ins is broadcast (stride 0).
std::vector<std::int64_t> shared_broadcast_dims(instruction_ref ins)
{
    const auto& lens = ins->get_shape().lens();
    std::vector<std::int64_t> dims;
    for(std::size_t d = 0; d < lens.size(); d++)
    {
        if(lens[d] <= 1)
            continue;
        bool all = std::all_of(ins->inputs().begin(), ins->inputs().end(), [&](instruction_ref x) {
            return x->get_shape().strides()[d] == 0;
        });
        if(all)
            dims.push_back(static_cast<std::int64_t>(d));
    }
    return dims;
}

/// Whether lens `from` broadcast to `to` (numpy's rule, aligned at the last dim).
bool broadcasts_to(const std::vector<std::size_t>& from, const std::vector<std::size_t>& to)
{
    if(from.size() > to.size())
        return false;
    auto off = to.size() - from.size();
    for(std::size_t i = 0; i < from.size(); i++)
        if(from[i] != 1 and from[i] != to[off + i])
            return false;
    return true;
}

/// x at index 0 of the hoisted dims, as a view of lens `small`: a broadcast is remade at that
/// size (so a broadcast literal stays one, and a hoisted result is used as it is), anything
/// else sliced.
instruction_ref reduced(module& m, instruction_ref pos, instruction_ref x, const std::vector<std::size_t>& small,
                        const operation& take)
{
    if(x->name() == "multibroadcast" and x->inputs().size() == 1)
    {
        auto y = x->inputs().front();
        if(y->get_shape().lens() == small)
            return y;
        if(broadcasts_to(y->get_shape().lens(), small))
            return m.insert_instruction(pos, make_op("multibroadcast", {{"out_lens", small}}), y);
    }
    return m.insert_instruction(pos, take, x);
}

} // namespace

void hoist_broadcasts::apply(module& m) const
{
    // Forward: a hoisted result is a broadcast, so its elementwise users hoist in turn.
    for(auto ins = m.begin(); ins != m.end(); ++ins)
    {
        // A returned value keeps its packed layout (a caller reads it as it was).
        if(not pass_utils::is_elementwise(ins) or pass_utils::is_returned(ins))
            continue;
        auto dims = shared_broadcast_dims(ins);
        if(dims.empty())
            continue;
        std::vector<std::int64_t> zeros(dims.size(), 0), ones(dims.size(), 1);
        auto take = make_op("slice", {{"axes", dims}, {"starts", zeros}, {"ends", ones}});
        auto small = ins->get_shape().lens();
        for(auto d : dims)
            small[d] = 1;
        std::vector<instruction_ref> args;
        for(auto x : ins->inputs())
            args.push_back(reduced(m, ins, x, small, take));
        auto once = m.insert_instruction(ins, ins->get_operator(), args);
        m.replace_instruction(ins, make_op("multibroadcast", {{"out_lens", ins->get_shape().lens()}}), {once});
    }
}

} // namespace migraphx
