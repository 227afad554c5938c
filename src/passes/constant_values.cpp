#include "passes/constant_values.hpp"
#include <migraphx/literal.hpp>
#include <migraphx/operation.hpp>
#include <algorithm>

namespace migraphx {
namespace pass_utils {

instruction_ref only_user(instruction_ref x)
{
    return x->outputs().size() == 1 ? x->outputs().front() : instruction_ref{};
}

std::optional<argument> constant_value(instruction_ref x)
{
    if(x->name() == "@literal")
        return x->get_literal().get_argument();
    if(x->inputs().size() != 1 or x->get_operator().output_alias({x->inputs()[0]->get_shape()}) != 0)
        return std::nullopt;
    auto in = constant_value(x->inputs()[0]);
    if(not in)
        return std::nullopt;
    return x->get_operator().compute(x->get_shape(), {*in});
}

std::optional<std::vector<float>> along_axis(instruction_ref c, std::size_t axis, std::size_t n)
{
    // quick paths: a broadcast literal (a scalar, or {n} broadcast along axis)
    if(c->name() == "multibroadcast" or c->name() == "broadcast")
    {
        auto src = c->inputs().front();
        if(src->name() == "@literal" and src->get_shape().elements() == 1)
            return std::vector<float>(n, src->get_literal().to_vector<float>().front());
        if(src->name() == "@literal" and c->name() == "broadcast" and src->get_shape().lens().size() == 1 and
           src->get_shape().elements() == n and
           c->get_operator().to_value().at("axis").to<std::size_t>() == axis)
            return src->get_literal().to_vector<float>();
    }
    auto a = constant_value(c);
    if(not a or a->get_shape().lens().size() <= axis or a->get_shape().lens()[axis] != n)
        return std::nullopt;
    const auto& lens = a->get_shape().lens();
    auto v           = a->to_vector<float>();
    std::size_t inner = 1;
    for(std::size_t i = axis + 1; i < lens.size(); i++)
        inner *= lens[i];
    std::vector<float> r(n);
    for(std::size_t k = 0; k < n; k++)
        r[k] = v[k * inner];
    for(std::size_t i = 0; i < v.size(); i++)
        if(v[i] != r[(i / inner) % n])
            return std::nullopt;
    return r;
}

std::optional<float> uniform_constant(instruction_ref c)
{
    // quick path: a one-element literal behind broadcasts (quantize's scales), not materialized
    auto src = c;
    while(src->name() == "multibroadcast" or src->name() == "broadcast")
        src = src->inputs().front();
    if(src->name() == "@literal" and src->get_shape().elements() == 1)
        return src->get_literal().to_vector<float>().front();
    auto a = constant_value(c);
    if(not a or a->get_shape().elements() == 0)
        return std::nullopt;
    auto v = a->to_vector<float>();
    if(std::any_of(v.begin(), v.end(), [&](float x) { return x != v[0]; }))
        return std::nullopt;
    return v[0];
}

} // namespace pass_utils
} // namespace migraphx
