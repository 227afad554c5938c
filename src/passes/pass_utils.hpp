#ifndef MIGRAPHX_PASSES_PASS_UTILS_HPP
#define MIGRAPHX_PASSES_PASS_UTILS_HPP

#include <algorithm>
#include <migraphx/instruction.hpp>
#include <migraphx/module.hpp>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

namespace migraphx {
namespace pass_utils {

/// The op declares {"side_effects": true}: it must run even when its result is unused.
inline bool has_side_effects(const operation& op)
{
    auto attrs = op.attributes();
    return attrs.is_object() and attrs.contains("side_effects") and attrs.at("side_effects").is_number() and
           attrs.at("side_effects").get_bool();
}

/// @param, @literal and @return.
inline bool is_builtin(instruction_ref ins) { return ins->name().front() == '@'; }

inline std::vector<shape> input_shapes(instruction_ref ins)
{
    std::vector<shape> r;
    r.reserve(ins->inputs().size());
    for(auto in : ins->inputs())
        r.push_back(in->get_shape());
    return r;
}

/// Whether x is parameter k of a pointwise body (fuse_pointwise names them x0, x1, ...: the
/// owning op's inputs in order).
inline bool is_pointwise_param(instruction_ref x, std::size_t k)
{
    if(x->name() != "@param")
        return false;
    // (compared in two parts: GCC 12's -Wrestrict misfires on "x" + std::to_string(k))
    auto name = x->get_operator().to_value().at("parameter").get_string();
    return name.size() > 1 and name[0] == 'x' and name.substr(1) == std::to_string(k);
}

/// The value of a one-element constant (a literal, maybe behind broadcasts) as float, if x is one.
inline std::optional<float> scalar_value(instruction_ref x)
{
    while(x->name() == "broadcast" or x->name() == "multibroadcast")
        x = x->inputs().front();
    if(x->name() != "@literal" or x->get_shape().elements() != 1)
        return std::nullopt;
    return x->get_literal().to_vector<float>().front();
}

/// A broadcast view (broadcast/multibroadcast) of a literal, or the literal itself; the literal
/// is returned, or end if x is neither.
inline instruction_ref broadcast_literal(instruction_ref x, instruction_ref end)
{
    if(x->name() == "broadcast" or x->name() == "multibroadcast")
        x = x->inputs().front();
    return x->name() == "@literal" ? x : end;
}

/// ins is an output of its module (an operand of @return): callers read it as it is laid out.
inline bool is_returned(instruction_ref ins)
{
    return std::any_of(
        ins->outputs().begin(), ins->outputs().end(), [](instruction_ref u) { return u->name() == "@return"; });
}

/// An elementwise op (attribute "pointwise") over static, non-tuple inputs of its output's lens,
/// with no sub-module.
inline bool is_elementwise(instruction_ref ins)
{
    if(is_builtin(ins) or not ins->module_inputs().empty() or ins->inputs().empty())
        return false;
    auto attrs = ins->get_operator().attributes();
    if(not attrs.is_object() or not attrs.contains("pointwise") or not attrs.at("pointwise").get_bool())
        return false;
    const auto& s = ins->get_shape();
    if(s.dynamic() or s.type() == shape::tuple_type)
        return false;
    return std::all_of(ins->inputs().begin(), ins->inputs().end(), [&](instruction_ref in) {
        const auto& is = in->get_shape();
        return not is.dynamic() and is.type() != shape::tuple_type and is.lens() == s.lens();
    });
}

/// Every element of the literal (or broadcast literal) x equals v.
inline bool all_equal_to(instruction_ref x, instruction_ref end, double v)
{
    auto l = broadcast_literal(x, end);
    if(l == end or l->get_shape().elements() == 0)
        return false;
    auto xs = l->get_literal().to_vector<double>();
    for(auto e : xs)
        if(e != v)
            return false;
    return true;
}

/// Whether the op's output size depends on the data (attribute dynamic_output,
/// docs/internal/op-conventions.md): its static shape is only the largest one.
inline bool has_dynamic_output(instruction_ref ins)
{
    auto a = ins->get_operator().attributes();
    return a.is_object() and a.contains("dynamic_output") and a.at("dynamic_output").get_bool();
}

/// The data-dependent results of m and everything computed from them (@return aside). Their
/// actual sizes may be smaller than their static ones, so a target's kernels and library calls,
/// built for static shapes, leave them to the reference ops, which run at the actual sizes.
inline std::unordered_set<const instruction*> data_dependent(const module& m)
{
    std::unordered_set<const instruction*> dd;
    for(auto it = m.begin(); it != m.end(); ++it)
    {
        bool d = has_dynamic_output(it);
        for(auto x : it->inputs())
            d = d or dd.count(&*x) > 0;
        if(d and it->name() != "@return")
            dd.insert(&*it);
    }
    return dd;
}

} // namespace pass_utils
} // namespace migraphx

#endif
