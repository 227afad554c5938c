#include "targets/gpu/fuse_layernorm.hpp"
#include "passes/dead_code_elimination.hpp"
#include "passes/layernorm_match.hpp"
#include "ir/env.hpp"
#include <migraphx/instruction.hpp>
#include <migraphx/make_op.hpp>
#include <algorithm>

namespace migraphx {
namespace gpu {

namespace {

/// Whether x is a product's or a convolution's result within 4 steps (plus a bias, converted):
/// an add of it is the gemm's to take as its residual epilogue (lowering.cpp), or an
/// int8_convolution's (fuse_int8.cpp), not the layernorm's. An int8 product's dequantization
/// chain is longer, and its residual add (a pointwise kernel: int8 gemms take no epilogue) does
/// fold into the layernorm (BERT int8+fp16: 93 -> 91 kernels).
bool from_product(instruction_ref x, int depth = 4)
{
    const auto& n = x->name();
    if(n == "dot" or n == "quant_dot" or n == "fp8_dot" or n == "convolution" or n == "quant_convolution" or
       n == "int8_convolution")
        return true;
    if(depth == 0 or n == "gather" or n.front() == '@')
        return false;
    return std::any_of(x->inputs().begin(), x->inputs().end(), [&](instruction_ref i) {
        return from_product(i, depth - 1);
    });
}

/// layernorm(a + b, ...) -> layernorm[addends=2](a, b, ...) where the add has no other reader and
/// no product's epilogue would take it (a transformer's embeddings: gather + position table).
void fold_addends(module& m, instruction_ref ln)
{
    auto x = ln->inputs().front();
    if(x->name() != "add" or x->outputs().size() != 1 or x->inputs().size() != 2 or
       std::any_of(x->inputs().begin(), x->inputs().end(), [](instruction_ref i) { return from_product(i); }))
        return;
    auto v       = ln->get_operator().to_value();
    v["addends"] = 2;
    std::vector<instruction_ref> args = x->inputs();
    args.insert(args.end(), ln->inputs().begin() + 1, ln->inputs().end());
    m.replace_instruction(ln, make_op("layernorm", v), args);
}

/// convert(layernorm(x: half), float) -> layernorm[float_out=1](x): a half model's last layer norm,
/// its float output written by the kernel (a copy kernel after it before).
void fold_convert(module& m, instruction_ref ln)
{
    if(ln->get_shape().type() != shape::half_type or ln->outputs().size() != 1)
        return;
    auto c = ln->outputs().front();
    if(c->name() != "convert" or c->get_shape().type() != shape::float_type)
        return;
    auto v         = ln->get_operator().to_value();
    v["float_out"] = true;
    m.replace_instruction(c, make_op("layernorm", v), ln->inputs());
}

} // namespace

void fuse_layernorm::apply(module& m) const
{
    for(auto ins = m.begin(); ins != m.end(); ++ins)
    {
        auto found = match_layernorm(ins);
        if(not found)
            continue;
        auto t = found->x->get_shape().type();
        if(t != shape::float_type and t != shape::half_type)
            continue;
        auto op = make_op("layernorm", {{"epsilon", found->epsilon}});
        // A trained model's scale and shift go into the same kernel (a pointwise kernel after it
        // before: another read and write of the whole tensor).
        if(auto a = match_layernorm_affine(found->y))
        {
            std::vector<instruction_ref> args{found->x, a->scale};
            if(a->shift)
                args.push_back(*a->shift);
            m.replace_instruction(a->out, op, args);
        }
        else
            m.replace_instruction(found->y, op, {found->x});
    }
    if(env_enabled("MIGRAPHX_DISABLE_LAYERNORM_FOLDS"))
        return;
    // The matched patterns' instructions go first, so that the readers counted below are real.
    dead_code_elimination{}.apply(m);
    std::vector<instruction_ref> norms;
    for(auto ins = m.begin(); ins != m.end(); ++ins)
        if(ins->name() == "layernorm")
            norms.push_back(ins);
    for(auto ln : norms)
    {
        fold_addends(m, ln);
        fold_convert(m, ln);
    }
}

} // namespace gpu
} // namespace migraphx
