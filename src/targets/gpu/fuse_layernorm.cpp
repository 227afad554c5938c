#include "targets/gpu/fuse_layernorm.hpp"
#include "passes/layernorm_match.hpp"
#include <migraphx/instruction.hpp>
#include <migraphx/make_op.hpp>

namespace migraphx {
namespace gpu {

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
}

} // namespace gpu
} // namespace migraphx
