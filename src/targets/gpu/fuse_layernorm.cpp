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
        m.replace_instruction(found->y, make_op("layernorm", {{"epsilon", found->epsilon}}), {found->x});
    }
}

} // namespace gpu
} // namespace migraphx
