#include "targets/gpu/fp8_output.hpp"
#include "passes/pass_utils.hpp"
#include <migraphx/instruction.hpp>
#include <cmath>
#include <set>

namespace migraphx {
namespace gpu {

std::optional<fp8_output> fp8_output_of(const module& body)
{
    if(body.begin() == body.end())
        return std::nullopt;
    auto ret = std::prev(body.end());
    if(ret->name() != "@return" or ret->inputs().size() != 1)
        return std::nullopt;
    auto c = ret->inputs().front();
    if(c->name() != "convert" or c->get_shape().type() != shape::fp8e4m3fn_type)
        return std::nullopt;
    auto y      = c->inputs().front();
    float scale = 1; // a scale of 1 is simplified away: a bare cast
    if(y->name() == "div" or y->name() == "mul")
    {
        if(y->inputs().size() != 2 or y->outputs().size() != 1)
            return std::nullopt;
        auto s = pass_utils::scalar_value(y->inputs()[1]);
        if(not s or not(*s > 0) or not std::isfinite(*s))
            return std::nullopt;
        scale = y->name() == "div" ? 1.0f / *s : *s;
        if(not std::isfinite(scale) or not(scale > 0))
            return std::nullopt;
        y = y->inputs()[0];
    }
    // half -> float is exact: the product's epilogue computes in float anyway
    if(y->name() == "convert" and y->get_shape().type() == shape::float_type and y->outputs().size() == 1)
        y = y->inputs().front();
    return fp8_output{y, scale};
}

std::optional<float> e4m3_cast_scale(instruction_ref u)
{
    if(u->inputs().size() != 1 or u->get_shape().type() != shape::fp8e4m3fn_type)
        return std::nullopt;
    if(u->name() == "convert")
        return 1.0f;
    if(u->name() != "pointwise" or u->module_inputs().size() != 1)
        return std::nullopt;
    auto c = fp8_output_of(*u->module_inputs().front());
    if(not c or c->y->name() != "@param")
        return std::nullopt;
    return c->d_scale;
}

std::vector<instruction_ref> instructions_computing(const module& body, instruction_ref root)
{
    std::set<const instruction*> needed;
    std::vector<instruction_ref> todo{root};
    while(not todo.empty())
    {
        auto x = todo.back();
        todo.pop_back();
        if(x->name() == "@param" or not needed.insert(&*x).second)
            continue;
        todo.insert(todo.end(), x->inputs().begin(), x->inputs().end());
    }
    std::vector<instruction_ref> r;
    for(auto it = body.begin(); it != body.end(); ++it)
        if(needed.count(&*it) > 0)
            r.push_back(it);
    return r;
}

} // namespace gpu
} // namespace migraphx
