#include "quantize/constant_expr.hpp"
#include <algorithm>
#include <vector>

namespace migraphx {

namespace {

/// An op the quantizers must not evaluate at rewrite time: calibration captures and ops with
/// side effects, whose value is not the same thing as their result.
bool opaque(instruction_ref x)
{
    return x->name() == "quantize_capture" or x->get_operator().attributes().contains("side_effects");
}

bool leaf_or_too_deep(instruction_ref x, int depth)
{
    return depth > 16 or x->name().empty() or x->name().front() == '@' or not x->module_inputs().empty() or
           x->inputs().empty();
}

} // namespace

std::optional<argument> eval_constant(instruction_ref x, int depth)
{
    if(x->name() == "@literal")
        return x->get_literal().get_argument();
    if(leaf_or_too_deep(x, depth))
        return std::nullopt;
    std::vector<argument> args;
    for(auto in : x->inputs())
    {
        auto a = eval_constant(in, depth + 1);
        if(not a)
            return std::nullopt;
        args.push_back(*a);
    }
    if(opaque(x))
        return std::nullopt;
    return x->get_operator().compute(x->get_shape(), args);
}

bool is_constant(instruction_ref x, int depth)
{
    if(x->name() == "@literal")
        return true;
    if(leaf_or_too_deep(x, depth) or opaque(x))
        return false;
    return std::all_of(x->inputs().begin(), x->inputs().end(), [&](auto in) { return is_constant(in, depth + 1); });
}

} // namespace migraphx
