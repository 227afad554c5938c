#include "targets/gpu/fuse_fp8.hpp"
#include "ir/env.hpp"
#include "passes/constant_values.hpp"
#include "passes/dead_code_elimination.hpp"
#include <migraphx/instruction.hpp>
#include <migraphx/make_op.hpp>
#include <optional>

namespace migraphx {
namespace gpu {

namespace {

struct fp8_operand
{
    instruction_ref value; // the fp8 tensor
    float scale = 1;
};

/// x = dequantizelinear(q, s[, zp]) with q fp8, s one value (maybe broadcast) and zp zero,
/// maybe broadcast itself (quantize_fp8 keeps a linear layer's weights' broadcast over the batch
/// after their dequantize): q with the same broadcasts, inserted before `pos`.
std::optional<fp8_operand> dequantized_fp8(module& m, instruction_ref x, instruction_ref pos)
{
    std::vector<instruction_ref> views;
    while(x->name() == "multibroadcast" or x->name() == "broadcast")
    {
        views.push_back(x);
        x = x->inputs().front();
    }
    if(x->name() != "dequantizelinear" or x->inputs()[0]->get_shape().type() != shape::fp8e4m3fn_type)
        return std::nullopt;
    auto s = pass_utils::uniform_constant(x->inputs()[1]);
    if(not s or not(*s > 0))
        return std::nullopt;
    if(x->inputs().size() == 3)
    {
        auto zp = pass_utils::uniform_constant(x->inputs()[2]);
        if(not zp or *zp != 0)
            return std::nullopt;
    }
    auto q = x->inputs()[0];
    for(auto v = views.rbegin(); v != views.rend(); ++v)
        q = m.insert_instruction(pos, (*v)->get_operator(), {q});
    return fp8_operand{q, *s};
}

/// What cuBLASLt's fp8 kernels take: rows of 16-byte multiples (K for both operands, N for the
/// transposed weights' copy and the output), static shapes, half or float out.
bool fits(instruction_ref dot)
{
    const auto& out = dot->get_shape();
    const auto& a   = dot->inputs()[0]->get_shape();
    if(out.dynamic() or a.dynamic() or (out.type() != shape::half_type and out.type() != shape::float_type))
        return false;
    auto k = a.lens().back(), n = out.lens().back();
    return k > 0 and n > 0 and k % 16 == 0 and n % 16 == 0;
}

} // namespace

void fuse_fp8::apply(module& m) const
{
    if(sm < 89 or env_enabled("MIGRAPHX_DISABLE_FP8_GEMM"))
        return;
    for(auto ins = m.begin(); ins != m.end(); ++ins)
    {
        if(ins->name() != "dot" or not fits(ins))
            continue;
        auto a = dequantized_fp8(m, ins->inputs()[0], ins);
        auto b = a ? dequantized_fp8(m, ins->inputs()[1], ins) : std::nullopt;
        if(not a or not b)
            continue; // a view made for a, if any, is dead code
        m.replace_instruction(
            ins,
            make_op("fp8_dot", {{"alpha", a->scale * b->scale}, {"out_type", ins->get_shape().type()}}),
            {a->value, b->value});
    }
    dead_code_elimination{}.apply(m);
}

} // namespace gpu
} // namespace migraphx
