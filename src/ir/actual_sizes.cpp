#include "ir/actual_sizes.hpp"
#include <migraphx/errors.hpp>
#include <migraphx/value.hpp>
#include <algorithm>
#include <cstdint>

namespace migraphx {

std::vector<operation> follow_actual_sizes(const operation& op,
                                           const shape& declared,
                                           const std::vector<std::pair<std::size_t, std::size_t>>& sizes)
{
    if(sizes.empty() or declared.type() == shape::tuple_type or declared.dynamic())
        return {};
    auto v = op.to_value();
    if(not v.is_object())
        return {};
    std::vector<std::int64_t> out(declared.lens().begin(), declared.lens().end());
    auto actual_of = [&](std::int64_t x) -> const std::pair<std::size_t, std::size_t>* {
        for(const auto& p : sizes)
            if(static_cast<std::int64_t>(p.first) == x)
                return &p;
        return nullptr;
    };
    // (member, element) positions holding a declared data-dependent size
    std::vector<std::pair<std::size_t, std::size_t>> where;
    const auto& members = v.get_object();
    for(std::size_t m = 0; m < members.size(); m++)
    {
        const auto& a = members[m].second;
        if(not a.is_array() or a.size() != out.size())
            continue;
        bool ints = true;
        for(const auto& x : a.get_array())
            ints = ints and x.is_integer();
        if(not ints or a.to_vector<std::int64_t>() != out)
            continue;
        for(std::size_t e = 0; e < out.size(); e++)
            if(actual_of(out[e]) != nullptr)
                where.emplace_back(m, e);
    }
    if(where.empty() or where.size() > 8)
        return {};
    std::vector<unsigned> masks;
    for(unsigned mask = 1; mask < (1u << where.size()); mask++)
        masks.push_back(mask);
    std::stable_sort(masks.begin(), masks.end(), [](unsigned a, unsigned b) {
        return __builtin_popcount(a) < __builtin_popcount(b);
    });
    std::vector<operation> result;
    for(auto mask : masks)
    {
        value w = value::make_object();
        for(std::size_t m = 0; m < members.size(); m++)
        {
            bool touched = false;
            std::vector<std::int64_t> xs;
            for(std::size_t k = 0; k < where.size(); k++)
            {
                if((mask & (1u << k)) == 0 or where[k].first != m)
                    continue;
                if(not touched)
                    xs = members[m].second.to_vector<std::int64_t>();
                touched = true;
                xs[where[k].second] = static_cast<std::int64_t>(actual_of(xs[where[k].second])->second);
            }
            if(touched)
                w.insert(members[m].first, value(xs));
            else
                w.insert(members[m].first, members[m].second);
        }
        try
        {
            operation copy = op;
            copy.from_value(w);
            result.push_back(copy);
        }
        catch(const exception&)
        {
        }
    }
    return result;
}

namespace {

/// actual_in with broadcast inputs shrunk (see actual_output_shape), or empty where none is.
std::vector<shape> shrink_broadcasts(const std::vector<shape>& declared_in, const std::vector<shape>& actual_in)
{
    if(declared_in.size() < 2 or actual_in.size() != declared_in.size())
        return {};
    const auto& lens = declared_in.front().lens();
    for(std::size_t i = 0; i < declared_in.size(); i++)
    {
        const auto& d = declared_in[i];
        const auto& a = actual_in[i];
        if(d.dynamic() or d.type() == shape::tuple_type or d.lens() != lens or a.ndim() != lens.size())
            return {};
    }
    std::vector<shape> result = actual_in;
    bool changed              = false;
    for(std::size_t dim = 0; dim < lens.size(); dim++)
    {
        // The one actual length that the inputs which hold fewer than declared agree on.
        std::optional<std::size_t> n;
        bool agree = true;
        for(const auto& a : actual_in)
            if(a.lens()[dim] != lens[dim])
            {
                agree = agree and (not n or *n == a.lens()[dim]);
                n     = a.lens()[dim];
            }
        if(not n or not agree)
            continue;
        for(auto& r : result)
        {
            if(r.lens()[dim] != lens[dim] or r.strides()[dim] != 0)
                continue;
            auto l = r.lens();
            l[dim] = *n;
            r      = shape{r.type(), l, r.strides()};
            changed = true;
        }
    }
    return changed ? result : std::vector<shape>{};
}

} // namespace

sized_op actual_output_shape(const operation& op,
                             const shape& declared_out,
                             const std::vector<shape>& declared_in,
                             const std::vector<shape>& actual_in,
                             const std::vector<module_ref>& mods)
{
    bool same = true;
    // declared size -> actual size, for each dim an input does not fill
    std::vector<std::pair<std::size_t, std::size_t>> sizes;
    for(std::size_t i = 0; i < declared_in.size() and i < actual_in.size(); i++)
    {
        const auto& want = declared_in[i];
        const auto& got  = actual_in[i];
        if(want.dynamic() or want.type() == shape::tuple_type or got.lens() == want.lens())
            continue;
        same = false;
        if(got.ndim() != want.ndim())
            continue;
        for(std::size_t d = 0; d < want.ndim(); d++)
        {
            auto n = want.lens()[d];
            bool known = std::any_of(sizes.begin(), sizes.end(), [&](const auto& p) { return p.first == n; });
            if(got.lens()[d] != n and not known)
                sizes.emplace_back(n, got.lens()[d]);
        }
    }
    if(same)
        return {std::nullopt, declared_out};
    // The op's shape for the inputs as they are, else with broadcast inputs shrunk.
    const auto shrunk = shrink_broadcasts(declared_in, actual_in);
    for(const auto* in : {&actual_in, &shrunk})
    {
        if(in == &shrunk and shrunk.empty())
            continue;
        auto inputs = in == &shrunk ? shrunk : std::vector<shape>{};
        for(const auto& cand : follow_actual_sizes(op, declared_out, sizes))
        {
            try
            {
                return {cand, cand.compute_shape(*in, mods), inputs};
            }
            catch(const exception&)
            {
            }
        }
        try
        {
            return {std::nullopt, op.compute_shape(*in, mods), inputs};
        }
        catch(const exception&)
        {
        }
    }
    return {std::nullopt, declared_out}; // the op takes no other shapes: let compute say why
}

void view_sized_inputs(const sized_op& sized, std::vector<argument>& args)
{
    for(std::size_t i = 0; i < sized.inputs.size() and i < args.size(); i++)
        if(sized.inputs[i] != args[i].get_shape())
            args[i] = args[i].reshape(sized.inputs[i]);
}

std::optional<sized_op> sized_for(instruction_ref ins, std::vector<argument>& args)
{
    auto resized = [&](std::size_t i) {
        const auto& want = ins->inputs()[i]->get_shape();
        const auto& got  = args[i].get_shape();
        if(got == want) // the common case, and quick: the input's own shape, shared
            return false;
        return not want.dynamic() and want.type() != shape::tuple_type and got.lens() != want.lens();
    };
    bool any_resized = false;
    for(std::size_t i = 0; i < args.size() and i < ins->inputs().size() and not any_resized; i++)
        any_resized = resized(i);
    if(not any_resized)
        return std::nullopt;
    std::vector<shape> declared_in, actual_in;
    for(std::size_t i = 0; i < args.size(); i++)
    {
        declared_in.push_back(ins->inputs()[i]->get_shape());
        actual_in.push_back(args[i].get_shape());
    }
    auto sized = actual_output_shape(ins->get_operator(), ins->get_shape(), declared_in, actual_in);
    view_sized_inputs(sized, args);
    return sized;
}

argument compute_sized(instruction_ref ins, std::vector<argument>& args, context* ctx)
{
    auto sized     = sized_for(ins, args);
    const auto& op = sized and sized->replaced ? *sized->replaced : ins->get_operator();
    const auto& out = sized ? sized->output : ins->get_shape();
    return ctx != nullptr ? op.compute(*ctx, out, args) : op.compute(out, args);
}

} // namespace migraphx
